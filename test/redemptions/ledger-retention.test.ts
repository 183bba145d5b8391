// Ledger retention (docs/redemptions.md#retention) over the bundled service on a real SQLite file,
// with a ManualClock: settled redemptions older than the retention are deleted in bounded batches
// at start and then hourly; young ones, and owed ones of any age, are kept, so a duplicate of a
// recent redemption still has no second effect, and an owed status or an interrupted effect is
// still finished once.
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import type { RedemptionResult } from '../../src/host/host.ts';
import type { ChannelPointsApi, RedemptionStatusUpdate, TwitchRedemption } from '../../src/host/redemptions/channel-points.ts';
import { ChannelPointsError } from '../../src/host/redemptions/channel-points.ts';
import { createLedgerRetention, DAY_MS } from '../../src/host/redemptions/ledger-retention.ts';
import type { LedgerRetention, LedgerRetentionOptions } from '../../src/host/redemptions/ledger-retention.ts';
import { bindLedger } from '../../src/host/redemptions/redemption-ledger.ts';
import type { RedemptionLedgerRetention } from '../../src/host/redemptions/redemption-ledger.ts';
import { createRedemptionPipeline } from '../../src/host/redemptions/redemption-pipeline.ts';
import type { PipelineRedemptionEvent, RedemptionPipeline } from '../../src/host/redemptions/redemption-pipeline.ts';
import { captureLogs, LEVEL } from '../host/log-capture.ts';
import { ManualClock } from '../host/manual-clock.ts';
import { openHarness } from '../service/core/service-harness.ts';
import type { Harness } from '../service/core/service-harness.ts';
import { openRedemptionWorld } from './redemption-world.ts';

const HOUR = 3_600_000;
const REWARD = 'reward-neon';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Twitch's side, as far as the pipeline sees it: redemption statuses, changed only while UNFULFILLED. */
class FakeChannelPoints implements Pick<ChannelPointsApi, 'listUnfulfilledRedemptions' | 'setRedemptionStatus'> {
  readonly redemptions = new Map<string, { redemption: TwitchRedemption; status: 'UNFULFILLED' | RedemptionStatusUpdate }>();
  readonly changes: string[] = [];
  failStatus = false;

  redeem(id: string): TwitchRedemption {
    const redemption: TwitchRedemption = {
      id, rewardId: REWARD, broadcasterId: '42', user: { id: '7', login: 'fan', displayName: 'Fan' }, input: '', redeemedAt: new Date(), status: 'UNFULFILLED',
    };
    this.redemptions.set(id, { redemption, status: 'UNFULFILLED' });
    return redemption;
  }

  async listUnfulfilledRedemptions(rewardId: string): Promise<TwitchRedemption[]> {
    return [...this.redemptions.values()].filter((r) => r.redemption.rewardId === rewardId && r.status === 'UNFULFILLED').map((r) => r.redemption);
  }

  async setRedemptionStatus(_rewardId: string, ids: readonly string[], status: RedemptionStatusUpdate): Promise<string[]> {
    if (this.failStatus) throw new ChannelPointsError(503, 'Twitch is down');
    const changed: string[] = [];
    for (const id of ids) {
      const entry = this.redemptions.get(id);
      if (entry?.status !== 'UNFULFILLED') continue;
      entry.status = status;
      changed.push(id);
      this.changes.push(`${id}:${status}`);
    }
    return changed;
  }
}

interface Channel {
  harness: Harness;
  accountId: number;
  clock: ManualClock;
  ledger: ReturnType<typeof bindLedger>;
  twitch: FakeChannelPoints;
  pipeline: RedemptionPipeline;
  /** Every handler run: `id#attempt`. */
  effects: string[];
  logs: ReturnType<typeof captureLogs>;
  retention(options?: Partial<LedgerRetentionOptions>): LedgerRetention;
  /** Sets when the redemption's row last changed, `days` before the clock's now. */
  ageRow(id: string, days: number): void;
  /** Ledger rows: id -> status. */
  rows(): Record<string, string>;
}

