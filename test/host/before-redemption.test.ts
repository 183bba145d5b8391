// HostOptions.beforeRedemption: what the host waits for before a redemption handler runs
// (chatskin's start: the sign-in of the viewer who redeemed, src/runtime/viewer-registrations.ts).
import { describe, expect, it, onTestFinished } from 'vitest';
import type { RedemptionEvent } from '../../src/sdk.ts';
import { createPluginFolders } from './plugin-folders.ts';
import { startTestHost } from './host-fixture.ts';
import type { TestHostOptions } from './host-fixture.ts';
import { LEVEL } from './log-capture.ts';

const RECORDING = `import { definePlugin } from SDK;
export default definePlugin({
  name: 'recording',
  setup(ctx) {
    ctx.onRedemption('note', () => { globalThis.beforeRedemptionOrder.push('handler'); return 'fulfill'; });
  },
});`;

const order: string[] = [];
(globalThis as { beforeRedemptionOrder?: string[] }).beforeRedemptionOrder = order;

async function start(beforeRedemption: TestHostOptions['beforeRedemption']) {
  order.length = 0;
  const folders = createPluginFolders();
  onTestFinished(() => folders.remove());
  folders.add('recording', RECORDING);
  return startTestHost({ config: { pluginDirs: [folders.dir], plugins: { recording: {} } }, beforeRedemption });
}

const redemption = (rewardKey: string): RedemptionEvent =>
  ({ id: `r-${rewardKey}`, rewardKey, channel: 'streamer', user: { id: '99', login: 'vera', displayName: 'Vera' }, input: '' });

describe('beforeRedemption', () => {
  it('is waited for before the handler runs, with the viewer who redeemed', async () => {
    const users: unknown[] = [];
    const test = await start((user) => {
      users.push(user);
      return new Promise<void>((resolve) => setTimeout(() => {
        order.push('signed in');
        resolve();
      }, 5));
    });
    expect(await test.host.handleRedemption(redemption('note'))).toMatchObject({ outcome: 'fulfill' });
    expect(order).toEqual(['signed in', 'handler']);
    expect(users).toEqual([{ id: '99', login: 'vera', displayName: 'Vera' }]);
  });

  it('is not asked for a reward no plugin handles', async () => {
    let asked = 0;
    const test = await start(() => {
      asked++;
      return undefined;
    });
    expect(await test.host.handleRedemption(redemption('nobody'))).toEqual({ outcome: 'unhandled' });
    expect(asked).toBe(0);
  });

  it('one that rejects (it must not) refunds without running the handler, logged', async () => {
    const test = await start(() => Promise.reject(new Error('sign-in broke')));
    expect(await test.host.handleRedemption(redemption('note'))).toMatchObject({ outcome: 'refund', plugin: 'recording' });
    expect(order).toEqual([]);
    expect(test.logs.filter((entry) => entry.level >= LEVEL.error).map((entry) => entry.msg))
      .toEqual(['beforeRedemption failed, so the handler did not run: sign-in broke; refunding']);
  });
});
