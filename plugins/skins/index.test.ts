// The skins plugin in the real host over a memory chat, with the in-process client over the real
// service on a temp SQLite database (seeded); and with the HTTP client of a remote service (the
// real bundled API server on a real socket, with a real key).
import { describe, expect, it } from 'vitest';
import type { ChatTags } from '../../src/host/chat-transport.ts';
import type { SeedResult } from '../../src/service/seed.ts';
import { chatAnswers } from '../../test/host/host-fixture.ts';
import { remoteChatAnswers, startRemotePluginWorld } from '../../test/client/remote-plugin-world.ts';
import type { TestHost } from '../../test/host/host-fixture.ts';
import { startPluginWorld } from '../../test/host/plugin-world.ts';
import { chatTags, moderatorTags } from '../../test/host/irc-tags.ts';
import type { Harness } from '../../test/service/core/service-harness.ts';

const FIXTURE = {
  accounts: [
    {
      login: 'streamer',
      premium: true,
      overlays: [{ name: 'Main', template: 'bubbles', default: true, values: {} }],
      skins: [
        { slug: 'neon', name: 'Neon', template: 'bubbles', availability: 'purchase', values: { 'bubble.background-color': '#ff00ff' } },
        { slug: 'vault', name: 'Vault', template: 'bubbles', availability: 'exclusive', values: {} },
        { slug: 'retired', name: 'Retired', template: 'bubbles', availability: 'purchase', active: false, values: {} },
        { slug: 'night-owl', name: 'Night Owl', template: 'ticker', availability: 'free', values: {} },
      ],
    },
    { login: 'other', premium: true, skins: [{ slug: 'foreign', name: 'Foreign', template: 'bubbles', availability: 'free', values: {} }] },
  ],
  global_skins: [{ slug: 'classic', name: 'Classic', template: 'bubbles', availability: 'free', values: {} }],
  viewers: [{ twitch_user_id: '1001', twitch_username: 'viewer_one', display_name: 'Viewer_One' }],
  purchases: [{ account: 'streamer', viewer: 'viewer_one', skin: 'neon' }],
};

interface World {
  test: TestHost;
  harness: Harness;
  ids: SeedResult;
  accountId: number;
}

const world = (): Promise<World> => startPluginWorld({ fixture: FIXTURE, plugin: 'skins' });

const viewerOne = (): ChatTags => chatTags('viewer_one', { 'user-id': '1001', 'display-name': 'Viewer_One' });
const newcomer = (login = 'newbie'): ChatTags => chatTags(login, { 'user-id': '2002' });

const chat = chatAnswers;

/** The skin the viewer's messages render with, as the overlay asks the service. */
async function shownSkin(w: World, twitchUserId: string): Promise<string | null> {
  return (await w.harness.service.getPickedSkin(w.accountId, twitchUserId))?.slug ?? null;
}