async function openChannel(): Promise<Channel> {
  const harness = await openHarness();
  const account = await harness.service.ensureAccount('streamer');
  // Rows get SQLite's time; the clock starts at the same moment and only moves when told.
  const clock = new ManualClock(Date.now());
  const ledger = bindLedger(harness.service, account.id);
  const twitch = new FakeChannelPoints();
  const effects: string[] = [];
  const logs = captureLogs();
  const pipeline = createRedemptionPipeline({
    ledger,
    channelPoints: twitch,
    handle: async (event: PipelineRedemptionEvent): Promise<RedemptionResult> => {
      effects.push(`${event.id}#${event.attempt}`);
      return { outcome: 'fulfill', plugin: 'test' };
    },
    channel: 'streamer',
    rewardKeyOf: (rewardId) => (rewardId === REWARD ? 'unlock-neon' : undefined),
    logger: logs.logger,
  });
  const retentions: LedgerRetention[] = [];
  cleanups.push(async () => {
    for (const retention of retentions) await retention.stop();
    await pipeline.stop();
    await harness.close();
  });
  return {
    harness, accountId: account.id, clock, ledger, twitch, pipeline, effects, logs,
    retention(options = {}) {
      const retention = createLedgerRetention({ ledger, retentionDays: 30, clock, logger: logs.logger, ...options });
      retentions.push(retention);
      return retention;
    },
    ageRow(id, days) {
      const db = new DatabaseSync(harness.dbPath, { timeout: 5000 });
      try {
        const at = new Date(clock.now() - days * DAY_MS).toISOString();
        const { changes } = db.prepare('UPDATE processed_redemptions SET updated_at = ? WHERE id = ?').run(at, id);
        if (Number(changes) !== 1) throw new Error(`no ledger row ${id}`);
      } finally {
        db.close();
      }
    },
    rows() {
      const rows = harness.dump()['processed_redemptions'] as Array<{ id: string; status: string }>;
      return Object.fromEntries(rows.map((row) => [row.id, row.status]).sort(([a], [b]) => a!.localeCompare(b!)));
    },
  };
}

/** Redeems on Twitch and runs it through the pipeline to the end (effect and status). */
async function redeemed(channel: Channel, id: string): Promise<void> {
  expect(await channel.pipeline.process(channel.twitch.redeem(id))).toMatchObject({ kind: 'done', outcome: 'fulfill' });
}

/** Inserts settled rows straight through the service's ledger steps. */
async function settledRows(channel: Channel, ids: readonly string[]): Promise<void> {
  for (const id of ids) {
    await channel.ledger.beginRedemption({ id, rewardId: REWARD });
    await channel.ledger.recordRedemptionEffect(id, 'fulfill');
  }
  await channel.ledger.recordRedemptionStatusSent(ids);
}

