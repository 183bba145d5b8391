// EventSub connections that go nowhere: an upgrade the endpoint never answers (twurple has no
// handshake timeout, so it would wait for ever), an endpoint that refuses the first connections
// (twurple gives a first connection three retries, then stops for good), a handover to a dead
// reconnect_url, and an endpoint that takes sockets and closes them unwelcomed (alone, twurple
// would reconnect in a loop). The host must give up on the attempt, say why, connect afresh,
// subscribe, and deliver redemptions live again. Real twurple, host, skin-shop and store against
// the Twitch fakes.
import { afterEach, describe, expect, it } from 'vitest';
import { REDEMPTION_ADD_TYPE } from '../fakes/fake-eventsub.ts';
import { LEVEL } from '../host/log-capture.ts';
import { openRedemptionWorld } from './redemption-world.ts';
import type { RedemptionWorld, WorldOptions } from './redemption-world.ts';

/** Only guards against a hung test. */
const GUARD_MS = 20_000;

const worlds: RedemptionWorld[] = [];
afterEach(async () => {
  for (const world of worlds.splice(0)) await world.close();
});

function warnings(world: RedemptionWorld): string[] {
  return world.logs.filter((l) => l['component'] === 'eventsub' && l.level >= LEVEL.warn).map((l) => String(l.msg));
}

/** A redemption made now is delivered live on the current session and fulfilled once. */
async function expectLiveRedemptions(world: RedemptionWorld, sessionId: string): Promise<void> {
  const rewardId = await world.rewardId('unlock-neon');
  const live = world.helix.fireRedemption({ rewardId, user: { login: 'fan', displayName: 'Fan' } });
  expect(live.deliveries.map((d) => ({ sessionId: d.sessionId, delivered: d.delivered }))).toEqual([{ sessionId, delivered: true }]);
  await world.helix.waitForRedemptionStatus(live.redemption.id, 'FULFILLED', { timeoutMs: GUARD_MS });
  expect(world.helix.redemptionChanges.filter((c) => c.redemptionId === live.redemption.id).map((c) => `${c.from}->${c.to}`))
    .toEqual(['UNFULFILLED->FULFILLED']);
}

/** A host with live redemptions (the production watchdog settings unless `options` say otherwise). */
async function liveWorld(options: WorldOptions = {}): Promise<RedemptionWorld> {
  const world = await openRedemptionWorld(options);
  worlds.push(world);
  await world.start();
  await world.settled();
  return world;
}

/** The session of the subscription made after `subscriptionsBefore`, once the host says it is active. */
async function freshSubscriptionSession(world: RedemptionWorld, subscriptionsBefore: number): Promise<string> {
  const subscription = await world.helix.eventSub.waitForSubscription(REDEMPTION_ADD_TYPE, {
    userId: world.broadcaster.id, timeoutMs: GUARD_MS, since: subscriptionsBefore,
  });
  await expect.poll(() => world.redemptions!.status().eventsub!.subscription, { timeout: GUARD_MS }).toBe('active');
  return subscription.transport.session_id;
}

