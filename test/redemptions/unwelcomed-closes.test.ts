// An EventSub endpoint that takes each WebSocket and closes it at once, with no session_welcome
// (docs/redemptions.md, "a third socket that opened and closed with no welcome since the last
// one, ends twurple's retries and connects afresh"): every such socket opens before it closes, so
// twurple's back-off starts over each time and alone it would reconnect in a loop. Real twurple,
// host, skin-shop and store against the Twitch fakes.
import { afterEach, describe, expect, it } from 'vitest';
import { REDEMPTION_ADD_TYPE } from '../fakes/fake-eventsub.ts';
import { LEVEL } from '../host/log-capture.ts';
import { openRedemptionWorld } from '../redemptions/redemption-world.ts';
import type { RedemptionWorld } from '../redemptions/redemption-world.ts';

/** Only guards against a hung test. */
const GUARD_MS = 20_000;

const worlds: RedemptionWorld[] = [];
afterEach(async () => {
  for (const world of worlds.splice(0)) await world.close();
});

function warnings(world: RedemptionWorld): string[] {
  return world.logs.filter((l) => l['component'] === 'eventsub' && l.level >= LEVEL.warn).map((l) => String(l.msg));
}

describe('an endpoint that takes connections and closes them at once, never welcoming', () => {
  it('gives twurple\'s retries up at the third unwelcomed close and connects afresh later, not in a loop', async () => {
    const world = await openRedemptionWorld({ maxRetryWaitMs: 1000 });
    worlds.push(world);
    await world.start();
    await world.settled();
    const eventSub = world.helix.eventSub;
    const subscriptionsBefore = eventSub.subscriptions.length;
    // Every new connection is taken and closed at once (4000), with no session_welcome.
    eventSub.closeNewConnections(1_000_000);
    eventSub.dropAllConnections();

    await expect.poll(() => warnings(world).some((w) => /connecting afresh in \d+ s/.test(w)), { timeout: GUARD_MS, interval: 5 }).toBe(true);
    const closedAtGiveUp = eventSub.closedNewConnections;
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Three sockets opened and closed with no welcome, then no more until the fresh connection (a
    // connection twurple had already set going may still come: alone it would loop for ever).
    expect(closedAtGiveUp).toBeGreaterThanOrEqual(3);
    expect(closedAtGiveUp).toBeLessThanOrEqual(5);
    expect(eventSub.closedNewConnections).toBe(closedAtGiveUp);

    eventSub.closeNewConnections(0);
    const subscription = await eventSub.waitForSubscription(REDEMPTION_ADD_TYPE, {
      userId: world.broadcaster.id, timeoutMs: GUARD_MS, since: subscriptionsBefore,
    });
    await expect.poll(() => world.redemptions!.status().eventsub!.subscription, { timeout: GUARD_MS }).toBe('active');
    expect(eventSub.closedNewConnections).toBe(closedAtGiveUp);
    expect(world.redemptions!.status().eventsub).toMatchObject({ state: 'connected', sessionId: subscription.transport.session_id });
    const rewardId = await world.rewardId('unlock-neon');
    const live = world.helix.fireRedemption({ rewardId, user: { login: 'fan', displayName: 'Fan' } });
    expect(live.deliveries.map((d) => d.sessionId)).toEqual([subscription.transport.session_id]);
    await world.helix.waitForRedemptionStatus(live.redemption.id, 'FULFILLED', { timeoutMs: GUARD_MS });
  });
});
