// The channel-point redemption ledger and the managed rewards, for the host's redemption pipeline
// (docs/redemptions.md). Each redemption id moves received -> effect-done(outcome) -> status-sent,
// one transaction per step, so a restart knows what is left: an effect to run, or only a status
// to send. The service knows nothing of Twitch: ids are opaque text, and so are the texts a
// caller may keep with an outcome until the status is sent (LedgerReplies).
import type { ServiceContext } from '../service-context.ts';
import type { ManagedRewardRecord, RedemptionRecord } from '../store/records.ts';

export type LedgerState = 'received' | 'effect-done' | 'status-sent';
export type LedgerOutcome = 'fulfill' | 'refund';

export interface LedgerEntry {
  id: string;
  rewardId: string;
  state: LedgerState;
  /** Set from effect-done on; null while received (and for a redemption resolved elsewhere). */
  outcome: LedgerOutcome | null;
  /** How often its effect was started: 1 normally, more after a crash during the effect. */
  attempts: number;
  /** The texts kept with the outcome (recordRedemptionEffect) while the status is owed; null otherwise. */
  replies: LedgerReplies | null;
}

/**
 * Texts the caller keeps with a redemption's outcome, in the same write, to use once the status
 * is sent (after a restart too): `texts` by labels of the caller's choosing, `target` whom they are
 * for. Opaque to the service, stored as given; cleared when the redemption becomes status-sent,
 * so they are handed out (listed with a status owed) only until then.
 */
export interface LedgerReplies {
  target: string;
  texts: Record<string, string>;
}

export interface BeginRedemptionResult {
  entry: LedgerEntry;
  /** true when this call recorded the redemption for the first time. */
  isNew: boolean;
}

export interface ManagedReward {
  rewardKey: string;
  twitchRewardId: string;
  broadcasterId: string;
  state: 'active' | 'disabled';
}

const STATES: readonly LedgerState[] = ['received', 'effect-done', 'status-sent'];

function toEntry(record: RedemptionRecord): LedgerEntry {
  const state = STATES.includes(record.status as LedgerState) ? (record.status as LedgerState) : 'status-sent';
  return { id: record.id, rewardId: record.rewardId, state, outcome: record.outcome, attempts: record.attempts, replies: repliesOf(record) };
}

/** The stored texts, while the status is owed; null when none (or unreadable: they are only ever a courtesy). */
function repliesOf(record: RedemptionRecord): LedgerReplies | null {
  if (record.status !== 'effect-done' || record.replyTexts === null || record.replyTarget === null) return null;
  try {
    const texts: unknown = JSON.parse(record.replyTexts);
    if (typeof texts !== 'object' || texts === null || Array.isArray(texts)) return null;
    const kept = Object.entries(texts).filter((entry): entry is [string, string] => typeof entry[1] === 'string');
    return kept.length === 0 ? null : { target: record.replyTarget, texts: Object.fromEntries(kept) };
  } catch {
    return null;
  }
}

/** The texts as given, checked for shape only (no length limit: they are stored as given); null when there are none. */
function checkReplies(replies: unknown): LedgerReplies | null {
  if (replies === undefined || replies === null) return null;
  const { target, texts } = replies as Partial<LedgerReplies>;
  if (typeof target !== 'string' || target.length === 0) throw new TypeError(`reply target must be a non-empty string, got ${JSON.stringify(target)}`);
  if (typeof texts !== 'object' || texts === null || Array.isArray(texts)) throw new TypeError('reply texts must be an object of label -> text');
  for (const [label, text] of Object.entries(texts)) {
    if (label.length === 0 || label.length > 100 || typeof text !== 'string') {
      throw new TypeError(`reply texts must be labels of 1 to 100 characters, each with a string, got ${JSON.stringify(label)}`);
    }
  }
  return Object.keys(texts).length === 0 ? null : { target, texts: { ...texts } };
}

function checkId(value: unknown, what: string): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 200) {
    throw new TypeError(`${what} must be a non-empty string of at most 200 characters, got ${JSON.stringify(value)}`);
  }
  return value;
}

