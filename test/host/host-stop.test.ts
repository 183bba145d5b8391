// A graceful stop of the host: no new chat is routed, commands already running finish (and their
// replies go out) before the reply queues close, and neither a command nor a teardown that never
// ends can hold the stop for longer than its bound.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPluginFolders } from './plugin-folders.ts';
import type { PluginFolders } from './plugin-folders.ts';
import { startTestHost } from './host-fixture.ts';
import type { TestHost } from './host-fixture.ts';
import { viewerTags } from './irc-tags.ts';
import { ManualClock, settle } from './manual-clock.ts';
import { TWITCH_CHAT_LIMITS } from '../../src/host/chat-transport.ts';

/** Gates the test opens; the plugins below wait on them. */
interface Gates {
  slow?: Promise<void>;
  teardown?: Promise<void>;
  tick?: Promise<void>;
}
const gates = globalThis as typeof globalThis & { chatskinStopGates?: Gates };

const WORK = `import { definePlugin } from SDK;
const gates = () => globalThis.chatskinStopGates ?? {};
export default definePlugin({
  name: 'work',
  setup(ctx) {
    ctx.command({ name: 'slow', run: async (call) => { await gates().slow; await call.reply('slow work done'); } });
    ctx.command({ name: 'forever', run: () => new Promise(() => {}) });
    ctx.command({ name: 'boom', run: async () => { throw new Error('kaboom'); } });
    ctx.command({ name: 'fire', run: (call) => { void call.reply('fired and forgotten'); } });
    return async () => { await gates().teardown; ctx.logger.info('work torn down'); };
  },
});`;
const TIDY = `import { definePlugin } from SDK;
export default definePlugin({
  name: 'tidy',
  setup(ctx) {
    return () => { ctx.logger.info('tidy torn down'); };
  },
});`;
const FAREWELL = `import { definePlugin } from SDK;
export default definePlugin({
  name: 'farewell',
  setup(ctx) {
    return async () => { globalThis.farewellOutcome = await ctx.chat.say(ctx.channel, 'the bot is going offline, bye!'); };
  },
});`;
const TICKER = `import { definePlugin } from SDK;
export default definePlugin({
  name: 'ticker',
  setup(ctx) {
    ctx.every(1_000, async () => { await globalThis.chatskinStopGates?.tick; await ctx.chat.say(ctx.channel, 'tick done'); });
  },
});`;
const NEVER_LOADS = `import { definePlugin } from SDK;
await new Promise(() => {});
export default definePlugin({ name: 'never-loads', setup() {} });`;

let folders: PluginFolders;
beforeAll(() => {
  folders = createPluginFolders();
  folders.add('tidy', TIDY);
  folders.add('work', WORK);
  folders.add('never-loads', NEVER_LOADS);
  folders.add('ticker', TICKER);
  folders.add('farewell', FAREWELL);
});
afterAll(() => {
  folders.remove();
  delete gates.chatskinStopGates;
});

function opened(): { promise: Promise<void>; open(): void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => { open = resolve; });
  return { promise, open };
}

// tidy first, so its teardown starts last (teardowns start in reverse order, all at once).
const start = (clock = new ManualClock()): Promise<TestHost> =>
  startTestHost({ config: { pluginDirs: [folders.dir], plugins: { tidy: {}, work: {} } }, clock, stopTimeoutMs: 5_000 });

/** A host on a manual clock, stopping while `!forever` (a command that never ends) is under way. */
async function stopWithCommandUnderWay(stopGates: typeof gates.chatskinStopGates) {
  gates.chatskinStopGates = stopGates;
  const clock = new ManualClock();
  const test = await start(clock);
  test.chat.message('#streamer', '!forever', viewerTags('ann'));
  await settle();
  let done = false;
  const stopping = test.host.stop().then(() => { done = true; });
  return { test, clock, stopping, stopped: () => done };
}

