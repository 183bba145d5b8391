// Skin rewards end to end: real twurple clients against the Twitch fakes, the real host with the
// skin-shop plugin, the bundled service on SQLite. Each redemption has one effect and its status.
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { REDEMPTION_ADD_TYPE } from '../fakes/fake-eventsub.ts';
import type { RedemptionJson } from '../fakes/fake-helix.ts';
import { openRedemptionWorld } from './redemption-world.ts';
import type { RedemptionWorld, WorldOptions } from './redemption-world.ts';

const worlds: RedemptionWorld[] = [];
afterEach(async () => {
  for (const world of worlds.splice(0)) await world.close();
});

async function running(options: WorldOptions = {}): Promise<RedemptionWorld> {
  const world = await openRedemptionWorld(options);
  worlds.push(world);
  await world.start();
  await world.settled();
  return world;
}

async function saidSoon(world: RedemptionWorld, line: string): Promise<void> {
  await expect.poll(() => world.said(), { timeout: 5000, interval: 5 }).toContain(line);
}

/** Twitch sending a redemption's event again under a fresh message id (same event). */
function resendAsNewMessage(world: RedemptionWorld, redemption: RedemptionJson): void {
  world.helix.eventSub.sendRedemptionAdd({
    id: redemption.id, broadcaster_user_id: redemption.broadcaster_id, broadcaster_user_login: redemption.broadcaster_login,
    broadcaster_user_name: redemption.broadcaster_name, user_id: redemption.user_id, user_login: redemption.user_login,
    user_name: redemption.user_name, user_input: '', status: 'unfulfilled', reward: { ...redemption.reward }, redeemed_at: redemption.redeemed_at,
  });
}

/** Waits until the ledger holds the redemption as settled (Twitch took its status). */
async function settledInLedger(world: RedemptionWorld, redemptionId: string): Promise<void> {
  await expect.poll(async () => (await world.service.findRedemptionEntry(world.accountId, redemptionId))?.state,
    { timeout: 5000, interval: 5 }).toBe('status-sent');
}

function statusChanges(world: RedemptionWorld, redemptionId: string): string[] {
  return world.helix.redemptionChanges.filter((c) => c.redemptionId === redemptionId).map((c) => `${c.from}->${c.to}`);
}

