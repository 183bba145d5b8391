// The style plugin in the real host over a memory chat, talking through the in-process client to
// the real service on a temp SQLite database seeded with a fixture.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it, vi } from 'vitest';
import { createHttpClient } from '../../src/client/http-client.ts';
import type { OverlayStyleClient } from '../../src/client/overlay-style-client.ts';
import { BUILT_IN_PLUGIN_DIR } from '../../src/host/plugin-loader.ts';
import type { SeedResult } from '../../src/service/seed.ts';
import { chatAnswers, startTestHost } from '../../test/host/host-fixture.ts';
import type { TestHost } from '../../test/host/host-fixture.ts';
import { startPluginWorld } from '../../test/host/plugin-world.ts';
import { broadcasterTags, moderatorTags, subscriberTags, viewerTags, vipTags } from '../../test/host/irc-tags.ts';
import type { ChatTags } from '../../src/host/chat-transport.ts';
import type { Harness } from '../../test/service/core/service-harness.ts';

const FIXTURE = {
  accounts: [{
    login: 'streamer',
    premium: true,
    overlays: [
      { name: 'Main', template: 'bubbles', default: true, values: { 'bubble.width': 420 } },
      { name: 'Synced', template: 'bubbles', sync_source: 'Main', overrides: { 'avatar.size': 80 } },
      { name: 'Ticker', template: 'ticker', values: {} },
    ],
  }],
};

const THEMES = {
  neon: {
    'bubble.background-color': '#FF00FF',
    'bubble.border-width': 2,
    'bubble.border-color': 'cyan',
    'username.font-weight': 700,
    'message.font-size': '18px',
  },
  plain: { 'bubble.background-color': null, 'bubble.border-width': null },
};

interface World {
  test: TestHost;
  client: OverlayStyleClient;
  harness: Harness;
  ids: SeedResult;
  overlays: { main: number; synced: number; ticker: number };
}

const overlaysOf = (ids: SeedResult): World['overlays'] => {
  const streamer = ids.accounts.streamer!;
  return { main: streamer.overlays.Main!, synced: streamer.overlays.Synced!, ticker: streamer.overlays.Ticker! };
};

async function world(settings: (overlays: World['overlays']) => Record<string, unknown> = () => ({ themes: THEMES })): Promise<World> {
  const { test, client, harness, ids } = await startPluginWorld({ fixture: FIXTURE, plugin: 'style', settings: (seeded) => settings(overlaysOf(seeded)) });
  const overlays = overlaysOf(ids);
  harness.events.length = 0;
  return { test, client, harness, ids, overlays };
}

const chat = (test: TestHost, text: string, tags: ChatTags = moderatorTags()): Promise<string[]> => chatAnswers(test, text, tags);

