// The redemption pipeline: each channel-point redemption of a managed reward has its effect once
// and its status sent to Twitch (docs/redemptions.md).
//
//   received    recorded in the ledger before the effect runs (a duplicate stops here)
//   effect-done the plugin's handler ran; its outcome (fulfill | refund) is recorded
//   status-sent Twitch has FULFILLED / CANCELED (sent in batches, see status-batcher.ts)
//
// Live notifications and the periodic listing of UNFULFILLED redemptions both come through
// `process`; a redemption already under way in this process is not started twice, one already in
// the ledger never runs its effect again, one whose effect is done only gets its status (again).
// A redemption still `received` when found again had its effect interrupted (a crash): the
// handler runs again with `attempt` > 1, so it can tell that its effect may already have happened.
// Only a redemption Twitch says is UNFULFILLED has its effect: one that arrives FULFILLED (its
// reward skips the request queue) or CANCELED can be neither fulfilled nor refunded any more.
import type { Logger } from 'pino';
import type { RedemptionReplies, RedemptionResult, RedemptionSettlement } from '../host.ts';
import type { RedemptionEvent } from '../plugin-api.ts';
import { systemClock } from '../clock.ts';
import type { Clock } from '../clock.ts';
import { withDeadline } from '../deadline.ts';
import { errorText } from '../error-text.ts';
import { RecentSet } from '../recent-set.ts';
import { ChannelPointsError } from './channel-points.ts';
import type { ChannelPointsApi, RedemptionStatus, RedemptionStatusUpdate, TwitchRedemption } from './channel-points.ts';
import { fromLedgerReplies, toLedgerReplies } from './kept-replies.ts';
import type { LedgerEntry, LedgerOutcome, LedgerReplies, RedemptionLedger } from './redemption-ledger.ts';
import { createStatusBatcher, StatusNotRecordedError } from './status-batcher.ts';
import type { StatusSendResult } from './status-batcher.ts';

/** The event a handler gets: `attempt` is 1, or more when an interrupted effect is run again. */
export type PipelineRedemptionEvent = RedemptionEvent & { attempt: number };

export interface RedemptionPipelineOptions {
  ledger: RedemptionLedger;
  /**
   * Without `redemptionStatuses`, a redemption left `received` (its handler interrupted) that Twitch
   * no longer lists UNFULFILLED cannot be told resolved elsewhere, and stays `received`.
   * Without `redemptionStatus`, a CANCELED Twitch answers as already resolved is always taken as not
   * refunded (it cannot be told whether the redemption is CANCELED on Twitch after all).
   */
  channelPoints: Pick<ChannelPointsApi, 'listUnfulfilledRedemptions' | 'setRedemptionStatus'>
    & Partial<Pick<ChannelPointsApi, 'redemptionStatus' | 'redemptionStatuses'>>;
  /** Runs the plugin handler (the host's `handleRedemption`); never throws. */
  handle(event: PipelineRedemptionEvent): Promise<RedemptionResult>;
  /**
   * The afterStatus of the lines the ledger kept for a redemption handled before a restart (the
   * host's `replyAfterRestart`); null when they cannot be said. Without it, such lines are dropped
   * (logged at level debug).
   */
  replyAfterRestart?(replies: RedemptionReplies, outcome: LedgerOutcome, redemptionId: string): ((settled: RedemptionSettlement) => Promise<void>) | null;
  /** The login of the channel (for the handler's replies). */
  channel: string;
  /** The reward key of a managed reward's Twitch id; undefined for rewards the host does not manage. */
  rewardKeyOf(rewardId: string): string | undefined;
  /**
   * A managed reward is no longer as the host made it: gone from Twitch (listing its redemptions
   * answered 404), or set to skip the request queue (a redemption of it arrived FULFILLED). The
   * host syncs its rewards again (reward-sync.ts), which creates it anew or turns the queue back on.
   */
  rewardOutOfStep?(rewardId: string, drift: RewardDrift): void;
  logger: Logger;
  /** Listed redemptions handled at once during a reconciliation. Default 8. */
  concurrency?: number;
  clock?: Clock;
  /**
   * How long a reconciliation waits for one redemption before it moves on to the next (the
   * redemption goes on, and its outcome is recorded and sent when its handler finishes), so a
   * handler that never settles holds up neither the reconciliation nor the others. Default 30 s.
   */
  handlerWaitMs?: number;
  /** On stop, how long redemptions under way may take; one still running then runs again at the next start. Default 5 s. */
  stopWaitMs?: number;
}

