// The redemption ledger and the managed rewards in the bundled service, on a real SQLite file;
// what was committed is read back through a second connection.
import { afterEach, describe, expect, it } from 'vitest';
import { openHarness } from '../service/core/service-harness.ts';
import type { Harness } from '../service/core/service-harness.ts';

const harnesses: Harness[] = [];
afterEach(async () => {
  for (const harness of harnesses.splice(0)) await harness.close();
});

async function open(): Promise<{ harness: Harness; accountId: number; otherId: number }> {
  const harness = await openHarness();
  harnesses.push(harness);
  const account = await harness.service.ensureAccount('streamer');
  const other = await harness.service.ensureAccount('otherchannel');
  return { harness, accountId: account.id, otherId: other.id };
}

function rows(harness: Harness): unknown[] {
  return harness.dump()['processed_redemptions']!.map((row) => {
    const { id, status, outcome, attempts } = row as Record<string, unknown>;
    return { id, status, outcome, attempts };
  });
}

describe('the redemption ledger', () => {
  it('moves a redemption received -> effect-done -> status-sent, each step committed', async () => {
    const { harness, accountId } = await open();
    const { service } = harness;
    expect(await service.beginRedemption(accountId, { id: 'r1', rewardId: 'w1' }))
      .toEqual({ entry: { id: 'r1', rewardId: 'w1', state: 'received', outcome: null, attempts: 1, replies: null }, isNew: true });
    expect(rows(harness)).toEqual([{ id: 'r1', status: 'received', outcome: null, attempts: 1 }]);

    await service.recordRedemptionEffect(accountId, 'r1', 'refund');
    expect(rows(harness)).toEqual([{ id: 'r1', status: 'effect-done', outcome: 'refund', attempts: 1 }]);
    expect(await service.listRedemptionsAwaitingStatus(accountId)).toEqual([{ id: 'r1', rewardId: 'w1', state: 'effect-done', outcome: 'refund', attempts: 1, replies: null }]);

    await service.recordRedemptionStatusSent(accountId, ['r1']);
    expect(rows(harness)).toEqual([{ id: 'r1', status: 'status-sent', outcome: 'refund', attempts: 1 }]);
    expect(await service.listRedemptionsAwaitingStatus(accountId)).toEqual([]);
  });

  it('a second begin says the redemption is known, and counts another attempt only while still received', async () => {
    const { harness, accountId } = await open();
    const { service } = harness;
    await service.beginRedemption(accountId, { id: 'r1', rewardId: 'w1' });
    expect(await service.beginRedemption(accountId, { id: 'r1', rewardId: 'w1' }))
      .toEqual({ entry: { id: 'r1', rewardId: 'w1', state: 'received', outcome: null, attempts: 2, replies: null }, isNew: false });
    await service.recordRedemptionEffect(accountId, 'r1', 'fulfill');
    expect(await service.beginRedemption(accountId, { id: 'r1', rewardId: 'w1' }))
      .toEqual({ entry: { id: 'r1', rewardId: 'w1', state: 'effect-done', outcome: 'fulfill', attempts: 2, replies: null }, isNew: false });
    await service.recordRedemptionStatusSent(accountId, ['r1']);
    expect((await service.beginRedemption(accountId, { id: 'r1', rewardId: 'w1' })).entry).toMatchObject({ state: 'status-sent', attempts: 2 });
  });

  it('never moves a redemption backwards, and ignores unknown ids when marking statuses', async () => {
    const { harness, accountId } = await open();
    const { service } = harness;
    await service.beginRedemption(accountId, { id: 'r1', rewardId: 'w1' });
    await service.recordRedemptionEffect(accountId, 'r1', 'fulfill');
    await service.recordRedemptionEffect(accountId, 'r1', 'refund');
    await service.recordRedemptionStatusSent(accountId, ['r1', 'never-seen']);
    await service.recordRedemptionEffect(accountId, 'r1', 'refund');
    expect(rows(harness)).toEqual([{ id: 'r1', status: 'status-sent', outcome: 'fulfill', attempts: 1 }]);
    await expect(service.recordRedemptionEffect(accountId, 'never-seen', 'fulfill')).rejects.toThrow('redemption never-seen was never recorded');
  });

  it('keeps channels apart', async () => {
    const { harness, accountId, otherId } = await open();
    const { service } = harness;
    await service.beginRedemption(accountId, { id: 'r1', rewardId: 'w1' });
    await expect(service.beginRedemption(otherId, { id: 'r1', rewardId: 'w1' })).rejects.toThrow('recorded for another account');
    expect(await service.findRedemptionEntry(otherId, 'r1')).toBeNull();
    await service.recordRedemptionStatusSent(otherId, ['r1']);
    expect(rows(harness)).toEqual([{ id: 'r1', status: 'received', outcome: null, attempts: 1 }]);
  });

  // Texts the host keeps with the outcome (its chat lines for the viewer), opaque to the service:
  // written with the outcome, handed out while the status is owed, cleared once it is sent.
  it('keeps texts with the outcome, in the same write, until the status is sent', async () => {
    const { harness, accountId } = await open();
    const { service } = harness;
    const long = 'x'.repeat(2000);
    const replies = { target: '{"anything":"opaque"}', texts: { reply: `refunded ${long}`, other: 'Ünïcode ✓' } };
    await service.beginRedemption(accountId, { id: 'r1', rewardId: 'w1' });
    await service.beginRedemption(accountId, { id: 'r2', rewardId: 'w1' });
    await service.recordRedemptionEffect(accountId, 'r1', 'refund', replies);
    await service.recordRedemptionEffect(accountId, 'r2', 'fulfill');
    // Stored as given (no length limit: a line longer than the chat's is split when said).
    expect(await service.listRedemptionsAwaitingStatus(accountId)).toEqual([
      { id: 'r1', rewardId: 'w1', state: 'effect-done', outcome: 'refund', attempts: 1, replies },
      { id: 'r2', rewardId: 'w1', state: 'effect-done', outcome: 'fulfill', attempts: 1, replies: null },
    ]);
    expect((await service.beginRedemption(accountId, { id: 'r1', rewardId: 'w1' })).entry.replies).toEqual(replies);
    // A second record (the effect already done) changes nothing.
    await service.recordRedemptionEffect(accountId, 'r1', 'fulfill', { target: 't', texts: { reply: 'other' } });
    expect((await service.findRedemptionEntry(accountId, 'r1'))).toMatchObject({ outcome: 'refund', replies });

    await service.recordRedemptionStatusSent(accountId, ['r1']);
    expect(await service.findRedemptionEntry(accountId, 'r1')).toMatchObject({ state: 'status-sent', replies: null });
    const stored = harness.dump()['processed_redemptions']!.find((row) => (row as { id: string }).id === 'r1') as Record<string, unknown>;
    expect([stored['reply_texts'], stored['reply_target']]).toEqual([null, null]);
  });

  it('refuses texts of another shape, recording nothing', async () => {
    const { harness, accountId } = await open();
    const { service } = harness;
    await service.beginRedemption(accountId, { id: 'r1', rewardId: 'w1' });
    await expect(service.recordRedemptionEffect(accountId, 'r1', 'fulfill', { target: '', texts: { reply: 'hi' } })).rejects.toThrow('reply target must be a non-empty string');
    await expect(service.recordRedemptionEffect(accountId, 'r1', 'fulfill', { target: 't', texts: { reply: 3 as unknown as string } })).rejects.toThrow('reply texts must be labels');
    await expect(service.recordRedemptionEffect(accountId, 'r1', 'fulfill', { target: 't', texts: ['hi'] as unknown as Record<string, string> })).rejects.toThrow('reply texts must be an object');
    expect(rows(harness)).toEqual([{ id: 'r1', status: 'received', outcome: null, attempts: 1 }]);
    // No texts at all: none kept.
    await service.recordRedemptionEffect(accountId, 'r1', 'fulfill', { target: 't', texts: {} });
    expect((await service.findRedemptionEntry(accountId, 'r1'))?.replies).toBeNull();
  });

  it('refuses malformed ids and outcomes with a clear error', async () => {
    const { harness, accountId } = await open();
    await expect(harness.service.beginRedemption(accountId, { id: '', rewardId: 'w1' })).rejects.toThrow('redemption id must be a non-empty string');
    await expect(harness.service.recordRedemptionEffect(accountId, 'r1', 'maybe' as 'fulfill')).rejects.toThrow('outcome must be fulfill or refund');
  });
});

