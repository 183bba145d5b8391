// The periodic listing (docs/redemptions.md, twitch.redemptions.reconcileIntervalSeconds): a
// redemption Twitch never notified (lost while nothing was subscribed) is still finished, once,
// when the interval has passed, without any reconnection or new token to set a listing off.
// Real twurple, host, skin-shop and store against the Twitch fakes, on a clock moved by hand.
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../host/manual-clock.ts';
import { openRedemptionWorld } from '../redemptions/redemption-world.ts';
import type { RedemptionWorld } from '../redemptions/redemption-world.ts';

const worlds: RedemptionWorld[] = [];
afterEach(async () => {
  for (const world of worlds.splice(0)) await world.close();
});

describe('the periodic listing of UNFULFILLED redemptions', () => {
  it('finishes a redemption that was never notified once reconcileIntervalSeconds have passed, and again every interval', async () => {
    const clock = new ManualClock(Date.now());
    const world = await openRedemptionWorld({ clock, reconcileIntervalSeconds: 60 });
    worlds.push(world);
    await world.start();
    await world.settled();
    const rewardId = await world.rewardId('unlock-neon');
    const statusOf = (id: string): string | undefined => world.helix.redemptions.find((r) => r.id === id)?.status;

    const missed = world.helix.addOfflineRedemption({ rewardId, user: { login: 'fan', displayName: 'Fan' } });
    await clock.advance(59_000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(statusOf(missed.id)).toBe('UNFULFILLED');
    await clock.advance(1_000);
    await world.helix.waitForRedemptionStatus(missed.id, 'FULFILLED', { timeoutMs: 10_000 });
    expect(world.unlocks).toHaveLength(1);

    // And again one interval later (the timer is armed anew after each listing).
    const later = world.helix.addOfflineRedemption({ rewardId, user: { login: 'other', displayName: 'Other' } });
    await expect.poll(async () => {
      await clock.advance(60_000);
      return statusOf(later.id);
    }, { timeout: 10_000, interval: 50 }).toBe('FULFILLED');
    expect(world.unlocks).toHaveLength(2);
  });
});
