// The broadcaster's token and the EventSub subscription, from docs/redemptions.md: a token issued
// to another application leaves the redemptions in needs-auth, saying why; and a subscription
// Twitch refused is made again, on a new connection, once a new token is taken over. Real twurple,
// host, skin-shop and store against the Twitch fakes.
import { readFileSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { REDEMPTION_ADD_TYPE } from '../fakes/fake-eventsub.ts';
import { CLIENT_ID, openRedemptionWorld } from '../redemptions/redemption-world.ts';
import type { RedemptionWorld, WorldOptions } from '../redemptions/redemption-world.ts';
import { saveBroadcasterToken } from '../redemptions/broadcaster-token-helpers.ts';

const worlds: RedemptionWorld[] = [];
afterEach(async () => {
  for (const world of worlds.splice(0)) await world.close();
});

async function open(options: WorldOptions = {}): Promise<RedemptionWorld> {
  const world = await openRedemptionWorld({ skinShop: { rewards: { 'unlock-neon': 'neon' } }, rewards: { 'unlock-neon': { title: 'Neon', cost: 5 } }, ...options });
  worlds.push(world);
  return world;
}

describe('the broadcaster token at start', () => {
  it('refuses a token issued to another client id: needs-auth, the problem says so, nothing calls Twitch', async () => {
    const world = await open();
    writeFileSync(world.tokenFile, readFileSync(world.tokenFile, 'utf8').replace(`"clientId": "${CLIENT_ID}"`, '"clientId": "someotherapp"'));
    const redemptions = await world.start();
    expect(redemptions.status()).toMatchObject({
      state: 'needs-auth',
      problem: `the token in ${world.tokenFile} was issued to the client id someotherapp, not twitch.clientId; run \`chatskin twitch auth\` to authorize the channel again; `
        + 'the running chatskin picks the new token up within seconds and starts the redemptions (no restart needed)',
    });
    expect(world.helix.calls).toEqual([]);
  });
});

describe('a subscription Twitch refused', () => {
  it('is made again on a new connection once a new token is taken over, and live redemptions work', async () => {
    const world = await open({ tokenFileCheckMs: 50 });
    const eventSub = world.helix.eventSub;
    world.helix.failNext({ status: 403, method: 'POST', path: '/eventsub/subscriptions', message: 'subscription missing proper authorization' });
    const redemptions = await world.start();
    await expect.poll(() => redemptions.status().eventsub?.subscription, { timeout: 5000, interval: 5 }).toBe('failed');
    expect(redemptions.status().problem).toMatch(/^subscribing to redemptions failed: /);
    const mark = eventSub.subscriptions.length;

    const fresh = await saveBroadcasterToken(world);
    const again = await eventSub.waitForSubscription(REDEMPTION_ADD_TYPE, { since: mark, userId: world.broadcaster.id, timeoutMs: 5000 });
    const created = world.helix.calls.filter((c) => c.method === 'POST' && c.path === '/eventsub/subscriptions' && c.status === 202).at(-1);
    expect(created?.accessToken).toBe(fresh);
    await expect.poll(() => redemptions.status().eventsub?.subscription, { timeout: 5000, interval: 5 }).toBe('active');
    expect(redemptions.status()).toMatchObject({
      problem: null, auth: { state: 'ok', reloads: 1 }, eventsub: { state: 'connected', sessionId: again.transport.session_id, sessions: 2 },
    });
    const live = world.helix.fireRedemption({ rewardId: await world.rewardId('unlock-neon'), user: { login: 'fan' } });
    expect(live.deliveries.map((d) => d.delivered)).toEqual([true]);
    await world.helix.waitForRedemptionStatus(live.redemption.id, 'FULFILLED');
  });
});