export function createRedemptionLedger(context: ServiceContext) {
  const { store } = context;

  /**
   * Records the redemption before its effect runs. A new one is `received` with attempts 1; one
   * still `received` (its effect was interrupted) gets attempts + 1; a later state is returned
   * as it is, so the caller knows the effect must not run again.
   */
  async function beginRedemption(accountId: number, redemption: { id: string; rewardId: string }): Promise<BeginRedemptionResult> {
    const id = checkId(redemption.id, 'redemption id');
    const rewardId = checkId(redemption.rewardId, 'reward id');
    return store.transaction(async (tx) => {
      const inserted = await tx.insertRedemption({ id, accountId, rewardId, status: 'received' });
      if (inserted) {
        await tx.updateRedemption(id, { attempts: 1 });
        return { entry: { id, rewardId, state: 'received', outcome: null, attempts: 1, replies: null }, isNew: true };
      }
      const existing = await tx.findRedemption(id);
      if (existing === null || existing.accountId !== accountId) {
        throw new Error(`redemption ${id} is recorded for another account`);
      }
      const entry = toEntry(existing);
      if (entry.state === 'received') {
        entry.attempts += 1;
        await tx.updateRedemption(id, { attempts: entry.attempts });
      }
      return { entry, isNew: false };
    });
  }

  /**
   * received -> effect-done with the effect's outcome, and the texts to keep with it until the
   * status is sent (LedgerReplies), in one write (no-op when already past received).
   */
  async function recordRedemptionEffect(accountId: number, id: string, outcome: LedgerOutcome, replies?: LedgerReplies | null): Promise<void> {
    if (outcome !== 'fulfill' && outcome !== 'refund') throw new TypeError(`outcome must be fulfill or refund, got ${String(outcome)}`);
    const kept = checkReplies(replies);
    await store.transaction(async (tx) => {
      const existing = await tx.findRedemption(id);
      if (existing === null || existing.accountId !== accountId) throw new Error(`redemption ${id} was never recorded`);
      if (existing.status !== 'received') return;
      await tx.updateRedemption(id, {
        status: 'effect-done', outcome,
        replyTexts: kept === null ? null : JSON.stringify(kept.texts), replyTarget: kept === null ? null : kept.target,
      });
    });
  }

  /**
   * -> status-sent for every id, in one transaction: Twitch has the redemption's final status
   * (ours, or one set elsewhere, in which case a redemption never past `received` keeps outcome null).
   * The texts kept with the outcome are cleared in the same write: never handed out again.
   */
  async function recordRedemptionStatusSent(accountId: number, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await store.transaction(async (tx) => {
      for (const id of ids) {
        const existing = await tx.findRedemption(id);
        if (existing === null || existing.accountId !== accountId || existing.status === 'status-sent') continue;
        await tx.updateRedemption(id, { status: 'status-sent', replyTexts: null, replyTarget: null });
      }
    });
  }

  async function findRedemptionEntry(accountId: number, id: string): Promise<LedgerEntry | null> {
    const record = await store.findRedemption(id);
    return record === null || record.accountId !== accountId ? null : toEntry(record);
  }

  /** Redemptions whose effect is done but whose status Twitch has not confirmed, oldest first. */
  async function listRedemptionsAwaitingStatus(accountId: number): Promise<LedgerEntry[]> {
    return (await store.listRedemptionsByStatus(accountId, 'effect-done')).map(toEntry);
  }

  /** Redemptions still `received` (an effect started and not recorded: under way, or interrupted), oldest first. */
  async function listRedemptionsAwaitingEffect(accountId: number): Promise<LedgerEntry[]> {
    return (await store.listRedemptionsByStatus(accountId, 'received')).map(toEntry);
  }

  /**
   * Deletes up to `limit` settled (`status-sent`) redemptions whose last change is before
   * `settledBefore`, of every account (a former channel's too), each one's oldest first, in one
   * transaction; answers how many. Rows still owed an effect or a status are never deleted, of
   * any account. The caller repeats it for more (docs/redemptions.md#retention).
   */
  async function pruneSettledRedemptions(settledBefore: Date, limit: number): Promise<number> {
    if (!(settledBefore instanceof Date) || !Number.isFinite(settledBefore.getTime())) {
      throw new TypeError(`settledBefore must be a valid Date, got ${String(settledBefore)}`);
    }
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > 10_000) throw new TypeError(`limit must be a whole number from 1 to 10000, got ${String(limit)}`);
    const cutoff = settledBefore.toISOString();
    return store.transaction((tx) => tx.deleteSettledRedemptions(cutoff, limit));
  }

  async function listManagedRewards(accountId: number): Promise<ManagedReward[]> {
    return (await store.listManagedRewards(accountId)).map(({ accountId: _account, ...reward }) => reward);
  }

  /** Remembers (or replaces) the reward behind a key; a reward id moves from any other key. */
  async function saveManagedReward(accountId: number, reward: ManagedReward): Promise<void> {
    const record: ManagedRewardRecord = {
      accountId,
      rewardKey: checkId(reward.rewardKey, 'reward key'),
      twitchRewardId: checkId(reward.twitchRewardId, 'reward id'),
      broadcasterId: checkId(reward.broadcasterId, 'broadcaster id'),
      state: reward.state === 'disabled' ? 'disabled' : 'active',
    };
    await store.transaction(async (tx) => {
      for (const other of await tx.listManagedRewards(accountId)) {
        if (other.twitchRewardId === record.twitchRewardId && other.rewardKey !== record.rewardKey) {
          await tx.deleteManagedReward(accountId, other.rewardKey);
        }
      }
      await tx.upsertManagedReward(record);
    });
  }

  async function forgetManagedReward(accountId: number, rewardKey: string): Promise<void> {
    await store.transaction((tx) => tx.deleteManagedReward(accountId, rewardKey));
  }

  return {
    beginRedemption, recordRedemptionEffect, recordRedemptionStatusSent, findRedemptionEntry, listRedemptionsAwaitingStatus, listRedemptionsAwaitingEffect,
    pruneSettledRedemptions, listManagedRewards, saveManagedReward, forgetManagedReward,
  };
}
