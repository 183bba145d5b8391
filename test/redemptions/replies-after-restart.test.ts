// A redemption handler's chat line (RedemptionDecision's reply / replyIfNotRefunded) is said once
// Twitch has settled the status. When the host stops before that (the status call failed, or
// never answered), the ledger keeps the lines with the outcome, and the next start says the right
// one once it has sent the status: once, never again at a later restart. All real: FakeHelix, the
// SQLite ledger, the host with the skin-shop plugin, one database across the restarts.
import { afterEach, describe, expect, it } from 'vitest';
import { toLedgerReplies } from '../../src/host/redemptions/kept-replies.ts';
import { openRedemptionWorld } from './redemption-world.ts';
import type { RedemptionWorld } from './redemption-world.ts';

const worlds: RedemptionWorld[] = [];
afterEach(async () => {
  for (const world of worlds.splice(0)) await world.close();
});

const PATCH = { method: 'PATCH', path: '/channel_points/custom_rewards/redemptions' } as const;
const UNLOCKED = '@Fan the Neon skin is yours!';
const GHOST = 'the skin "ghost" is not available on this channel.';

async function runningWorld(options: Parameters<typeof openRedemptionWorld>[0] = {}): Promise<RedemptionWorld> {
  const world = await openRedemptionWorld(options);
  worlds.push(world);
  await world.start();
  await world.settled();
  return world;
}

/** Fires a redemption whose status call Twitch refuses (400: not retried), and waits until its effect is recorded and the status failed. */
async function effectDoneStatusRefused(world: RedemptionWorld, rewardKey: string): Promise<string> {
  world.helix.failNext({ status: 400, ...PATCH, message: 'injected' });
  const { redemption } = world.helix.fireRedemption({ rewardId: await world.rewardId(rewardKey), user: { login: 'fan', displayName: 'Fan' } });
  await expect.poll(() => world.redemptions!.status().counters?.statusFailures, { timeout: 5000, interval: 5 }).toBe(1);
  expect(await world.service.findRedemptionEntry(world.accountId, redemption.id)).toMatchObject({ state: 'effect-done' });
  return redemption.id;
}

/** Stops the redemptions part and starts it again on the same database (a restarted process), then reconciles. */
async function restart(world: RedemptionWorld): Promise<void> {
  await world.stop();
  await world.start();
  await world.settled();
}

/** Waits long enough for a line that should not come to have come. */
const aMoment = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 100));

describe('a redemption chat line waiting for its status when the host stops', () => {
  it('a fulfil: the next start sends FULFILLED, then says the line, once; a second restart says nothing', async () => {
    const world = await runningWorld();
    const id = await effectDoneStatusRefused(world, 'unlock-neon');
    expect((await world.service.findRedemptionEntry(world.accountId, id))?.replies).not.toBeNull();
    await world.stop();
    expect(world.said()).toEqual([]);

    await world.start();
    await world.helix.waitForRedemptionStatus(id, 'FULFILLED', { timeoutMs: 5000 });
    await expect.poll(() => world.said(), { timeout: 5000, interval: 5 }).toEqual([UNLOCKED]);
    expect(world.unlocks).toHaveLength(1);
    expect(await world.service.findRedemptionEntry(world.accountId, id)).toMatchObject({ state: 'status-sent', replies: null });

    await restart(world);
    await restart(world);
    await aMoment();
    expect(world.said()).toEqual([UNLOCKED]);
  });

  it('a refund Twitch took at the next start: "Your points were refunded", once', async () => {
    const world = await runningWorld();
    const id = await effectDoneStatusRefused(world, 'unlock-ghost');
    await restart(world);
    await world.helix.waitForRedemptionStatus(id, 'CANCELED', { timeoutMs: 5000 });
    await expect.poll(() => world.said(), { timeout: 5000, interval: 5 }).toEqual([`@Fan ${GHOST} Your points were refunded.`]);
    await restart(world);
    await aMoment();
    expect(world.said()).toHaveLength(1);
  });

  it('a refund Twitch did not take (a moderator fulfilled it while the host was down): replyIfNotRefunded, once', async () => {
    const world = await runningWorld();
    const id = await effectDoneStatusRefused(world, 'unlock-ghost');
    await world.stop();
    world.helix.resolveOnDashboard(id, 'FULFILLED');
    await world.start();
    await world.settled();
    await expect.poll(() => world.said(), { timeout: 5000, interval: 5 })
      .toEqual([`@Fan ${GHOST} Twitch did not refund your points; a moderator can make it up to you.`]);
    expect(world.helix.redemptions.find((r) => r.id === id)?.status).toBe('FULFILLED');
    await restart(world);
    await aMoment();
    expect(world.said()).toHaveLength(1);
  });

  it('no restart: the next reconciliation sends the status and says the line once (the memory\'s and the ledger\'s copy are one line)', async () => {
    const world = await runningWorld();
    await effectDoneStatusRefused(world, 'unlock-neon');
    await world.redemptions!.reconcile();
    await expect.poll(() => world.said(), { timeout: 5000, interval: 5 }).toEqual([UNLOCKED]);
    await world.redemptions!.reconcile();
    await restart(world);
    await aMoment();
    expect(world.said()).toEqual([UNLOCKED]);
  });

  it('a line kept for a plugin no longer running is dropped, with one info line, and the status is still sent', async () => {
    const world = await runningWorld();
    const rewardId = await world.rewardId('unlock-neon');
    await world.stop();
    world.helix.addOfflineRedemption({ id: 'r-gone', rewardId, user: { login: 'fan' } });
    await world.service.beginRedemption(world.accountId, { id: 'r-gone', rewardId });
    await world.service.recordRedemptionEffect(world.accountId, 'r-gone', 'fulfill',
      toLedgerReplies({ plugin: 'uninstalled', to: { channel: 'somechannel', user: { displayName: 'Fan', login: 'fan' } }, reply: 'hello' }));
    await world.start();
    await world.settled();
    await world.helix.waitForRedemptionStatus('r-gone', 'FULFILLED', { timeoutMs: 5000 });
    await aMoment();
    expect(world.said()).toEqual([]);
    const dropped = world.logs.filter((l) => l['redemption'] === 'r-gone' && String(l.msg).includes('is not running'));
    expect(dropped.map((l) => [l.level, l.msg])).toEqual([
      [30, 'plugin uninstalled is not running: the chat reply of a redemption it handled before the restart is not said'],
    ]);
  });

  it('a line longer than the chat allows is kept whole, and split when said', async () => {
    const world = await runningWorld();
    const rewardId = await world.rewardId('unlock-neon');
    await world.stop();
    const long = `${'word '.repeat(150)}end`;
    world.helix.addOfflineRedemption({ id: 'r-long', rewardId, user: { login: 'fan' } });
    await world.service.beginRedemption(world.accountId, { id: 'r-long', rewardId });
    await world.service.recordRedemptionEffect(world.accountId, 'r-long', 'fulfill',
      toLedgerReplies({ plugin: 'skin-shop', to: { channel: 'somechannel', user: { displayName: 'Fan', login: 'fan' } }, reply: long }));
    expect((await world.service.findRedemptionEntry(world.accountId, 'r-long'))?.replies?.texts['reply']).toBe(long);
    await world.start();
    await world.settled();
    await expect.poll(() => world.said().length, { timeout: 5000, interval: 5 }).toBeGreaterThan(1);
    expect(world.said().join(' ')).toContain('end');
  });
});