describe('skins plugin: !skins', () => {
  it('loads with its two commands', async () => {
    const { test } = await world();
    expect(test.host.plugins).toEqual([{ name: 'skins', state: 'running', commands: ['skins', 'skin'], rewards: [] }]);
  });

  it('lists the skins a viewer holds and the free ones; not inactive, exclusive ungranted or other channels\' skins', async () => {
    const { test } = await world();
    expect(await chat(test, '!skins', viewerOne())).toEqual([
      '@Viewer_One your skins: Neon. Free for everyone: Night Owl, Classic. Using: none. Pick with !skin <name>, or !skin none.',
    ]);
  });

  it('signs a viewer in on first use, and refreshes a renamed login', async () => {
    const w = await world();
    expect(await w.harness.service.findViewer('2002')).toBeNull();
    expect(await chat(w.test, '!myskins', newcomer())).toEqual([
      '@Newbie your skins: none yet. Free for everyone: Night Owl, Classic. Using: none. Pick with !skin <name>, or !skin none.',
    ]);
    expect(await w.harness.service.findViewer('2002')).toMatchObject({ twitchUserId: '2002', twitchUsername: 'newbie', displayName: 'Newbie' });
    await w.test.clock.advance(30_000);
    await chat(w.test, '!skins', newcomer('renamed'));
    expect(await w.harness.service.findViewer('2002')).toMatchObject({ twitchUserId: '2002', twitchUsername: 'renamed' });
  });

  it('has a 30 s cooldown per viewer; moderators bypass it', async () => {
    const { test } = await world();
    expect(await chat(test, '!skins', viewerOne())).toHaveLength(1);
    await test.clock.advance(5_000);
    expect(await chat(test, '!skins', viewerOne())).toEqual(['@Viewer_One !skins is cooling down, try again in 25 s.']);
    const mod = moderatorTags();
    expect(await chat(test, '!skins', mod)).toHaveLength(1);
    expect(await chat(test, '!skins', mod)).toHaveLength(1);
    await test.clock.advance(25_000);
    expect(await chat(test, '!skins', viewerOne())).toHaveLength(1);
  });

  it('long names make fewer names listed: the reply stays one chat message, with +N more', async () => {
    // 20 bought and 20 free skins, each with a name of the longest length, 100 characters.
    const longName = (kind: string, index: number) => `${kind} ${String(index).padStart(2, '0')} `.padEnd(100, 'x');
    const many = (kind: string, availability: string) => Array.from({ length: 20 }, (_, index) => (
      { slug: `${kind}-${index}`, name: longName(kind, index), template: 'bubbles', availability, values: {} }
    ));
    const fixture = structuredClone(FIXTURE);
    fixture.accounts[0]!.skins.push(...many('bought', 'purchase'), ...many('free', 'free'));
    fixture.purchases.push(...Array.from({ length: 20 }, (_, index) => ({ account: 'streamer', viewer: 'viewer_one', skin: `bought-${index}` })));
    const { test } = await startPluginWorld({ fixture, plugin: 'skins' });
    const reply = await chat(test, '!skins', viewerOne());
    expect(reply).toHaveLength(1);
    expect(reply[0]!.length).toBeLessThanOrEqual(500);
    // Free skins get the room the bought ones leave.
    expect(reply[0]).toMatch(/^@Viewer_One your skins: Neon, bought 00 x+ \+19 more\. Free for everyone: Night Owl, free 00 x+, free 01 x+ \+19 more\. Using: none\. Pick with !skin <name>, or !skin none\.$/);
  });

  it('a chat without Twitch user ids gets one line and signs nobody in', async () => {
    const w = await world();
    expect(await chat(w.test, '!skins', chatTags('local_lou', { 'user-id': '' }))).toEqual([
      '@Local_lou skins need a Twitch account, and this chat has no Twitch user ids.',
    ]);
    expect(await w.harness.service.findViewer('local_lou')).toBeNull();
  });
});