describe('an EventSub connection that never opens', () => {
  it('gives up on an upgrade that is never answered, connects afresh and is live again', async () => {
    const world = await openRedemptionWorld({ welcomeTimeoutMs: 1000 });
    worlds.push(world);
    const eventSub = world.helix.eventSub;
    eventSub.stallUpgrades(1);
    await world.start();

    await expect.poll(() => eventSub.stalledUpgrades.came, { timeout: GUARD_MS, interval: 5 }).toBe(1);
    const subscription = await eventSub.waitForSubscription(REDEMPTION_ADD_TYPE, { userId: world.broadcaster.id, timeoutMs: GUARD_MS });
    await world.settled();
    // The host hung up on the stalled request (only the client can), and opened one connection.
    await expect.poll(() => eventSub.stalledUpgrades, { timeout: GUARD_MS, interval: 5 }).toEqual({ came: 1, held: 0, pending: 0 });
    expect(eventSub.totalConnections).toBe(1);

    const lastError = 'no EventSub connection opened within 1 s (the WebSocket upgrade was never answered)';
    expect(world.redemptions!.status().eventsub).toMatchObject({
      state: 'connected', sessionId: subscription.transport.session_id, subscription: 'active',
      sessions: 1, disconnects: 0, welcomeTimeouts: 1, lastError,
    });
    expect(warnings(world)).toEqual([`EventSub connection not welcomed: ${lastError}; connecting afresh, and missed redemptions will be listed`]);
    await expectLiveRedemptions(world, subscription.transport.session_id);
  });

  it('gives up on a reconnection whose upgrade hangs after a lost connection, and is live again', async () => {
    const world = await openRedemptionWorld({ welcomeTimeoutMs: 500, maxRetryWaitMs: 500 });
    worlds.push(world);
    const eventSub = world.helix.eventSub;
    await world.start();
    const first = await eventSub.waitForSubscription(REDEMPTION_ADD_TYPE, { userId: world.broadcaster.id, timeoutMs: GUARD_MS });
    await world.settled();

    // The connection drops; twurple's first reconnect attempt is never answered.
    const since = eventSub.subscriptions.length;
    eventSub.stallUpgrades(1);
    eventSub.dropAllConnections();
    const second = await eventSub.waitForSubscription(REDEMPTION_ADD_TYPE, { userId: world.broadcaster.id, timeoutMs: GUARD_MS, since });
    expect(second.transport.session_id).not.toBe(first.transport.session_id);
    await world.settled();
    await expect.poll(() => eventSub.stalledUpgrades, { timeout: GUARD_MS, interval: 5 }).toEqual({ came: 1, held: 0, pending: 0 });
    const lastError = 'no EventSub connection opened within 1 s of the last failed attempt (twurple\'s reconnection hangs)';
    expect(world.redemptions!.status().eventsub).toMatchObject({
      state: 'connected', sessionId: second.transport.session_id, subscription: 'active', sessions: 2, disconnects: 1, welcomeTimeouts: 1, lastError,
    });
    expect(warnings(world).filter((w) => w.startsWith('EventSub connection not welcomed'))).toEqual([
      `EventSub connection not welcomed: ${lastError}; connecting afresh, and missed redemptions will be listed`,
    ]);
    await expectLiveRedemptions(world, second.transport.session_id);
  });

  it('leaves refused attempts to twurple, which retries them by itself: no watchdog, no extra connection', async () => {
    const world = await openRedemptionWorld({ welcomeTimeoutMs: 1000, maxRetryWaitMs: 5000 });
    worlds.push(world);
    const eventSub = world.helix.eventSub;
    // twurple retries after 0, 1 and 1 s: the fourth attempt is answered.
    eventSub.refuseUpgrades(3);
    await world.start();

    const subscription = await eventSub.waitForSubscription(REDEMPTION_ADD_TYPE, { userId: world.broadcaster.id, timeoutMs: GUARD_MS });
    await world.settled();
    expect(eventSub.refusedUpgrades).toBe(3);
    expect(eventSub.totalConnections).toBe(1);
    const status = world.redemptions!.status().eventsub!;
    expect(status).toMatchObject({ state: 'connected', sessionId: subscription.transport.session_id, subscription: 'active', sessions: 1, disconnects: 3, welcomeTimeouts: 0 });
    expect(warnings(world).filter((w) => w.startsWith('EventSub connection not welcomed'))).toEqual([]);
    await expectLiveRedemptions(world, subscription.transport.session_id);
  });

  it('stopped between two reconnect attempts, makes no further attempt', async () => {
    const world = await openRedemptionWorld({ welcomeTimeoutMs: 60_000 });
    worlds.push(world);
    const eventSub = world.helix.eventSub;
    eventSub.refuseUpgrades(100);
    await world.start();
    // Two refusals (twurple retries at once after the first), then it waits 1 s before the third.
    await expect.poll(() => eventSub.refusedUpgrades, { timeout: GUARD_MS, interval: 5 }).toBe(2);
    await world.stop();
    const refused = eventSub.refusedUpgrades;
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(eventSub.refusedUpgrades).toBe(refused);
    expect(eventSub.totalConnections).toBe(0);
  });
});

