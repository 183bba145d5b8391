// The redemption pipeline (docs/redemptions.md): its ports, the pipeline and the reward sync.
export { bindLedger } from './redemption-ledger.ts';
export type {
  AccountLedgerOperations, LedgerEntry, LedgerOutcome, LedgerState, ManagedReward, ManagedRewardStore, RedemptionLedger,
  RedemptionLedgerRetention,
} from './redemption-ledger.ts';
export {
  createLedgerRetention, DEFAULT_PRUNE_BATCH_SIZE, DEFAULT_PRUNE_INTERVAL_MS, MIN_LEDGER_RETENTION_DAYS,
} from './ledger-retention.ts';
export type { LedgerRetention, LedgerRetentionOptions, PruneReport } from './ledger-retention.ts';
export { ChannelPointsError } from './channel-points.ts';
export type { ChannelPointsApi, RedemptionStatus, RedemptionStatusUpdate, RewardFields, RewardUpdate, TwitchRedemption, TwitchReward } from './channel-points.ts';
export { createRedemptionPipeline } from './redemption-pipeline.ts';
export type {
  PipelineCounters, PipelineRedemptionEvent, ProcessResult, ReconcileReport, RedemptionPipeline, RedemptionPipelineOptions, RewardDrift,
} from './redemption-pipeline.ts';
export { rewardChanges, syncManagedRewards } from './reward-sync.ts';
export type { RewardSyncAction, RewardSyncEntry, RewardSyncOptions } from './reward-sync.ts';
export { createStatusBatcher, MAX_IDS_PER_STATUS_CALL } from './status-batcher.ts';
export type { StatusBatcher, StatusSendResult } from './status-batcher.ts';