describe('managed rewards in the store', () => {
  it('remembers, replaces, moves and forgets the reward behind a key', async () => {
    const { harness, accountId, otherId } = await open();
    const { service } = harness;
    await service.saveManagedReward(accountId, { rewardKey: 'neon', twitchRewardId: 'tw-1', broadcasterId: '42', state: 'active' });
    await service.saveManagedReward(accountId, { rewardKey: 'neon', twitchRewardId: 'tw-1', broadcasterId: '42', state: 'disabled' });
    expect(await service.listManagedRewards(accountId)).toEqual([{ rewardKey: 'neon', twitchRewardId: 'tw-1', broadcasterId: '42', state: 'disabled' }]);
    // The same Twitch reward under a new key (a renamed key taking it over).
    await service.saveManagedReward(accountId, { rewardKey: 'neon-2', twitchRewardId: 'tw-1', broadcasterId: '42', state: 'active' });
    expect(await service.listManagedRewards(accountId)).toEqual([{ rewardKey: 'neon-2', twitchRewardId: 'tw-1', broadcasterId: '42', state: 'active' }]);
    expect(await service.listManagedRewards(otherId)).toEqual([]);
    await service.forgetManagedReward(accountId, 'neon-2');
    expect(harness.dump()['managed_rewards']).toEqual([]);
  });
});
