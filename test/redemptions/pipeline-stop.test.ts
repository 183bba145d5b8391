// The redemption pipeline's stop while a reconciliation waits for a handler that never settles:
// the reconciliation ends at once, the stop waits its stopWaitMs, and no timer of the pipeline's
// is left (one would hold an embedding process open). Fakes only, on a manual clock.
import { describe, expect, it } from 'vitest';
import type { TwitchRedemption } from '../../src/host/redemptions/channel-points.ts';
import { createRedemptionPipeline } from '../../src/host/redemptions/redemption-pipeline.ts';
import type { LedgerEntry, RedemptionLedger } from '../../src/host/redemptions/redemption-ledger.ts';
import { captureLogs } from '../host/log-capture.ts';
import { ManualClock, settle } from '../host/manual-clock.ts';

const REWARD = 'reward-neon';

const redemption: TwitchRedemption = {
  id: 'r1', rewardId: REWARD, broadcasterId: '42', user: { id: '7', login: 'fan', displayName: 'Fan' }, input: '', redeemedAt: new Date(), status: 'UNFULFILLED',
};

/** A ledger that has never seen a redemption. */
const newLedger: RedemptionLedger = {
  beginRedemption: async ({ id, rewardId }) => ({ entry: { id, rewardId, state: 'received', outcome: null, attempts: 1, replies: null } satisfies LedgerEntry, isNew: true }),
  recordRedemptionEffect: async () => {},
  recordRedemptionStatusSent: async () => {},
  listRedemptionsAwaitingStatus: async () => [],
  listRedemptionsAwaitingEffect: async () => [],
};

describe('the redemption pipeline stopped during a reconciliation', () => {
  it('ends the reconciliation, waits stopWaitMs for the handler that never settles, and leaves no timer', async () => {
    const clock = new ManualClock();
    let handling!: () => void;
    const handled = new Promise<void>((resolve) => (handling = resolve));
    const pipeline = createRedemptionPipeline({
      ledger: newLedger,
      channelPoints: { listUnfulfilledRedemptions: async () => [redemption], setRedemptionStatus: async () => [] },
      handle: () => {
        handling();
        return new Promise(() => {});
      },
      channel: 'streamer',
      rewardKeyOf: (rewardId) => (rewardId === REWARD ? 'unlock-neon' : undefined),
      logger: captureLogs().logger,
      clock,
      handlerWaitMs: 30_000,
      stopWaitMs: 5_000,
    });
    const reconciling = pipeline.reconcile([REWARD]);
    await handled;
    const stopping = pipeline.stop();
    expect(await reconciling).toMatchObject({ listed: 1, handled: 0, failures: [] });
    await clock.advance(5_000);
    await stopping;
    await settle();
    expect(clock.pendingTimers).toBe(0);
  });
});
