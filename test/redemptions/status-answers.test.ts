// Helix Update Redemption Status changes only UNFULFILLED redemptions: a batch of ids of which some
// are no longer UNFULFILLED answers 200 with the changed ones only, a batch of which none is answers
// 404. The status batcher takes an id missing from the answer, or a 404 for its batch, as already
// resolved (settled in the ledger). Neither answer may settle a redemption still UNFULFILLED on
// Twitch. Real twurple client against FakeHelix (which answers as Twitch does), the real ledger.
import { afterEach, describe, expect, it } from 'vitest';
import type { LedgerOutcome } from '../../src/host/redemptions/redemption-ledger.ts';
import { CLIENT_ID, openRedemptionWorld } from './redemption-world.ts';
import type { RedemptionWorld } from './redemption-world.ts';

const worlds: RedemptionWorld[] = [];
afterEach(async () => {
  for (const world of worlds.splice(0)) await world.close();
});

const PATCH_PATH = '/channel_points/custom_rewards/redemptions';

/** A running host whose ledger owes Twitch the status of each redemption (an effect done, the status not sent yet). */
async function owing(outcomes: Record<string, LedgerOutcome>): Promise<{ world: RedemptionWorld; rewardId: string }> {
  const world = await openRedemptionWorld();
  worlds.push(world);
  await world.start();
  await world.settled();
  const rewardId = await world.rewardId('unlock-neon');
  await world.stop();
  for (const [id, outcome] of Object.entries(outcomes)) {
    world.helix.addOfflineRedemption({ id, rewardId, user: { login: `viewer${id}` } });
    await world.service.beginRedemption(world.accountId, { id, rewardId });
    await world.service.recordRedemptionEffect(world.accountId, id, outcome);
  }
  return { world, rewardId };
}

async function ledgerStates(world: RedemptionWorld, ids: string[]): Promise<Record<string, string | undefined>> {
  return Object.fromEntries(await Promise.all(ids.map(async (id) => [id, (await world.service.findRedemptionEntry(world.accountId, id))?.state])));
}

function twitchStatuses(world: RedemptionWorld, ids: string[]): Record<string, string | undefined> {
  return Object.fromEntries(ids.map((id) => [id, world.helix.redemptions.find((r) => r.id === id)?.status]));
}

describe('statuses sent for redemptions some of which are no longer UNFULFILLED', () => {
  it('200 with only the changed ones: those are changed, the one resolved on the dashboard is settled as it is', async () => {
    const { world } = await owing({ a: 'fulfill', b: 'fulfill', c: 'fulfill' });
    world.helix.resolveOnDashboard('b', 'CANCELED');
    const mark = world.helix.calls.length;
    await world.start();
    await world.settled();

    const patches = world.helix.calls.slice(mark).filter((c) => c.method === 'PATCH' && c.path === PATCH_PATH);
    expect(patches.map((c) => [c.status, c.query['id']])).toEqual([[200, ['a', 'b', 'c']]]);
    expect(twitchStatuses(world, ['a', 'b', 'c'])).toEqual({ a: 'FULFILLED', b: 'CANCELED', c: 'FULFILLED' });
    expect(world.helix.redemptionChanges.map((c) => [c.redemptionId, c.to, c.clientId]))
      .toEqual([['b', 'CANCELED', null], ['a', 'FULFILLED', CLIENT_ID], ['c', 'FULFILLED', CLIENT_ID]]);
    expect(await ledgerStates(world, ['a', 'b', 'c'])).toEqual({ a: 'status-sent', b: 'status-sent', c: 'status-sent' });
    expect(world.unlocks).toEqual([]);
  });

  it('404 for a batch none of which is UNFULFILLED: settled, and a batch beside it still UNFULFILLED is changed, not settled unchanged', async () => {
    const { world } = await owing({ a: 'fulfill', b: 'fulfill', c: 'refund' });
    world.helix.resolveOnDashboard('a', 'CANCELED');
    world.helix.resolveOnDashboard('b', 'FULFILLED');
    const mark = world.helix.calls.length;
    await world.start();
    await world.settled();

    const patches = world.helix.calls.slice(mark).filter((c) => c.method === 'PATCH' && c.path === PATCH_PATH);
    expect(patches.map((c) => [c.status, (c.body as { status: string }).status, c.query['id']]).sort())
      .toEqual([[200, 'CANCELED', ['c']], [404, 'FULFILLED', ['a', 'b']]]);
    expect(twitchStatuses(world, ['a', 'b', 'c'])).toEqual({ a: 'CANCELED', b: 'FULFILLED', c: 'CANCELED' });
    expect(await ledgerStates(world, ['a', 'b', 'c'])).toEqual({ a: 'status-sent', b: 'status-sent', c: 'status-sent' });
    const sent = world.logs.filter((l) => l.msg === 'sent a redemption status left over from before').map((l) => l['redemption']);
    expect(sent.sort()).toEqual(['a', 'b', 'c']);
    expect(world.logs.filter((l) => l.level >= 50)).toEqual([]);
  });
});