/** How a managed reward on Twitch differs from what the host made. */
export type RewardDrift = 'missing' | 'skips-request-queue';

/** A reconciliation gives up waiting for one redemption after this long. */
export const REDEMPTION_HANDLER_WAIT_MS = 30_000;
/** A stop waits this long for the redemptions under way (as for the commands under way, host.ts). */
export const REDEMPTION_STOP_WAIT_MS = 5_000;

export type ProcessResult =
  | { kind: 'done'; outcome: LedgerOutcome; status: StatusSendResult; attempt: number }
  /** Already handled (or being handled) in this process or before: nothing happened. */
  | { kind: 'duplicate' }
  | { kind: 'ignored'; reason: string }
  /** The effect is recorded; Twitch did not take the status (or took it and the ledger could not record that). A reconciliation sends it again. */
  | { kind: 'status-pending'; outcome: LedgerOutcome; error: string }
  /** The ledger could not be written (nothing acknowledged); a reconciliation tries again. */
  | { kind: 'failed'; error: string };

export interface ReconcileReport {
  /** Statuses the ledger still owed Twitch, sent now. */
  statusesSent: number;
  /** UNFULFILLED redemptions Twitch listed. */
  listed: number;
  /** Of those, how many this reconciliation handled (effect and status, or status only). */
  handled: number;
  /** What went wrong, one line each (per reward or per redemption). */
  failures: string[];
}

export interface PipelineCounters {
  /** Handler runs. */
  effects: number;
  fulfilled: number;
  /**
   * Refunds: CANCELED statuses Twitch took, or answered as already resolved while it has the
   * redemption CANCELED (refunded by a moderator, or by an earlier call of ours whose answer was
   * lost); one Twitch has FULFILLED gave no refund and is not counted.
   */
  refunded: number;
  duplicates: number;
  /** Effects run again after an interruption. */
  resumed: number;
  statusFailures: number;
  ignored: number;
}

export interface RedemptionPipeline {
  process(redemption: TwitchRedemption, options?: { listed?: boolean }): Promise<ProcessResult>;
  /** Sends the statuses the ledger owes, then handles every UNFULFILLED redemption of `rewardIds`. */
  reconcile(rewardIds: readonly string[]): Promise<ReconcileReport>;
  readonly counters: Readonly<PipelineCounters>;
  /** Refuses new redemptions and waits for those under way. Idempotent. */
  stop(): Promise<void>;
}

/** The warning for a redemption settled at a reconciliation as resolved elsewhere (status null: not found, its reward deleted). */
function resolvedElsewhereMessage(status: RedemptionStatus | null): string {
  const start = 'redemption resolved elsewhere while its handler had not (fully) run (the host stopped during it): ';
  const end = '; its handler is not run again, and it is settled';
  if (status === 'CANCELED') return `${start}Twitch has it CANCELED (a moderator refunded it in the request queue), so the viewer has the points back; its effect may or may not have happened${end}`;
  if (status === 'FULFILLED') return `${start}Twitch has it FULFILLED (a moderator fulfilled it in the request queue), so the viewer's points are spent and its effect may not have happened: the viewer may be owed the effect by hand${end}`;
  return `${start}Twitch no longer has it (its reward was deleted, which marks its redemptions FULFILLED), so the viewer's points are spent and its effect may not have happened: the viewer may be owed the effect by hand${end}`;
}