describe('ledger retention', () => {
  it('deletes settled rows older than the retention and keeps young ones and owed ones of any age', async () => {
    const channel = await openChannel();
    await settledRows(channel, ['old', 'ancient', 'young', 'edge-old', 'edge-young', 'settled-late']);
    await channel.ledger.beginRedemption({ id: 'owed-effect', rewardId: REWARD });
    await channel.ledger.beginRedemption({ id: 'owed-status', rewardId: REWARD });
    await channel.ledger.recordRedemptionEffect('owed-status', 'refund');
    channel.ageRow('old', 31);
    channel.ageRow('ancient', 900);
    channel.ageRow('young', 29);
    channel.ageRow('edge-old', 30 + 1 / 1440);
    channel.ageRow('edge-young', 30 - 1 / 1440);
    channel.ageRow('owed-effect', 900);
    channel.ageRow('owed-status', 900);
    // Redeemed 400 days ago, but its status was accepted only yesterday: age counts from then.
    const db = new DatabaseSync(channel.harness.dbPath);
    db.prepare('UPDATE processed_redemptions SET created_at = ? WHERE id = ?').run(new Date(channel.clock.now() - 400 * DAY_MS).toISOString(), 'settled-late');
    db.close();
    channel.ageRow('settled-late', 1);

    const report = await channel.retention().start();
    expect(report).toMatchObject({ deleted: 3, batches: 1, settledBefore: new Date(channel.clock.now() - 30 * DAY_MS).toISOString() });
    expect(channel.rows()).toEqual({
      'edge-young': 'status-sent', 'owed-effect': 'received', 'owed-status': 'effect-done', 'settled-late': 'status-sent', young: 'status-sent',
    });
    expect(channel.logs.entries).toContainEqual(expect.objectContaining({
      level: LEVEL.info, component: 'redemption-ledger', deleted: 3, msg: 'deleted 3 settled redemption(s) older than 30 day(s) from the ledger',
    }));
  });

  it('prunes a former channel\'s settled rows too (the streamer changed channel.login), never its owed ones', async () => {
    const channel = await openChannel();
    // What the host left under the channel it served before: its ledger, in the same store.
    const former = bindLedger(channel.harness.service, (await channel.harness.service.ensureAccount('oldchannel')).id);
    for (const id of ['former-old', 'former-young']) {
      await former.beginRedemption({ id, rewardId: REWARD });
      await former.recordRedemptionEffect(id, 'fulfill');
    }
    await former.recordRedemptionStatusSent(['former-old', 'former-young']);
    await former.beginRedemption({ id: 'former-owed-effect', rewardId: REWARD });
    await former.beginRedemption({ id: 'former-owed-status', rewardId: REWARD });
    await former.recordRedemptionEffect('former-owed-status', 'fulfill');
    await settledRows(channel, ['now-old']);
    for (const id of ['former-old', 'former-owed-effect', 'former-owed-status', 'now-old']) channel.ageRow(id, 400);
    channel.ageRow('former-young', 29);

    // The host of the channel served now (its ledger bound to that account) prunes the store.
    expect(await channel.retention().start()).toMatchObject({ deleted: 2 });
    expect(channel.rows()).toEqual({ 'former-owed-effect': 'received', 'former-owed-status': 'effect-done', 'former-young': 'status-sent' });
    // The owed ones are still the former channel's to finish, should it be served again.
    expect((await former.listRedemptionsAwaitingEffect()).map((entry) => entry.id)).toEqual(['former-owed-effect']);
    expect((await former.listRedemptionsAwaitingStatus()).map((entry) => entry.id)).toEqual(['former-owed-status']);
  });

  it('deletes in bounded batches, one transaction each, repeated until a batch comes back short', async () => {
    const channel = await openChannel();
    const old = Array.from({ length: 10 }, (_, i) => `old-${String(i).padStart(2, '0')}`);
    await settledRows(channel, [...old, 'young']);
    for (const [i, id] of old.entries()) channel.ageRow(id, 40 + i);
    await channel.ledger.beginRedemption({ id: 'owed', rewardId: REWARD });
    channel.ageRow('owed', 500);

    const calls: Array<{ limit: number; deleted: number; left: number }> = [];
    const counting: RedemptionLedgerRetention = {
      async pruneSettledRedemptions(settledBefore, limit) {
        const deleted = await channel.ledger.pruneSettledRedemptions(settledBefore, limit);
        calls.push({ limit, deleted, left: old.filter((id) => id in channel.rows()).length });
        return deleted;
      },
    };
    const commitsBefore = channel.harness.store.commits;
    const report = await channel.retention({ ledger: counting, batchSize: 3 }).start();
    expect(calls).toEqual([
      { limit: 3, deleted: 3, left: 7 },
      { limit: 3, deleted: 3, left: 4 },
      { limit: 3, deleted: 3, left: 1 },
      { limit: 3, deleted: 1, left: 0 },
    ]);
    expect(report).toMatchObject({ deleted: 10, batches: 4 });
    expect(channel.harness.store.commits - commitsBefore).toBe(4);
    expect(channel.rows()).toEqual({ owed: 'received', young: 'status-sent' });
  });

  it('oldest go first: a batch never takes a younger row while an older one is left', async () => {
    const channel = await openChannel();
    await settledRows(channel, ['d31', 'd90', 'd45', 'd365']);
    channel.ageRow('d31', 31);
    channel.ageRow('d90', 90);
    channel.ageRow('d45', 45);
    channel.ageRow('d365', 365);
    const seen: string[][] = [];
    const stepping: RedemptionLedgerRetention = {
      async pruneSettledRedemptions(settledBefore, limit) {
        const deleted = await channel.ledger.pruneSettledRedemptions(settledBefore, limit);
        seen.push(Object.keys(channel.rows()));
        return deleted;
      },
    };
    await channel.retention({ ledger: stepping, batchSize: 1 }).start();
    expect(seen).toEqual([['d31', 'd45', 'd90'], ['d31', 'd45'], ['d31'], [], []]);
  });

  it('prunes at start, then every hour on the clock, until stopped', async () => {
    const channel = await openChannel();
    await settledRows(channel, ['a', 'b', 'c']);
    channel.ageRow('a', 31);
    channel.ageRow('b', 30 - 0.5 / 24); // old enough half an hour from now
    channel.ageRow('c', 30 - 1.5 / 24); // an hour and a half from now
    const retention = channel.retention();

    expect(await retention.start()).toMatchObject({ deleted: 1 });
    expect(Object.keys(channel.rows())).toEqual(['b', 'c']);
    expect(channel.clock.pendingTimers).toBe(1);

    await channel.clock.advance(HOUR - 1);
    expect(Object.keys(channel.rows())).toEqual(['b', 'c']);
    await channel.clock.advance(1);
    await expect.poll(() => Object.keys(channel.rows())).toEqual(['c']);
    await expect.poll(() => channel.clock.pendingTimers).toBe(1);
    expect(retention.lastPrune).toMatchObject({ at: new Date(channel.clock.now()).toISOString(), report: { deleted: 1 } });

    await retention.stop();
    expect(channel.clock.pendingTimers).toBe(0);
    await channel.clock.advance(5 * HOUR);
    expect(Object.keys(channel.rows())).toEqual(['c']);
    expect(await retention.pruneNow()).toBeNull();
  });

  it('a failed prune is logged and tried again at the next hour', async () => {
    const channel = await openChannel();
    await settledRows(channel, ['old']);
    channel.ageRow('old', 31);
    let failures = 1;
    const flaky: RedemptionLedgerRetention = {
      async pruneSettledRedemptions(settledBefore, limit) {
        if (failures-- > 0) throw new Error('database is locked');
        return channel.ledger.pruneSettledRedemptions(settledBefore, limit);
      },
    };
    const retention = channel.retention({ ledger: flaky });
    expect(await retention.start()).toBeNull();
    expect(channel.logs.entries).toContainEqual(expect.objectContaining({
      level: LEVEL.error, msg: 'pruning settled redemptions from the ledger failed (tried again later): database is locked',
    }));
    expect(Object.keys(channel.rows())).toEqual(['old']);
    await channel.clock.advance(HOUR);
    await expect.poll(() => Object.keys(channel.rows())).toEqual([]);
  });

  it('refuses a retention under one day', async () => {
    const channel = await openChannel();
    expect(() => channel.retention({ retentionDays: 0 })).toThrow('the ledger retention must be at least 1 day, got 0');
    expect(() => channel.retention({ retentionDays: 0.5 })).toThrow(RangeError);
    expect(() => channel.retention({ batchSize: 0 })).toThrow('the prune batch size must be a whole number from 1 to 10000');
  });

  it('the service refuses a bad cutoff or batch size', async () => {
    const channel = await openChannel();
    await expect(channel.ledger.pruneSettledRedemptions(new Date(Number.NaN), 10)).rejects.toThrow('settledBefore must be a valid Date');
    await expect(channel.ledger.pruneSettledRedemptions(new Date(), 0)).rejects.toThrow('limit must be a whole number from 1 to 10000');
  });
});

