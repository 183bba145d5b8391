// The pipeline's view of the redemption ledger and of the managed rewards it remembers, bound to
// the channel's account. The bundled service implements both, and defines their records
// (src/service/operations/redemption-ledger.ts); `bindLedger` fixes the account id.
import type { BeginRedemptionResult, LedgerEntry, LedgerOutcome, LedgerReplies, ManagedReward } from '../../service/operations/redemption-ledger.ts';

export type { LedgerEntry, LedgerOutcome, LedgerReplies, LedgerState, ManagedReward } from '../../service/operations/redemption-ledger.ts';

export interface RedemptionLedger {
  /** Records the redemption (received) before its effect; says whether it was already there. */
  beginRedemption(redemption: { id: string; rewardId: string }): Promise<BeginRedemptionResult>;
  /** Records the effect's outcome, with the texts to keep until the status is sent (the handler's chat lines), in one write. */
  recordRedemptionEffect(id: string, outcome: LedgerOutcome, replies?: LedgerReplies | null): Promise<void>;
  /** Records the statuses as sent, clearing the texts kept with them. */
  recordRedemptionStatusSent(ids: readonly string[]): Promise<void>;
  listRedemptionsAwaitingStatus(): Promise<LedgerEntry[]>;
  /** Redemptions still `received`: their effect was started and never recorded (or is under way). */
  listRedemptionsAwaitingEffect(): Promise<LedgerEntry[]>;
}

/** Keeps the ledger from growing forever (ledger-retention.ts). */
export interface RedemptionLedgerRetention {
  /**
   * Deletes up to `limit` settled (`status-sent`) redemptions whose last change is before
   * `settledBefore`, oldest first, in one transaction; answers how many. Never a row still owed.
   * Not bound to the channel: a former channel's settled rows go too (the store holds one
   * ledger, and a channel no longer served has no host of its own to prune it).
   */
  pruneSettledRedemptions(settledBefore: Date, limit: number): Promise<number>;
}

export interface ManagedRewardStore {
  listManagedRewards(): Promise<ManagedReward[]>;
  saveManagedReward(reward: ManagedReward): Promise<void>;
  forgetManagedReward(rewardKey: string): Promise<void>;
}

/** The service's account-scoped ledger operations. */
export interface AccountLedgerOperations {
  beginRedemption(accountId: number, redemption: { id: string; rewardId: string }): Promise<BeginRedemptionResult>;
  recordRedemptionEffect(accountId: number, id: string, outcome: LedgerOutcome, replies?: LedgerReplies | null): Promise<void>;
  recordRedemptionStatusSent(accountId: number, ids: readonly string[]): Promise<void>;
  listRedemptionsAwaitingStatus(accountId: number): Promise<LedgerEntry[]>;
  listRedemptionsAwaitingEffect(accountId: number): Promise<LedgerEntry[]>;
  /** Of every account: see RedemptionLedgerRetention. */
  pruneSettledRedemptions(settledBefore: Date, limit: number): Promise<number>;
  listManagedRewards(accountId: number): Promise<ManagedReward[]>;
  saveManagedReward(accountId: number, reward: ManagedReward): Promise<void>;
  forgetManagedReward(accountId: number, rewardKey: string): Promise<void>;
}

export function bindLedger(
  operations: AccountLedgerOperations, accountId: number,
): RedemptionLedger & RedemptionLedgerRetention & ManagedRewardStore {
  return {
    beginRedemption: (redemption) => operations.beginRedemption(accountId, redemption),
    recordRedemptionEffect: (id, outcome, replies) => operations.recordRedemptionEffect(accountId, id, outcome, replies),
    recordRedemptionStatusSent: (ids) => operations.recordRedemptionStatusSent(accountId, ids),
    listRedemptionsAwaitingStatus: () => operations.listRedemptionsAwaitingStatus(accountId),
    listRedemptionsAwaitingEffect: () => operations.listRedemptionsAwaitingEffect(accountId),
    pruneSettledRedemptions: (settledBefore, limit) => operations.pruneSettledRedemptions(settledBefore, limit),
    listManagedRewards: () => operations.listManagedRewards(accountId),
    saveManagedReward: (reward) => operations.saveManagedReward(accountId, reward),
    forgetManagedReward: (rewardKey) => operations.forgetManagedReward(accountId, rewardKey),
  };
}
