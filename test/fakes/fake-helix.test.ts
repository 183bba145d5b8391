import { afterEach, describe, expect, it } from 'vitest';
import { FakeHelix } from './fake-helix.ts';
import { twurpleAgainstFakes, type TwurpleAgainstFakes } from './twurple-against-fakes.ts';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setUp(options: { expiresInSeconds?: number } = {}): Promise<{ helix: FakeHelix; bot: TwurpleAgainstFakes }> {
  const helix = await FakeHelix.start();
  cleanups.push(() => helix.close());
  const bot = twurpleAgainstFakes(helix, { login: 'somechannel', ...options });
  cleanups.push(bot.restoreEnv);
  return { helix, bot };
}

/** twurple's HttpStatusCodeError lives in @twurple/api-call, which is not a direct dependency; read its fields. */
interface HttpStatusCodeErrorShape {
  name: string;
  statusCode: number;
  body: string;
}

async function failureOf(promise: Promise<unknown>): Promise<HttpStatusCodeErrorShape> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof Error && typeof (error as Partial<HttpStatusCodeErrorShape>).statusCode === 'number') {
      return error as Error & HttpStatusCodeErrorShape;
    }
    throw error;
  }
  throw new Error('expected the call to fail');
}

async function statusOf(promise: Promise<unknown>): Promise<number> {
  return (await failureOf(promise)).statusCode;
}