describe('host stop', () => {
  it('lets a command under way finish and send its reply before the queues close', async () => {
    const slow = opened();
    gates.chatskinStopGates = { slow: slow.promise };
    const test = await start();
    test.chat.message('#streamer', '!slow', viewerTags('ann'));
    await settle();
    let stopped = false;
    const stopping = test.host.stop().then(() => { stopped = true; });
    await settle();
    expect(stopped).toBe(false);
    // Chat that comes in while stopping is not routed.
    test.chat.message('#streamer', '!slow', viewerTags('bob'));
    slow.open();
    await stopping;
    expect(test.said()).toEqual(['@Ann slow work done']);
  });

  it('keeps pacing the lines that go out while stopping: a line Twitch refuses then is sent again', async () => {
    const slow = opened();
    gates.chatskinStopGates = { slow: slow.promise, teardown: new Promise(() => {}) };
    const clock = new ManualClock();
    const test = await startTestHost({
      config: { pluginDirs: [folders.dir], plugins: { tidy: {}, work: {} } }, clock, stopTimeoutMs: 5_000, limits: TWITCH_CHAT_LIMITS,
    });
    test.chat.message('#streamer', '!slow', viewerTags('ann'));
    await settle();
    const stopping = test.host.stop();
    slow.open();
    await clock.advance(0);
    expect(test.said()).toEqual(['@Ann slow work done']);
    // During the teardowns (work's never ends: 3 s), Twitch refuses the line for slow mode.
    test.chat.receive({ type: 'line-refused', channel: 'streamer', text: '@Ann slow work done', reason: 'msg_slowmode', remedy: { kind: 'wait', ms: 2_000 } });
    await clock.advance(3_000);
    await stopping;
    expect(test.said()).toEqual(['@Ann slow work done', '@Ann slow work done']);
  });

  it('gives up on a command that never ends after stopTimeoutMs, says so, and still tears down', async () => {
    const { test, clock, stopping, stopped } = await stopWithCommandUnderWay({});
    await clock.advance(4_999);
    expect(stopped()).toBe(false);
    await clock.advance(1);
    await stopping;
    // Named, with its plugin, for its author.
    expect(test.logs.filter((entry) => /did not finish/.test(String(entry.msg)) && !/teardown/.test(String(entry.msg)))).toEqual([
      expect.objectContaining({ plugin: 'work', command: 'forever', user: 'ann', msg: "stopping: plugin work's !forever did not finish within 5000 ms; shutdown goes on" }),
    ]);
    expect(test.logs.map((entry) => entry.msg)).toEqual(expect.arrayContaining(['work torn down', 'tidy torn down']));
  });

  it("bounds a teardown that never ends, and the other plugin's teardown still runs", async () => {
    gates.chatskinStopGates = { teardown: new Promise(() => {}) };
    const clock = new ManualClock();
    const test = await start(clock);
    const stopping = test.host.stop();
    await clock.advance(3_000);
    await stopping;
    expect(test.logs.find((entry) => entry.plugin === 'work' && /teardown/.test(String(entry.msg)))?.msg)
      .toBe("stopping: plugin work's teardown: did not finish within 3000 ms");
    expect(test.logs.map((entry) => entry.msg)).toContain('tidy torn down');
    expect(test.logs.map((entry) => entry.msg)).not.toContain('work torn down');
  });

  it('a command and a teardown that both never end cost 5 s and 3 s: the stop fits the 10 s shutdown deadline, and the other teardown runs', async () => {
    const { test, clock, stopping, stopped } = await stopWithCommandUnderWay({ teardown: new Promise(() => {}) });
    await clock.advance(5_000);
    expect(test.logs.map((entry) => entry.msg)).toContain('tidy torn down');
    await clock.advance(2_999);
    expect(stopped()).toBe(false);
    await clock.advance(1);
    await stopping;
    expect(stopped()).toBe(true);
  });

  it('drain() is the stop\'s first part: no new chat routed, the commands under way waited for; a stop after it does not wait for them again', async () => {
    gates.chatskinStopGates = {};
    const clock = new ManualClock();
    const test = await start(clock);
    test.chat.message('#streamer', '!forever', viewerTags('ann'));
    await settle();
    let drained = false;
    const draining = test.host.drain().then(() => { drained = true; });
    // A stop of the whole process runs this beside the redemptions' own wait (start-chatskin.ts).
    test.chat.message('#streamer', '!slow', viewerTags('bob'));
    await clock.advance(5_000);
    await draining;
    expect(drained).toBe(true);
    expect(test.said()).toEqual([]);
    expect(test.logs.map((entry) => entry.msg)).not.toContain('work torn down');
    // The commands' 5 s are spent: the stop only tears down.
    await test.host.stop();
    expect(test.logs.map((entry) => entry.msg)).toEqual(expect.arrayContaining(['work torn down', 'tidy torn down']));
    expect(test.logs.filter((entry) => /did not finish within 5000 ms/.test(String(entry.msg)))).toHaveLength(1);
  });

  it('a ctx.every run under way when the stop begins finishes and its line goes out; no run starts after', async () => {
    const tick = opened();
    gates.chatskinStopGates = { tick: tick.promise };
    const test = await startTestHost({ config: { pluginDirs: [folders.dir], plugins: { ticker: {} } } });
    await test.clock.advance(1_000);
    let stopped = false;
    const stopping = test.host.stop().then(() => { stopped = true; });
    await settle();
    expect(stopped).toBe(false);
    tick.open();
    await stopping;
    expect(test.said()).toEqual(['tick done']);
    await test.clock.advance(10_000);
    expect(test.said()).toEqual(['tick done']);
  });

  it('a ctx.every run that never ends is given up on after stopTimeoutMs, named with its plugin', async () => {
    gates.chatskinStopGates = { tick: new Promise(() => {}) };
    const clock = new ManualClock();
    const test = await startTestHost({ config: { pluginDirs: [folders.dir], plugins: { ticker: {} } }, clock, stopTimeoutMs: 5_000 });
    await clock.advance(1_000);
    const stopping = test.host.stop();
    await clock.advance(5_000);
    await stopping;
    expect(test.logs.filter((entry) => /did not finish/.test(String(entry.msg)))).toEqual([
      expect.objectContaining({ plugin: 'ticker', msg: "stopping: plugin ticker's timer (every 1000 ms) did not finish within 5000 ms; shutdown goes on" }),
    ]);
  });

  it('the lines the host says for a command (its "failed" line) and a reply the handler did not wait for go out before the queues close, paced as Twitch wants', async () => {
    gates.chatskinStopGates = {};
    const clock = new ManualClock();
    const test = await startTestHost({ config: { pluginDirs: [folders.dir], plugins: { work: {} } }, clock, limits: TWITCH_CHAT_LIMITS });
    test.chat.message('#streamer', '!boom', viewerTags('ann'));
    test.chat.message('#streamer', '!boom', viewerTags('bob'));
    test.chat.message('#streamer', '!fire', viewerTags('cat'));
    await settle();
    const stopping = test.host.stop();
    await clock.advance(3_000);
    await stopping;
    expect(test.said()).toEqual(['@Cat fired and forgotten', '@Ann sorry, !boom failed.', '@Bob sorry, !boom failed.']);
    expect(test.logs.map((entry) => entry.msg)).not.toContain('host stopping: waiting replies are not sent');
  });

  it('a teardown may still say a line (chat is connected until the teardowns are done); one said after the stop is refused', async () => {
    const g = globalThis as { farewellOutcome?: unknown };
    const test = await startTestHost({ config: { pluginDirs: [folders.dir], plugins: { farewell: {} } } });
    await test.host.stop();
    expect(g.farewellOutcome).toEqual({ status: 'sent', parts: 1 });
    expect(test.said()).toEqual(['the bot is going offline, bye!']);
    expect(await test.host.say('streamer', 'too late')).toEqual({ status: 'refused', reason: 'the host is stopping' });
    delete g.farewellOutcome;
  });

  it('fails a plugin whose module never finishes loading, and starts the others', async () => {
    const clock = new ManualClock();
    const starting = startTestHost({ config: { pluginDirs: [folders.dir], plugins: { 'never-loads': {}, tidy: {} } }, clock, setupTimeoutMs: 10_000 });
    await clock.advance(10_000);
    const test = await starting;
    expect(test.host.plugins).toEqual([
      expect.objectContaining({ name: 'never-loads', state: 'failed', error: 'setup did not finish within 10000 ms' }),
      expect.objectContaining({ name: 'tidy', state: 'running' }),
    ]);
  });
});
