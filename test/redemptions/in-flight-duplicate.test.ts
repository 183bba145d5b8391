// A redemption whose effect is under way when a listing finds it UNFULFILLED (a reconciliation
// while the live notification's unlock still runs) has its effect once (docs/redemptions.md: "a
// redemption already under way in this process is not started twice"). Real twurple, host,
// skin-shop and store against the Twitch fakes.
import { afterEach, describe, expect, it } from 'vitest';
import { openRedemptionWorld } from '../redemptions/redemption-world.ts';
import type { RedemptionWorld } from '../redemptions/redemption-world.ts';

const worlds: RedemptionWorld[] = [];
/** Gates to open on the way out, so a failing test does not leave an unlock waiting. */
const gates: Array<() => void> = [];
afterEach(async () => {
  for (const open of gates.splice(0)) open();
  for (const world of worlds.splice(0)) await world.close();
});

describe('a redemption listed while its live effect is under way', () => {
  it('is not started a second time: one unlock, one FULFILLED, counted as a duplicate', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    gates.push(() => release());
    let reached!: () => void;
    const underWay = new Promise<void>((resolve) => (reached = resolve));
    const world = await openRedemptionWorld({
      overlayClient: (client) => ({
        ...client,
        async unlockSkin(request) {
          reached();
          await gate;
          return client.unlockSkin(request);
        },
      }),
    });
    worlds.push(world);
    await world.start();
    await world.settled();
    const rewardId = await world.rewardId('unlock-neon');

    const live = world.helix.fireRedemption({ rewardId, user: { login: 'fan', displayName: 'Fan' } });
    expect(live.deliveries.map((d) => d.delivered)).toEqual([true]);
    await underWay;
    // The listing sees it UNFULFILLED while the unlock waits.
    const listing = world.redemptions!.reconcile();
    await expect.poll(() => world.redemptions!.status().counters?.duplicates, { timeout: 5000, interval: 5 }).toBe(1);
    release();
    const report = await listing;
    await world.helix.waitForRedemptionStatus(live.redemption.id, 'FULFILLED', { timeoutMs: 5000 });
    await world.settled();

    expect(report).toMatchObject({ listed: 1, failures: [] });
    expect(world.unlocks).toHaveLength(1);
    expect(world.redemptions!.status().counters).toMatchObject({ effects: 1, fulfilled: 1, resumed: 0, duplicates: 1 });
    expect(world.helix.redemptionChanges.filter((c) => c.redemptionId === live.redemption.id).map((c) => `${c.from}->${c.to}`))
      .toEqual(['UNFULFILLED->FULFILLED']);
  });
});