describe('a skin reward redeemed live', () => {
  it('signs the viewer in, unlocks the skin, says so in chat and marks the redemption FULFILLED', async () => {
    const world = await running();
    const rewardId = await world.rewardId('unlock-neon');
    const { redemption } = world.helix.fireRedemption({ rewardId, user: { login: 'fan', displayName: 'Fan' } });

    await world.helix.waitForRedemptionStatus(redemption.id, 'FULFILLED');
    expect(statusChanges(world, redemption.id)).toEqual(['UNFULFILLED->FULFILLED']);
    await saidSoon(world, '@Fan the Neon skin is yours!');
    expect(world.unlocks).toEqual([{ viewerId: redemption.user_id, skinId: world.skinIds['neon'], created: true }]);
    const viewer = await world.service.findViewer(redemption.user_id);
    expect(viewer).toMatchObject({ twitchUserId: redemption.user_id, twitchUsername: 'fan', displayName: 'Fan' });
    expect(await world.service.listViewerSkins(world.accountId, 'fan')).toEqual([{ id: world.skinIds['neon'], name: 'Neon', slug: 'neon' }]);
    await expect.poll(() => world.service.findRedemptionEntry(world.accountId, redemption.id))
      .toEqual({ id: redemption.id, rewardId, state: 'status-sent', outcome: 'fulfill', attempts: 1, replies: null });
  });

  it('refunds (CANCELED) a skin that does not exist, with the reason in chat', async () => {
    const world = await running();
    const { redemption } = world.helix.fireRedemption({ rewardId: await world.rewardId('unlock-ghost'), user: { login: 'fan', displayName: 'Fan' } });
    await world.helix.waitForRedemptionStatus(redemption.id, 'CANCELED');
    await saidSoon(world, '@Fan the skin "ghost" is not available on this channel. Your points were refunded.');
    expect(world.unlocks).toEqual([]);
  });

  it('refunds an inactive skin, with the reason in chat', async () => {
    const world = await running();
    const { redemption } = world.helix.fireRedemption({ rewardId: await world.rewardId('unlock-retired'), user: { login: 'fan', displayName: 'Fan' } });
    await world.helix.waitForRedemptionStatus(redemption.id, 'CANCELED');
    await saidSoon(world, '@Fan the Retired skin is not available right now. Your points were refunded.');
  });

  it('refunds a viewer who already owns the skin', async () => {
    const world = await running();
    const rewardId = await world.rewardId('unlock-neon');
    const first = world.helix.fireRedemption({ rewardId, user: { login: 'fan', displayName: 'Fan' } }).redemption;
    await world.helix.waitForRedemptionStatus(first.id, 'FULFILLED');
    const second = world.helix.fireRedemption({ rewardId, user: { login: 'fan', displayName: 'Fan' } }).redemption;
    await world.helix.waitForRedemptionStatus(second.id, 'CANCELED');
    await saidSoon(world, '@Fan you already have the Neon skin. Your points were refunded.');
    expect(world.unlocks.map((u) => u.created)).toEqual([true, false]);
  });

  it('refunds when the service keeps failing, after retrying, and says so', async () => {
    const failing: WorldOptions['overlayClient'] = (client) => ({
      ...client,
      unlockSkin: async () => {
        const { OverlayStyleError } = await import('../../src/client/overlay-style-error.ts');
        throw new OverlayStyleError({ status: 500, message: 'Server Error.' });
      },
    });
    const world = await running({ overlayClient: failing, skinShop: { rewards: { 'unlock-neon': 'neon' }, attempts: 3, retryDelayMs: 1 } });
    const { redemption } = world.helix.fireRedemption({ rewardId: await world.rewardId('unlock-neon'), user: { login: 'fan', displayName: 'Fan' } });
    await world.helix.waitForRedemptionStatus(redemption.id, 'CANCELED');
    expect(world.unlocks).toHaveLength(3);
    await saidSoon(world, '@Fan the skin could not be unlocked: the overlay service failed; try again later. Your points were refunded.');
  });
});

