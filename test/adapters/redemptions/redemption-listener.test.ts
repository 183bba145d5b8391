// The EventSub side's visible state (status object and log lines) through welcome, handover,
// lost connection, revocation and stop, against the fake EventSub server with the real twurple
// listener.
import { describe, expect, it } from 'vitest';
import { EVENTSUB_CLOSE } from '../../fakes/fake-eventsub.ts';
import { useRunningRedemptionWorlds, waitUntil } from '../../redemptions/redemption-world.ts';
import type { RedemptionWorld } from '../../redemptions/redemption-world.ts';

const running = useRunningRedemptionWorlds();

function messages(world: RedemptionWorld): string[] {
  return world.logs.filter((l) => l['component'] === 'eventsub').map((l) => String(l.msg));
}

describe('EventSub connection state', () => {
  it('shows the session after the welcome, counts a session_reconnect as a handover, and logs both', async () => {
    const world = await running();
    const sessionId = world.helix.eventSub.sessions[0]!.id;
    expect(world.redemptions!.status().eventsub).toMatchObject({
      state: 'connected', sessionId, subscription: 'active', sessions: 1, handovers: 0, disconnects: 0, lastError: null,
    });
    await world.helix.eventSub.requestReconnect();
    await waitUntil(() => world.redemptions!.status().eventsub?.handovers === 1, 'the handover');
    expect(world.redemptions!.status().eventsub).toMatchObject({ state: 'connected', sessionId, sessions: 1 });
    expect(messages(world)).toEqual(expect.arrayContaining([
      'EventSub connected (session_welcome)',
      'subscribed to channel-point redemptions',
      'EventSub session moved to a new connection (session_reconnect); nothing was lost',
    ]));
    // twurple closes the old socket itself.
    await waitUntil(() => world.helix.eventSub.sessions[0]?.openSockets === 1, 'the old socket to close');
  });

  it('reports a connection Twitch closed, then the new session', async () => {
    const world = await running();
    const first = world.helix.eventSub.sessions[0]!.id;
    world.helix.eventSub.closeSession(first, EVENTSUB_CLOSE.internalServerError.code, EVENTSUB_CLOSE.internalServerError.reason);
    await waitUntil(() => world.redemptions!.status().eventsub?.disconnects === 1, 'the disconnect');
    expect(world.logs.some((l) => l.level === 40 && /^EventSub connection lost/.test(String(l.msg)))).toBe(true);
    await waitUntil(() => world.redemptions!.status().eventsub?.subscription === 'active' && world.redemptions!.status().eventsub?.sessions === 2, 'the new session');
    expect(world.redemptions!.status().eventsub?.sessionId).not.toBe(first);
  });

  it('reports a revocation, and still finishes redemptions by listing them', async () => {
    const world = await running();
    const [subscription] = world.helix.eventSub.activeSubscriptions();
    world.helix.eventSub.revoke(subscription!.id, 'authorization_revoked');
    await waitUntil(() => world.redemptions!.status().eventsub?.subscription === 'revoked', 'the revocation');
    const status = world.redemptions!.status();
    expect(status.eventsub?.revokedBecause).toBe('authorization_revoked');
    expect(status.problem).toBe('Twitch revoked the redemption subscription (authorization_revoked)');
    expect(world.logs.some((l) => l.level === 50 && /withdrew the app's access: run `chatskin twitch auth` again/.test(String(l.msg)))).toBe(true);

    const { redemption, deliveries } = world.helix.fireRedemption({ rewardId: await world.rewardId('unlock-neon'), user: { login: 'fan' } });
    expect(deliveries).toEqual([]);
    await world.redemptions!.reconcile();
    expect(world.helix.redemptions.find((r) => r.id === redemption.id)?.status).toBe('FULFILLED');
  });

  it('stop() closes the socket and says stopped', async () => {
    const world = await running();
    await world.redemptions!.stop();
    expect(world.redemptions!.status()).toMatchObject({ state: 'stopped', eventsub: { state: 'stopped', subscription: 'none' } });
    await waitUntil(() => world.helix.eventSub.connectionCount === 0, 'the socket to close');
    expect(world.redemptions!.status().eventsub?.disconnects).toBe(0);
  });
});
