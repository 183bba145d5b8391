// A plugin that holds the host's thread in a call the host makes into it (its setup, a command or
// redemption handler, its teardown) is named in one warning, with what it ran and for how long; a
// quick call is not. The threshold is small here (SLOW_MS) so the busy loops stay short.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPluginFolders } from './plugin-folders.ts';
import type { PluginFolders } from './plugin-folders.ts';
import { startTestHost } from './host-fixture.ts';
import type { TestHost } from './host-fixture.ts';
import { viewerTags } from './irc-tags.ts';
import { LEVEL } from './log-capture.ts';
import { ManualClock, settle } from './manual-clock.ts';

const SLOW_MS = 100;
/** How long the plugin's slow calls keep the thread busy: past SLOW_MS whatever the machine. */
const BUSY_MS = 150;

const HOG = `import { definePlugin } from SDK;
const busy = () => { const end = performance.now() + ${BUSY_MS}; while (performance.now() < end) {} };
export default definePlugin({
  name: 'hog',
  setup(ctx) {
    busy();
    ctx.command({ name: 'crunch', run: (call) => { busy(); void call.reply('crunched'); } });
    ctx.command({ name: 'quick', run: (call) => { void call.reply('quick'); } });
    ctx.command({ name: 'crash', run: () => { busy(); throw new Error('crunched to bits'); } });
    ctx.onRedemption('feast', () => { busy(); });
    return () => { busy(); };
  },
});`;

// Its setup waits for the test (past its deadline), then returns a slow teardown, which runs at once.
const LATE_HOG = `import { definePlugin } from SDK;
const busy = () => { const end = performance.now() + ${BUSY_MS}; while (performance.now() < end) {} };
export default definePlugin({
  name: 'late-hog',
  async setup() {
    await new Promise((resolve) => { globalThis.chatskinLateHog = resolve; });
    return () => { busy(); };
  },
});`;
const lateHog = globalThis as typeof globalThis & { chatskinLateHog?: () => void };

let folders: PluginFolders;
beforeAll(() => {
  folders = createPluginFolders();
  folders.add('hog', HOG);
  folders.add('late-hog', LATE_HOG);
});
afterAll(() => {
  folders.remove();
  delete lateHog.chatskinLateHog;
});

const start = (options: { slowPluginCallMs?: number } = { slowPluginCallMs: SLOW_MS }): Promise<TestHost> =>
  startTestHost({ config: { pluginDirs: [folders.dir], plugins: { hog: {} } }, ...options });

/** The host's warnings about slow plugin calls, what each ran and for how long it held the thread. */
function slowCalls(test: TestHost) {
  return test.logs.filter((entry) => entry.level === LEVEL.warn && entry['heldMs'] !== undefined);
}

async function ask(test: TestHost, text: string): Promise<string[]> {
  const before = test.chat.sent.length;
  test.chat.message('#streamer', text, viewerTags('ann'));
  await settle();
  return test.chat.sent.slice(before).map((line) => line.text);
}

describe('a plugin call that holds the thread', () => {
  it('a command handler: one warning names the plugin, the command and how long chat, the overlay and the API waited', async () => {
    const test = await start();
    const before = slowCalls(test).length;
    expect(await ask(test, '!crunch')).toEqual(['@Ann crunched']);
    const warnings = slowCalls(test).slice(before);
    expect(warnings).toEqual([expect.objectContaining({ plugin: 'hog', command: 'crunch', doing: '!crunch' })]);
    expect(warnings[0]!['heldMs']).toBeGreaterThanOrEqual(BUSY_MS);
    expect(warnings[0]!.msg).toBe(`plugin hog held the host's thread for ${String(warnings[0]!['heldMs'])} ms running !crunch: chat, the overlay and the API waited meanwhile`);
  });

  it('a quick command handler: no warning', async () => {
    const test = await start();
    const before = slowCalls(test).length;
    expect(await ask(test, '!quick')).toEqual(['@Ann quick']);
    expect(slowCalls(test).slice(before)).toEqual([]);
  });

  it('a handler that is slow and then throws: the warning as well as the failure', async () => {
    const test = await start();
    const before = slowCalls(test).length;
    expect(await ask(test, '!crash')).toEqual(['@Ann sorry, !crash failed.']);
    expect(slowCalls(test).slice(before)).toEqual([expect.objectContaining({ plugin: 'hog', doing: '!crash' })]);
  });

  it('its setup, a redemption handler and its teardown: each named', async () => {
    const test = await start();
    expect(slowCalls(test)).toEqual([expect.objectContaining({ plugin: 'hog', doing: 'its setup' })]);
    expect(test.host.plugins[0]!.state).toBe('running');

    expect(await test.host.handleRedemption({ id: 'r1', rewardKey: 'feast', channel: 'streamer', user: { id: '7', login: 'ann', displayName: 'Ann' }, input: '' }))
      .toMatchObject({ outcome: 'fulfill', plugin: 'hog' });
    expect(slowCalls(test).at(-1)).toMatchObject({ plugin: 'hog', rewardKey: 'feast', doing: 'its handler of reward feast' });

    await test.host.stop();
    expect(slowCalls(test).at(-1)).toMatchObject({ plugin: 'hog', doing: 'its teardown' });
    expect(slowCalls(test).map((entry) => entry['doing'])).toEqual(['its setup', 'its handler of reward feast', 'its teardown']);
  });

  it('the teardown of a plugin left out (its setup finished after its deadline), run at once: named', async () => {
    const clock = new ManualClock();
    const starting = startTestHost({ config: { pluginDirs: [folders.dir], plugins: { 'late-hog': {} } }, slowPluginCallMs: SLOW_MS, setupTimeoutMs: 1_000, clock });
    await vi.waitFor(() => expect(lateHog.chatskinLateHog).toBeDefined(), { timeout: 5_000 });
    await clock.advance(1_000);
    const test = await starting;
    expect(test.host.plugins[0]).toMatchObject({ name: 'late-hog', state: 'failed' });
    lateHog.chatskinLateHog!();
    await vi.waitFor(() => expect(slowCalls(test)).toEqual([expect.objectContaining({ plugin: 'late-hog', doing: 'its teardown' })]), { timeout: 5_000 });
  });

  it('by default, a tenth of a second is slow', async () => {
    const test = await start({});
    expect(slowCalls(test)).toEqual([expect.objectContaining({ plugin: 'hog', doing: 'its setup' })]);
  });
});
