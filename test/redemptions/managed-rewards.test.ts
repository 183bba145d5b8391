// The rewards in twitch.rewards, kept in step on Twitch (FakeHelix through the real twurple client):
// created with the host's client id, updated when the config changes, disabled when removed, and a
// reward the host does not own reported rather than skipped.
import { afterEach, describe, expect, it } from 'vitest';
import { CLIENT_ID, NEON_REWARD, openRedemptionWorld } from './redemption-world.ts';
import type { RedemptionWorld, WorldOptions } from './redemption-world.ts';

const worlds: RedemptionWorld[] = [];
afterEach(async () => {
  for (const world of worlds.splice(0)) await world.close();
});

async function open(options: WorldOptions = {}): Promise<RedemptionWorld> {
  const world = await openRedemptionWorld(options);
  worlds.push(world);
  return world;
}

function rewardWrites(world: RedemptionWorld, since: number): string[] {
  return world.helix.calls.slice(since)
    .filter((c) => c.path === '/channel_points/custom_rewards' && c.method !== 'GET')
    .map((c) => `${c.method} ${c.status}`);
}

describe('managed rewards', () => {
  it('creates every configured reward with the host\'s client id, as configured, and remembers its id', async () => {
    const world = await open({
      rewards: {
        'unlock-neon': {
          ...NEON_REWARD, backgroundColor: '#00ff88', userInputRequired: true, globalCooldownSeconds: 30,
          maxPerStream: 10, maxPerUserPerStream: 1, paused: true,
        },
      },
      skinShop: { rewards: { 'unlock-neon': 'neon' } },
    });
    const redemptions = await world.start();
    const [reward] = world.helix.rewards;
    expect(reward?.clientId).toBe(CLIENT_ID);
    expect(reward?.json).toMatchObject({
      title: 'Unlock the Neon skin', cost: 500, prompt: 'Unlocks Neon for your messages', background_color: '#00FF88',
      is_enabled: true, is_paused: true, is_user_input_required: true, should_redemptions_skip_request_queue: false,
      global_cooldown_setting: { is_enabled: true, global_cooldown_seconds: 30 },
      max_per_stream_setting: { is_enabled: true, max_per_stream: 10 },
      max_per_user_per_stream_setting: { is_enabled: true, max_per_user_per_stream: 1 },
    });
    expect(await world.service.listManagedRewards(world.accountId)).toEqual([
      { rewardKey: 'unlock-neon', twitchRewardId: reward?.json.id, broadcasterId: world.broadcaster.id, state: 'active' },
    ]);
    expect(redemptions.status().rewards).toEqual([
      { rewardKey: 'unlock-neon', title: 'Unlock the Neon skin', rewardId: reward?.json.id, action: 'created' },
    ]);
    expect(redemptions.status()).toMatchObject({ state: 'running', problem: null, unhandledRewardKeys: [] });
  });

  it('changes nothing on a restart with the same config', async () => {
    const world = await open();
    await world.start();
    await world.stop();
    const mark = world.helix.calls.length;
    const redemptions = await world.start();
    expect(rewardWrites(world, mark)).toEqual([]);
    expect(redemptions.status().rewards.map((r) => r.action)).toEqual(['unchanged', 'unchanged', 'unchanged']);
    expect(world.helix.rewards.filter((r) => !r.deleted)).toHaveLength(3);
  });

  it('updates a reward whose config changed, only in what changed', async () => {
    const world = await open({ rewards: { 'unlock-neon': NEON_REWARD }, skinShop: { rewards: { 'unlock-neon': 'neon' } } });
    await world.start();
    const rewardId = await world.rewardId('unlock-neon');
    await world.stop();
    const mark = world.helix.calls.length;
    const redemptions = await world.start({ rewards: { 'unlock-neon': { ...NEON_REWARD, title: 'Neon, now cheaper', cost: 250, maxPerUserPerStream: 2 } } });
    expect(rewardWrites(world, mark)).toEqual(['PATCH 200']);
    const patch = world.helix.calls.slice(mark).find((c) => c.method === 'PATCH');
    expect(patch?.body).toEqual({ title: 'Neon, now cheaper', cost: 250, is_max_per_user_per_stream_enabled: true, max_per_user_per_stream: 2 });
    expect(world.helix.rewards.find((r) => r.json.id === rewardId)?.json).toMatchObject({ title: 'Neon, now cheaper', cost: 250 });
    expect(redemptions.status().rewards).toEqual([{ rewardKey: 'unlock-neon', title: 'Neon, now cheaper', rewardId, action: 'updated' }]);
    expect(await world.rewardId('unlock-neon')).toBe(rewardId);
  });

  it('gives a title another key just gave up to a reward of its own, never to the other key\'s reward', async () => {
    const world = await open({ rewards: { 'unlock-neon': NEON_REWARD }, skinShop: { rewards: { 'unlock-neon': 'neon' } } });
    await world.start();
    const neonId = await world.rewardId('unlock-neon');
    await world.stop();
    const redemptions = await world.start({
      rewards: { 'unlock-neon': { ...NEON_REWARD, title: 'Neon classic' }, 'unlock-gold': { title: NEON_REWARD.title, cost: 100 } },
    });
    expect(redemptions.status().rewards.map((r) => [r.rewardKey, r.action])).toEqual([['unlock-neon', 'updated'], ['unlock-gold', 'created']]);
    expect(await world.rewardId('unlock-neon')).toBe(neonId);
    const goldId = await world.rewardId('unlock-gold');
    expect(goldId).not.toBe(neonId);
    expect(world.helix.rewards.find((r) => r.json.id === neonId)?.json.title).toBe('Neon classic');
    expect(world.helix.rewards.find((r) => r.json.id === goldId)?.json).toMatchObject({ title: NEON_REWARD.title, cost: 100 });
  });

  it('disables a reward removed from the config, and enables it again when it comes back', async () => {
    const world = await open();
    await world.start();
    const ghostId = await world.rewardId('unlock-ghost');
    await world.stop();

    const { 'unlock-ghost': _removed, ...rest } = { 'unlock-neon': NEON_REWARD, 'unlock-retired': { title: 'Unlock the Retired skin', cost: 300 }, 'unlock-ghost': {} };
    let redemptions = await world.start({ rewards: rest });
    expect(world.helix.rewards.find((r) => r.json.id === ghostId)?.json.is_enabled).toBe(false);
    expect(world.helix.rewards.find((r) => r.json.id === ghostId)?.deleted).toBe(false);
    expect(redemptions.status().rewards.find((r) => r.rewardKey === 'unlock-ghost'))
      .toEqual({ rewardKey: 'unlock-ghost', title: 'Unlock a skin that is not there', rewardId: ghostId, action: 'disabled' });
    expect((await world.service.listManagedRewards(world.accountId)).find((r) => r.rewardKey === 'unlock-ghost')?.state).toBe('disabled');
    await world.stop();

    redemptions = await world.start({ rewards: { ...rest, 'unlock-ghost': { title: 'Unlock a skin that is not there', cost: 100 } } });
    expect(world.helix.rewards.find((r) => r.json.id === ghostId)?.json.is_enabled).toBe(true);
    expect(redemptions.status().rewards.find((r) => r.rewardKey === 'unlock-ghost')?.action).toBe('updated');
    expect((await world.service.listManagedRewards(world.accountId)).find((r) => r.rewardKey === 'unlock-ghost')?.state).toBe('active');
  });

  it('still finishes pending redemptions of a reward removed from the config', async () => {
    const world = await open();
    await world.start();
    const neonId = await world.rewardId('unlock-neon');
    await world.stop();
    const pending = world.helix.addOfflineRedemption({ rewardId: neonId, user: { login: 'fan' } });
    await world.start({ rewards: { 'unlock-retired': { title: 'Unlock the Retired skin', cost: 300 } } });
    expect(world.helix.redemptions.find((r) => r.id === pending.id)?.status).toBe('FULFILLED');
  });

  it('reports a reward with the same title that it does not own, and does not touch it', async () => {
    const world = await open({ rewards: { 'unlock-neon': NEON_REWARD }, skinShop: { rewards: { 'unlock-neon': 'neon' } } });
    const foreign = world.helix.createReward(world.broadcaster.id, { title: 'UNLOCK THE NEON SKIN', cost: 1 }, null);
    const redemptions = await world.start();
    expect(world.helix.rewards.filter((r) => !r.deleted)).toHaveLength(1);
    expect(world.helix.rewards[0]?.json).toMatchObject({ id: foreign.id, cost: 1 });
    const [entry] = redemptions.status().rewards;
    expect(entry).toMatchObject({ rewardKey: 'unlock-neon', rewardId: null, action: 'not-owned' });
    expect(entry?.message).toMatch(/already exists on the channel, made on the Twitch dashboard or by another app/);
    expect(redemptions.status().problem).toMatch(/^reward "unlock-neon": a reward titled "UNLOCK THE NEON SKIN" already exists/);
    expect(world.logs.some((l) => l.level === 50 && l['rewardKey'] === 'unlock-neon' && /reward not managed/.test(String(l.msg)))).toBe(true);
    // Its redemptions are not the host's to handle.
    const { redemption } = world.helix.fireRedemption({ rewardId: foreign.id, user: { login: 'fan' } });
    await world.redemptions!.reconcile();
    expect(world.helix.redemptions.find((r) => r.id === redemption.id)?.status).toBe('UNFULFILLED');
  });

  it('says so in its status when the rewards cannot be set up (a channel with no channel points), until they can', async () => {
    const world = await open({ rewards: { 'unlock-neon': NEON_REWARD }, skinShop: { rewards: { 'unlock-neon': 'neon' } } });
    // Twitch gives channel points to affiliate and partner channels only; Helix answers 403 to the others.
    world.helix.setBroadcasterType(world.broadcaster.id, '');
    const redemptions = await world.start();
    expect(world.helix.rewards).toEqual([]);
    const problem = redemptions.status().problem;
    expect(problem).toBe('the channel-point rewards could not be set up (tried again at every reconciliation): listing the channel\'s rewards: '
      + 'Twitch answered 403: The broadcaster must have partner or affiliate status. '
      + 'Channel-point rewards need an Affiliate or Partner channel (docs/twitch-setup.md).');

    // The channel became an affiliate: the next reconciliation sets the rewards up, and all is well.
    world.helix.setBroadcasterType(world.broadcaster.id, 'affiliate');
    await redemptions.reconcile();
    expect(redemptions.status()).toMatchObject({ problem: null, rewards: [{ rewardKey: 'unlock-neon', action: 'created' }] });
    const { redemption } = world.helix.fireRedemption({ rewardId: await world.rewardId('unlock-neon'), user: { login: 'fan' } });
    await world.helix.waitForRedemptionStatus(redemption.id, 'FULFILLED');
  });

  it('recreates a reward deleted on Twitch, and takes over its own reward after the store was lost', async () => {
    const world = await open({ rewards: { 'unlock-neon': NEON_REWARD }, skinShop: { rewards: { 'unlock-neon': 'neon' } } });
    await world.start();
    const first = await world.rewardId('unlock-neon');
    await world.stop();
    await world.service.forgetManagedReward(world.accountId, 'unlock-neon');
    let mark = world.helix.calls.length;
    await world.start();
    expect(rewardWrites(world, mark)).toEqual([]);
    expect(await world.rewardId('unlock-neon')).toBe(first);
    await world.stop();

    // Deleted on Twitch (by the app itself: the dashboard cannot touch an app's reward).
    const token = world.helix.issueUserToken({ clientId: CLIENT_ID, userId: world.broadcaster.id, scopes: ['channel:manage:redemptions'] });
    await fetch(`${world.helix.baseUrl}/helix/channel_points/custom_rewards?broadcaster_id=${world.broadcaster.id}&id=${first}`, {
      method: 'DELETE', headers: { 'Client-Id': CLIENT_ID, Authorization: `Bearer ${token.accessToken}` },
    });
    mark = world.helix.calls.length;
    const redemptions = await world.start();
    expect(rewardWrites(world, mark)).toEqual(['POST 200']);
    expect(await world.rewardId('unlock-neon')).not.toBe(first);
    expect(redemptions.status().rewards[0]?.action).toBe('created');
  });

  it('creates a reward deleted while it runs again in the reconciliation that finds it gone, with one log line', async () => {
    const world = await open({ rewards: { 'unlock-neon': NEON_REWARD }, skinShop: { rewards: { 'unlock-neon': 'neon' } } });
    const redemptions = await world.start();
    await world.settled();
    const first = await world.rewardId('unlock-neon');
    // Deleted by another tool using this app's client id (the dashboard cannot delete an app's reward).
    world.helix.deleteRewardAs(CLIENT_ID, first);
    const mark = world.helix.calls.length;

    expect(await redemptions.reconcile()).toMatchObject({ failures: [] });
    expect(rewardWrites(world, mark)).toEqual(['POST 200']);
    const second = await world.rewardId('unlock-neon');
    expect(second).not.toBe(first);
    expect(redemptions.status()).toMatchObject({ problem: null, rewards: [{ rewardKey: 'unlock-neon', rewardId: second, action: 'created' }] });
    const gone = world.logs.filter((l) => /^a managed reward is gone from Twitch/.test(String(l.msg)));
    expect(gone.map((l) => [l['rewardKey'], l['rewardId'], l.level])).toEqual([['unlock-neon', first, 40]]);

    // The next reconciliation lists the new reward: no 404 any more, and its redemptions are handled.
    const again = world.helix.calls.length;
    expect(await redemptions.reconcile()).toMatchObject({ failures: [] });
    expect(world.helix.calls.slice(again).filter((c) => c.status === 404)).toEqual([]);
    const { redemption } = world.helix.fireRedemption({ rewardId: second, user: { login: 'fan' } });
    await world.helix.waitForRedemptionStatus(redemption.id, 'FULFILLED');
  });

  it('turns the request queue back on for a reward of its own set to skip it', async () => {
    const world = await open({ rewards: { 'unlock-neon': NEON_REWARD }, skinShop: { rewards: { 'unlock-neon': 'neon' } } });
    await world.start();
    const rewardId = await world.rewardId('unlock-neon');
    await world.stop();
    // Another tool using this app's client id (the only one that may change the reward).
    world.helix.updateRewardAs(CLIENT_ID, rewardId, { should_redemptions_skip_request_queue: true });
    const mark = world.helix.calls.length;
    const redemptions = await world.start();
    expect(rewardWrites(world, mark)).toEqual(['PATCH 200']);
    expect(world.helix.calls.slice(mark).find((c) => c.method === 'PATCH')?.body).toEqual({ should_redemptions_skip_request_queue: false });
    expect(world.helix.rewards.find((r) => r.json.id === rewardId)?.json.should_redemptions_skip_request_queue).toBe(false);
    expect(redemptions.status().rewards[0]?.action).toBe('updated');
    expect(world.logs.some((l) => l.level === 40 && /turned the queue back on$/.test(String(l.msg)))).toBe(true);
  });

  it('turns the queue back on as soon as a redemption arrives FULFILLED, so the next one has its effect', async () => {
    const world = await open({ rewards: { 'unlock-neon': NEON_REWARD }, skinShop: { rewards: { 'unlock-neon': 'neon' } } });
    await world.start();
    await world.settled();
    const rewardId = await world.rewardId('unlock-neon');
    world.helix.updateRewardAs(CLIENT_ID, rewardId, { should_redemptions_skip_request_queue: true });
    expect(world.helix.fireRedemption({ rewardId, user: { login: 'early' } }).redemption.status).toBe('FULFILLED');
    await expect.poll(() => world.helix.rewards.find((r) => r.json.id === rewardId)?.json.should_redemptions_skip_request_queue,
      { timeout: 5000, interval: 5 }).toBe(false);
    const { redemption } = world.helix.fireRedemption({ rewardId, user: { login: 'fan' } });
    await world.helix.waitForRedemptionStatus(redemption.id, 'FULFILLED');
    expect(world.helix.redemptionChanges.map((c) => [c.redemptionId, c.clientId])).toEqual([[redemption.id, CLIENT_ID]]);
    expect(world.unlocks.map((u) => u.viewerId)).toEqual([redemption.user_id]);
    expect(world.logs.filter((l) => /syncing the channel-point rewards again$/.test(String(l.msg))).map((l) => l['rewardKey'])).toEqual(['unlock-neon']);
  });

  it('names configured rewards no plugin handles, and refunds their redemptions', async () => {
    const world = await open({
      rewards: { 'unlock-neon': NEON_REWARD, 'hug': { title: 'Hug the streamer', cost: 5 } },
      skinShop: { rewards: { 'unlock-neon': 'neon' } },
    });
    const redemptions = await world.start();
    await world.settled();
    expect(redemptions.status().unhandledRewardKeys).toEqual(['hug']);
    expect(world.logs.some((l) => l.level === 40 && l['rewardKey'] === 'hug')).toBe(true);
    const { redemption } = world.helix.fireRedemption({ rewardId: await world.rewardId('hug'), user: { login: 'fan' } });
    await world.helix.waitForRedemptionStatus(redemption.id, 'CANCELED');
  });

  it('names a plugin\'s reward key that twitch.rewards does not define (nothing will redeem it)', async () => {
    const world = await open({ rewards: { 'unlock-neon': NEON_REWARD }, skinShop: { rewards: { 'unlock-neon': 'neon', 'unlock-nean': 'neon' } } });
    await world.start();
    await world.settled();
    expect(world.logs.filter((l) => l.level === 40 && l['rewardKey'] === 'unlock-nean').map((l) => l.msg)).toEqual([
      'plugin skin-shop handles the reward "unlock-nean", which twitch.rewards does not define: nothing will redeem it',
    ]);
    expect(world.logs.some((l) => l.level === 40 && l['rewardKey'] === 'unlock-neon')).toBe(false);
  });
});