describe('exactly once', () => {
  it('a notification delivered twice (same message) has one effect', async () => {
    const world = await running();
    const rewardId = await world.rewardId('unlock-neon');
    const { redemption, deliveries } = world.helix.fireRedemption({ rewardId, user: { login: 'fan', displayName: 'Fan' } });
    world.helix.eventSub.redeliver(deliveries[0]!.messageId);
    await world.helix.waitForRedemptionStatus(redemption.id, 'FULFILLED');
    const next = world.helix.fireRedemption({ rewardId, user: { login: 'next', displayName: 'Next' } }).redemption;
    await world.helix.waitForRedemptionStatus(next.id, 'FULFILLED');
    expect(world.unlocks.map((u) => u.viewerId)).toEqual([redemption.user_id, next.user_id]);
    expect(world.redemptions!.status().eventsub?.duplicateMessages).toBe(1);
  });

  it('the same redemption in a new message (same redemption id) has one effect', async () => {
    const world = await running();
    const rewardId = await world.rewardId('unlock-neon');
    const { redemption } = world.helix.fireRedemption({ rewardId, user: { login: 'fan', displayName: 'Fan' } });
    await world.helix.waitForRedemptionStatus(redemption.id, 'FULFILLED');
    resendAsNewMessage(world, redemption);
    await expect.poll(() => world.redemptions!.status().counters?.duplicates, { timeout: 5000, interval: 5 }).toBe(1);
    expect(world.unlocks).toHaveLength(1);
    expect(statusChanges(world, redemption.id)).toEqual(['UNFULFILLED->FULFILLED']);
    expect(world.said()).toEqual(['@Fan the Neon skin is yours!']);
  });

  it('the same redemption sent again once it is fully handled is known from the ledger: no effect, no second status call', async () => {
    const world = await running();
    const rewardId = await world.rewardId('unlock-neon');
    const { redemption } = world.helix.fireRedemption({ rewardId, user: { login: 'fan', displayName: 'Fan' } });
    await world.helix.waitForRedemptionStatus(redemption.id, 'FULFILLED');
    // Past the in-flight guard: the ledger alone must know it now.
    await settledInLedger(world, redemption.id);
    const statusCalls = () => world.helix.calls.filter((c) => c.method === 'PATCH' && c.path === '/channel_points/custom_rewards/redemptions').length;
    const callsBefore = statusCalls();
    resendAsNewMessage(world, redemption);
    await expect.poll(() => world.redemptions!.status().counters?.duplicates, { timeout: 5000, interval: 5 }).toBe(1);
    expect(world.unlocks).toHaveLength(1);
    expect(statusCalls()).toBe(callsBefore);
    expect(world.said()).toEqual(['@Fan the Neon skin is yours!']);
  });

  it('a settled redemption Twitch still lists as UNFULFILLED gets its status again, never a second effect', async () => {
    const world = await running();
    const rewardId = await world.rewardId('unlock-neon');
    const { redemption } = world.helix.fireRedemption({ rewardId, user: { login: 'fan', displayName: 'Fan' } });
    await world.helix.waitForRedemptionStatus(redemption.id, 'FULFILLED');
    await settledInLedger(world, redemption.id);
    // Twitch lists it as unfulfilled again (our status was lost on its side).
    world.helix.redemptions.find((r) => r.id === redemption.id)!.status = 'UNFULFILLED';
    await world.redemptions!.reconcile();
    await world.helix.waitForRedemptionStatus(redemption.id, 'FULFILLED');
    expect(statusChanges(world, redemption.id)).toEqual(['UNFULFILLED->FULFILLED', 'UNFULFILLED->FULFILLED']);
    expect(world.unlocks).toHaveLength(1);
    expect(world.said()).toEqual(['@Fan the Neon skin is yours!']);
  });

  it('loses nothing across a session_reconnect in the middle of a stream of redemptions', async () => {
    const world = await running();
    const rewardId = await world.rewardId('unlock-neon');
    const fired = [];
    for (let i = 0; i < 5; i++) fired.push(world.helix.fireRedemption({ rewardId, user: { login: `before${i}` } }).redemption);
    const handover = world.helix.eventSub.requestReconnect();
    for (let i = 0; i < 5; i++) fired.push(world.helix.fireRedemption({ rewardId, user: { login: `during${i}` } }).redemption);
    await handover;
    for (let i = 0; i < 5; i++) fired.push(world.helix.fireRedemption({ rewardId, user: { login: `after${i}` } }).redemption);

    for (const redemption of fired) await world.helix.waitForRedemptionStatus(redemption.id, 'FULFILLED');
    expect(world.unlocks).toHaveLength(15);
    expect(new Set(world.unlocks.map((u) => u.viewerId)).size).toBe(15);
    const eventsub = world.redemptions!.status().eventsub!;
    expect(eventsub).toMatchObject({ state: 'connected', sessions: 1, handovers: 1, disconnects: 0, subscription: 'active' });
    expect(world.helix.eventSub.sessions).toHaveLength(1);
  });

  it('after a lost connection (no reconnect message), lists and finishes what was redeemed meanwhile', async () => {
    const world = await running();
    const rewardId = await world.rewardId('unlock-neon');
    const mark = world.helix.eventSub.subscriptions.length;
    world.helix.eventSub.dropAllConnections();
    await world.helix.eventSub.waitForDisconnect(world.helix.eventSub.sessions[0]!.id);
    // Redeemed while the host had no subscription: Twitch delivers nothing.
    const missed = world.helix.fireRedemption({ rewardId, user: { login: 'meanwhile' } });
    expect(missed.deliveries).toEqual([]);
    await world.helix.eventSub.waitForSubscription(REDEMPTION_ADD_TYPE, { since: mark });
    await world.helix.waitForRedemptionStatus(missed.redemption.id, 'FULFILLED');
    expect(world.unlocks).toHaveLength(1);
    expect(world.redemptions!.status().eventsub).toMatchObject({ sessions: 2, disconnects: 1, state: 'connected' });
  });

  it('lists again after a new subscription even while an older listing is still under way (it read too early)', async () => {
    // The unlock of the viewer "slow" waits until released: the listing that found it stays under way.
    let releaseSlow!: () => void;
    const slowGate = new Promise<void>((resolve) => (releaseSlow = resolve));
    let slowReached!: () => void;
    const reachedSlow = new Promise<void>((resolve) => (slowReached = resolve));
    const world = await running({
      overlayClient: (client) => ({
        ...client,
        async unlockSkin(request) {
          if (request.twitch_username === 'slow' || request.twitch_user_id === slowId) {
            slowReached();
            await slowGate;
          }
          return client.unlockSkin(request);
        },
      }),
    });
    const rewardId = await world.rewardId('unlock-neon');
    const resubscribed = async (): Promise<void> => {
      const mark = world.helix.eventSub.subscriptions.length;
      world.helix.eventSub.dropAllConnections();
      await world.helix.eventSub.waitForSubscription(REDEMPTION_ADD_TYPE, { since: mark });
    };
    // Missed while the connection was lost: the listing after the new subscription finds it and
    // stays under way on its unlock.
    const slow = world.helix.addOfflineRedemption({ rewardId, user: { login: 'slow' } });
    const slowId = slow.user_id;
    await resubscribed();
    await reachedSlow;
    // Lost again; redeemed meanwhile, after that listing read: only a listing made after the
    // next subscription can find it.
    world.helix.eventSub.dropAllConnections();
    const late = world.helix.addOfflineRedemption({ rewardId, user: { login: 'late' } });
    await resubscribed();
    releaseSlow();
    // Long before the next periodic listing (an hour here).
    await world.helix.waitForRedemptionStatus(slow.id, 'FULFILLED', { timeoutMs: 5000 });
    await world.helix.waitForRedemptionStatus(late.id, 'FULFILLED', { timeoutMs: 5000 });
    expect(statusChanges(world, late.id)).toEqual(['UNFULFILLED->FULFILLED']);
    expect(world.unlocks.map((u) => u.viewerId).sort()).toEqual([late.user_id, slow.user_id].sort());
  });

  it('catches up on start with what viewers redeemed while the host was down', async () => {
    const world = await running();
    const rewardId = await world.rewardId('unlock-neon');
    await world.stop();
    const offline = Array.from({ length: 3 }, (_, i) => world.helix.addOfflineRedemption({ rewardId, user: { login: `offline${i}` } }));
    const ghost = world.helix.addOfflineRedemption({ rewardId: await world.rewardId('unlock-ghost'), user: { login: 'ghostfan' } });

    const restarted = await world.start();
    // start() finishes them before it resolves.
    for (const redemption of offline) expect(world.helix.redemptions.find((r) => r.id === redemption.id)?.status).toBe('FULFILLED');
    expect(world.helix.redemptions.find((r) => r.id === ghost.id)?.status).toBe('CANCELED');
    expect(restarted.status().lastReconcile?.report).toMatchObject({ listed: 4, handled: 4, failures: [] });
    expect(world.unlocks).toHaveLength(3);
  });

  it('a listing whose pages shift under it (redemptions resolved between two of its pages) is listed again: none is skipped', async () => {
    const world = await running();
    const rewardId = await world.rewardId('unlock-neon');
    // Redeemed while the connection was lost: the listing after the new subscription finds them.
    world.helix.eventSub.dropAllConnections();
    const offline = Array.from({ length: 120 }, (_, i) => world.helix.addOfflineRedemption({ rewardId, user: { login: `offline${i}` } }));
    // Its first page (50, twurple's page size) is made as things are when it is asked, and sent
    // once five of its redemptions were resolved on the dashboard: the next page, counted from the
    // list as it is then, starts five further on, so five redemptions are on no page.
    const listing = () => world.helix.holdNext({ method: 'GET', path: '/channel_points/custom_rewards/redemptions' });
    let firstPage = listing();
    // The rewards are listed one after another: the other rewards' listings go on as they are.
    while ((await firstPage.arrived).query['reward_id']?.[0] !== rewardId) {
      const other = firstPage;
      firstPage = listing();
      other.release();
    }
    for (const redemption of offline.slice(0, 5)) world.helix.resolveOnDashboard(redemption.id, 'FULFILLED');
    firstPage.release();
    // Long before the next periodic listing (a minute away).
    for (const redemption of offline.slice(5)) await world.helix.waitForRedemptionStatus(redemption.id, 'FULFILLED', { timeoutMs: 5000 });
    // Each once (the five resolved after their page was made were listed UNFULFILLED, so they had theirs too).
    const unlocked = world.unlocks.map((call) => call.viewerId);
    expect(new Set(unlocked).size).toBe(unlocked.length);
    expect(unlocked.length).toBeGreaterThanOrEqual(115);
  });

  it('a crash between the unlock and FULFILLED is completed on restart without a second unlock', async () => {
    const world = await running();
    const rewardId = await world.rewardId('unlock-neon');
    // The status call fails (400 is not retried by twurple): the effect is done, the status is not.
    world.helix.failNext({ status: 400, method: 'PATCH', path: '/channel_points/custom_rewards/redemptions', message: 'injected' });
    const { redemption } = world.helix.fireRedemption({ rewardId, user: { login: 'fan', displayName: 'Fan' } });
    await expect.poll(() => world.redemptions!.status().counters?.statusFailures, { timeout: 5000, interval: 5 }).toBe(1);
    expect(await world.service.findRedemptionEntry(world.accountId, redemption.id)).toMatchObject({ state: 'effect-done', outcome: 'fulfill' });
    expect(world.helix.redemptions.find((r) => r.id === redemption.id)?.status).toBe('UNFULFILLED');
    await world.stop();

    await world.start();
    expect(world.helix.redemptions.find((r) => r.id === redemption.id)?.status).toBe('FULFILLED');
    expect(world.unlocks).toHaveLength(1);
    expect(statusChanges(world, redemption.id)).toEqual(['UNFULFILLED->FULFILLED']);
    // The chat line waits for the status: the ledger kept it through the stop, and the restart says it once Twitch has it.
    await expect.poll(() => world.said(), { timeout: 5000, interval: 5 }).toEqual(['@Fan the Neon skin is yours!']);
    expect(world.logs.filter((l) => String(l.msg).startsWith('stopping: 1 redemption chat reply(ies) not said yet')).map((l) => l['redemptions'])).toEqual([[redemption.id]]);
    expect(world.logs.filter((l) => l.msg === 'sent a redemption status left over from before').map((l) => l['redemption'])).toEqual([redemption.id]);
  });

  it('a status Twitch refused at first: the chat line is said when a later reconciliation gets it taken', async () => {
    const world = await running();
    const rewardId = await world.rewardId('unlock-neon');
    world.helix.failNext({ status: 400, method: 'PATCH', path: '/channel_points/custom_rewards/redemptions', message: 'injected' });
    const { redemption } = world.helix.fireRedemption({ rewardId, user: { login: 'fan', displayName: 'Fan' } });
    await expect.poll(() => world.redemptions!.status().counters?.statusFailures, { timeout: 5000, interval: 5 }).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(world.said()).toEqual([]);
    await world.redemptions!.reconcile();
    expect(world.helix.redemptions.find((r) => r.id === redemption.id)?.status).toBe('FULFILLED');
    await expect.poll(() => world.said(), { timeout: 5000, interval: 5 }).toEqual(['@Fan the Neon skin is yours!']);
    await world.redemptions!.reconcile();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(world.said()).toEqual(['@Fan the Neon skin is yours!']);
  });

  it('an effect interrupted after the unlock runs again with attempt 2 and is fulfilled, not refunded', async () => {
    const world = await running();
    const rewardId = await world.rewardId('unlock-neon');
    await world.stop();
    // The process died inside the handler: received, and the skin already granted.
    const redemption = world.helix.addOfflineRedemption({ rewardId, user: { login: 'fan', displayName: 'Fan' } });
    await world.service.beginRedemption(world.accountId, { id: redemption.id, rewardId });
    await world.service.registerViewer({ twitchUserId: redemption.user_id, login: 'fan' });
    await world.service.unlockSkin(world.accountId, { twitch_user_id: redemption.user_id, skin_id: world.skinIds['neon'] });

    await world.start();
    expect(world.helix.redemptions.find((r) => r.id === redemption.id)?.status).toBe('FULFILLED');
    expect(await world.service.findRedemptionEntry(world.accountId, redemption.id)).toMatchObject({ state: 'status-sent', outcome: 'fulfill', attempts: 2 });
    expect(world.redemptions!.status().counters?.resumed).toBe(1);
  });

  it('a status Twitch took that the ledger could not record is logged as that, not as Twitch\'s refusal, and recorded by the next reconciliation', async () => {
    const world = await running({ busyTimeoutMs: 200 });
    const rewardId = await world.rewardId('unlock-neon');
    const status = world.helix.holdNext({ method: 'PATCH', path: '/channel_points/custom_rewards/redemptions' });
    const { redemption } = world.helix.fireRedemption({ rewardId, user: { login: 'fan' } });
    await status.arrived;
    // Another program (a sqlite3 shell, a backup) holds the write lock when Twitch's answer comes.
    const other = new DatabaseSync(path.join(world.dir, 'chatskin.db'));
    other.exec('BEGIN EXCLUSIVE');
    try {
      status.release();
      await expect.poll(() => world.redemptions!.status().counters?.statusFailures, { timeout: 5000, interval: 5 }).toBe(1);
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    expect(world.helix.redemptions.find((r) => r.id === redemption.id)?.status).toBe('FULFILLED');
    const errors = world.logs.filter((entry) => entry.level >= 50).map((entry) => entry.msg);
    expect(errors).toEqual(["Twitch took the redemption's status, but the ledger could not record it: database is locked (the next reconciliation records it)"]);
    expect(await world.service.findRedemptionEntry(world.accountId, redemption.id)).toMatchObject({ state: 'effect-done' });
    expect(await world.redemptions!.reconcile()).toMatchObject({ statusesSent: 1, failures: [] });
    expect(await world.service.findRedemptionEntry(world.accountId, redemption.id)).toMatchObject({ state: 'status-sent', outcome: 'fulfill' });
    expect(world.unlocks).toHaveLength(1);
    expect(statusChanges(world, redemption.id)).toEqual(['UNFULFILLED->FULFILLED']);
  });

  it('sends a status the ledger still owes even when Twitch no longer lists the redemption', async () => {
    const world = await running();
    const rewardId = await world.rewardId('unlock-neon');
    world.helix.failNext({ status: 400, method: 'PATCH', path: '/channel_points/custom_rewards/redemptions' });
    const { redemption } = world.helix.fireRedemption({ rewardId, user: { login: 'fan' } });
    await expect.poll(() => world.redemptions!.status().counters?.statusFailures, { timeout: 5000, interval: 5 }).toBe(1);
    const report = await world.redemptions!.reconcile();
    expect(report).toMatchObject({ statusesSent: 1, failures: [] });
    expect(world.helix.redemptions.find((r) => r.id === redemption.id)?.status).toBe('FULFILLED');
    expect(world.unlocks).toHaveLength(1);
  });
});