describe('exactly once, with retention', () => {
  it('a duplicate of a recent redemption still has no second effect after a prune', async () => {
    const channel = await openChannel();
    await redeemed(channel, 'long-ago');
    await redeemed(channel, 'recent');
    channel.ageRow('long-ago', 31);
    channel.ageRow('recent', 0.01);
    expect(channel.effects).toEqual(['long-ago#1', 'recent#1']);

    const retention = channel.retention();
    expect(await retention.start()).toMatchObject({ deleted: 1 });
    expect(channel.rows()).toEqual({ recent: 'status-sent' });

    // EventSub delivers the recent one again (a new message id), and the catch-up lists nothing.
    expect(await channel.pipeline.process(channel.twitch.redemptions.get('recent')!.redemption)).toEqual({ kind: 'duplicate' });
    expect(await channel.pipeline.reconcile([REWARD])).toEqual({ statusesSent: 0, listed: 0, handled: 0, failures: [] });
    // Another hourly prune later (the row is still young), and another delivery.
    await channel.clock.advance(HOUR);
    await expect.poll(() => retention.lastPrune?.at).toBe(new Date(channel.clock.now()).toISOString());
    expect(await channel.pipeline.process(channel.twitch.redemptions.get('recent')!.redemption)).toEqual({ kind: 'duplicate' });

    expect(channel.effects).toEqual(['long-ago#1', 'recent#1']);
    expect(channel.twitch.changes).toEqual(['long-ago:FULFILLED', 'recent:FULFILLED']);
  });

  it('an old owed status and an old interrupted effect survive a prune and are finished once', async () => {
    const channel = await openChannel();
    // Twitch refuses the status for a long time: the effect is done, the status still owed.
    channel.twitch.failStatus = true;
    expect(await channel.pipeline.process(channel.twitch.redeem('owed-status'))).toMatchObject({ kind: 'status-pending' });
    // The host stopped during this one's effect (it stays `received`).
    channel.twitch.redeem('interrupted');
    await channel.ledger.beginRedemption({ id: 'interrupted', rewardId: REWARD });
    channel.ageRow('owed-status', 400);
    channel.ageRow('interrupted', 400);

    expect(await channel.retention().start()).toMatchObject({ deleted: 0 });
    expect(channel.rows()).toEqual({ interrupted: 'received', 'owed-status': 'effect-done' });

    channel.twitch.failStatus = false;
    const report = await channel.pipeline.reconcile([REWARD]);
    expect(report).toMatchObject({ statusesSent: 1, failures: [] });
    // owed-status: status only, no second effect; interrupted: run again, as a second attempt.
    expect(channel.effects).toEqual(['owed-status#1', 'interrupted#2']);
    expect(channel.twitch.changes.sort()).toEqual(['interrupted:FULFILLED', 'owed-status:FULFILLED']);
    expect(channel.rows()).toEqual({ interrupted: 'status-sent', 'owed-status': 'status-sent' });
  });
});

