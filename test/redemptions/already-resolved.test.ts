// A redemption Twitch already says is FULFILLED or CANCELED when the host gets it has no effect:
// Twitch takes a status only for an UNFULFILLED redemption, so the host could neither confirm nor
// refund it, and a viewer told "Your points were refunded" would not get them back (or would get
// the skin and the refund). Real twurple clients against the Twitch fakes, the real host and skin-shop.
import { describe, expect, it } from 'vitest';
import { CLIENT_ID, useRunningRedemptionWorlds } from './redemption-world.ts';
import type { RedemptionWorld } from './redemption-world.ts';

const running = useRunningRedemptionWorlds();

function redemptionStatusCalls(world: RedemptionWorld, since = 0): number {
  return world.helix.calls.slice(since).filter((c) => c.method === 'PATCH' && c.path === '/channel_points/custom_rewards/redemptions').length;
}

describe('a redemption that is not UNFULFILLED when the host gets it', () => {
  it('arriving FULFILLED (its reward skips the request queue): no effect, nothing said in chat, no status call', async () => {
    const world = await running();
    const neon = await world.rewardId('unlock-neon');
    const ghost = await world.rewardId('unlock-ghost');
    // Another tool using this app's client id (only it may change the reward) turns the queue off.
    for (const rewardId of [neon, ghost]) world.helix.updateRewardAs(CLIENT_ID, rewardId, { should_redemptions_skip_request_queue: true });
    const mark = world.helix.calls.length;

    const unlocked = world.helix.fireRedemption({ rewardId: neon, user: { login: 'fan', displayName: 'Fan' } }).redemption;
    // A skin that is not there: skin-shop would refund, and say so, though no refund can happen.
    const refused = world.helix.fireRedemption({ rewardId: ghost, user: { login: 'other', displayName: 'Other' } }).redemption;
    expect([unlocked.status, refused.status]).toEqual(['FULFILLED', 'FULFILLED']);
    await expect.poll(() => world.redemptions!.status().counters?.ignored, { timeout: 5000, interval: 5 }).toBe(2);

    expect(world.unlocks).toEqual([]);
    expect(world.said()).toEqual([]);
    expect(redemptionStatusCalls(world, mark)).toBe(0);
    expect(await world.service.findRedemptionEntry(world.accountId, unlocked.id)).toBeNull();
    const warnings = world.logs.filter((l) => l.level === 40 && l['redemption'] === unlocked.id).map((l) => l.msg);
    expect(warnings).toEqual([expect.stringMatching(/^redemption arrived already FULFILLED: its reward skips Twitch's request queue/)]);
  });

  it('a notification saying CANCELED: no effect (the points are back already)', async () => {
    const world = await running();
    const rewardId = await world.rewardId('unlock-neon');
    const redemption = world.helix.addOfflineRedemption({ rewardId, user: { login: 'fan' } });
    world.helix.resolveOnDashboard(redemption.id, 'CANCELED');
    world.helix.eventSub.sendRedemptionAdd({
      id: redemption.id, broadcaster_user_id: redemption.broadcaster_id, broadcaster_user_login: redemption.broadcaster_login,
      broadcaster_user_name: redemption.broadcaster_name, user_id: redemption.user_id, user_login: redemption.user_login,
      user_name: redemption.user_name, user_input: '', status: 'canceled', reward: { ...redemption.reward }, redeemed_at: redemption.redeemed_at,
    });
    await expect.poll(() => world.redemptions!.status().counters?.ignored, { timeout: 5000, interval: 5 }).toBe(1);
    expect(world.unlocks).toEqual([]);
    expect(world.said()).toEqual([]);
    expect(await world.service.findRedemptionEntry(world.accountId, redemption.id)).toBeNull();
  });

  it('canceled on the dashboard while the host was down: not run at the restart (the listing is of UNFULFILLED ones)', async () => {
    const world = await running();
    const rewardId = await world.rewardId('unlock-neon');
    await world.stop();
    const canceled = world.helix.addOfflineRedemption({ rewardId, user: { login: 'fan' } });
    const waiting = world.helix.addOfflineRedemption({ rewardId, user: { login: 'other' } });
    world.helix.resolveOnDashboard(canceled.id, 'CANCELED');
    await world.start();
    await world.helix.waitForRedemptionStatus(waiting.id, 'FULFILLED');
    expect(world.unlocks.map((u) => u.viewerId)).toEqual([waiting.user_id]);
    expect(world.helix.redemptionChanges.filter((c) => c.redemptionId === canceled.id).map((c) => c.clientId)).toEqual([null]);
  });
});
