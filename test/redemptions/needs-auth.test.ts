// The host started without a usable broadcaster token (needs-auth) waits for one: it watches the
// token file, reports a token saved there that cannot be used (once, and goes on waiting), and
// starts the redemptions with the first usable one, `chatskin twitch auth` run in another process
// while it runs, as if it had started with it: rewards synced, EventSub subscribed, and what was
// redeemed meanwhile fulfilled once. No restart. Real twurple, host, skin-shop and store against
// the Twitch fakes.
import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { readTokenFile } from '../../src/adapters/twitch-auth/token-file.ts';
import { startTwitchRedemptions } from '../../src/adapters/redemptions/twitch-redemptions.ts';
import { systemClock } from '../../src/host/clock.ts';
import type { Clock } from '../../src/host/clock.ts';
import { bindLedger } from '../../src/host/redemptions/redemption-ledger.ts';
import { REDEMPTION_ADD_TYPE } from '../fakes/fake-eventsub.ts';
import { LEVEL } from '../host/log-capture.ts';
import { CHANNEL, CLIENT_ID, openRedemptionWorld } from './redemption-world.ts';
import { runTwitchAuth, saveBroadcasterToken } from './broadcaster-token-helpers.ts';
import type { RedemptionWorld } from './redemption-world.ts';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const POLL = { timeout: 10_000, interval: 5 };
const PICKED_UP = 'the running chatskin picks the token up within seconds and starts the redemptions (no restart needed)';
const FOUND = 'found a usable broadcaster token (saved by `chatskin twitch auth`): starting channel-point redemptions, no restart needed';

async function open(): Promise<RedemptionWorld> {
  const world = await openRedemptionWorld({
    skinShop: { rewards: { 'unlock-neon': 'neon' } }, rewards: { 'unlock-neon': { title: 'Neon', cost: 5 } }, tokenFileCheckMs: 20,
  });
  cleanups.push(() => world.close());
  return world;
}

/** The redemptions part's own lines (not twurple's, the pipeline's or the auth's). */
function lines(world: RedemptionWorld, level: number): string[] {
  return world.logs.filter((l) => l['component'] === 'redemptions' && l.level === level).map((l) => String(l.msg));
}