/**
 * Listings of one reward per reconciliation at most: each after the first lists only what the
 * one before it may have skipped, so a few do; a bound keeps a list that never settles finite.
 */
const MAX_LISTINGS_PER_REWARD = 5;

const STATUS_OF: Record<LedgerOutcome, RedemptionStatusUpdate> = { fulfill: 'FULFILLED', refund: 'CANCELED' };
/** Ids whose chat line a pipeline remembers having said (or dropped), against a stale copy of the ledger's. */
const REPLIES_TAKEN_KEPT = 1000;

/** A refund Twitch answered as no longer possible (404, or the id left out of the changed ones). */
const REFUND_NOT_GIVEN = 'redemption not refunded: Twitch no longer had it UNFULFILLED (resolved in the request queue, or its reward deleted), so the viewer\'s points stay spent';

export function createRedemptionPipeline(options: RedemptionPipelineOptions): RedemptionPipeline {
  const { ledger, channelPoints, logger } = options;
  const concurrency = Math.max(1, options.concurrency ?? 8);
  const clock = options.clock ?? systemClock;
  const handlerWaitMs = options.handlerWaitMs ?? REDEMPTION_HANDLER_WAIT_MS;
  const stopWaitMs = options.stopWaitMs ?? REDEMPTION_STOP_WAIT_MS;
  const counters: PipelineCounters = { effects: 0, fulfilled: 0, refunded: 0, duplicates: 0, resumed: 0, statusFailures: 0, ignored: 0 };
  const inFlight = new Map<string, Promise<ProcessResult>>();
  const batcher = createStatusBatcher({
    send: (rewardId, ids, status) => channelPoints.setRedemptionStatus(rewardId, ids, status),
    afterSent: (ids) => ledger.recordRedemptionStatusSent(ids),
  });
  let stopped = false;
  /**
   * The handlers' chat lines waiting for their redemption's status to settle (RedemptionResult's
   * afterStatus), by redemption id: said once Twitch has it, by this run or a later
   * reconciliation's resend. The ledger keeps them too, with the outcome (LedgerEntry's
   * `replies`), so after a stop (or a crash) the next start says them once it has sent the status;
   * it clears them when it records the status as sent, which is before a line is said: a line is
   * said at most once, and lost only when the process dies between that record and the line
   * leaving the chat queue.
   */
  const repliesAfterStatus = new Map<string, (settled: RedemptionSettlement) => Promise<void>>();
  /**
   * The last REPLIES_TAKEN_KEPT redemptions whose line this process took to say (or dropped): a
   * ledger entry read before its status was recorded as sent still holds the lines, and must not
   * say them a second time.
   */
  const repliesTaken = new RecentSet<string>(REPLIES_TAKEN_KEPT);
  /** Waits a stop ends at once (each removed once its work settles, so none pile up). */
  const stopWaiters = new Set<() => void>();

  /** `work`'s value, or 'stopping' as soon as the pipeline stops. */
  function unlessStopped<T>(work: Promise<T>): Promise<T | 'stopping'> {
    if (stopped) return Promise.resolve('stopping');
    return new Promise((resolve, reject) => {
      const onStop = (): void => resolve('stopping');
      stopWaiters.add(onStop);
      work.then(resolve, reject).finally(() => stopWaiters.delete(onStop));
    });
  }

  /**
   * Sends the status; a refund Twitch answered as already resolved is checked (refundMissing).
   * Once settled, the handler's chat line for it (if one waits: in memory, or `kept` by the ledger
   * from before a restart) is said, not awaited.
   */
  async function sendStatus(
    rewardId: string, id: string, outcome: LedgerOutcome, kept: LedgerReplies | null,
  ): Promise<{ status: StatusSendResult; refundNotGiven: string | null }> {
    const status = await batcher.send(rewardId, id, STATUS_OF[outcome]);
    const missing = outcome === 'refund' && status === 'already-resolved' ? await refundMissing(rewardId, id) : null;
    const refundNotGiven = missing?.warning ?? null;
    if (outcome === 'fulfill') counters.fulfilled++;
    else if (refundNotGiven === null) counters.refunded++;
    const reply = takeReply(id, outcome, kept);
    if (reply !== null) {
      const settled: RedemptionSettlement = missing === null ? 'as-asked' : missing.known ? 'refund-not-given' : 'refund-unknown';
      void reply(settled).catch((error: unknown) => {
        logger.warn({ err: error, redemption: id }, `the redemption's chat reply failed: ${errorText(error)}`);
      });
    }
    return { status, refundNotGiven };
  }

  /**
   * The line to say now that the redemption's status is settled (and recorded as sent, which
   * cleared the ledger's copy), once: the handler's from this run, or the ledger's from before a
   * restart rebuilt; null when none, or when this process took it already.
   */
  function takeReply(id: string, outcome: LedgerOutcome, kept: LedgerReplies | null): ((settled: RedemptionSettlement) => Promise<void>) | null {
    const live = repliesAfterStatus.get(id);
    repliesAfterStatus.delete(id);
    if (live === undefined && kept === null) return null;
    if (!repliesTaken.add(id)) return null;
    if (live !== undefined) return live;
    const replies = fromLedgerReplies(kept!);
    if (replies === null) {
      logger.info({ redemption: id }, 'the chat reply the ledger kept for this redemption cannot be read: it is not said');
      return null;
    }
    if (!options.replyAfterRestart) {
      logger.debug({ redemption: id }, 'the chat reply the ledger kept for this redemption is not said (no plugins here)');
      return null;
    }
    return options.replyAfterRestart(replies, outcome, id);
  }

  /**
   * A CANCELED Twitch no longer took (the redemption was no longer UNFULFILLED): the points came
   * back after all when Twitch has it CANCELED (a moderator canceled it in the request queue, or an
   * earlier call of ours went through and its answer was lost); null then. Otherwise (FULFILLED, its
   * reward gone, or Twitch could not be asked) the warning to log: no refund was given.
   */
  async function refundMissing(rewardId: string, id: string): Promise<{ warning: string; known: boolean } | null> {
    if (!channelPoints.redemptionStatus) return { warning: REFUND_NOT_GIVEN, known: true };
    try {
      return (await channelPoints.redemptionStatus(rewardId, id)) === 'CANCELED' ? null : { warning: REFUND_NOT_GIVEN, known: true };
    } catch (error) {
      // Not known: the handler's lines are both left unsaid (either may be untrue).
      return { warning: `${REFUND_NOT_GIVEN} (as far as can be told: asking Twitch for its status failed: ${errorText(error)})`, known: false };
    }
  }

  async function run(redemption: TwitchRedemption, rewardKey: string, listed: boolean): Promise<ProcessResult> {
    const log = logger.child({ redemption: redemption.id, rewardKey, viewer: redemption.user.login });
    let outcome: LedgerOutcome;
    let attempt = 0;
    /** The lines the ledger kept from a run before (effect-done): said once the status settles. */
    let kept: LedgerReplies | null = null;
    try {
      const { entry, isNew } = await ledger.beginRedemption({ id: redemption.id, rewardId: redemption.rewardId });
      if (entry.state === 'status-sent' && (!listed || entry.outcome === null)) {
        counters.duplicates++;
        log.debug('duplicate redemption: already handled');
        return { kind: 'duplicate' };
      }
      if (entry.state === 'received') {
        attempt = entry.attempts;
        if (!isNew) {
          counters.resumed++;
          log.warn({ attempt }, 'redemption effect was interrupted (the host stopped during it): running its handler again');
        }
        const result = await options.handle({
          id: redemption.id,
          rewardKey,
          channel: options.channel,
          user: redemption.user,
          input: redemption.input,
          attempt,
        });
        counters.effects++;
        if (result.outcome === 'unhandled') {
          log.warn('no plugin handles this reward: refunding the points');
          outcome = 'refund';
        } else {
          outcome = result.outcome;
        }
        // The lines are kept with the outcome, in the same write, for a restart before the status settles.
        const replies = result.outcome !== 'unhandled' && result.replies ? toLedgerReplies(result.replies) : null;
        await ledger.recordRedemptionEffect(redemption.id, outcome, replies);
        // Only a recorded outcome gets its line: an unrecorded one runs again (and answers anew).
        if (result.outcome !== 'unhandled' && result.afterStatus) repliesAfterStatus.set(redemption.id, result.afterStatus);
      } else {
        // effect-done (or status-sent yet listed UNFULFILLED): only the status is left to send.
        outcome = entry.outcome ?? 'refund';
        attempt = entry.attempts;
        kept = entry.replies;
        log.info({ outcome }, 'redemption effect already done: sending its status only');
      }
    } catch (error) {
      log.error({ err: error }, `redemption could not be recorded: ${errorText(error)}`);
      return { kind: 'failed', error: errorText(error) };
    }
    try {
      const { status, refundNotGiven } = await sendStatus(redemption.rewardId, redemption.id, outcome, kept);
      if (refundNotGiven !== null) log.warn({ outcome, attempt, status }, refundNotGiven);
      else log.info({ outcome, attempt, status }, outcome === 'fulfill' ? 'redemption fulfilled' : 'redemption refunded');
      return { kind: 'done', outcome, status, attempt };
    } catch (error) {
      counters.statusFailures++;
      if (error instanceof StatusNotRecordedError) {
        // Not Twitch's refusal: saying so would send the operator to look at Twitch.
        log.error({ err: error.cause, outcome }, `${error.message} (the next reconciliation records it)`);
      } else {
        log.error({ err: error, outcome }, `Twitch did not take the redemption's status (it will be sent again): ${errorText(error)}`);
      }
      return { kind: 'status-pending', outcome, error: errorText(error) };
    }
  }

  /**
   * A redemption Twitch already says is FULFILLED or CANCELED (or whose status it did not say):
   * Twitch takes a status only for an UNFULFILLED one, so the effect could be neither confirmed
   * nor refunded, and a refund the handler told the viewer about would not happen. Not run, and
   * not recorded: the listing of UNFULFILLED redemptions finds it should it be UNFULFILLED after all.
   */
  function notUnfulfilled(redemption: TwitchRedemption, rewardKey: string): Promise<ProcessResult> {
    counters.ignored++;
    const log = logger.child({ redemption: redemption.id, rewardKey, viewer: redemption.user.login });
    if (redemption.status === 'FULFILLED') {
      log.warn('redemption arrived already FULFILLED: its reward skips Twitch\'s request queue (something using this app\'s '
        + 'client id turned should_redemptions_skip_request_queue on), so it can be neither fulfilled nor refunded, and its '
        + 'effect is not run (the viewer\'s points are spent: make it up to them by hand). The host turns the request queue back on.');
      options.rewardOutOfStep?.(redemption.rewardId, 'skips-request-queue');
      return Promise.resolve({ kind: 'ignored', reason: 'already FULFILLED on Twitch (the reward skips the request queue)' });
    }
    log.warn({ status: redemption.status }, `redemption is ${redemption.status} on Twitch already: its effect is not run`);
    return Promise.resolve({ kind: 'ignored', reason: `already ${redemption.status} on Twitch` });
  }

  function process(redemption: TwitchRedemption, processOptions: { listed?: boolean } = {}): Promise<ProcessResult> {
    if (stopped) return Promise.resolve({ kind: 'ignored', reason: 'the redemption pipeline is stopping' });
    const rewardKey = options.rewardKeyOf(redemption.rewardId);
    if (rewardKey === undefined) {
      counters.ignored++;
      return Promise.resolve({ kind: 'ignored', reason: 'not a reward this host manages' });
    }
    if (redemption.status !== 'UNFULFILLED') return notUnfulfilled(redemption, rewardKey);
    const running = inFlight.get(redemption.id);
    if (running) {
      counters.duplicates++;
      return running.then(() => ({ kind: 'duplicate' }));
    }
    const work = run(redemption, rewardKey, processOptions.listed ?? false).finally(() => inFlight.delete(redemption.id));
    inFlight.set(redemption.id, work);
    return work;
  }

  /** Handles a listing's redemptions, `concurrency` at a time, into the report. */
  async function handleListed(listed: readonly TwitchRedemption[], report: ReconcileReport): Promise<void> {
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < listed.length && !stopped) {
        const redemption = listed[next++]!;
        // A handler that never settles would hold this worker, and so the reconciliation (and a
        // stop waiting for it), for ever: the wait ends after handlerWaitMs, or at once on stop
        // (which also ends the deadline's timer).
        const waited = withDeadline(unlessStopped(process(redemption, { listed: true })), handlerWaitMs, () => new Error('still under way'), clock);
        const result = await waited.catch(() => null);
        if (result === 'stopping') break;
        if (result === null) {
          report.failures.push(`redemption ${redemption.id}: its handler has not finished after ${handlerWaitMs / 1000} s `
            + '(its outcome is recorded and sent when it does)');
          continue;
        }
        if (result.kind === 'done') report.handled++;
        else if (result.kind === 'status-pending' || result.kind === 'failed') report.failures.push(`redemption ${redemption.id}: ${result.error}`);
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, listed.length) }, worker));
  }

  async function reconcile(rewardIds: readonly string[]): Promise<ReconcileReport> {
    const report: ReconcileReport = { statusesSent: 0, listed: 0, handled: 0, failures: [] };
    try {
      const owed = (await ledger.listRedemptionsAwaitingStatus()).filter((entry) => !inFlight.has(entry.id));
      await Promise.all(owed.map(async (entry) => {
        try {
          const { status, refundNotGiven } = await sendStatus(entry.rewardId, entry.id, entry.outcome ?? 'refund', entry.replies);
          report.statusesSent++;
          if (refundNotGiven !== null) logger.warn({ redemption: entry.id, outcome: entry.outcome, status }, refundNotGiven);
          else logger.info({ redemption: entry.id, outcome: entry.outcome }, 'sent a redemption status left over from before');
        } catch (error) {
          counters.statusFailures++;
          report.failures.push(`status of redemption ${entry.id}: ${errorText(error)}`);
        }
      }));
    } catch (error) {
      report.failures.push(`reading the ledger: ${errorText(error)}`);
    }
    /** Every redemption Twitch listed UNFULFILLED now (handled above, or left for the next reconciliation). */
    const seen = new Set<string>();
    for (const rewardId of rewardIds) {
      // A listing's pages are read one after another, each counted from the list as it is then
      // (the fake Helix does; Twitch's cursor is opaque): redemptions resolved meanwhile, live or
      // on the dashboard, move the rest forward, past a page already read. So a reward whose
      // listing found any redemption not seen before is listed again, until one finds none.
      for (let listing = 0; listing < MAX_LISTINGS_PER_REWARD && !stopped; listing++) {
        let listed: TwitchRedemption[];
        try {
          listed = (await channelPoints.listUnfulfilledRedemptions(rewardId)).filter((redemption) => !seen.has(redemption.id));
        } catch (error) {
          // Gone from Twitch: not a failure to report at every reconciliation, but a reward to make again.
          if (error instanceof ChannelPointsError && error.status === 404) options.rewardOutOfStep?.(rewardId, 'missing');
          else report.failures.push(`listing redemptions of reward ${rewardId}: ${errorText(error)}`);
          break;
        }
        if (listed.length === 0) break;
        report.listed += listed.length;
        for (const redemption of listed) seen.add(redemption.id);
        await handleListed(listed, report);
      }
    }
    if (!stopped) await settleResolvedElsewhere(seen, report);
    return report;
  }

  /**
   * Redemptions left `received` (their handler interrupted by a stop or a crash) that are not under
   * way here and that Twitch did not list UNFULFILLED: a moderator resolved them in the request queue,
   * or their reward was deleted, while the host was down. They are never listed again, so they
   * would stay owed for ever (and retention keeps owed rows): Twitch is asked for their status (per
   * reward, 50 ids a call). FULFILLED, CANCELED or not found: settled without running the effect
   * (only an UNFULFILLED redemption has its effect), with a warning. UNFULFILLED (redeemed after the
   * listing), or no answer: left for the next reconciliation.
   */
  async function settleResolvedElsewhere(seen: ReadonlySet<string>, report: ReconcileReport): Promise<void> {
    const lookUp = channelPoints.redemptionStatuses;
    if (!lookUp) return;
    let left: LedgerEntry[];
    try {
      left = (await ledger.listRedemptionsAwaitingEffect()).filter((entry) => !seen.has(entry.id) && !inFlight.has(entry.id));
    } catch (error) {
      report.failures.push(`reading the ledger: ${errorText(error)}`);
      return;
    }
    const byReward = new Map<string, LedgerEntry[]>();
    for (const entry of left) byReward.set(entry.rewardId, [...(byReward.get(entry.rewardId) ?? []), entry]);
    for (const [rewardId, entries] of byReward) {
      if (stopped) return;
      let statuses: Map<string, RedemptionStatus>;
      try {
        statuses = await lookUp(rewardId, entries.map((entry) => entry.id));
      } catch (error) {
        report.failures.push(`reading the status of ${entries.length} interrupted redemption(s) of reward ${rewardId}: ${errorText(error)}`);
        continue;
      }
      // Not started since (a notification of it meanwhile would be under way): settling it now
      // keeps a later one from running it, as inFlight does.
      const resolved = entries.filter((entry) => statuses.get(entry.id) !== 'UNFULFILLED' && statuses.get(entry.id) !== 'UNKNOWN' && !inFlight.has(entry.id));
      if (resolved.length === 0 || stopped) continue;
      const ids = resolved.map((entry) => entry.id);
      const settling = ledger.recordRedemptionStatusSent(ids);
      const held = settling.then((): ProcessResult => ({ kind: 'duplicate' }), (): ProcessResult => ({ kind: 'duplicate' }));
      for (const id of ids) inFlight.set(id, held);
      try {
        await settling;
      } catch (error) {
        report.failures.push(`settling ${ids.length} interrupted redemption(s) resolved elsewhere: ${errorText(error)}`);
        continue;
      } finally {
        for (const id of ids) if (inFlight.get(id) === held) inFlight.delete(id);
      }
      for (const entry of resolved) {
        const status = statuses.get(entry.id) ?? null;
        logger.warn({ redemption: entry.id, rewardKey: options.rewardKeyOf(entry.rewardId), attempts: entry.attempts, twitchStatus: status ?? 'gone' },
          resolvedElsewhereMessage(status));
      }
    }
  }

  return {
    process,
    reconcile,
    counters,
    async stop() {
      stopped = true;
      for (const onStop of stopWaiters) onStop();
      try {
        await withDeadline(Promise.allSettled([...inFlight.values()]), stopWaitMs, () => new Error('still under way'), clock);
      } catch {
        // A handler that never settles must not hold the shutdown: what is still `received` runs again at the next start.
        // (Nothing joins inFlight once stopped: process refuses.)
        const left = [...inFlight.keys()];
        logger.warn({ redemptions: left },
          `stopping: ${left.length} redemption(s) still under way after ${stopWaitMs / 1000} s: left for the next start, which runs their handlers again`);
      }
      await batcher.drain();
      if (repliesAfterStatus.size > 0) {
        logger.info({ redemptions: [...repliesAfterStatus.keys()] },
          `stopping: ${repliesAfterStatus.size} redemption chat reply(ies) not said yet: Twitch had not taken their status (the ledger keeps them: the next start sends the status, then says them)`);
        repliesAfterStatus.clear();
      }
    },
  };
}