describe('a session_reconnect whose connections are lost during the handover', () => {
  it('gives up the dead reconnect_url after a few closed sockets (no loop of connections), connects afresh and is live again', async () => {
    const world = await liveWorld();
    const eventSub = world.helix.eventSub;
    const subscriptionsBefore = eventSub.subscriptions.length;
    void eventSub.requestReconnect(undefined, { timeoutMs: GUARD_MS }).catch(() => {});
    // A network blip while the handover is under way: the reconnect_url is dead from then on.
    eventSub.dropAllConnections();
    const before = eventSub.totalConnections;

    const sessionId = await freshSubscriptionSession(world, subscriptionsBefore);
    // twurple alone opened thousands of sockets a second to the dead URL, for ever; a few more
    // than the three closes may come while the connections twurple already set going end.
    expect(eventSub.totalConnections - before).toBeLessThan(50);
    expect(warnings(world).some((w) => /connecting afresh in \d+ s/.test(w))).toBe(true);
    await expectLiveRedemptions(world, sessionId);
  });

  it('whose reconnect_url never answers: Twitch ends the old socket (4004) after the grace time; the host connects afresh and loses nothing', async () => {
    // Twitch keeps the old socket only for the grace time (30 s; here 300 ms) and sends it no keepalive.
    const world = await liveWorld({ helix: { eventSubOptions: { reconnectGraceMs: 300 } } });
    const eventSub = world.helix.eventSub;
    const rewardId = await world.rewardId('unlock-neon');
    const oldSession = world.redemptions!.status().eventsub!.sessionId!;
    const subscriptionsBefore = eventSub.subscriptions.length;
    eventSub.stallUpgrades(1);
    void eventSub.requestReconnect(undefined, { timeoutMs: GUARD_MS }).catch(() => {});
    await expect.poll(() => eventSub.stalledUpgrades.held, { timeout: GUARD_MS, interval: 5 }).toBe(1);

    // Until the grace ends, notifications still come on the old socket.
    const during = world.helix.fireRedemption({ rewardId, user: { login: 'early', displayName: 'Early' } });
    expect(during.deliveries.map((d) => d.delivered)).toEqual([true]);
    await eventSub.waitForDisconnect(oldSession, { timeoutMs: GUARD_MS });
    // Between the 4004 and the new subscription nothing is delivered: the reconciliation finds it.
    const meanwhile = world.helix.addOfflineRedemption({ rewardId, user: { login: 'late', displayName: 'Late' } });

    const sessionId = await freshSubscriptionSession(world, subscriptionsBefore);
    expect(sessionId).not.toBe(oldSession);
    for (const redemption of [during.redemption, meanwhile]) {
      await world.helix.waitForRedemptionStatus(redemption.id, 'FULFILLED', { timeoutMs: GUARD_MS });
      expect(world.helix.redemptionChanges.filter((c) => c.redemptionId === redemption.id).map((c) => `${c.from}->${c.to}`))
        .toEqual(['UNFULFILLED->FULFILLED']);
    }
    expect(world.redemptions!.status().eventsub).toMatchObject({ state: 'connected', sessionId, subscription: 'active' });
    // twurple does not report the 4004 (it takes it for the end of the handover); its next try of the dead URL is refused.
    expect(warnings(world)).toEqual(['EventSub connection lost: [4007] invalid reconnect; connecting afresh in 1 s, and missed redemptions will be listed']);
    await expectLiveRedemptions(world, sessionId);
  });

  it('stays quiet when an attempt the retired connection left behind ends later (no loop on the dead reconnect_url)', async () => {
    const world = await liveWorld();
    const eventSub = world.helix.eventSub;
    const subscriptionsBefore = eventSub.subscriptions.length;
    // The handover's connection hangs; the old one drops meanwhile, so twurple sets another
    // attempt going beside the hanging one, which it no longer keeps track of.
    eventSub.stallUpgrades(1);
    void eventSub.requestReconnect(undefined, { timeoutMs: GUARD_MS }).catch(() => {});
    await expect.poll(() => eventSub.stalledUpgrades.held, { timeout: GUARD_MS }).toBe(1);
    eventSub.dropAllConnections();
    await freshSubscriptionSession(world, subscriptionsBefore);

    // Long after, that forgotten attempt fails: the retired listener must not start again.
    const before = eventSub.totalConnections;
    eventSub.endStalledUpgrades();
    await expect.poll(() => eventSub.stalledUpgrades.held).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(eventSub.totalConnections - before).toBeLessThan(3);
    expect(world.redemptions!.status().eventsub!.state).toBe('connected');
  });
});

describe('an endpoint that takes connections and closes them at once, never welcoming', () => {
  it('gives twurple\'s retries up at the third unwelcomed close and connects afresh later, not in a loop', async () => {
    const world = await liveWorld({ maxRetryWaitMs: 1000 });
    const eventSub = world.helix.eventSub;
    const subscriptionsBefore = eventSub.subscriptions.length;
    // Every new connection is taken and closed at once (4000), with no session_welcome: each such
    // socket opens before it closes, so twurple's back-off starts over each time.
    eventSub.closeNewConnections(1_000_000);
    eventSub.dropAllConnections();

    await expect.poll(() => warnings(world).some((w) => /connecting afresh in \d+ s/.test(w)), { timeout: GUARD_MS, interval: 5 }).toBe(true);
    const closedAtGiveUp = eventSub.closedNewConnections;
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Three sockets opened and closed with no welcome, then no more until the fresh connection. A
    // connection twurple had already set going may still come, before or just after the give-up
    // was seen (on a loaded machine, after): one at most, and none after it (alone it would loop
    // for ever).
    const closedAfterGiveUp = eventSub.closedNewConnections;
    expect(closedAtGiveUp).toBeGreaterThanOrEqual(3);
    expect(closedAfterGiveUp - closedAtGiveUp).toBeLessThanOrEqual(1);
    expect(closedAfterGiveUp).toBeLessThanOrEqual(5);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(eventSub.closedNewConnections).toBe(closedAfterGiveUp);

    eventSub.closeNewConnections(0);
    const sessionId = await freshSubscriptionSession(world, subscriptionsBefore);
    expect(eventSub.closedNewConnections).toBe(closedAfterGiveUp);
    expect(world.redemptions!.status().eventsub).toMatchObject({ state: 'connected', sessionId });
    await expectLiveRedemptions(world, sessionId);
  });

  it('counts only sockets that were never welcomed: a welcomed one dropping and two unwelcomed closes are left to twurple', async () => {
    const world = await liveWorld({ maxRetryWaitMs: 1000 });
    const eventSub = world.helix.eventSub;
    const subscriptionsBefore = eventSub.subscriptions.length;
    eventSub.closeNewConnections(2);
    eventSub.dropAllConnections();
    const sessionId = await freshSubscriptionSession(world, subscriptionsBefore);
    expect(eventSub.closedNewConnections).toBe(2);
    expect(warnings(world).filter((w) => /connecting afresh/.test(w))).toEqual([]);
    await expectLiveRedemptions(world, sessionId);
  });
});
