// An EventSub connection that opens but is never welcomed (a stuck endpoint, a proxy that took the
// upgrade and stalls): twurple's keepalive timer only starts with session_welcome, so it would wait
// for ever. The host's welcome watchdog must drop the socket, say so, connect afresh, subscribe,
// and deliver redemptions live again. Real twurple, host, skin-shop and store against the Twitch
// fakes; a separate process checks that the watchdog does not outlive stop().
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { runFixtureProcess } from '../support/run-fixture-process.ts';
import { REDEMPTION_ADD_TYPE } from '../fakes/fake-eventsub.ts';
import { LEVEL } from '../host/log-capture.ts';
import { openRedemptionWorld } from './redemption-world.ts';
import type { RedemptionWorld } from './redemption-world.ts';

const WELCOME_TIMEOUT_ERROR = 'no session_welcome from Twitch within 1 s of the connection opening (the endpoint accepted the WebSocket but sent nothing)';
/** Only guards against a hung test. */
const GUARD_MS = 20_000;
const CHILD = fileURLToPath(new URL('./fixtures/welcome-watchdog-child.ts', import.meta.url));

const worlds: RedemptionWorld[] = [];
afterEach(async () => {
  for (const world of worlds.splice(0)) await world.close();
});

function eventSubLines(world: RedemptionWorld): Array<{ level: number; msg: string }> {
  return world.logs.filter((l) => l['component'] === 'eventsub').map((l) => ({ level: l.level, msg: String(l.msg) }));
}

describe('an EventSub connection that is never welcomed', () => {
  it('is dropped after the welcome timeout, reported, replaced by a welcomed one, and redemptions are live again', async () => {
    const world = await openRedemptionWorld({ welcomeTimeoutMs: 1000 });
    worlds.push(world);
    const eventSub = world.helix.eventSub;
    eventSub.withholdWelcome(1);
    await world.start();

    // The first connection opens and hears nothing; no session exists for it.
    await expect.poll(() => eventSub.withheldConnections.opened, { timeout: GUARD_MS, interval: 5 }).toBe(1);
    // The host gave the stalled socket up (the fake never closes it: only the client can) ...
    await expect.poll(() => eventSub.withheldConnections, { timeout: GUARD_MS, interval: 5 }).toEqual({ opened: 1, open: 0, pending: 0 });
    // ... was welcomed on a new connection and subscribed on it.
    const subscription = await eventSub.waitForSubscription(REDEMPTION_ADD_TYPE, { userId: world.broadcaster.id, timeoutMs: GUARD_MS });
    await world.settled();
    expect(eventSub.totalConnections).toBe(2);
    expect(eventSub.sessions.map((s) => ({ id: s.id, status: s.status }))).toEqual([{ id: subscription.transport.session_id, status: 'connected' }]);

    const redemptions = world.redemptions!;
    expect(redemptions.status().eventsub).toMatchObject({
      state: 'connected',
      sessionId: subscription.transport.session_id,
      subscription: 'active',
      sessions: 1,
      handovers: 0,
      disconnects: 0,
      welcomeTimeouts: 1,
      notifications: 0,
      lastError: WELCOME_TIMEOUT_ERROR,
    });
    expect(redemptions.status().problem).toBeNull();
    const lines = eventSubLines(world);
    expect(lines.filter((l) => l.level >= LEVEL.warn)).toEqual([{
      level: LEVEL.warn,
      msg: `EventSub connection not welcomed: ${WELCOME_TIMEOUT_ERROR}; connecting afresh, and missed redemptions will be listed`,
    }]);
    expect(lines.filter((l) => l.msg === 'EventSub socket open, waiting for the welcome')).toHaveLength(2);
    expect(lines.filter((l) => l.msg === 'EventSub connected (session_welcome)')).toHaveLength(1);
    expect(lines.filter((l) => l.msg === 'subscribed to channel-point redemptions')).toHaveLength(1);

    // Live: delivered on the new session, fulfilled once.
    const rewardId = await world.rewardId('unlock-neon');
    const live = world.helix.fireRedemption({ rewardId, user: { login: 'fan', displayName: 'Fan' } });
    expect(live.deliveries.map((d) => ({ sessionId: d.sessionId, delivered: d.delivered }))).toEqual([{ sessionId: subscription.transport.session_id, delivered: true }]);
    await world.helix.waitForRedemptionStatus(live.redemption.id, 'FULFILLED', { timeoutMs: GUARD_MS });
    await expect.poll(() => redemptions.status().eventsub?.notifications, { timeout: 5000, interval: 5 }).toBe(1);
    await expect.poll(() => world.service.findRedemptionEntry(world.accountId, live.redemption.id), { timeout: 5000, interval: 5 })
      .toEqual({ id: live.redemption.id, rewardId, state: 'status-sent', outcome: 'fulfill', attempts: 1, replies: null });
    expect(world.unlocks).toEqual([{ viewerId: live.redemption.user_id, skinId: world.skinIds['neon'], created: true }]);
    expect(world.helix.redemptionChanges.filter((c) => c.redemptionId === live.redemption.id).map((c) => `${c.from}->${c.to}`))
      .toEqual(['UNFULFILLED->FULFILLED']);
    expect(redemptions.status().counters).toMatchObject({ effects: 1, fulfilled: 1, duplicates: 0 });
    expect(redemptions.status().eventsub).toMatchObject({ welcomeTimeouts: 1, sessions: 1, disconnects: 0 });
  });

  it('has no watchdog left after stop(): a process stopped while waiting for a welcome exits by itself', async () => {
    const { code, out, err } = await runFixtureProcess(CHILD);
    expect({ code, err }).toEqual({ code: 0, err: '' });
    expect(JSON.parse(out)).toEqual({ state: 'stopped', sessions: 0, welcomeTimeouts: 0, withheld: { opened: 1, open: 0, pending: 0 } });
  });
});
