// The broadcaster's token replaced while the host runs: Twitch refuses to refresh the stored token
// (the refresh token is no longer valid), the person runs `chatskin twitch auth` again in another
// process, which saves a new token to the same file, and the running host carries on with it (no
// restart): statuses owed meanwhile are sent, live redemptions work again, a revoked subscription
// is made again. Real twurple, host, skin-shop and store against the Twitch fakes.
import { afterEach, describe, expect, it } from 'vitest';
import { readTokenFile } from '../../src/adapters/twitch-auth/token-file.ts';
import { healthComponents } from '../../src/runtime/health-components.ts';
import { REDEMPTION_ADD_TYPE } from '../fakes/fake-eventsub.ts';
import { LEVEL } from '../host/log-capture.ts';
import { ManualClock } from '../host/manual-clock.ts';
import { CHANNEL, openRedemptionWorld } from './redemption-world.ts';
import { runTwitchAuth, saveBroadcasterToken } from './broadcaster-token-helpers.ts';
import type { RedemptionWorld, WorldOptions } from './redemption-world.ts';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Never within a test: only the refused refresh makes the host look at the file. */
const NEVER_MS = 3_600_000;

async function running(options: WorldOptions = {}): Promise<RedemptionWorld> {
  const world = await openRedemptionWorld({ skinShop: { rewards: { 'unlock-neon': 'neon' } }, rewards: { 'unlock-neon': { title: 'Neon', cost: 5 } }, ...options });
  cleanups.push(() => world.close());
  await world.start();
  await world.settled();
  return world;
}

/** Twitch stops taking the stored token: the access token expired and its refresh token is no longer valid. */
async function refuseRefresh(world: RedemptionWorld): Promise<void> {
  world.helix.expireAccessToken(world.token.accessToken);
  world.helix.revokeRefreshToken(world.token.refreshToken!);
  await world.redemptions!.reconcile();
  expect(world.redemptions!.status().auth).toMatchObject({ state: 'refresh-failed', reloads: 0 });
}

function authLines(world: RedemptionWorld): Array<{ level: number; msg: string }> {
  return world.logs.filter((l) => l['component'] === 'twitch-auth').map((l) => ({ level: l.level, msg: String(l.msg) }));
}

const TOOK_OVER_AFTER_REFUSAL = 'took over the new broadcaster token saved by `chatskin twitch auth`; the refused refresh no longer matters';

