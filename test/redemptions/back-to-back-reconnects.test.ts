// Two session_reconnects back to back: the second arrives on the new socket of the first
// handover before that handover's old socket has closed. twurple keeps one "reconnect in
// progress" flag, which that close clears: it then takes the second handover for a new session
// and the close of its old socket for the loss of the connection, drops its subscriptions and
// keepalive timer, yet keeps the open socket and never reconnects. The listener stayed
// `disconnected` (subscription pending) until its watchdog, 150 s later, and the notifications
// meanwhile were dropped. Found by redemption-properties.test.ts (two `reconnect` steps: "timed
// out waiting for the EventSub subscription to be active"). Now it connects afresh at once.
// Real twurple clients against the Twitch fakes.
import { describe, expect, it } from 'vitest';
import { useRunningRedemptionWorlds, waitUntil } from './redemption-world.ts';

const running = useRunningRedemptionWorlds();

describe('two session_reconnects back to back', () => {
  it('end connected and subscribed within seconds, and the next redemption arrives as a notification', async () => {
    const world = await running();
    const redemptions = world.redemptions!;
    await world.helix.eventSub.requestReconnect();
    // At once: the first handover's old socket is still open.
    await world.helix.eventSub.requestReconnect();

    // twurple closes the second handover's old socket and reports it as the connection lost.
    await waitUntil(() => redemptions.status().eventsub!.disconnects === 1, 'the close of the second handover\'s old socket', 5_000);
    await waitUntil(() => {
      const eventsub = redemptions.status().eventsub!;
      return eventsub.state === 'connected' && eventsub.subscription === 'active';
    }, 'the listener to be connected and subscribed again', 5_000)
      .catch((error: unknown) => { throw new Error(`${(error as Error).message}: ${JSON.stringify(redemptions.status().eventsub)}`); });
    expect(world.logs.some((l) => String(l.msg).startsWith('EventSub: twurple reported the connection lost while its socket is open'))).toBe(true);

    const before = redemptions.status().eventsub!.notifications;
    const { redemption } = world.helix.fireRedemption({ rewardId: await world.rewardId('unlock-neon'), user: { login: 'fan' } });
    await world.helix.waitForRedemptionStatus(redemption.id, 'FULFILLED', { timeoutMs: 5_000 });
    expect(redemptions.status().eventsub!.notifications).toBe(before + 1);
  });
});