describe('retention in the running host (twitch.redemptions.ledgerRetentionDays)', () => {
  it('prunes at start with the configured retention; a duplicate of a kept redemption still has no effect', async () => {
    const world = await openRedemptionWorld({ ledgerRetentionDays: 2 });
    cleanups.push(() => world.close());
    await world.start();
    await world.settled();
    const rewardId = await world.rewardId('unlock-neon');
    const early = world.helix.fireRedemption({ rewardId, user: { login: 'early', displayName: 'Early' } }).redemption;
    const later = world.helix.fireRedemption({ rewardId, user: { login: 'later', displayName: 'Later' } }).redemption;
    for (const id of [early.id, later.id]) {
      await expect.poll(async () => (await world.service.findRedemptionEntry(world.accountId, id))?.state).toBe('status-sent');
    }
    await world.stop();

    // Settled three days ago and one day ago (the host runs on the system clock).
    const db = new DatabaseSync(path.join(world.dir, 'chatskin.db'), { timeout: 5000 });
    const age = db.prepare('UPDATE processed_redemptions SET updated_at = ? WHERE id = ?');
    age.run(new Date(Date.now() - 3 * DAY_MS).toISOString(), early.id);
    age.run(new Date(Date.now() - 1 * DAY_MS).toISOString(), later.id);
    db.close();

    await world.start();
    await world.settled();
    await expect.poll(() => world.service.findRedemptionEntry(world.accountId, early.id)).toBeNull();
    expect(await world.service.findRedemptionEntry(world.accountId, later.id)).toMatchObject({ state: 'status-sent', attempts: 1 });
    expect(world.logs).toContainEqual(expect.objectContaining({
      component: 'redemption-ledger', deleted: 1, msg: 'deleted 1 settled redemption(s) older than 2 day(s) from the ledger',
    }));

    // Twitch sends the kept one again under a new message id: a duplicate, no second unlock.
    world.helix.eventSub.sendRedemptionAdd({
      id: later.id, broadcaster_user_id: later.broadcaster_id, broadcaster_user_login: later.broadcaster_login,
      broadcaster_user_name: later.broadcaster_name, user_id: later.user_id, user_login: later.user_login,
      user_name: later.user_name, user_input: '', status: 'unfulfilled', reward: { ...later.reward }, redeemed_at: later.redeemed_at,
    });
    await expect.poll(() => world.redemptions!.status().counters?.duplicates, { timeout: 5000, interval: 5 }).toBe(1);
    expect(world.unlocks.map((unlock) => unlock.viewerId)).toEqual([early.user_id, later.user_id]);
    expect(world.helix.redemptionChanges.map((change) => `${change.redemptionId}:${change.to}`))
      .toEqual([`${early.id}:FULFILLED`, `${later.id}:FULFILLED`]);
  });
});
