// Redemptions that silently stop arriving: the EventSub connection goes half-dead (the socket stays
// open, but no keepalive and no notification comes through any more). The host must notice by the
// session's keepalive timeout, say so, open a new session, and finish by listing what was redeemed
// while it heard nothing. Real twurple, host, skin-shop and store against the Twitch fakes.
import { describe, expect, it } from 'vitest';
import { REDEMPTION_ADD_TYPE } from '../fakes/fake-eventsub.ts';
import { LEVEL } from '../host/log-capture.ts';
import { useRunningRedemptionWorlds } from './redemption-world.ts';
import type { RedemptionWorld } from './redemption-world.ts';

/**
 * The keepalive_timeout_seconds the fake announces in its welcome. Twitch's least is 10; twurple's
 * mock mode cannot ask for one (it connects to ws://127.0.0.1:PORT/ws as is), so the fake is told
 * directly, short to keep the test quick. Keepalives come every half second while the session is
 * healthy, far inside the timeout, so a slow machine does not lose a healthy session.
 */
const KEEPALIVE_TIMEOUT_SECONDS = 2;
/** Only guards against a hung test: twurple gives up a silent socket after 1.2 times the timeout. */
const GUARD_MS = 20_000;

const runningWorld = useRunningRedemptionWorlds();
const running = (): Promise<RedemptionWorld> => runningWorld({
  helix: { eventSubOptions: { keepaliveTimeoutSeconds: KEEPALIVE_TIMEOUT_SECONDS, keepaliveIntervalMs: 500 } },
});

function eventSubLines(world: RedemptionWorld): Array<{ level: number; msg: string }> {
  return world.logs.filter((l) => l['component'] === 'eventsub').map((l) => ({ level: l.level, msg: String(l.msg) }));
}

describe('a half-dead EventSub connection', () => {
  it('is noticed by its keepalive timeout, reported, replaced by a new session, and what was redeemed meanwhile is fulfilled once', async () => {
    const world = await running();
    const eventSub = world.helix.eventSub;
    const rewardId = await world.rewardId('unlock-neon');
    const first = eventSub.sessions[0]!;
    expect(first.keepaliveTimeoutSeconds).toBe(KEEPALIVE_TIMEOUT_SECONDS);
    const firstSubscription = eventSub.activeSubscriptions({ type: REDEMPTION_ADD_TYPE, sessionId: first.id })[0]!;
    const mark = eventSub.subscriptions.length;

    eventSub.silenceSession(first.id);
    // Redeemed while the connection is silent: Twitch sends the notification, it never arrives.
    const missed = world.helix.fireRedemption({ rewardId, user: { login: 'meanwhile', displayName: 'Meanwhile' } });
    expect(missed.deliveries.map((d) => ({ sessionId: d.sessionId, delivered: d.delivered }))).toEqual([{ sessionId: first.id, delivered: false }]);
    // Nothing has closed the socket: to the fake the session is alive, its subscription enabled.
    expect(eventSub.sessions[0]).toMatchObject({ status: 'connected', openSockets: 1, silent: true });
    expect(firstSubscription.status).toBe('enabled');

    // The host gives the silent socket up (the fake never closes it: only the client can) ...
    await eventSub.waitForDisconnect(first.id, { timeoutMs: GUARD_MS });
    expect(firstSubscription.status).toBe('websocket_disconnected');
    // ... opens a new session and subscribes on it ...
    const again = await eventSub.waitForSubscription(REDEMPTION_ADD_TYPE, { since: mark, userId: world.broadcaster.id, timeoutMs: GUARD_MS });
    expect(again.transport.session_id).not.toBe(first.id);
    expect(eventSub.sessions.map((s) => s.status)).toEqual(['disconnected', 'connected']);
    // ... and the listing that follows the new subscription finishes the lost redemption.
    await world.helix.waitForRedemptionStatus(missed.redemption.id, 'FULFILLED', { timeoutMs: GUARD_MS });

    const redemptions = world.redemptions!;
    await expect.poll(() => redemptions.status().eventsub?.subscription, { timeout: 5000, interval: 5 }).toBe('active');
    expect(redemptions.status().eventsub).toMatchObject({
      state: 'connected',
      sessionId: again.transport.session_id,
      sessions: 2,
      handovers: 0,
      disconnects: 1,
      notifications: 0,
      lastError: 'no message from Twitch within the session\'s keepalive timeout (the connection went silent)',
    });
    expect(redemptions.status().problem).toBeNull();
    const lines = eventSubLines(world);
    expect(lines.filter((l) => l.level === LEVEL.warn)).toEqual([{
      level: LEVEL.warn,
      msg: 'EventSub connection lost: no message from Twitch within the session\'s keepalive timeout (the connection went silent); '
        + 'reconnecting, and missed redemptions will be listed',
    }]);
    expect(lines.filter((l) => l.msg === 'EventSub connected (session_welcome)')).toHaveLength(2);
    expect(lines.filter((l) => l.msg === 'subscribed to channel-point redemptions')).toHaveLength(2);

    // Exactly once: one unlock, one status change, one ledger row with one attempt.
    await expect.poll(() => world.service.findRedemptionEntry(world.accountId, missed.redemption.id), { timeout: 5000, interval: 5 })
      .toEqual({ id: missed.redemption.id, rewardId, state: 'status-sent', outcome: 'fulfill', attempts: 1, replies: null });
    expect(world.unlocks).toEqual([{ viewerId: missed.redemption.user_id, skinId: world.skinIds['neon'], created: true }]);
    expect(world.helix.redemptionChanges.filter((c) => c.redemptionId === missed.redemption.id).map((c) => `${c.from}->${c.to}`))
      .toEqual(['UNFULFILLED->FULFILLED']);
    expect(redemptions.status().counters).toMatchObject({ effects: 1, fulfilled: 1, duplicates: 0 });

    // Live again on the new session.
    const live = world.helix.fireRedemption({ rewardId, user: { login: 'after', displayName: 'After' } });
    expect(live.deliveries.map((d) => ({ sessionId: d.sessionId, delivered: d.delivered }))).toEqual([{ sessionId: again.transport.session_id, delivered: true }]);
    await world.helix.waitForRedemptionStatus(live.redemption.id, 'FULFILLED');
    await expect.poll(() => redemptions.status().eventsub?.notifications, { timeout: 5000, interval: 5 }).toBe(1);
    expect(world.unlocks.map((u) => u.viewerId)).toEqual([missed.redemption.user_id, live.redemption.user_id]);
    expect(eventSub.sessions).toHaveLength(2);
  });
});
