// Keeps the redemption ledger from growing forever: settled redemptions (`status-sent`: Twitch
// accepted their FULFILLED / CANCELED, nothing is owed) whose last change is older than the
// retention period are deleted, in bounded batches (one transaction each), at start and then
// every hour. Rows still owed an effect or a status are never deleted, whatever their age. It
// covers the whole store: a channel served before (a former channel.login) is pruned as well.
// Why this keeps each redemption's effect to once: docs/redemptions.md#retention.
import type { Logger } from 'pino';
import type { Clock, ScheduledTimer } from '../clock.ts';
import { errorText } from '../error-text.ts';
import type { RedemptionLedgerRetention } from './redemption-ledger.ts';

export const DAY_MS = 86_400_000;
/** The shortest retention: far longer than any EventSub re-delivery (minutes) or Helix listing lag. */
export const MIN_LEDGER_RETENTION_DAYS = 1;
export const DEFAULT_PRUNE_INTERVAL_MS = 3_600_000;
/** Rows deleted per transaction, so a large backlog never holds the store for long. */
export const DEFAULT_PRUNE_BATCH_SIZE = 500;

export interface LedgerRetentionOptions {
  ledger: RedemptionLedgerRetention;
  /** `twitch.redemptions.ledgerRetentionDays`: at least 1. */
  retentionDays: number;
  clock: Clock;
  logger: Logger;
  /** Between the end of one prune and the next. Default one hour. */
  intervalMs?: number;
  /** Rows deleted per transaction (1 to 10 000). Default 500. */
  batchSize?: number;
}

export interface PruneReport {
  /** Rows deleted by this run. */
  deleted: number;
  /** Transactions it took (the last one deleted fewer than a batch, or the run was stopped). */
  batches: number;
  /** Settled rows last changed before this moment were deleted (ISO 8601). */
  settledBefore: string;
}

export interface LedgerRetention {
  /** Prunes now and then every `intervalMs`; resolves with the first run's report. */
  start(): Promise<PruneReport | null>;
  /** One run: batches until one deletes fewer than a batch. null when it failed (logged) or was stopped before it began. */
  pruneNow(): Promise<PruneReport | null>;
  readonly lastPrune: { at: string; report: PruneReport } | null;
  /** Cancels the timer and waits for a run under way (it ends after its current batch). Idempotent. */
  stop(): Promise<void>;
}

function yieldTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

export function createLedgerRetention(options: LedgerRetentionOptions): LedgerRetention {
  const { ledger, clock } = options;
  const logger = options.logger.child({ component: 'redemption-ledger' });
  const { retentionDays } = options;
  if (typeof retentionDays !== 'number' || !Number.isFinite(retentionDays) || retentionDays < MIN_LEDGER_RETENTION_DAYS) {
    throw new RangeError(`the ledger retention must be at least ${MIN_LEDGER_RETENTION_DAYS} day, got ${String(retentionDays)}`);
  }
  const batchSize = options.batchSize ?? DEFAULT_PRUNE_BATCH_SIZE;
  if (!Number.isSafeInteger(batchSize) || batchSize < 1 || batchSize > 10_000) {
    throw new RangeError(`the prune batch size must be a whole number from 1 to 10000, got ${String(batchSize)}`);
  }
  const intervalMs = options.intervalMs ?? DEFAULT_PRUNE_INTERVAL_MS;
  if (!Number.isFinite(intervalMs) || intervalMs <= 0) throw new RangeError(`the prune interval must be positive, got ${String(intervalMs)}`);

  let stopped = false;
  let started = false;
  let timer: ScheduledTimer | null = null;
  let running: Promise<PruneReport | null> | null = null;
  let lastPrune: LedgerRetention['lastPrune'] = null;

  async function run(): Promise<PruneReport | null> {
    const settledBefore = new Date(clock.now() - retentionDays * DAY_MS);
    const report: PruneReport = { deleted: 0, batches: 0, settledBefore: settledBefore.toISOString() };
    try {
      while (!stopped) {
        const deleted = await ledger.pruneSettledRedemptions(settledBefore, batchSize);
        report.batches++;
        report.deleted += deleted;
        if (deleted < batchSize) break;
        // Let live redemptions' ledger writes in between two batches.
        await yieldTurn();
      }
    } catch (error) {
      logger.error({ err: error, deleted: report.deleted }, `pruning settled redemptions from the ledger failed (tried again later): ${errorText(error)}`);
      return null;
    }
    lastPrune = { at: new Date(clock.now()).toISOString(), report };
    if (report.deleted > 0) {
      logger.info(report, `deleted ${report.deleted} settled redemption(s) older than ${retentionDays} day(s) from the ledger`);
    } else {
      logger.debug(report, 'no settled redemptions old enough to delete from the ledger');
    }
    return report;
  }

  function pruneNow(): Promise<PruneReport | null> {
    if (stopped) return Promise.resolve(null);
    running ??= run().finally(() => {
      running = null;
    });
    return running;
  }

  function arm(): void {
    if (stopped) return;
    timer = clock.schedule(() => {
      timer = null;
      void pruneNow().finally(arm);
    }, intervalMs);
  }

  return {
    start() {
      if (started || stopped) return Promise.resolve(null);
      started = true;
      const first = pruneNow();
      void first.finally(arm);
      return first;
    },
    pruneNow,
    get lastPrune() {
      return lastPrune;
    },
    async stop() {
      stopped = true;
      timer?.cancel();
      timer = null;
      await running;
    },
  };
}