describe('a new token saved by `chatskin twitch auth` while the host runs', () => {
  it('after a refused refresh, is taken over without a restart: the status owed is sent and live redemptions work again', async () => {
    const world = await running({ tokenFileCheckMs: 50 });
    const redemptions = world.redemptions!;
    const rewardId = await world.rewardId('unlock-neon');
    await refuseRefresh(world);
    expect(redemptions.status().problem).toContain('Twitch refused to refresh the broadcaster\'s token');

    // Redeemed while the token is refused: EventSub still delivers, the skin is unlocked, but the status cannot be sent.
    const during = world.helix.fireRedemption({ rewardId, user: { login: 'during', displayName: 'During' } });
    await expect.poll(() => redemptions.status().counters?.statusFailures, { timeout: 5000, interval: 5 }).toBe(1);
    expect(world.helix.redemptions.find((r) => r.id === during.redemption.id)?.status).toBe('UNFULFILLED');

    const auth = await runTwitchAuth(world);
    expect(auth).toMatchObject({ code: 0, stderr: '' });
    expect(auth.stdout).toContain(`Saved the token of "${CHANNEL}" to ${world.tokenFile}`);
    const saved = (await readTokenFile(world.tokenFile))!;
    expect(saved.accessToken).not.toBe(world.token.accessToken);

    await expect.poll(() => redemptions.status().auth, { timeout: 10_000, interval: 10 })
      .toMatchObject({ state: 'ok', reloads: 1, error: null });
    expect(authLines(world).filter((l) => l.level === LEVEL.info).map((l) => l.msg)).toContain(TOOK_OVER_AFTER_REFUSAL);
    // The status owed goes out with the new token: FULFILLED once, and one unlock.
    await world.helix.waitForRedemptionStatus(during.redemption.id, 'FULFILLED');
    const statusCalls = world.helix.calls.filter((c) => c.method === 'PATCH' && c.path === '/channel_points/custom_rewards/redemptions' && c.status === 200);
    expect(statusCalls.map((c) => c.accessToken)).toEqual([saved.accessToken]);
    expect(world.helix.redemptionChanges.filter((c) => c.redemptionId === during.redemption.id).map((c) => `${c.from}->${c.to}`))
      .toEqual(['UNFULFILLED->FULFILLED']);

    // Live again, on the same process and the same EventSub connection.
    const after = world.helix.fireRedemption({ rewardId, user: { login: 'after', displayName: 'After' } });
    await world.helix.waitForRedemptionStatus(after.redemption.id, 'FULFILLED');
    expect(world.unlocks.map((u) => u.viewerId)).toEqual([during.redemption.user_id, after.redemption.user_id]);
    expect(redemptions.status()).toMatchObject({ state: 'running', problem: null, eventsub: { state: 'connected', sessions: 1, disconnects: 0 } });
    // twurple's refreshes go on from the new token: the old refresh token is not tried again.
    world.helix.expireAccessToken(saved.accessToken);
    await expect.poll(async () => {
      await redemptions.reconcile();
      return redemptions.status().auth?.refreshes;
    }, { timeout: 5000, interval: 5 }).toBeGreaterThan(0);
    expect(redemptions.status().auth).toMatchObject({ state: 'ok', reloads: 1 });
    const refreshes = world.helix.calls.filter((c) => c.path === '/auth/token');
    expect(refreshes[0]).toMatchObject({ status: 400, query: expect.objectContaining({ refresh_token: [world.token.refreshToken] }) });
    for (const call of refreshes.slice(1)) expect(call).toMatchObject({ status: 200, query: expect.objectContaining({ refresh_token: [saved.refreshToken] }) });
  });

  it('saved before the refresh is refused: the refusal itself makes the host look at the file and take it', async () => {
    const world = await running({ tokenFileCheckMs: NEVER_MS });
    const redemptions = world.redemptions!;
    const fresh = await saveBroadcasterToken(world);
    world.helix.expireAccessToken(world.token.accessToken);
    world.helix.revokeRefreshToken(world.token.refreshToken!);
    await redemptions.reconcile();

    await expect.poll(() => redemptions.status().auth, { timeout: 5000, interval: 5 }).toMatchObject({ state: 'ok', reloads: 1, error: null });
    expect(authLines(world).filter((l) => l.level >= LEVEL.info).map((l) => l.level)).toEqual([LEVEL.error, LEVEL.info]);
    const { redemption } = world.helix.fireRedemption({ rewardId: await world.rewardId('unlock-neon'), user: { login: 'fan' } });
    await world.helix.waitForRedemptionStatus(redemption.id, 'FULFILLED');
    expect(world.helix.calls.filter((c) => c.method === 'PATCH' && c.status === 200).at(-1)?.accessToken).toBe(fresh);
  });

  it('taken over while a refresh of the token before is under way: that refresh\'s refusal does not block the new token', async () => {
    const world = await running({ tokenFileCheckMs: 50 });
    const redemptions = world.redemptions!;
    // The stored token stops working; the refresh twurple then tries is refused, but its answer
    // is held until the new token has been taken over.
    world.helix.expireAccessToken(world.token.accessToken);
    world.helix.revokeRefreshToken(world.token.refreshToken!);
    const refresh = world.helix.holdNext({ method: 'POST', path: '/auth/token' });
    const reconciling = redemptions.reconcile();
    await refresh.arrived;
    const fresh = await saveBroadcasterToken(world);
    await expect.poll(() => redemptions.status().auth, { timeout: 5000, interval: 5 }).toMatchObject({ state: 'ok', reloads: 1 });
    refresh.release();
    await reconciling;

    const excused = 'Twitch refused a refresh right after the new token was taken over (Twitch answered 400: Invalid refresh token); it was most likely of the token before, so the new one stays in use';
    expect(authLines(world).filter((l) => l.level >= LEVEL.warn)).toEqual([{ level: LEVEL.warn, msg: excused }]);
    expect(redemptions.status().auth).toMatchObject({ state: 'ok', reloads: 1, error: null });
    // The new token works: a live redemption's status goes out with it.
    const { redemption } = world.helix.fireRedemption({ rewardId: await world.rewardId('unlock-neon'), user: { login: 'fan' } });
    await world.helix.waitForRedemptionStatus(redemption.id, 'FULFILLED');
    expect(world.helix.calls.filter((c) => c.method === 'PATCH' && c.status === 200).at(-1)?.accessToken).toBe(fresh);
  });

  it('excuses one refusal after a takeover only: the new token\'s own refused refresh then counts', async () => {
    const world = await running({ tokenFileCheckMs: 50 });
    const redemptions = world.redemptions!;
    await saveBroadcasterToken(world);
    await expect.poll(() => redemptions.status().auth, { timeout: 5000, interval: 5 }).toMatchObject({ state: 'ok', reloads: 1 });
    const taken = (await readTokenFile(world.tokenFile))!;
    world.helix.expireAccessToken(taken.accessToken);
    world.helix.revokeRefreshToken(taken.refreshToken!);
    await redemptions.reconcile();
    expect(redemptions.status().auth).toMatchObject({ state: 'ok' });
    await redemptions.reconcile();
    expect(redemptions.status().auth).toMatchObject({ state: 'refresh-failed', reloads: 1 });
    expect(authLines(world).filter((l) => l.level >= LEVEL.warn).map((l) => l.level)).toEqual([LEVEL.warn, LEVEL.error]);
    const refreshes = world.helix.calls.filter((c) => c.path === '/auth/token');
    expect(refreshes.map((c) => c.status)).toEqual([400, 400]);
  });

  it('is looked for every twitch.redemptions.tokenFileCheckSeconds', async () => {
    const clock = new ManualClock(Date.now());
    const world = await running({ tokenFileCheckSeconds: 7, clock });
    const redemptions = world.redemptions!;
    const io = () => new Promise((resolve) => setTimeout(resolve, 200));
    // One periodic look at the unchanged file first, so the look made at start is long done.
    await clock.advance(7_000);
    await io();
    await saveBroadcasterToken(world);
    await clock.advance(6_900);
    // Any look at the file would have found the new token by now (it is a stat and a read).
    await io();
    expect(redemptions.status().auth).toMatchObject({ reloads: 0 });
    await clock.advance(100);
    await expect.poll(() => redemptions.status().auth, { timeout: 5000, interval: 5 }).toMatchObject({ state: 'ok', reloads: 1 });
  });

  it('after Twitch revoked the subscription as well, subscribes again on the new token', async () => {
    const world = await running({ tokenFileCheckMs: 50 });
    const redemptions = world.redemptions!;
    const eventSub = world.helix.eventSub;
    eventSub.revoke(eventSub.activeSubscriptions({ type: REDEMPTION_ADD_TYPE })[0]!.id, 'authorization_revoked');
    await expect.poll(() => redemptions.status().eventsub?.subscription, { timeout: 5000, interval: 5 }).toBe('revoked');
    // /healthz: live delivery is gone (redemptions are still listed); then only a new token mends it.
    expect(healthComponents({ redemptions }).redemptions).toBe('degraded');
    await refuseRefresh(world);
    expect(healthComponents({ redemptions }).redemptions).toBe('needs-auth');
    const mark = eventSub.subscriptions.length;

    const fresh = await saveBroadcasterToken(world);
    const again = await eventSub.waitForSubscription(REDEMPTION_ADD_TYPE, { since: mark, userId: world.broadcaster.id });
    const created = world.helix.calls.filter((c) => c.method === 'POST' && c.path === '/eventsub/subscriptions' && c.status === 202).at(-1);
    expect(created?.accessToken).toBe(fresh);
    await expect.poll(() => redemptions.status().eventsub?.subscription, { timeout: 5000, interval: 5 }).toBe('active');
    expect(redemptions.status()).toMatchObject({
      problem: null,
      auth: { state: 'ok', reloads: 1 },
      // A deliberate new connection, not a lost one.
      eventsub: { state: 'connected', sessionId: again.transport.session_id, revokedBecause: null, sessions: 2, disconnects: 0 },
    });
    const live = world.helix.fireRedemption({ rewardId: await world.rewardId('unlock-neon'), user: { login: 'fan' } });
    expect(live.deliveries.map((d) => d.delivered)).toEqual([true]);
    await world.helix.waitForRedemptionStatus(live.redemption.id, 'FULFILLED');
    expect(world.unlocks).toHaveLength(1);
    expect(healthComponents({ redemptions }).redemptions).toBe('running');
  });

  it('while the refresh is refused, a lost EventSub connection is not opened again and again: one try, then none until the new token', async () => {
    // Twitch closes a connection with no subscription 10 s after its welcome (4003); quicker here.
    const world = await running({ tokenFileCheckMs: 50, helix: { eventSubOptions: { closeUnusedAfterMs: 200 } } });
    const redemptions = world.redemptions!;
    const eventSub = world.helix.eventSub;
    const rewardId = await world.rewardId('unlock-neon');
    await refuseRefresh(world);
    const opened = eventSub.totalConnections;
    eventSub.dropAllConnections();
    await expect.poll(() => redemptions.status().eventsub?.subscription, { timeout: 5000, interval: 5 }).toBe('failed');
    // Time for several rounds of welcome, refused subscription and 4003.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(eventSub.totalConnections - opened).toBe(1);
    const failures = world.logs.filter((l) => l['component'] === 'eventsub' && l.level === LEVEL.error);
    expect(failures.map((l) => String(l.msg))).toEqual([
      'subscribing to channel-point redemptions failed: the broadcaster\'s token is refused (Twitch refused to refresh it); '
      + 'the EventSub connection stays closed until a new token is taken over, then missed redemptions are listed',
    ]);
    expect(healthComponents({ redemptions }).redemptions).toBe('needs-auth');
    // Redeemed meanwhile: nobody hears it live.
    const during = world.helix.fireRedemption({ rewardId, user: { login: 'during' } });
    expect(during.deliveries).toEqual([]);

    // `chatskin twitch auth`: taken over, subscribed on a new connection, the missed one listed and finished.
    const fresh = await saveBroadcasterToken(world);
    await expect.poll(() => redemptions.status().eventsub?.subscription, { timeout: 5000, interval: 5 }).toBe('active');
    await world.helix.waitForRedemptionStatus(during.redemption.id, 'FULFILLED');
    const live = world.helix.fireRedemption({ rewardId, user: { login: 'after' } });
    expect(live.deliveries.map((d) => d.delivered)).toEqual([true]);
    await world.helix.waitForRedemptionStatus(live.redemption.id, 'FULFILLED');
    expect(world.helix.calls.filter((c) => c.method === 'POST' && c.path === '/eventsub/subscriptions' && c.status === 202).at(-1)?.accessToken).toBe(fresh);
    expect(world.unlocks).toHaveLength(2);
    expect(redemptions.status()).toMatchObject({ problem: null, auth: { state: 'ok', reloads: 1 }, eventsub: { state: 'connected' } });
  });

  it('while the refresh is refused, the periodic listing adds no line of its own: the refusal is said once, not at every reconciliation', async () => {
    const world = await running({ tokenFileCheckMs: 50 });
    const redemptions = world.redemptions!;
    await refuseRefresh(world);
    const mark = world.logs.length;
    const calls = world.helix.calls.length;
    // What the timer does every reconcileIntervalSeconds (60 s by default), for as long as nobody runs `chatskin twitch auth`.
    for (let i = 0; i < 3; i++) expect(await redemptions.reconcile()).toBeNull();
    expect(world.logs.slice(mark).filter((l) => l.level >= LEVEL.warn)).toEqual([]);
    expect(world.helix.calls.length).toBe(calls);
    expect(redemptions.status().problem).toContain('Twitch refused to refresh the broadcaster\'s token');

    // A redemption missed meanwhile is listed as soon as the new token is taken over.
    const missed = world.helix.addOfflineRedemption({ rewardId: await world.rewardId('unlock-neon'), user: { login: 'missed' } });
    await saveBroadcasterToken(world);
    await world.helix.waitForRedemptionStatus(missed.id, 'FULFILLED');
    expect(redemptions.status().auth).toMatchObject({ state: 'ok', reloads: 1 });
  });

  it('is not taken when it lacks a scope the redemptions need: the refusal stands, with a warning', async () => {
    const world = await running({ tokenFileCheckMs: 50 });
    await refuseRefresh(world);
    await saveBroadcasterToken(world, ['channel:read:redemptions']);
    const warning = 'the token file holds a new token, but it lacks channel:manage:redemptions; the token in use stays';
    await expect.poll(() => authLines(world).filter((l) => l.level === LEVEL.warn).map((l) => l.msg), { timeout: 5000, interval: 5 })
      .toEqual([warning]);
    expect(world.redemptions!.status().auth).toMatchObject({ state: 'refresh-failed', reloads: 0 });
  });
});

describe('the host\'s own writes to the token file', () => {
  it('are not mistaken for a new token (a refreshed token, saved, with rotating refresh tokens)', async () => {
    const world = await running({ tokenFileCheckMs: 20, helix: { rotateRefreshTokens: true } });
    const redemptions = world.redemptions!;
    const seenOwn = () => authLines(world).filter((l) => l.msg === 'the token file holds a token this process already has').length;
    // The look at start, at the token just loaded.
    await expect.poll(seenOwn, { timeout: 5000, interval: 5 }).toBe(1);
    world.helix.expireAccessToken(world.token.accessToken);
    await redemptions.reconcile();
    // The refreshed token saved: looked at, recognised, not taken over.
    await expect.poll(seenOwn, { timeout: 5000, interval: 5 }).toBe(2);
    expect(redemptions.status().auth).toMatchObject({ state: 'ok', refreshes: 1, reloads: 0 });
  });
});
