// The host-wide stall warning: the thread blocked where the host times no plugin call (a plugin's
// work after an await) is still reported, without a name; a block already named by the slow-call
// warning is not reported twice; after stop() nothing is watched, and the watch never holds the
// process open. The thresholds are small here (STALL_MS) so the busy loops stay short.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runFixtureProcess } from '../support/run-fixture-process.ts';
import { createPluginFolders } from './plugin-folders.ts';
import type { PluginFolders } from './plugin-folders.ts';
import { startTestHost } from './host-fixture.ts';
import type { TestHost } from './host-fixture.ts';
import { viewerTags } from './irc-tags.ts';
import { LEVEL } from './log-capture.ts';
import { settle } from './manual-clock.ts';

const STALL_MS = 200;
/** How long a stall lasts: past STALL_MS whatever the machine. */
const BUSY_MS = 400;
/** Long enough for the watch (which ticks every STALL_MS / 10) to tick many times: a wait, not a speed check. */
const TICKS = STALL_MS;
const POLL = { timeout: 10_000, interval: 20 };
const UNSTOPPED_HOST = fileURLToPath(new URL('./fixtures/unstopped-host-child.ts', import.meta.url));

/**
 * Holds the thread for `ms` of CPU time, so for at least that long: a loop on the wall clock may,
 * on a loaded machine, get so little CPU that the watch rightly reads the gap as the process not
 * running (a pause) rather than as a block.
 */
const busy = (ms: number): void => {
  const start = process.cpuUsage();
  while (cpuMsSince(start) < ms) { /* holding the thread */ }
};
function cpuMsSince(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

const HOG = `import { definePlugin } from SDK;
const busy = () => { const start = process.cpuUsage(); const used = () => { const u = process.cpuUsage(start); return (u.user + u.system) / 1000; }; while (used() < ${BUSY_MS}) {} };
export default definePlugin({
  name: 'hog',
  setup(ctx) {
    ctx.command({ name: 'crunch', run: (call) => { busy(); void call.reply('crunched'); } });
    ctx.command({ name: 'later', run: async (call) => { await new Promise((resolve) => setImmediate(resolve)); busy(); await call.reply('done later'); } });
  },
});`;

let folders: PluginFolders;
beforeAll(() => {
  folders = createPluginFolders();
  folders.add('hog', HOG);
});
afterAll(() => folders.remove());

const start = (): Promise<TestHost> =>
  startTestHost({ config: { pluginDirs: [folders.dir], plugins: { hog: {} } }, slowPluginCallMs: 100, stallWarningMs: STALL_MS });

const stalls = (test: TestHost) => test.logs.filter((entry) => entry.level === LEVEL.warn && entry['blockedMs'] !== undefined);
const slowCalls = (test: TestHost) => test.logs.filter((entry) => entry.level === LEVEL.warn && entry['heldMs'] !== undefined);

const STALL_WATCH_CHILD = fileURLToPath(new URL('./fixtures/stall-watch-child.ts', import.meta.url));

describe('the stall watch in a process stopped from outside', () => {
  it('says the process did not run (a sleeping machine, a paused VM) rather than that its thread was blocked, and a real block as a block', async () => {
    const child = spawn(process.execPath, [STALL_WATCH_CHILD], { stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => { out += chunk.toString(); });
    const warnings = () => out.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Record<string, unknown>);
    try {
      await expect.poll(() => out, POLL).toContain('ready');
      // A machine loaded enough may starve the child into a short pause of its own besides: only
      // the stop and the block are looked for.
      const paused = () => warnings().filter((warning) => Number(warning['pausedMs']) >= 1_000);
      const blocked = () => warnings().filter((warning) => warning['blockedMs'] !== undefined);
      child.kill('SIGSTOP');
      await sleep(1_500);
      child.kill('SIGCONT');
      await expect.poll(() => paused().length, POLL).toBe(1);
      expect(String(paused()[0]!['msg'])).toMatch(/^the host did not run for about \d+ ms \(it used next to no CPU meanwhile: the machine slept, the VM was paused or the process was stopped\)/);
      expect(blocked()).toEqual([]);

      child.stdin.write('busy\n');
      await expect.poll(() => blocked().length, POLL).toBe(1);
      expect(String(blocked()[0]!['msg'])).toMatch(/^the host's thread was blocked for at least/);
    } finally {
      child.stdin.end();
      child.kill('SIGCONT');
      await new Promise((resolve) => child.once('exit', resolve));
    }
  });
});

describe('the host-wide stall warning', () => {
  it('reports a plugin\'s work after an await, which no slow-call warning can name', async () => {
    const test = await start();
    test.chat.message('#streamer', '!later', viewerTags('ann'));
    await expect.poll(() => stalls(test), POLL).toHaveLength(1);
    expect(stalls(test)[0]!['blockedMs']).toBeGreaterThanOrEqual(STALL_MS);
    expect(stalls(test)[0]!.msg).toBe(`the host's thread was blocked for at least ${String(stalls(test)[0]!['blockedMs'])} ms outside any plugin call the host times `
      + '(plugin work after an await or in a timer, the host\'s own work, or a machine short of CPU): chat, the overlay and the API waited meanwhile');
    expect(slowCalls(test)).toEqual([]);
    expect(test.said()).toEqual(['@Ann done later']);
  });

  it('does not report again a block the slow-call warning named', async () => {
    const test = await start();
    test.chat.message('#streamer', '!crunch', viewerTags('ann'));
    await settle();
    expect(slowCalls(test)).toEqual([expect.objectContaining({ plugin: 'hog', doing: '!crunch' })]);
    await sleep(TICKS);
    // A stall nobody named, to know the watch was ticking all along.
    test.chat.message('#streamer', '!later', viewerTags('ann'));
    await expect.poll(() => stalls(test).length, POLL).toBeGreaterThan(0);
    await sleep(TICKS);
    expect(stalls(test)).toHaveLength(1);
    expect(test.said()).toEqual(['@Ann crunched', '@Ann done later']);
  });

  it('is stopped by stop(): a host still running reports a block, the stopped one does not', async () => {
    const stopped = await start();
    const running = await start();
    await stopped.host.stop();
    busy(BUSY_MS);
    // At least the one block (a loaded machine may starve the running watch into another report).
    await expect.poll(() => stalls(running).length, POLL).toBeGreaterThan(0);
    await sleep(TICKS);
    expect(stalls(stopped)).toEqual([]);
  });

  it('never holds the process open: a process whose host was never stopped exits by itself', async () => {
    expect(await runFixtureProcess(UNSTOPPED_HOST)).toEqual({ code: 0, out: 'host started\n', err: '' });
  });
});