describe('style plugin: !style', () => {
  it('loads with its two commands', async () => {
    const { test } = await world();
    expect(test.host.plugins).toEqual([{ name: 'style', state: 'running', commands: ['style', 'theme'], rewards: [] }]);
  });

  it("a moderator's line sets one setting of the default overlay, normalised as the service stores it", async () => {
    const { test, client } = await world();
    expect(await chat(test, '!style bubble.background-color #FF0000')).toEqual(['@Mod_mia bubble.background-color is now #ff0000.']);
    const view = await client.getTemplate();
    expect(view.settings_values['bubble.background-color']).toBe('#ff0000');
    // The default overlay has no sync source: its own values were written.
    expect(view.source_values['bubble.background-color']).toBe('#ff0000');
  });

  it('the broadcaster may restyle too; a viewer, a subscriber and a VIP get no reply and change nothing', async () => {
    const { test, client, harness } = await world();
    const before = await client.getTemplate();
    for (const tags of [viewerTags('ann'), subscriberTags(), vipTags()]) {
      expect(await chat(test, '!style bubble.background-color #ff0000', tags)).toEqual([]);
    }
    expect(await client.getTemplate()).toEqual(before);
    expect(harness.events).toEqual([]);
    expect(await chat(test, '!style bubble.background-color #ff0000', broadcasterTags())).toEqual(['@Streamer bubble.background-color is now #ff0000.']);
  });

  it('turns chat words into the catalog type: px integers, on/off toggles, colour names, font names, none for a gradient', async () => {
    const { test, client } = await world();
    expect(await chat(test, '!style bubble.width 320px')).toEqual(['@Mod_mia bubble.width is now 320.']);
    expect(await chat(test, '!style avatar.show off')).toEqual(['@Mod_mia avatar.show is now false.']);
    expect(await chat(test, '!style bubble.border-color Red')).toEqual(['@Mod_mia bubble.border-color is now #ff0000.']);
    expect(await chat(test, '!style message.font-family open sans')).toEqual(['@Mod_mia message.font-family is now Open Sans.']);
    expect(await chat(test, '!style username.font-weight 700')).toEqual(['@Mod_mia username.font-weight is now 700.']);
    expect(await chat(test, '!style bubble.background-gradient linear-gradient(to right, red, blue)'))
      .toEqual(['@Mod_mia bubble.background-gradient is now linear-gradient(90deg, #ff0000 0%, #0000ff 100%).']);
    expect(await chat(test, '!style bubble.background-gradient none')).toEqual(['@Mod_mia bubble.background-gradient is now none.']);
    expect(await chat(test, '!style username.font-family "Comic Sans MS"')).toEqual(['@Mod_mia username.font-family is now Comic Sans MS.']);
    expect(await chat(test, '!style badges.show YES')).toEqual(['@Mod_mia badges.show is now true.']);
    const values = (await client.getTemplate()).settings_values;
    expect(values).toMatchObject({
      'username.font-family': 'Comic Sans MS', 'badges.show': true,
      'bubble.width': 320, 'avatar.show': false, 'bubble.border-color': '#ff0000', 'message.font-family': 'Open Sans',
      'username.font-weight': '700', 'bubble.background-gradient': '',
    });
  });

  it('a value in typographic quotes (a phone keyboard\'s smart punctuation) counts as quoted', async () => {
    const { test, client } = await world();
    expect(await chat(test, '!style message.font-family \u201COpen Sans\u201D')).toEqual(['@Mod_mia message.font-family is now Open Sans.']);
    expect(await chat(test, '!style bubble.width \u201C330px\u201D')).toEqual(['@Mod_mia bubble.width is now 330.']);
    expect(await chat(test, '!style bubble.border-color \u2018red\u2019')).toEqual(['@Mod_mia bubble.border-color is now #ff0000.']);
    expect((await client.getTemplate()).settings_values).toMatchObject({ 'message.font-family': 'Open Sans', 'bubble.width': 330, 'bubble.border-color': '#ff0000' });
  });

  it('a setting key typed in quotes is the key: set, show and reset work, and no reply calls the key no setting', async () => {
    const { test, client } = await world();
    expect(await chat(test, '!style "bubble.width" 300')).toEqual(['@Mod_mia bubble.width is now 300.']);
    expect((await client.getTemplate()).settings_values['bubble.width']).toBe(300);
    expect(await chat(test, '!style show \u201Cbubble.width\u201D')).toEqual(['@Mod_mia bubble.width is 300 (set on this overlay; the template default is 400).']);
    expect(await chat(test, "!style 'bubble.width'")).toEqual(['@Mod_mia bubble.width is 300 (set on this overlay; the template default is 400).']);
    expect(await chat(test, '!style reset "bubble.width"')).toEqual(['@Mod_mia bubble.width reset to the template default: 400.']);
    expect((await client.getTemplate()).settings_values['bubble.width']).toBe(400);
  });

  it('a refused value comes back as one line: the first field error, and nothing changes', async () => {
    const { test, client, harness } = await world();
    expect(await chat(test, '!style bubble.width 20000')).toEqual(['@Mod_mia bubble.width must be an integer between 0 and 10000.']);
    expect(await chat(test, '!style bubble.width wide')).toEqual(['@Mod_mia bubble.width must be an integer between 0 and 10000.']);
    expect(await chat(test, '!style bubble.border-style wavy')).toEqual(['@Mod_mia bubble.border-style must be one of: none, solid, dashed, dotted, double.']);
    expect(await chat(test, '!style bubble.full-width maybe')).toEqual(['@Mod_mia bubble.full-width must be true or false.']);
    // In chat a colour name works too, and the refusal says so.
    expect(await chat(test, '!style bubble.background-color reddish')).toEqual([
      '@Mod_mia bubble.background-color must be a colour: #rgb, #rgba, #rrggbb, #rrggbbaa or transparent, or a colour name such as red.',
    ]);
    expect((await client.getTemplate()).settings_values['bubble.width']).toBe(420);
    expect(harness.events).toEqual([]);
  });

  it('an unknown key, and a key outside the overlay\'s template, are refused before any write', async () => {
    const { test, harness } = await world((overlays) => ({ presetId: overlays.ticker }));
    expect(await chat(test, '!style bubble.colour #fff')).toEqual(['@Mod_mia bubble.colour is not a setting (keys look like bubble.width).']);
    expect(await chat(test, '!style bubble.width 300')).toEqual(['@Mod_mia bubble.width is not part of the Ticker template.']);
    expect(harness.events).toEqual([]);
  });

  it('a long value (a many-stop gradient) is shown cut short, so the reply stays one chat message', async () => {
    const { test } = await world();
    const stops = Array.from({ length: 40 }, (_, index) => (index % 2 === 0 ? 'red' : 'tan')).join(',');
    const [set] = await chat(test, `!style bubble.background-gradient linear-gradient(${stops})`);
    expect(set).toMatch(/^@Mod_mia bubble\.background-gradient is now linear-gradient\(180deg, #ff0000 0%, .*… \(\d+ characters\)\.$/);
    expect(set!.length).toBeLessThanOrEqual(200);
    const shown = await chat(test, '!style show bubble.background-gradient');
    expect(shown).toHaveLength(1);
    expect(shown[0]!.length).toBeLessThanOrEqual(300);
  });

  it('show tells the value and whether it is set on the overlay or the template default; a bare key shows too', async () => {
    const { test } = await world();
    expect(await chat(test, '!style show bubble.width')).toEqual(['@Mod_mia bubble.width is 420 (set on this overlay; the template default is 400).']);
    expect(await chat(test, '!style show bubble.gap')).toEqual(['@Mod_mia bubble.gap is 10 (inherited: the template default).']);
    expect(await chat(test, '!style BUBBLE.WIDTH')).toEqual(['@Mod_mia bubble.width is 420 (set on this overlay; the template default is 400).']);
  });

  it('the ticker template\'s own defaults count as its defaults', async () => {
    const { test } = await world((overlays) => ({ presetId: overlays.ticker }));
    expect(await chat(test, '!style show message.font-size')).toEqual(['@Mod_mia message.font-size is 16 (inherited: the template default).']);
  });

  it('reset returns a key of an independent overlay to the template default', async () => {
    const { test, client } = await world();
    expect(await chat(test, '!style reset bubble.width')).toEqual(['@Mod_mia bubble.width reset to the template default: 400.']);
    expect((await client.getTemplate()).settings_values['bubble.width']).toBe(400);
    expect(await chat(test, '!style reset bubble.width')).toEqual(['@Mod_mia bubble.width is already the template default: 400.']);
  });

  it('on an overlay with a sync source, writes are overrides of that overlay alone, and reset makes the key inherited again', async () => {
    const { test, client, overlays } = await world((ids) => ({ presetId: ids.synced }));
    expect(await chat(test, '!style show avatar.size')).toEqual(['@Mod_mia avatar.size is 80 (overridden on this overlay; the sync source has 60).']);
    expect(await chat(test, '!style show bubble.width')).toEqual(['@Mod_mia bubble.width is 420 (inherited from the sync source).']);

    expect(await chat(test, '!style bubble.width 300')).toEqual(['@Mod_mia bubble.width is now 300.']);
    const synced = await client.getTemplate(overlays.synced);
    expect(synced.override_values).toEqual({ 'bubble.width': 300, 'avatar.size': 80 });
    expect((await client.getTemplate(overlays.main)).settings_values['bubble.width']).toBe(420);

    expect(await chat(test, '!style reset avatar.size')).toEqual(['@Mod_mia avatar.size reset: now 60, inherited from the sync source.']);
    const after = await client.getTemplate(overlays.synced);
    expect(after.overridden_keys).toEqual(['bubble.width']);
    expect(after.settings_values['avatar.size']).toBe(60);
    expect(await chat(test, '!style reset avatar.size')).toEqual(['@Mod_mia avatar.size was not overridden; it is 60, inherited from the sync source.']);
  });

  it('reset and show without a key get their usage line; !style alone gets the host\'s', async () => {
    const { test, harness } = await world();
    expect(await chat(test, '!style reset')).toEqual(['@Mod_mia name one setting. Usage: !style reset <setting>']);
    expect(await chat(test, '!style show a b')).toEqual(['@Mod_mia name one setting. Usage: !style show <setting>']);
    expect(await chat(test, '!style')).toEqual(['@Mod_mia setting is missing. Usage: !style <setting> [value...]']);
    expect(harness.events).toEqual([]);
  });

  it('usage lines carry the configured prefix', async () => {
    const { test } = await startPluginWorld({ fixture: FIXTURE, plugin: 'style', config: { commands: { prefix: '?' } } });
    expect(await chat(test, '?STYLE reset')).toEqual(['@Mod_mia name one setting. Usage: ?style reset <setting>']);
  });

  it('a configured overlay that does not exist is one short line', async () => {
    const { test } = await world(() => ({ presetId: 999 }));
    expect(await chat(test, '!style bubble.width 300')).toEqual(['@Mod_mia Overlay not found.']);
    // The streamer learns why from the log, once.
    await chat(test, '!style show bubble.width');
    const told = test.logs.filter((entry) => /presetId 999 names no overlay/.test(entry.msg ?? ''));
    expect(told).toHaveLength(1);
  });
});

describe('style plugin: !theme', () => {
  it('applies every key of a theme in one write', async () => {
    const { test, client, harness, overlays } = await world();
    expect(await chat(test, '!theme NEON')).toEqual(['@Mod_mia theme neon applied: 5 settings.']);
    expect(harness.events).toEqual([{ type: 'overlay-changed', overlayIds: [overlays.main, overlays.synced] }]);
    expect((await client.getTemplate()).settings_values).toMatchObject({
      'bubble.background-color': '#ff00ff', 'bubble.border-width': 2, 'bubble.border-color': '#00ffff',
      'username.font-weight': '700', 'message.font-size': 18,
    });
  });

  it('a null in a theme resets that key', async () => {
    const { test, client } = await world();
    await chat(test, '!theme neon');
    expect(await chat(test, '!theme plain')).toEqual(['@Mod_mia theme plain applied: 2 settings.']);
    const values = (await client.getTemplate()).settings_values;
    expect(values['bubble.background-color']).toBe('transparent');
    expect(values['bubble.border-width']).toBe(0);
    expect(values['bubble.border-color']).toBe('#00ffff');
  });

  it('keys the overlay\'s template lacks are left out and counted', async () => {
    const { test, client, overlays } = await world((ids) => ({ presetId: ids.ticker, themes: THEMES }));
    expect(await chat(test, '!theme neon')).toEqual(['@Mod_mia theme neon applied: 2 settings (3 left out: not part of the Ticker template).']);
    expect((await client.getTemplate(overlays.ticker)).settings_values).toMatchObject({ 'username.font-weight': '700', 'message.font-size': 18 });
    expect(await chat(test, '!theme plain')).toEqual(['@Mod_mia theme plain has no settings for the Ticker template.']);
  });

  it('a theme on an overlay with a sync source writes that overlay\'s overrides', async () => {
    const { test, client, overlays } = await world((ids) => ({ presetId: ids.synced, themes: THEMES }));
    await chat(test, '!theme neon');
    const synced = await client.getTemplate(overlays.synced);
    expect(synced.overridden_keys).toEqual(expect.arrayContaining(['bubble.background-color', 'message.font-size', 'avatar.size']));
    expect((await client.getTemplate(overlays.main)).settings_values['bubble.background-color']).toBe('transparent');
  });

  it('!theme alone (or !themes) lists the themes; an unknown name lists them too', async () => {
    const { test, harness } = await world();
    expect(await chat(test, '!themes')).toEqual(['@Mod_mia themes: neon, plain. Usage: !theme <name>']);
    expect(await chat(test, '!theme sunset')).toEqual(['@Mod_mia there is no theme "sunset". Themes: neon, plain.']);
    // Hidden characters are not said back.
    expect(await chat(test, '!theme \u202Esunset')).toEqual(['@Mod_mia there is no theme "sunset". Themes: neon, plain.']);
    expect(harness.events).toEqual([]);
    // A quoted name is the name.
    await chat(test, '!theme "Neon"');
    expect(harness.events).toHaveLength(1);
  });

  it('lists at most 15 themes, and fewer when long names would not fit one chat message, then +N more', async () => {
    const themesNamed = (names: string[]) => Object.fromEntries(names.map((name, index) => [name, { 'bubble.width': 300 + index }]));
    const short = Array.from({ length: 20 }, (_, index) => `t${index}`);
    const few = await world(() => ({ themes: themesNamed(short) }));
    expect(await chat(few.test, '!theme')).toEqual([`@Mod_mia themes: ${short.slice(0, 15).join(', ')} +5 more. Usage: !theme <name>`]);

    // 40 names of the longest length, 32 characters.
    const long = Array.from({ length: 40 }, (_, index) => `long-theme-name-number-${String(index).padStart(2, '0')}`.padEnd(32, 'x'));
    const many = await world(() => ({ themes: themesNamed(long) }));
    for (const [line, shape] of [
      ['!themes', /^@Mod_mia themes: long-theme-name-number-00x+(, long-theme-name-number-\d\dx+)+ \+\d+ more\. Usage: !theme <name>$/],
      ['!theme sunset', /^@Mod_mia there is no theme "sunset"\. Themes: long-theme-name-number-00x+(, long-theme-name-number-\d\dx+)+ \+\d+ more\.$/],
    ] as const) {
      const reply = await chat(many.test, line);
      expect(reply).toHaveLength(1);
      expect(reply[0]!.length).toBeLessThanOrEqual(500);
      expect(reply[0]).toMatch(shape);
    }
  });

  it('with no themes configured it says so', async () => {
    const { test } = await world(() => ({}));
    expect(await chat(test, '!theme')).toEqual(['@Mod_mia no themes are set up.']);
    expect(await chat(test, '!theme neon')).toEqual(['@Mod_mia no themes are set up.']);
  });

  it('a viewer cannot apply a theme', async () => {
    const { test, harness } = await world();
    expect(await chat(test, '!theme neon', viewerTags('ann'))).toEqual([]);
    expect(harness.events).toEqual([]);
  });
});

describe('style plugin: config', () => {
  async function failure(settings: Record<string, unknown>): Promise<string> {
    const { test } = await world(() => settings);
    const [status] = test.host.plugins;
    expect(status).toMatchObject({ name: 'style', state: 'failed' });
    return status!.error ?? '';
  }

  it('refuses a theme value the setting does not take, naming the theme and key', async () => {
    expect(await failure({ themes: { neon: { 'bubble.width': 20000 } } }))
      .toContain('plugins.style.themes.neon["bubble.width"]: The bubble.width must be an integer between 0 and 10000.');
  });

  it('refuses an unknown key, an empty theme and a bad theme name', async () => {
    expect(await failure({ themes: { neon: { 'bubble.colour': '#fff' } } })).toContain('"bubble.colour" is not a setting key; the allowed keys are listed in docs/settings.md');
    expect(await failure({ themes: { neon: {} } })).toContain('a theme needs at least one setting');
    expect(await failure({ themes: { 'Bad Name': { 'bubble.width': 1 } } })).toContain('a theme name is 1 to 32 lowercase letters');
  });

  it('refuses a misspelt setting and a preset id that is no id', async () => {
    expect(await failure({ theme: {} })).toContain('plugins.style');
    expect(await failure({ presetId: 0 })).toContain('plugins.style.presetId');
  });
});

describe('style plugin: the bundled service\'s database locked by another program', () => {
  it('answers that the service is busy, changes nothing, and works once the lock is gone', async () => {
    const { test, harness } = await startPluginWorld({ fixture: FIXTURE, plugin: 'style', store: { busyTimeoutMs: 100 } });
    const holder = new DatabaseSync(harness.dbPath);
    try {
      holder.exec('BEGIN IMMEDIATE');
      const before = harness.dump();
      test.chat.message('#streamer', '!style bubble.width 300', moderatorTags());
      // The write waits out the busy timeout in real time first.
      await vi.waitFor(() => expect(test.chat.sent.map((line) => line.text)).toEqual(['@Mod_mia the overlay service is busy; try again in a moment.']), { timeout: 5_000, interval: 10 });
      holder.exec('ROLLBACK');
      expect(harness.dump()).toEqual(before);
      expect(await chat(test, '!style bubble.width 300')).toEqual(['@Mod_mia bubble.width is now 300.']);
    } finally {
      if (holder.isTransaction) holder.exec('ROLLBACK');
      holder.close();
    }
  });
});

describe('style plugin: a remote service that is away or busy', () => {
  /** A remote overlay API on a real socket that answers every request with `status`. */
  async function remoteAnswering(status: number, headers: Record<string, string> = {}): Promise<{ baseUrl: string; close(): Promise<void> }> {
    const server = createServer((_request, response) => {
      response.writeHead(status, { 'content-type': 'application/json', ...headers });
      response.end(JSON.stringify({ message: status === 429 ? 'Too Many Attempts.' : 'Server Error.' }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return {
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`,
      close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    };
  }

  async function hostOn(baseUrl: string): Promise<TestHost> {
    const client = createHttpClient({ baseUrl, apiKey: 'key', maxRetries: 0 });
    return startTestHost({ builtInPluginDir: BUILT_IN_PLUGIN_DIR, overlayClient: client, config: { plugins: { style: {} } } });
  }

  async function reply(test: TestHost, text: string): Promise<string[]> {
    const before = test.chat.sent.length;
    test.chat.message('#streamer', text, moderatorTags());
    // A real socket round trip: wait for the reply rather than a fixed number of turns.
    await vi.waitFor(() => expect(test.chat.sent.length).toBeGreaterThan(before), { timeout: 10_000, interval: 5 });
    return test.chat.sent.slice(before).map((line) => line.text);
  }

  it('a 429 says when to try again; a 5xx says the service failed; both are logged', async () => {
    const busy = await remoteAnswering(429, { 'retry-after': '7' });
    const failing = await remoteAnswering(500);
    try {
      const onBusy = await hostOn(busy.baseUrl);
      expect(await reply(onBusy, '!style bubble.width 300')).toEqual(['@Mod_mia the overlay service is busy; try again in 7 s.']);
      expect(onBusy.logs.some((entry) => entry.msg === 'overlay service call failed')).toBe(true);
      const onFailing = await hostOn(failing.baseUrl);
      expect(await reply(onFailing, '!theme')).toEqual(['@Mod_mia no themes are set up.']);
      expect(await reply(onFailing, '!style show bubble.width')).toEqual(['@Mod_mia the overlay service failed; try again later.']);
    } finally {
      await busy.close();
      await failing.close();
    }
  });

  it('a service nobody answers at is one line', async () => {
    const gone = await remoteAnswering(200);
    await gone.close();
    const test = await hostOn(gone.baseUrl);
    expect(await reply(test, '!style bubble.width 300')).toEqual(['@Mod_mia the overlay service is not answering; try again in a moment.']);
  });
});