describe('a host started without a usable broadcaster token', () => {
  it('waits, reports a token lacking a scope once, and starts with the one `chatskin twitch auth` saves: a redemption made meanwhile is fulfilled once', async () => {
    const world = await open();
    // An earlier run made the reward; then the token file went (a new machine, a deleted file).
    await world.start();
    await world.settled();
    const rewardId = await world.rewardId('unlock-neon');
    await world.stop();
    rmSync(world.tokenFile);
    const mark = world.helix.calls.length;

    const redemptions = await world.start();
    expect(redemptions.status()).toMatchObject({
      state: 'needs-auth', problem: `there is no broadcaster token at ${world.tokenFile}: run \`chatskin twitch auth\`; ${PICKED_UP}`, auth: null, eventsub: null,
    });
    // Redeemed while the host waits: nobody listens, Twitch keeps it UNFULFILLED.
    const during = world.helix.fireRedemption({ rewardId, user: { login: 'during', displayName: 'During' } });

    // A token without channel:manage:redemptions: reported, and the host goes on waiting.
    const lackingToken = await saveBroadcasterToken(world, ['channel:read:redemptions']);
    const lacking = `the token in ${world.tokenFile} lacks channel:manage:redemptions; run \`chatskin twitch auth\` to authorize the channel again; `
      + 'the running chatskin picks the new token up within seconds and starts the redemptions (no restart needed)';
    await expect.poll(() => lines(world, LEVEL.warn), POLL)
      .toContain(`the token file changed, but channel-point redemptions still cannot start: ${lacking}`);
    expect(redemptions.status()).toMatchObject({ state: 'needs-auth', problem: lacking, auth: null, eventsub: null });
    // Read, though not used: the logger scrubs it wherever it turns up.
    world.logger.warn(`quoting ${lackingToken}`);
    expect(world.logs.at(-1)?.msg).toBe('quoting [redacted]');
    expect(await redemptions.reconcile()).toBeNull();
    // Waited for quietly: not one call to Twitch without a usable token.
    expect(world.helix.calls.slice(mark)).toEqual([]);

    const auth = await runTwitchAuth(world);
    expect(auth).toMatchObject({ code: 0, stderr: '' });
    const saved = (await readTokenFile(world.tokenFile))!;

    await expect.poll(() => redemptions.status().state, POLL).toBe('running');
    await world.helix.waitForRedemptionStatus(during.redemption.id, 'FULFILLED');
    await expect.poll(() => redemptions.status().eventsub?.subscription, POLL).toBe('active');
    expect(redemptions.status()).toMatchObject({
      state: 'running', problem: null,
      auth: { state: 'ok', login: CHANNEL, reloads: 0 },
      eventsub: { state: 'connected', sessions: 1 },
      rewards: [{ rewardKey: 'unlock-neon', rewardId, action: 'unchanged' }],
    });
    // Started with the saved token: every reward, listing, status and subscription call used it.
    const used = world.helix.calls.slice(mark).filter((c) => c.path.startsWith('/channel_points') || c.path.startsWith('/eventsub'));
    expect(used.length).toBeGreaterThan(0);
    expect(used.filter((c) => c.accessToken !== saved.accessToken)).toEqual([]);
    // Fulfilled once, one unlock, although both the start's listing and the subscription's list it.
    await redemptions.reconcile();
    expect(world.helix.redemptionChanges.filter((c) => c.redemptionId === during.redemption.id).map((c) => `${c.from}->${c.to}`))
      .toEqual(['UNFULFILLED->FULFILLED']);
    expect(world.unlocks.map((u) => u.viewerId)).toEqual([during.redemption.user_id]);
    // Said once each: the scope warning (though the file was looked at many times since), and the start.
    expect(lines(world, LEVEL.warn).filter((m) => m.startsWith('the token file changed'))).toHaveLength(1);
    expect(lines(world, LEVEL.info).filter((m) => m === FOUND)).toHaveLength(1);

    // Live from now on.
    const live = world.helix.fireRedemption({ rewardId, user: { login: 'live', displayName: 'Live' } });
    await world.helix.waitForRedemptionStatus(live.redemption.id, 'FULFILLED');
    expect(world.unlocks.map((u) => u.viewerId)).toEqual([during.redemption.user_id, live.redemption.user_id]);
  });

  it('on its first start ever, creates the rewards and subscribes once a token is saved', async () => {
    const world = await open();
    rmSync(world.tokenFile);
    const redemptions = await world.start();
    expect(redemptions.status().state).toBe('needs-auth');
    expect(world.helix.rewards).toEqual([]);

    const fresh = await saveBroadcasterToken(world);
    const subscription = await world.helix.eventSub.waitForSubscription(REDEMPTION_ADD_TYPE, { userId: world.broadcaster.id });
    await expect.poll(() => redemptions.status().state, POLL).toBe('running');
    expect(world.helix.rewards.map((r) => ({ title: r.json.title, clientId: r.clientId }))).toEqual([{ title: 'Neon', clientId: CLIENT_ID }]);
    expect(redemptions.status()).toMatchObject({ rewards: [{ rewardKey: 'unlock-neon', action: 'created' }] });
    const created = world.helix.calls.find((c) => c.method === 'POST' && c.path === '/eventsub/subscriptions' && c.status === 202);
    expect(created?.accessToken).toBe(fresh);
    expect(subscription.transport.session_id).toBeTruthy();
    expect(lines(world, LEVEL.info)).toEqual(expect.arrayContaining([FOUND, 'channel-point redemptions are running']));
  });

  it('stopped while waiting: stops looking at the file and leaves no timer behind', async () => {
    const world = await open();
    rmSync(world.tokenFile);
    // The system clock, with the timers it has pending.
    const pending = new Set<object>();
    const clock: Clock = {
      now: () => systemClock.now(),
      schedule(callback, delayMs) {
        const entry = {};
        const timer = systemClock.schedule(() => {
          pending.delete(entry);
          callback();
        }, delayMs);
        pending.add(entry);
        return { cancel: () => (pending.delete(entry), timer.cancel()) };
      },
    };
    const redemptions = await startTwitchRedemptions({
      config: world.config, host: world.host, ledger: bindLedger(world.service, world.accountId), logger: world.logger, clock, tokenFileCheckMs: 20,
    });
    cleanups.push(() => redemptions.stop());
    // The watcher is at work: it saw this one.
    await saveBroadcasterToken(world, ['channel:read:redemptions']);
    await expect.poll(() => lines(world, LEVEL.warn).filter((m) => m.startsWith('the token file changed')), POLL).toHaveLength(1);
    expect(pending.size).toBe(1);

    await redemptions.stop();
    expect(redemptions.status()).toMatchObject({ state: 'stopped', auth: null, eventsub: null });
    expect(pending.size).toBe(0);
    expect(world.helix.calls).toEqual([]);
  });
});