describe('FakeHelix with the real twurple ApiClient', () => {
  it('creates a reward, remembers the client id that made it and lists it', async () => {
    const { helix, bot } = await setUp();
    const reward = await bot.apiClient.channelPoints.createCustomReward(bot.broadcaster.id, {
      title: 'Unlock neon',
      cost: 500,
      prompt: 'Unlocks the neon skin',
      userInputRequired: true,
      globalCooldown: 30,
    });
    expect(reward.title).toBe('Unlock neon');
    expect(reward.cost).toBe(500);
    expect(reward.userInputRequired).toBe(true);
    expect(reward.globalCooldown).toBe(30);
    expect(reward.broadcasterName).toBe('somechannel');
    expect(helix.rewards[0]?.clientId).toBe(bot.clientId);

    helix.createReward(bot.broadcaster.id, { title: 'Made on the dashboard', cost: 10 }, null);
    const all = await bot.apiClient.channelPoints.getCustomRewards(bot.broadcaster.id);
    const manageable = await bot.apiClient.channelPoints.getCustomRewards(bot.broadcaster.id, true);
    expect(all.map((r) => r.title).sort()).toEqual(['Made on the dashboard', 'Unlock neon']);
    expect(manageable.map((r) => r.title)).toEqual(['Unlock neon']);

    const duplicate = bot.apiClient.channelPoints.createCustomReward(bot.broadcaster.id, { title: 'unlock NEON', cost: 1 });
    expect(await statusOf(duplicate)).toBe(400);
  });

  it('refuses to change a reward another client id created (403) and changes its own', async () => {
    const { helix, bot } = await setUp();
    const foreign = helix.createReward(bot.broadcaster.id, { title: 'Other app reward', cost: 100 }, 'someotherclient');
    const own = await bot.apiClient.channelPoints.createCustomReward(bot.broadcaster.id, { title: 'Ours', cost: 100 });

    expect(await statusOf(bot.apiClient.channelPoints.updateCustomReward(bot.broadcaster.id, foreign.id, { cost: 1 }))).toBe(403);
    expect(await statusOf(bot.apiClient.channelPoints.deleteCustomReward(bot.broadcaster.id, foreign.id))).toBe(403);
    expect(await statusOf(bot.apiClient.channelPoints.getRedemptionsForBroadcaster(bot.broadcaster.id, foreign.id, 'UNFULFILLED', {}))).toBe(403);
    expect(helix.rewards.find((r) => r.json.id === foreign.id)?.json.cost).toBe(100);

    const updated = await bot.apiClient.channelPoints.updateCustomReward(bot.broadcaster.id, own.id, { cost: 250, isPaused: true });
    expect([updated.cost, updated.isPaused]).toEqual([250, true]);
    await bot.apiClient.channelPoints.deleteCustomReward(bot.broadcaster.id, own.id);
    expect(helix.rewards.find((r) => r.json.id === own.id)?.deleted).toBe(true);
  });

  it('refuses channel points to a channel that is neither affiliate nor partner (403), as Twitch does', async () => {
    const { helix, bot } = await setUp();
    const own = await bot.apiClient.channelPoints.createCustomReward(bot.broadcaster.id, { title: 'Ours', cost: 100 });
    helix.setBroadcasterType(bot.broadcaster.id, '');

    const refusals = await Promise.all([
      failureOf(bot.apiClient.channelPoints.getCustomRewards(bot.broadcaster.id)),
      failureOf(bot.apiClient.channelPoints.createCustomReward(bot.broadcaster.id, { title: 'Another', cost: 100 })),
      failureOf(bot.apiClient.channelPoints.updateCustomReward(bot.broadcaster.id, own.id, { cost: 1 })),
      failureOf(bot.apiClient.channelPoints.getRedemptionsForBroadcaster(bot.broadcaster.id, own.id, 'UNFULFILLED', {})),
    ]);
    expect(refusals.map((e) => [e.statusCode, (JSON.parse(e.body) as { message: string }).message])).toEqual(
      Array.from({ length: 4 }, () => [403, 'The broadcaster must have partner or affiliate status.']));
    expect((await bot.apiClient.users.getUserById(bot.broadcaster.id))?.broadcasterType).toBe('');
  });

  it('lists unfulfilled redemptions made while offline across pages, oldest first', async () => {
    const { helix, bot } = await setUp();
    const reward = await bot.apiClient.channelPoints.createCustomReward(bot.broadcaster.id, { title: 'Unlock neon', cost: 500 });
    const start = Date.now() - 60_000;
    const made = Array.from({ length: 120 }, (_, i) =>
      helix.addOfflineRedemption({ rewardId: reward.id, user: { login: `fan${i}` }, redeemedAt: new Date(start + i * 10) }),
    );
    const other = await bot.apiClient.channelPoints.createCustomReward(bot.broadcaster.id, { title: 'Other', cost: 5 });
    helix.addOfflineRedemption({ rewardId: other.id, user: { login: 'elsewhere' } });
    expect(helix.eventSub.deliveries).toHaveLength(0);

    const mark = helix.calls.length;
    const all = await bot.apiClient.channelPoints.getRedemptionsForBroadcasterPaginated(bot.broadcaster.id, reward.id, 'UNFULFILLED', {}).getAll();
    expect(all.map((r) => r.id)).toEqual(made.map((r) => r.id));
    expect(all[0]?.userName).toBe('fan0');
    expect([all[0]?.isFulfilled, all[0]?.isCanceled]).toEqual([false, false]);
    const pages = helix.calls.slice(mark).filter((c) => c.path === '/channel_points/custom_rewards/redemptions');
    expect(pages).toHaveLength(3);
    expect(pages[0]?.query['after']).toBeUndefined();
    expect(pages[1]?.query['after']?.[0]).toBeTruthy();

    const newest = await bot.apiClient.channelPoints.getRedemptionsForBroadcaster(bot.broadcaster.id, reward.id, 'UNFULFILLED', { newestFirst: true, limit: 5 });
    expect(newest.data.map((r) => r.userName)).toEqual(['fan119', 'fan118', 'fan117', 'fan116', 'fan115']);
  });

  it('holds the next matching call: answered as things were when it came, sent only on release()', async () => {
    const { helix, bot } = await setUp();
    const reward = await bot.apiClient.channelPoints.createCustomReward(bot.broadcaster.id, { title: 'Unlock neon', cost: 500 });
    const before = helix.addOfflineRedemption({ rewardId: reward.id, user: { login: 'before' } });
    const held = helix.holdNext({ method: 'GET', path: '/channel_points/custom_rewards/redemptions' });
    let answered = false;
    const listing = bot.apiClient.channelPoints.getRedemptionsForBroadcaster(bot.broadcaster.id, reward.id, 'UNFULFILLED', {})
      .then((page) => {
        answered = true;
        return page.data.map((r) => r.id);
      });
    const call = await held.arrived;
    expect(call).toMatchObject({ method: 'GET', path: '/channel_points/custom_rewards/redemptions', status: 200 });
    helix.addOfflineRedemption({ rewardId: reward.id, user: { login: 'after' } });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(answered).toBe(false);
    held.release();
    expect(await listing).toEqual([before.id]);
    // Only the next call was held.
    const again = await bot.apiClient.channelPoints.getRedemptionsForBroadcaster(bot.broadcaster.id, reward.id, 'UNFULFILLED', {});
    expect(again.data).toHaveLength(2);
  });

  it('stalls the next matching call: recorded, but never handled (nothing changes) nor answered', async () => {
    const { helix, bot } = await setUp();
    const reward = await bot.apiClient.channelPoints.createCustomReward(bot.broadcaster.id, { title: 'Unlock neon', cost: 500 });
    const a = helix.addOfflineRedemption({ rewardId: reward.id, user: { login: 'a' } });
    const stalled = helix.stallNext({ method: 'PATCH', path: '/channel_points/custom_rewards/redemptions' });
    // A raw request (twurple's rate limiter would hold the next call behind one never answered).
    const aborter = new AbortController();
    let answered = false;
    void fetch(`${helix.baseUrl}/helix/channel_points/custom_rewards/redemptions?broadcaster_id=${bot.broadcaster.id}&reward_id=${reward.id}&id=${a.id}`, {
      method: 'PATCH', signal: aborter.signal,
      headers: { authorization: `Bearer ${bot.token.accessToken}`, 'client-id': bot.clientId, 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'FULFILLED' }),
    }).then(() => (answered = true), () => {});
    const call = await stalled;
    expect(call).toMatchObject({ method: 'PATCH', path: '/channel_points/custom_rewards/redemptions', status: 0, query: { id: [a.id] } });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect([answered, a.status, helix.redemptionChanges]).toEqual([false, 'UNFULFILLED', []]);
    aborter.abort();
    // Only the next call was stalled.
    const [fulfilled] = await bot.apiClient.channelPoints.updateRedemptionStatusByIds(bot.broadcaster.id, reward.id, [a.id], 'FULFILLED');
    expect(fulfilled?.isFulfilled).toBe(true);
  });

  it('fulfils and cancels only UNFULFILLED redemptions and records every change', async () => {
    const { helix, bot } = await setUp();
    const reward = await bot.apiClient.channelPoints.createCustomReward(bot.broadcaster.id, { title: 'Unlock neon', cost: 500 });
    const a = helix.addOfflineRedemption({ rewardId: reward.id, user: { login: 'a' } });
    const b = helix.addOfflineRedemption({ rewardId: reward.id, user: { login: 'b' } });

    const [fulfilled] = await bot.apiClient.channelPoints.updateRedemptionStatusByIds(bot.broadcaster.id, reward.id, [a.id], 'FULFILLED');
    expect(fulfilled?.isFulfilled).toBe(true);
    const [canceled] = await bot.apiClient.channelPoints.updateRedemptionStatusByIds(bot.broadcaster.id, reward.id, [b.id], 'CANCELED');
    expect(canceled?.isCanceled).toBe(true);
    expect(await statusOf(bot.apiClient.channelPoints.updateRedemptionStatusByIds(bot.broadcaster.id, reward.id, [a.id], 'CANCELED'))).toBe(404);

    expect(helix.redemptionChanges.map(({ redemptionId, from, to, clientId }) => ({ redemptionId, from, to, clientId }))).toEqual([
      { redemptionId: a.id, from: 'UNFULFILLED', to: 'FULFILLED', clientId: bot.clientId },
      { redemptionId: b.id, from: 'UNFULFILLED', to: 'CANCELED', clientId: bot.clientId },
    ]);
    const left = await bot.apiClient.channelPoints.getRedemptionsForBroadcaster(bot.broadcaster.id, reward.id, 'UNFULFILLED', {});
    expect(left.data).toHaveLength(0);
  });

  it('marks the UNFULFILLED redemptions of a deleted reward FULFILLED, as Twitch does (Helix Delete Custom Reward)', async () => {
    const { helix, bot } = await setUp();
    const reward = await bot.apiClient.channelPoints.createCustomReward(bot.broadcaster.id, { title: 'Unlock neon', cost: 500 });
    const other = await bot.apiClient.channelPoints.createCustomReward(bot.broadcaster.id, { title: 'Unlock ghost', cost: 5 });
    const pending = helix.addOfflineRedemption({ rewardId: reward.id, user: { login: 'a' } });
    const refunded = helix.addOfflineRedemption({ rewardId: reward.id, user: { login: 'b' } });
    const elsewhere = helix.addOfflineRedemption({ rewardId: other.id, user: { login: 'c' } });
    await bot.apiClient.channelPoints.updateRedemptionStatusByIds(bot.broadcaster.id, reward.id, [refunded.id], 'CANCELED');
    const gone = await bot.apiClient.channelPoints.createCustomReward(bot.broadcaster.id, { title: 'Deleted by another tool', cost: 5 });
    const byOtherTool = helix.addOfflineRedemption({ rewardId: gone.id, user: { login: 'd' } });

    await bot.apiClient.channelPoints.deleteCustomReward(bot.broadcaster.id, reward.id);
    helix.deleteRewardAs(bot.clientId, gone.id);

    const status = (id: string) => helix.redemptions.find((r) => r.id === id)?.status;
    expect([status(pending.id), status(refunded.id), status(elsewhere.id), status(byOtherTool.id)]).toEqual(['FULFILLED', 'CANCELED', 'UNFULFILLED', 'FULFILLED']);
    expect(helix.redemptionChanges.filter((c) => c.to === 'FULFILLED').map(({ redemptionId, clientId }) => ({ redemptionId, clientId }))).toEqual([
      { redemptionId: pending.id, clientId: null },
      { redemptionId: byOtherTool.id, clientId: null },
    ]);
    // Nothing can change them any more: the reward is gone (404).
    expect(await statusOf(bot.apiClient.channelPoints.updateRedemptionStatusByIds(bot.broadcaster.id, reward.id, [pending.id], 'CANCELED'))).toBe(404);
  });

  it('refreshes through /auth/token when Helix says the token is no longer valid, then retries', async () => {
    const { helix, bot } = await setUp();
    const refreshed = new Promise<string>((resolve) => bot.authProvider.onRefresh((_userId, token) => resolve(token.accessToken)));
    helix.expireAccessToken(bot.token.accessToken);

    const mark = helix.calls.length;
    const reward = await bot.apiClient.channelPoints.createCustomReward(bot.broadcaster.id, { title: 'After refresh', cost: 1 });
    expect(reward.title).toBe('After refresh');
    const newToken = await refreshed;
    const calls = helix.calls.slice(mark).map((c) => `${c.method} ${c.path} ${c.status}`);
    expect(calls).toEqual([
      'POST /channel_points/custom_rewards 401',
      'POST /auth/token 200',
      'POST /channel_points/custom_rewards 200',
    ]);
    expect(helix.calls.at(-1)?.accessToken).toBe(newToken);
    expect(helix.calls.find((c) => c.path === '/auth/token')?.query['grant_type']).toEqual(['refresh_token']);
  });

  it('refreshes before the call when the token is about to expire', async () => {
    const { helix, bot } = await setUp({ expiresInSeconds: 30 });
    const mark = helix.calls.length;
    await bot.apiClient.channelPoints.getCustomRewards(bot.broadcaster.id);
    expect(helix.calls.slice(mark).map((c) => `${c.method} ${c.path} ${c.status}`)).toEqual([
      'POST /auth/token 200',
      'GET /channel_points/custom_rewards 200',
    ]);
  });

  it('fails the call when the refresh token was revoked', async () => {
    const { helix, bot } = await setUp();
    helix.expireAccessToken(bot.token.accessToken);
    helix.revokeRefreshToken(bot.token.refreshToken as string);
    await expect(bot.apiClient.channelPoints.getCustomRewards(bot.broadcaster.id)).rejects.toThrow();
    expect(helix.calls.find((c) => c.path === '/auth/token')?.status).toBe(400);
  });

  it('an app the user disconnected: its tokens fail everywhere, refresh included, and its subscriptions are revoked', async () => {
    const { helix, bot } = await setUp();
    const validate = (token: string) => fetch(`${helix.baseUrl}/oauth2/validate`, { headers: { Authorization: `OAuth ${token}` } }).then((r) => r.status);
    expect(await validate(bot.token.accessToken)).toBe(200);
    helix.disconnectApp(bot.broadcaster.id, bot.clientId);
    expect(await validate(bot.token.accessToken)).toBe(401);
    expect(helix.isLiveUserToken(bot.token.accessToken, 'somechannel')).toBe(false);
    await expect(bot.apiClient.channelPoints.getCustomRewards(bot.broadcaster.id)).rejects.toThrow();
    expect(helix.calls.filter((c) => c.path === '/auth/token').map((c) => c.status)).toEqual([400]);
  });

  it('tells which tokens are live user tokens of a login (what the chat fake accepts)', async () => {
    const { helix, bot } = await setUp();
    expect(helix.isLiveUserToken(bot.token.accessToken, 'SomeChannel')).toBe(true);
    expect(helix.isLiveUserToken(bot.token.accessToken, 'someoneelse')).toBe(false);
    expect(helix.isLiveUserToken('unknowntoken', 'somechannel')).toBe(false);
    helix.expireAccessToken(bot.token.accessToken);
    expect(helix.isLiveUserToken(bot.token.accessToken, 'somechannel')).toBe(false);
  });

  it('gets an app token with client credentials for calls without a user', async () => {
    const { helix, bot } = await setUp();
    const user = await bot.apiClient.users.getUserByName('somechannel');
    expect(user?.id).toBe(bot.broadcaster.id);
    const tokenCall = helix.calls.find((c) => c.path === '/auth/token');
    expect(tokenCall?.query['grant_type']).toEqual(['client_credentials']);
    expect(helix.calls.find((c) => c.path === '/users')?.userId).toBeNull();
  });

  // Without Ratelimit-* headers twurple's limiter computes a batch size of 0 and queued requests never run.
  it('sends the rate-limit headers twurple needs to run concurrent requests', async () => {
    const { helix, bot } = await setUp();
    await bot.apiClient.channelPoints.getCustomRewards(bot.broadcaster.id);
    const results = await Promise.all(Array.from({ length: 5 }, () => bot.apiClient.channelPoints.getCustomRewards(bot.broadcaster.id)));
    expect(results).toHaveLength(5);
    expect(helix.calls.filter((c) => c.path === '/channel_points/custom_rewards')).toHaveLength(6);
  });

  it('answers 429 with Ratelimit-Remaining 0 when the bucket is empty, and an injected 429 is one twurple waits out and retries', async () => {
    const helix = await FakeHelix.start({ rateLimitPerMinute: 2 });
    cleanups.push(() => helix.close());
    const bot = twurpleAgainstFakes(helix, { login: 'somechannel' });
    cleanups.push(bot.restoreEnv);
    const url = `${helix.baseUrl}/helix/users?id=${bot.broadcaster.id}`;
    const headers = { 'Client-Id': bot.clientId, Authorization: `Bearer ${bot.token.accessToken}` };
    const answers = [];
    for (let i = 0; i < 3; i++) {
      const res = await fetch(url, { headers });
      answers.push([res.status, res.headers.get('ratelimit-remaining')]);
    }
    expect(answers).toEqual([[200, '1'], [200, '0'], [429, '0']]);

    const roomy = await FakeHelix.start();
    cleanups.push(() => roomy.close());
    const other = twurpleAgainstFakes(roomy, { login: 'somechannel' });
    cleanups.push(other.restoreEnv);
    roomy.failNext({ status: 429, method: 'GET', path: '/channel_points/custom_rewards' });
    await other.apiClient.channelPoints.getCustomRewards(other.broadcaster.id);
    expect(roomy.calls.filter((c) => c.path === '/channel_points/custom_rewards').map((c) => c.status)).toEqual([429, 200]);
  });

  it('injects a 401 that twurple answers with a refresh, and a 5xx it retries', async () => {
    const { helix, bot } = await setUp();
    helix.failNext({ status: 401, path: '/channel_points/custom_rewards' });
    await bot.apiClient.channelPoints.getCustomRewards(bot.broadcaster.id);
    expect(helix.calls.filter((c) => c.path === '/auth/token')).toHaveLength(1);

    helix.failNext({ status: 503, method: 'GET', path: '/channel_points/custom_rewards' });
    const mark = helix.calls.length;
    await bot.apiClient.channelPoints.getCustomRewards(bot.broadcaster.id);
    expect(helix.calls.slice(mark).map((c) => c.status)).toEqual([503, 200]);
  });

  it('lets a persistent 5xx through as an HttpStatusCodeError with the Twitch error body', async () => {
    const { helix, bot } = await setUp();
    // twurple tries 4 times (backing off 0.5 s, 1 s, 2 s) before giving up.
    helix.failNext({ status: 500, path: '/channel_points/custom_rewards', times: 4, message: 'boom' });
    const error = await failureOf(bot.apiClient.channelPoints.getCustomRewards(bot.broadcaster.id));
    expect(error.name).toBe('HttpStatusCodeError');
    expect(error.statusCode).toBe(500);
    expect(JSON.parse(error.body)).toEqual({ error: 'Internal Server Error', status: 500, message: 'boom' });
    expect(helix.calls.filter((c) => c.path === '/channel_points/custom_rewards').map((c) => c.status)).toEqual([500, 500, 500, 500]);
  });
});