describe('skins plugin: !skin', () => {
  it('picks a held skin by name; the overlay sees it through the service', async () => {
    const w = await world();
    expect(await chat(w.test, '!skin neon', viewerOne())).toEqual(['@Viewer_One your messages now use Neon.']);
    expect(await shownSkin(w, '1001')).toBe('neon');
    await w.test.clock.advance(10_000);
    expect(await chat(w.test, '!skin NEON', viewerOne())).toEqual(['@Viewer_One you already use Neon.']);
    await w.test.clock.advance(10_000);
    expect(await chat(w.test, '!skin', viewerOne())).toEqual(['@Viewer_One you are using Neon. !skins lists yours.']);
    await w.test.clock.advance(30_000);
    expect(await chat(w.test, '!skins', viewerOne())).toEqual([expect.stringContaining('Using: Neon.')]);
  });

  it('picks a skin whose name holds an emoji of several joined by zero-width joiners, typed with or without them', async () => {
    const fixture = structuredClone(FIXTURE);
    fixture.accounts[0]!.skins!.push({ slug: 'coder', name: '\u{1F469}\u200D\u{1F4BB} Coder', template: 'bubbles', availability: 'free', values: {} });
    const w = await startPluginWorld({ fixture, plugin: 'skins' });
    // Twitch chat strips the joiner from what a chatter types.
    expect(await chat(w.test, '!skin \u{1F469}\u{1F4BB} coder', viewerOne())).toEqual(['@Viewer_One your messages now use \u{1F469}\u200D\u{1F4BB} Coder.']);
    expect(await shownSkin(w, '1001')).toBe('coder');
    await w.test.clock.advance(10_000);
    expect(await chat(w.test, '!skin \u{1F469}\u200D\u{1F4BB}  CODER \u034F', viewerOne())).toEqual(['@Viewer_One you already use \u{1F469}\u200D\u{1F4BB} Coder.']);
  });

  it('picks a skin whose name holds an emoji with or without its emoji-style selector (U+FE0F), whichever the keyboard typed', async () => {
    const fixture = structuredClone(FIXTURE);
    fixture.accounts[0]!.skins!.push(
      { slug: 'love', name: '\u2764\uFE0F Love', template: 'bubbles', availability: 'free', values: {} },
      { slug: 'sunny', name: '\u2600 Sunny', template: 'bubbles', availability: 'free', values: {} },
    );
    const w = await startPluginWorld({ fixture, plugin: 'skins' });
    // A desktop keyboard types the bare heart; the name has the emoji form.
    expect(await chat(w.test, '!skin \u2764 love', viewerOne())).toEqual(['@Viewer_One your messages now use \u2764\uFE0F Love.']);
    expect(await shownSkin(w, '1001')).toBe('love');
    await w.test.clock.advance(10_000);
    // A phone keyboard types the emoji form of a name stored bare.
    expect(await chat(w.test, '!skin \u2600\uFE0F sunny', viewerOne())).toEqual(['@Viewer_One your messages now use \u2600 Sunny.']);
    expect(await shownSkin(w, '1001')).toBe('sunny');
  });

  it('picks a free skin by its display name (spaces allowed), a global one, and by id', async () => {
    const w = await world();
    const mod = moderatorTags('mod_mo');
    expect(await chat(w.test, '!skin night owl', mod)).toEqual(['@Mod_mo your messages now use Night Owl.']);
    expect(await chat(w.test, '!pickskin classic', mod)).toEqual(['@Mod_mo your messages now use Classic.']);
    expect(await shownSkin(w, mod['user-id'] as string)).toBe('classic');
    expect(await chat(w.test, `!skin ${w.ids.accounts.streamer!.skins['night-owl']!}`, mod)).toEqual(['@Mod_mo your messages now use Night Owl.']);
  });

  it('!skin none goes back to no skin', async () => {
    const w = await world();
    const mod = moderatorTags();
    expect(await chat(w.test, '!skin none', mod)).toEqual(['@Mod_mia you had no skin picked.']);
    await chat(w.test, '!skin classic', mod);
    expect(await chat(w.test, '!skin none', mod)).toEqual(['@Mod_mia back to no skin.']);
    expect(await shownSkin(w, mod['user-id'] as string)).toBeNull();
    expect(await chat(w.test, '!skin', mod)).toEqual(['@Mod_mia you have no skin picked. !skins lists yours.']);
  });

  it('refuses, in one line each, a skin not held, an inactive one and an unknown one; the pick stays', async () => {
    const w = await world();
    const mod = moderatorTags();
    await chat(w.test, '!skin classic', mod);
    expect(await chat(w.test, '!skin vault', mod)).toEqual(['@Mod_mia you don\'t have the skin "vault" yet.']);
    expect(await chat(w.test, '!skin neon', mod)).toEqual(['@Mod_mia you don\'t have the skin "neon" yet.']);
    expect(await chat(w.test, '!skin retired', mod)).toEqual(['@Mod_mia the skin "retired" is not available right now.']);
    expect(await chat(w.test, '!skin sparkles', mod)).toEqual(['@Mod_mia there is no skin "sparkles". !skins lists yours.']);
    expect(await chat(w.test, '!skin foreign', mod)).toEqual(['@Mod_mia there is no skin "foreign". !skins lists yours.']);
    expect(await shownSkin(w, mod['user-id'] as string)).toBe('classic');
  });

  it('answers the same by display name as by slug; quotes and doubled spaces are fine; typed text said back safely', async () => {
    const w = await world();
    const mod = moderatorTags();
    expect(await chat(w.test, '!skin Vault', mod)).toEqual(['@Mod_mia you don\'t have the skin "Vault" yet.']);
    expect(await chat(w.test, '!skin RETIRED', mod)).toEqual(['@Mod_mia the skin "RETIRED" is not available right now.']);
    expect(await chat(w.test, '!skin "Night   Owl"', mod)).toEqual(['@Mod_mia your messages now use Night Owl.']);
    // A right-to-left override would make the rest of the bot's line read backwards.
    expect(await chat(w.test, '!skin \u202Eevil\u200B name', mod)).toEqual(['@Mod_mia there is no skin "evil name". !skins lists yours.']);
  });

  it('a refused pick is no pick: the corrected one need not wait for the cooldown', async () => {
    const w = await world();
    expect(await chat(w.test, '!skin nigth owl', viewerOne())).toEqual(['@Viewer_One there is no skin "nigth owl". !skins lists yours.']);
    expect(await chat(w.test, '!skin night owl', viewerOne())).toEqual(['@Viewer_One your messages now use Night Owl.']);
    expect(await chat(w.test, '!skin neon', viewerOne())).toEqual(['@Viewer_One !skin is cooling down, try again in 10 s.']);
  });

  it('a grant makes the skin pickable', async () => {
    const w = await world();
    await w.harness.service.registerViewer({ twitchUserId: '2002', login: 'newbie' });
    await w.harness.service.unlockSkin(w.accountId, { twitch_user_id: '2002', skin_id: w.ids.accounts.streamer!.skins.vault! });
    expect(await chat(w.test, '!skin vault', newcomer())).toEqual(['@Newbie your messages now use Vault.']);
    expect(await shownSkin(w, '2002')).toBe('vault');
  });

  it('showing the current skin is not a pick: a pick may follow at once', async () => {
    const w = await world();
    expect(await chat(w.test, '!skin', viewerOne())).toEqual(['@Viewer_One you have no skin picked. !skins lists yours.']);
    expect(await chat(w.test, '!skin night owl', viewerOne())).toEqual(['@Viewer_One your messages now use Night Owl.']);
    expect(await chat(w.test, '!skin neon', viewerOne())).toEqual(['@Viewer_One !skin is cooling down, try again in 10 s.']);
    // Showing again and again is held once in 10 s like a pick.
    await w.test.clock.advance(10_000);
    expect(await chat(w.test, '!skin', viewerOne())).toEqual(['@Viewer_One you are using Night Owl. !skins lists yours.']);
    expect(await chat(w.test, '!skin', viewerOne())).toEqual(['@Viewer_One you are using Night Owl. !skins lists yours.']);
    expect(await chat(w.test, '!skin', viewerOne())).toEqual(['@Viewer_One !skin is cooling down, try again in 10 s.']);
  });

  it('has a 10 s cooldown per viewer', async () => {
    const w = await world();
    expect(await chat(w.test, '!skin neon', viewerOne())).toHaveLength(1);
    expect(await chat(w.test, '!skin none', viewerOne())).toEqual(['@Viewer_One !skin is cooling down, try again in 10 s.']);
    expect(await shownSkin(w, '1001')).toBe('neon');
  });
});

