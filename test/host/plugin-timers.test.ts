// ctx.every: a plugin's repeating work on the host's clock (moved by hand here), through the
// whole test host with a plugin written as a streamer would: it runs every interval, a failing
// run is logged and the timer goes on, a run still going makes the next skipped, cancel and the
// host's stop end it, and a bad interval is refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPluginFolders } from './plugin-folders.ts';
import type { PluginFolders } from './plugin-folders.ts';
import { startTestHost } from './host-fixture.ts';
import type { TestHost } from './host-fixture.ts';
import { moderatorTags } from './irc-tags.ts';
import { LEVEL } from './log-capture.ts';
import { settle } from './manual-clock.ts';

const ANNOUNCER = `import { definePlugin, z } from SDK;
let ticks = 0;
let release = () => {};
export default definePlugin({
  name: 'announcer',
  config: z.strictObject({}),
  setup(ctx) {
    let stop = ctx.every(60_000, async () => {
      ticks += 1;
      if (ticks === 2) throw new Error('the feed was down');
      if (ticks === 4) await new Promise((resolve) => { release = resolve; });
      await ctx.chat.say(ctx.channel, 'announcement ' + ticks);
    });
    ctx.command({ name: 'announce', role: 'moderator', args: [{ name: 'state', type: 'string' }], run: (call) => {
      if (call.args.state === 'off') { stop(); void call.reply('announcements off'); }
      if (call.args.state === 'release') { release(); }
    } });
  },
});`;

const BAD_INTERVAL = `import { definePlugin } from SDK;
export default definePlugin({ name: 'too-often', setup(ctx) { ctx.every(10, () => {}); } });`;

const STUCK = `import { definePlugin } from SDK;
export default definePlugin({ name: 'stuck', setup(ctx) { ctx.every(1_000, () => new Promise(() => {})); } });`;

let folders: PluginFolders;
beforeAll(() => {
  folders = createPluginFolders();
  folders.add('stuck', STUCK);
  folders.add('announcer', ANNOUNCER);
  folders.add('too-often', BAD_INTERVAL);
});
afterAll(() => folders.remove());

const start = (plugin: string): Promise<TestHost> => startTestHost({ config: { pluginDirs: [folders.dir], plugins: { [plugin]: {} } } });

describe('ctx.every', () => {
  it('runs on the host\'s clock, logs a failed run and goes on, skips a run while one is still going, and ends at cancel', async () => {
    const test = await start('announcer');
    await test.clock.advance(59_999);
    expect(test.said()).toEqual([]);
    await test.clock.advance(1);
    expect(test.said()).toEqual(['announcement 1']);

    await test.clock.advance(60_000);
    expect(test.said()).toEqual(['announcement 1']);
    expect(test.logs.find((entry) => entry.level === LEVEL.error)?.msg)
      .toBe("plugin announcer's timer failed: the feed was down; it runs again at the next interval");

    await test.clock.advance(60_000);
    expect(test.said()).toEqual(['announcement 1', 'announcement 3']);
    // The fourth run waits (a slow feed): the fifth interval passes without a second one at once.
    await test.clock.advance(60_000);
    await test.clock.advance(60_000);
    expect(test.said()).toEqual(['announcement 1', 'announcement 3']);
    test.chat.message('#streamer', '!announce release', moderatorTags());
    await settle();
    await test.clock.advance(0);
    expect(test.said()).toEqual(['announcement 1', 'announcement 3', 'announcement 4']);

    await test.clock.advance(60_000);
    expect(test.said().at(-1)).toBe('announcement 5');
    test.chat.message('#streamer', '!announce off', moderatorTags());
    await settle();
    await test.clock.advance(600_000);
    expect(test.said().filter((line) => line.startsWith('announcement'))).toHaveLength(4);
    await test.host.stop();
  });

  it('a run that never ends is warned about once, naming the plugin, when it makes the next run skipped', async () => {
    const test = await start('stuck');
    await test.clock.advance(1_000);
    expect(test.logs.filter((entry) => entry.level >= LEVEL.warn)).toEqual([]);
    await test.clock.advance(60_000);
    expect(test.logs.filter((entry) => entry.level >= LEVEL.warn)).toEqual([expect.objectContaining({
      level: LEVEL.warn, plugin: 'stuck',
      msg: "plugin stuck's timer (every 1000 ms) is still running from its run 1000 ms ago: this run is skipped, and so is every next one until that run finishes",
    })]);
  });

  it('ends with the host: no run after stop', async () => {
    const test = await start('announcer');
    await test.host.stop();
    await test.clock.advance(600_000);
    expect(test.said()).toEqual([]);
    expect(test.clock.pendingTimers).toBe(0);
  });

  it('refuses an interval under a second: the plugin fails to start, named, and the host serves on', async () => {
    const test = await start('too-often');
    expect(test.host.plugins).toEqual([expect.objectContaining({ name: 'too-often', state: 'failed' })]);
    expect(test.host.plugins[0]!.error).toContain('ctx.every: the interval must be a whole number of milliseconds from 1000 to 86400000 (a day), got 10');
    await test.host.stop();
  });
});