describe('FakeHelix over plain HTTP', () => {
  async function plain(): Promise<{ helix: FakeHelix; token: string }> {
    const helix = await FakeHelix.start();
    cleanups.push(() => helix.close());
    helix.registerClient('cid', 'secret');
    const user = helix.addUser({ login: 'somechannel' });
    const token = helix.issueUserToken({ clientId: 'cid', userId: user.id, scopes: ['channel:read:redemptions'] });
    return { helix, token: token.accessToken };
  }

  it('answers under /helix with rate-limit headers and Twitch error bodies', async () => {
    const { helix, token } = await plain();
    const ok = await fetch(`${helix.baseUrl}/helix/users`, { headers: { 'Client-Id': 'cid', Authorization: `Bearer ${token}` } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('ratelimit-limit')).toBe('800');
    expect(Number(ok.headers.get('ratelimit-remaining'))).toBeLessThan(800);
    expect(ok.headers.get('content-type')).toBe('application/json');
    expect(((await ok.json()) as { data: Array<{ login: string }> }).data[0]?.login).toBe('somechannel');

    const noToken = await fetch(`${helix.baseUrl}/helix/users`, { headers: { 'Client-Id': 'cid' } });
    expect(await noToken.json()).toEqual({ error: 'Unauthorized', status: 401, message: 'OAuth token is missing' });
    const wrongClient = await fetch(`${helix.baseUrl}/helix/users`, { headers: { 'Client-Id': 'other', Authorization: `Bearer ${token}` } });
    expect(((await wrongClient.json()) as { message: string }).message).toBe('Client ID and OAuth token do not match');
  });

  it('requires the endpoint scope and the broadcaster to be the token user', async () => {
    const { helix, token } = await plain();
    const headers = { 'Client-Id': 'cid', Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
    const missingScope = await fetch(`${helix.baseUrl}/helix/channel_points/custom_rewards?broadcaster_id=${helix.tokens[0]?.userId}`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ title: 'x', cost: 1 }),
    });
    expect(missingScope.status).toBe(401);
    expect(((await missingScope.json()) as { message: string }).message).toBe('Missing scope: channel:manage:redemptions');
    const otherBroadcaster = await fetch(`${helix.baseUrl}/helix/channel_points/custom_rewards?broadcaster_id=42`, { headers });
    expect(otherBroadcaster.status).toBe(401);
  });

  it('validates tokens as id.twitch.tv does', async () => {
    const { helix, token } = await plain();
    const valid = await fetch(`${helix.baseUrl}/oauth2/validate`, { headers: { Authorization: `OAuth ${token}` } });
    const body = (await valid.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ client_id: 'cid', login: 'somechannel', scopes: ['channel:read:redemptions'] });
    expect(body['expires_in']).toBeGreaterThan(14_000);
    const invalid = await fetch(`${helix.baseUrl}/oauth2/validate`, { headers: { Authorization: 'OAuth nope' } });
    expect(invalid.status).toBe(401);
  });
});