describe('skins plugin: remote service (HTTP client, bundled server on a real socket)', () => {
  // What the API can show: GET /skins lists the channel's own skins of the default overlay's
  // template (here bubbles), GET /viewers/{id}/skins the grants. Night Owl (ticker) and Classic
  // (global) are free but not in GET /skins; Neon is bought, not granted.
  const REMOTE_FIXTURE = {
    accounts: [
      {
        login: 'streamer',
        premium: true,
        overlays: [{ name: 'Main', template: 'bubbles', default: true, values: {} }],
        skins: [
          { slug: 'neon', name: 'Neon', template: 'bubbles', availability: 'purchase', values: {} },
          { slug: 'vault', name: 'Vault', template: 'bubbles', availability: 'exclusive', values: {} },
          { slug: 'sunny', name: 'Sunny', template: 'bubbles', availability: 'free', values: {} },
          { slug: 'dusk', name: 'Dusk', template: 'bubbles', availability: 'free', active: false, values: {} },
          { slug: 'fading', name: 'Fading', template: 'bubbles', availability: 'purchase', values: {} },
          { slug: 'night-owl', name: 'Night Owl', template: 'ticker', availability: 'free', values: {} },
          { slug: 'tape', name: 'Tape', template: 'ticker', availability: 'purchase', values: {} },
        ],
      },
    ],
    global_skins: [{ slug: 'classic', name: 'Classic', template: 'bubbles', availability: 'free', values: {} }],
    viewers: [
      { twitch_user_id: '1001', twitch_username: 'viewer_one', display_name: 'Viewer_One' },
      { twitch_user_id: '1002', twitch_username: 'viewer_two' },
    ],
    purchases: [{ account: 'streamer', viewer: 'viewer_one', skin: 'neon' }],
    grants: [
      { account: 'streamer', viewer: 'viewer_one', skin: 'vault' },
      { account: 'streamer', viewer: 'viewer_one', skin: 'tape' },
      { account: 'streamer', viewer: 'viewer_one', skin: 'sunny' },
      { account: 'streamer', viewer: 'viewer_one', skin: 'fading' },
    ],
  };

  const remoteWorld = () => startRemotePluginWorld({ fixture: REMOTE_FIXTURE, plugins: { skins: {}, grants: {} } });
  const ask = remoteChatAnswers;
  const PICK_REFUSAL = 'picking a skin in chat needs the bundled overlay service; this bot uses a remote one, whose API cannot pick skins or show your pick.';

  it('!skins lists the viewer\'s grants and the free skins GET /skins shows; no pick, no sign-in', async () => {
    const w = await remoteWorld();
    // Fading was granted, then retired: GET /skins says it is inactive, so it is left out. Sunny is
    // free (listed once, as free); Tape is of another template, so it stays listed.
    await w.harness.service.updateSkinDetails(w.ids.accounts.streamer!.skins.fading!, { isActive: false });
    const before = w.requests.length;
    expect(await ask(w.test, '!skins', viewerOne())).toEqual([
      '@Viewer_One skins granted to you: Vault, Tape. Free for everyone: Sunny.',
    ]);
    expect(w.requests.slice(before).sort()).toEqual(['GET /api/v1/skins', 'GET /api/v1/viewers/1001/skins']);
  });

  it('long names make fewer names listed: the reply stays one chat message, with +N more', async () => {
    const longName = (kind: string, index: number) => `${kind} ${String(index).padStart(2, '0')} `.padEnd(100, 'x');
    const fixture = structuredClone(REMOTE_FIXTURE);
    for (const [kind, availability] of [['granted', 'exclusive'], ['free', 'free']] as const) {
      for (let index = 0; index < 20; index++) {
        fixture.accounts[0]!.skins.push({ slug: `${kind}-${index}`, name: longName(kind, index), template: 'bubbles', availability, values: {} });
      }
    }
    fixture.grants.push(...Array.from({ length: 20 }, (_, index) => ({ account: 'streamer', viewer: 'viewer_one', skin: `granted-${index}` })));
    const w = await startRemotePluginWorld({ fixture, plugins: { skins: {} } });
    const reply = await ask(w.test, '!skins', viewerOne());
    expect(reply).toHaveLength(1);
    expect(reply[0]!.length).toBeLessThanOrEqual(500);
    expect(reply[0]).toMatch(/^@Viewer_One skins granted to you: Vault, Fading, Tape, granted 00 x+ \+\d+ more\. Free for everyone: Sunny, free 00 x+(, free \d\d x+)* \+\d+ more\.$/);
  });

  it('a viewer the remote service does not know has no grants; they are not signed in there', async () => {
    const w = await remoteWorld();
    expect(await ask(w.test, '!myskins', newcomer())).toEqual(['@Newbie skins granted to you: none yet. Free for everyone: Sunny.']);
    expect(await w.harness.service.findViewer('2002')).toBeNull();
  });

  it('a grant made with !grant through the same remote API shows in !skins', async () => {
    const w = await remoteWorld();
    const two = chatTags('viewer_two', { 'user-id': '1002' });
    expect(await ask(w.test, '!skins', two)).toEqual(['@Viewer_two skins granted to you: none yet. Free for everyone: Sunny.']);
    expect(await ask(w.test, '!grant @viewer_two neon', moderatorTags())).toEqual(['@Mod_mia granted Neon to viewer_two.']);
    await w.test.clock.advance(30_000);
    expect(await ask(w.test, '!skins', two)).toEqual(['@Viewer_two skins granted to you: Neon. Free for everyone: Sunny.']);
  });

  it('with nothing granted and nothing free, one short line', async () => {
    const w = await remoteWorld();
    await w.harness.service.updateSkinDetails(w.ids.accounts.streamer!.skins.sunny!, { isActive: false });
    expect(await ask(w.test, '!skins', newcomer())).toEqual(['@Newbie no skins are granted to you yet.']);
  });

  it('!skin <name>, !skin none and !skin refuse in one line, sending nothing and starting no cooldown', async () => {
    const w = await remoteWorld();
    const before = w.requests.length;
    // The refused pick gives its 10 s cooldown back, so the next comes at once (a give-back is
    // granted once per cooldown length, so the one after that waits as any pick would).
    expect(await ask(w.test, '!skin vault', viewerOne())).toEqual([`@Viewer_One ${PICK_REFUSAL} !skins lists yours.`]);
    expect(await ask(w.test, '!pickskin none', viewerOne())).toEqual([`@Viewer_One ${PICK_REFUSAL} !skins lists yours.`]);
    await w.test.clock.advance(10_000);
    expect(await ask(w.test, '!skin', viewerOne())).toEqual([`@Viewer_One ${PICK_REFUSAL} !skins lists yours.`]);
    expect(w.requests.slice(before)).toEqual([]);
    expect(await w.harness.service.getPickedSkin(w.accountId, '1001')).toBeNull();
    await expect(w.client.pickSkin({ twitchUserId: '1001' }, 'vault')).rejects.toMatchObject({ kind: 'unsupported', status: 0 });
  });

  it('a chat line without a Twitch user id is refused before anything is sent', async () => {
    const w = await remoteWorld();
    const before = w.requests.length;
    expect(await ask(w.test, '!skins', chatTags('local_lou', { 'user-id': '' }))).toEqual([
      '@Local_lou skins need a Twitch account, and this chat has no Twitch user ids.',
    ]);
    expect(w.requests.slice(before)).toEqual([]);
  });

  it('a remote service that refuses the key is one line, not a crash', async () => {
    const w = await remoteWorld();
    await w.harness.service.revokeKey('streamer');
    expect(await ask(w.test, '!skins', viewerOne())).toEqual(['@Viewer_One the overlay service does not accept the bot\'s API key.']);
  });
});
