// Channel-point redemptions on Twitch, put together: the broadcaster's token (refreshed and saved),
// the managed rewards kept in step with the config, live redemptions over EventSub, the periodic
// listing of UNFULFILLED ones, and the pipeline that gives each one its effect once and its status
// (docs/redemptions.md). With Twitch off it starts nothing. Without a usable token it says why in
// its status (needs-auth) and watches the token file: once `chatskin twitch auth` saved a usable
// token there, the redemptions start as if the host had started with it, no restart. The rest of
// the host runs on either way.
import type { Logger } from 'pino';
import type { Config } from '../../config/config-schema.ts';
import { redemptionSettings } from '../../config/config-schema.ts';
import { systemClock } from '../../host/clock.ts';
import type { Clock, ScheduledTimer } from '../../host/clock.ts';
import type { Host } from '../../host/host.ts';
import { addLogSecrets } from '../../host/logger.ts';
import { errorText } from '../../host/error-text.ts';
import { createLedgerRetention } from '../../host/redemptions/ledger-retention.ts';
import type { LedgerRetention } from '../../host/redemptions/ledger-retention.ts';
import type { ManagedRewardStore, RedemptionLedger, RedemptionLedgerRetention } from '../../host/redemptions/redemption-ledger.ts';
import { createRedemptionPipeline } from '../../host/redemptions/redemption-pipeline.ts';
import type { PipelineCounters, ReconcileReport, RedemptionPipeline, RewardDrift } from '../../host/redemptions/redemption-pipeline.ts';
import { rewardFailureMessage, syncManagedRewards } from '../../host/redemptions/reward-sync.ts';
import type { RewardSyncEntry } from '../../host/redemptions/reward-sync.ts';
import { AUTHORIZE_HINT, createBroadcasterAuth, REAUTHORIZE_HINT } from './broadcaster-auth.ts';
import type { BroadcasterAuth, BroadcasterAuthStatus } from './broadcaster-auth.ts';
import { createHelixChannelPoints } from './helix-channel-points.ts';
import { createRedemptionListener } from './redemption-listener.ts';
import type { EventSubStatus, RedemptionListener } from './redemption-listener.ts';
import { missingScopes } from './scopes.ts';
import { NO_TOKEN_FILE, readTokenFile, tokenFileFingerprint } from '../twitch-auth/token-file.ts';
import type { StoredTwitchToken } from '../twitch-auth/token-file.ts';
import { createTokenFileWatch } from '../twitch-auth/token-file-watch.ts';
import { applyTwurpleMockPort, oauthBaseUrl } from '../twitch-auth/twitch-endpoints.ts';
import { boundTwitchHttp } from '../twitch-auth/twitch-http-timeout.ts';

export type RedemptionsState =
  /** Twitch or redemptions switched off in the config. */
  | 'off'
  /** No usable broadcaster token: `chatskin twitch auth` is needed; the redemptions start once it saved one. */
  | 'needs-auth'
  | 'starting'
  | 'running'
  | 'stopped';

export interface RedemptionsStatus {
  state: RedemptionsState;
  /** What is wrong and what to do; null when all is well. */
  problem: string | null;
  auth: BroadcasterAuthStatus | null;
  eventsub: EventSubStatus | null;
  /** The last reward sync, one entry per reward (not-owned and failed ones say why). */
  rewards: RewardSyncEntry[];
  /** Configured reward keys no running plugin handles: their redemptions are refunded. */
  unhandledRewardKeys: string[];
  lastReconcile: { at: string; report: ReconcileReport } | null;
  counters: PipelineCounters | null;
}

export interface TwitchRedemptionsOptions {
  config: Config;
  /** The started host: runs the plugin handlers; its plugin list tells which reward keys are handled. */
  host: Pick<Host, 'handleRedemption' | 'replyAfterRestart' | 'plugins'>;
  /** The service's ledger bound to the channel's account (`bindLedger(service, account.id)`). */
  ledger: RedemptionLedger & RedemptionLedgerRetention & ManagedRewardStore;
  logger: Logger;
  clock?: Clock;
  /**
   * How often the token file is looked at for a token `chatskin twitch auth` saved meanwhile (one
   * replacing the token in use, or, in needs-auth, the first usable one); default
   * twitch.redemptions.tokenFileCheckSeconds (tests set milliseconds here).
   */
  tokenFileCheckMs?: number;
  /** How long a new EventSub connection may go without session_welcome before it is replaced; default 30 000 ms. */
  welcomeTimeoutMs?: number;
  /** Tests: the longest wait twurple puts between reconnect attempts (redemption-listener.ts). */
  maxRetryWaitMs?: number;
  /** Tests: how long a reconciliation waits for one redemption's handler (default 30 s, redemption-pipeline.ts). */
  handlerWaitMs?: number;
  /** Tests: how long a stop waits for the redemptions under way (default 5 s). */
  stopWaitMs?: number;
}

export interface TwitchRedemptions {
  status(): RedemptionsStatus;
  /**
   * Finishes missed redemptions now (the timer does it every reconcileIntervalSeconds). Null when
   * it cannot: no usable token yet, or one Twitch refused to refresh (then nothing is tried until a
   * new one is taken over, which reconciles at once).
   */
  reconcile(): Promise<ReconcileReport | null>;
  /** Stops listening and the timer, waits for redemptions under way and saved tokens. Idempotent. */
  stop(): Promise<void>;
}

/** Redemptions started with a usable token, and the start itself (rewards synced, missed ones listed, EventSub listening). */
interface Launched {
  redemptions: TwitchRedemptions;
  ready: Promise<void>;
}

/** How the host says a managed reward is out of step (the log line before the sync that puts it right). */
const DRIFT_TEXT: Record<RewardDrift, string> = {
  'missing': 'a managed reward is gone from Twitch (listing its redemptions answered 404: deleted by something using this app\'s client id)',
  'skips-request-queue': 'a managed reward skips Twitch\'s request queue (its redemptions arrive FULFILLED, beyond fulfilling or refunding)',
};

/** For a token file that cannot be used: the host keeps looking at it. */
const WATCHED_HINT = 'the running chatskin picks a usable token up from there within seconds and starts the redemptions (no restart needed)';


function inert(status: RedemptionsStatus): TwitchRedemptions {
  return {
    status: () => structuredClone(status),
    reconcile: async () => null,
    stop: async () => {
      if (status.state !== 'off') status.state = 'stopped';
    },
  };
}

export async function startTwitchRedemptions(options: TwitchRedemptionsOptions): Promise<TwitchRedemptions> {
  const { config, host, ledger } = options;
  const logger = options.logger.child({ component: 'redemptions' });
  const clock = options.clock ?? systemClock;
  const status: RedemptionsStatus = {
    state: 'off', problem: null, auth: null, eventsub: null, rewards: [], unhandledRewardKeys: [], lastReconcile: null, counters: null,
  };
  if (!config.twitch.enabled) return inert(status);
  // Narrowed once, for the functions below.
  const twitch = config.twitch;
  const settings = redemptionSettings(twitch);
  if (!settings.redemptions.enabled) {
    logger.info('channel-point redemptions are switched off (twitch.redemptions.enabled: false)');
    return inert(status);
  }
  applyTwurpleMockPort(twitch.helix.mockServerPort);
  boundTwitchHttp(twitch.httpTimeoutSeconds * 1000);

  const tokenFile = settings.broadcaster.tokenFile;
  const tokenFileCheckMs = options.tokenFileCheckMs ?? settings.redemptions.tokenFileCheckSeconds * 1000;

  /** The token in the file, or why redemptions cannot start with it (and what to do). */
  async function loadToken(): Promise<{ token: StoredTwitchToken } | { problem: string }> {
    let stored: StoredTwitchToken | null;
    try {
      stored = await readTokenFile(tokenFile, {
        onLoosePermissions: (mode) => logger.warn({ tokenFile, mode: mode.toString(8) }, 'the token file was readable by others; its permissions are now 600'),
      });
    } catch (error) {
      return { problem: `${errorText(error)}; ${WATCHED_HINT}` };
    }
    if (stored === null) return { problem: `there is no broadcaster token at ${tokenFile}: ${AUTHORIZE_HINT}` };
    addLogSecrets(options.logger, [stored.accessToken, stored.refreshToken]);
    if (stored.clientId !== twitch.clientId) {
      return { problem: `the token in ${tokenFile} was issued to the client id ${stored.clientId}, not twitch.clientId; ${REAUTHORIZE_HINT}` };
    }
    if (stored.login !== config.channel.login) {
      return { problem: `the token in ${tokenFile} belongs to "${stored.login}", not the channel "${config.channel.login}"; ${REAUTHORIZE_HINT}` };
    }
    const missing = missingScopes(stored.scope);
    if (missing.length > 0) return { problem: `the token in ${tokenFile} lacks ${missing.join(', ')}; ${REAUTHORIZE_HINT}` };
    return { token: stored };
  }

  // Looked at before it is read: a token saved in between is then seen as a change.
  const seenAtStart = await tokenFileFingerprint(tokenFile);
  const loaded = await loadToken();
  if ('problem' in loaded) {
    status.state = 'needs-auth';
    status.problem = loaded.problem;
    logger.warn({ tokenFile }, `channel-point redemptions are not running: ${loaded.problem}`);
    return watchForToken(seenAtStart);
  }
  const started = launch(loaded.token);
  try {
    await started.ready;
  } catch (error) {
    await started.redemptions.stop();
    throw error;
  }
  return started.redemptions;

  /**
   * Needs-auth: looks at the token file every tokenFileCheckMs (its inode, size and mtime; read
   * only when one changed) and starts the redemptions with the first usable token saved there,
   * as if the host had started with it. A token that cannot be used is reported once.
   */
  function watchForToken(seenFirst: string): TwitchRedemptions {
    let watching = true;
    /** Once a usable token was found: the redemptions started with it. */
    let launched: Launched | null = null;

    /** The token file changed: starts the redemptions with a usable token there. True when they started. */
    async function startWithFile(fingerprint: string): Promise<boolean> {
      if (!watching) return false;
      const found = await loadToken();
      if (!watching) return false;
      if ('problem' in found) {
        status.problem = found.problem;
        // A removed file is no news worth a warning; a token saved there that cannot be used is.
        if (fingerprint !== NO_TOKEN_FILE) logger.warn({ tokenFile }, `the token file changed, but channel-point redemptions still cannot start: ${found.problem}`);
        return false;
      }
      logger.info({ tokenFile, broadcaster: found.token.login },
        'found a usable broadcaster token (saved by `chatskin twitch auth`): starting channel-point redemptions, no restart needed');
      const attempt = launch(found.token);
      launched = attempt;
      try {
        await attempt.ready;
        return true;
      } catch (error) {
        await attempt.redemptions.stop();
        launched = null;
        if (!watching) return false;
        status.state = 'needs-auth';
        status.problem = `channel-point redemptions could not start with the token in ${tokenFile}: ${errorText(error)}; ${REAUTHORIZE_HINT}`;
        logger.error({ err: error }, status.problem);
        return false;
      }
    }

    const watch = createTokenFileWatch({
      file: tokenFile,
      intervalMs: tokenFileCheckMs,
      clock,
      seen: seenFirst,
      changed: startWithFile,
      failed: (error) => logger.warn({ err: error, tokenFile }, `looking at the token file failed: ${errorText(error)}`),
    });
    // Once started, the redemptions' own auth watches the file.
    watch.repeat((started) => !started);

    return {
      status: () => launched?.redemptions.status() ?? structuredClone(status),
      reconcile: async () => (launched ? launched.redemptions.reconcile() : null),
      async stop() {
        if (!watching) {
          await launched?.redemptions.stop();
          return;
        }
        watching = false;
        const lookOver = watch.stop();
        // Redemptions started meanwhile stop like ones started with the host (the start under way ends early).
        await launched?.redemptions.stop();
        await lookOver;
        status.state = 'stopped';
      },
    };
  }

  /**
   * Starts the redemptions with a usable token: `redemptions` at once (its stop() also ends a
   * start under way), `ready` once rewards are synced, missed redemptions listed and EventSub
   * listens.
   */
  function launch(stored: StoredTwitchToken): Launched {
    status.state = 'starting';
    status.problem = null;
    const auth: BroadcasterAuth = createBroadcasterAuth({
      clientId: twitch.clientId, clientSecret: twitch.clientSecret, tokenFile, token: stored, logger, clock, tokenFileCheckMs,
      // Checked there hourly, as Twitch asks (id.twitch.tv's /validate).
      oauthUrl: oauthBaseUrl(settings.oauth.url, twitch.helix.mockServerPort), httpTimeoutMs: twitch.httpTimeoutSeconds * 1000,
      // `chatskin twitch auth` ran while the host runs: carry on with the new token, no restart.
      // (Called asynchronously, after a look at the file: the variables below exist by then.)
      onTokenReloaded: () => {
        if (stopped) return;
        // A subscription Twitch revoked (the broadcaster withdrew the app's access) or that failed is made again.
        const subscription = listener?.status().subscription;
        if (subscription === 'revoked' || subscription === 'failed') listener?.restart();
        // Statuses owed and redemptions missed while the token was refused (a listing under way
        // may have been refused too).
        void reconcileFromNow();
      },
    });
    const channelPoints = createHelixChannelPoints(auth.apiClient, auth.userId);
    /** Twitch reward id -> reward key, of every reward the host manages (disabled ones too: their pending redemptions still count). */
    let rewardKeys = new Map<string, string>();
    /** Managed rewards found out of step with what the host made since the last sync: the next one (at once) puts them right. */
    const outOfStep = new Map<string, RewardDrift>();
    const pipeline: RedemptionPipeline = createRedemptionPipeline({
      ledger,
      channelPoints,
      handle: (event) => host.handleRedemption(event),
      replyAfterRestart: (replies, outcome, id) => host.replyAfterRestart(replies, outcome, id),
      channel: config.channel.login,
      rewardKeyOf: (rewardId) => rewardKeys.get(rewardId),
      rewardOutOfStep: (rewardId, drift) => {
        if (outOfStep.has(rewardId)) return;
        outOfStep.set(rewardId, drift);
        logger.warn({ rewardId, rewardKey: rewardKeys.get(rewardId) }, `${DRIFT_TEXT[drift]}: syncing the channel-point rewards again`);
        // A reconciliation under way syncs once it is done; otherwise one starts now, syncing first.
        void reconcile();
      },
      logger,
      clock,
      ...(options.handlerWaitMs === undefined ? {} : { handlerWaitMs: options.handlerWaitMs }),
      ...(options.stopWaitMs === undefined ? {} : { stopWaitMs: options.stopWaitMs }),
    });
    let rewardsSynced = false;
    /** Why the last reward sync failed as a whole (no reward could be set up); null once one succeeded. */
    let rewardSyncProblem: string | null = null;
    let stopped = false;
    let timer: ScheduledTimer | null = null;
    let reconciling: Promise<ReconcileReport | null> | null = null;
    let listener: RedemptionListener | null = null;
    // Settled ledger rows older than ledgerRetentionDays: deleted at start, then hourly.
    const retention: LedgerRetention = createLedgerRetention({ ledger, retentionDays: settings.redemptions.ledgerRetentionDays, clock, logger });

    // A plugin's state is settled once the host is made (one left out stays off).
    const runningPlugins = host.plugins.filter((plugin) => plugin.state === 'running');
    const handledKeys = new Set(runningPlugins.flatMap((plugin) => plugin.rewards));
    // The other way round: a handler for a key no reward is made for never runs (a typo, say).
    for (const plugin of runningPlugins) {
      for (const key of plugin.rewards.filter((rewardKey) => !Object.hasOwn(settings.rewards, rewardKey))) {
        logger.warn({ plugin: plugin.name, rewardKey: key },
          `plugin ${plugin.name} handles the reward "${key}", which twitch.rewards does not define: nothing will redeem it`);
      }
    }

    async function syncRewards(): Promise<void> {
      try {
        status.rewards = await syncManagedRewards({
          rewards: settings.rewards, channelPoints, store: ledger, broadcasterId: auth.userId, logger,
        });
        rewardsSynced = true;
        rewardSyncProblem = null;
      } catch (error) {
        rewardsSynced = false;
        const why = rewardFailureMessage(error);
        rewardSyncProblem = `the channel-point rewards could not be set up (tried again at every reconciliation): ${why}`;
        logger.error({ err: error }, `the channel-point rewards could not be synced (tried again at the next reconciliation): ${why}`);
      }
      try {
        rewardKeys = new Map((await ledger.listManagedRewards()).map((reward) => [reward.twitchRewardId, reward.rewardKey]));
      } catch (error) {
        logger.error({ err: error }, `the managed rewards could not be read: ${errorText(error)}`);
      }
      status.unhandledRewardKeys = Object.keys(settings.rewards).filter((key) => !handledKeys.has(key));
      for (const key of status.unhandledRewardKeys) {
        logger.warn({ rewardKey: key }, `no running plugin handles the reward "${key}": its redemptions will be refunded`);
      }
    }

    /** Syncs the rewards when `needed` (what is found out of step during the sync waits for the next). */
    async function syncRewardsIf(needed: boolean): Promise<void> {
      if (!needed) return;
      outOfStep.clear();
      await syncRewards();
    }

    function reconcile(): Promise<ReconcileReport | null> {
      if (stopped) return Promise.resolve(null);
      // Twitch refused to refresh the token: twurple refuses every call until a new one is taken
      // over (which reconciles at once), so a listing could only fail, and say so every interval.
      if (auth.status().state === 'refresh-failed') return Promise.resolve(null);
      reconciling ??= (async () => {
        try {
          await syncRewardsIf(!rewardsSynced || outOfStep.size > 0);
          const report = await pipeline.reconcile([...rewardKeys.keys()]);
          // Found out of step meanwhile: put right now, not a reconcileIntervalSeconds later.
          await syncRewardsIf(outOfStep.size > 0);
          status.lastReconcile = { at: new Date(clock.now()).toISOString(), report };
          if (report.failures.length > 0) logger.warn({ failures: report.failures }, 'reconciling redemptions left some for later');
          else if (report.handled > 0 || report.statusesSent > 0) {
            logger.info({ handled: report.handled, statusesSent: report.statusesSent }, 'finished redemptions missed earlier');
          }
          return report;
        } catch (error) {
          logger.error({ err: error }, `reconciling redemptions failed: ${errorText(error)}`);
          return null;
        } finally {
          reconciling = null;
        }
      })();
      return reconciling;
    }

    /**
     * A reconciliation that lists redemptions after this moment: one under way may have listed
     * before the redemptions it is wanted for existed, so another follows it.
     */
    function reconcileFromNow(): Promise<ReconcileReport | null> {
      return reconciling ? reconciling.finally(() => reconcile()) : reconcile();
    }

    function armTimer(): void {
      if (stopped) return;
      timer = clock.schedule(() => {
        void reconcile().finally(armTimer);
      }, settings.redemptions.reconcileIntervalSeconds * 1000);
    }

    async function begin(): Promise<void> {
      await syncRewards();
      if (stopped) return;
      // Redemptions made while the host was down (or waited for a token) are finished before live ones are taken.
      await reconcile();
      if (stopped) return;
      listener = createRedemptionListener({
        apiClient: auth.apiClient,
        broadcasterId: auth.userId,
        url: twitch.eventsub.url,
        logger,
        ...(options.welcomeTimeoutMs === undefined ? {} : { welcomeTimeoutMs: options.welcomeTimeoutMs }),
        ...(options.maxRetryWaitMs === undefined ? {} : { maxRetryWaitMs: options.maxRetryWaitMs }),
        // Until a new token is taken over (onTokenReloaded restarts it), nothing can be subscribed.
        tokenRefused: () => auth.status().state === 'refresh-failed',
        onRedemption: (redemption) => {
          void pipeline.process(redemption);
        },
        // Anything sent while there was no subscription (a lost connection) is listed now.
        onSubscribed: () => {
          void reconcileFromNow();
        },
      });
      listener.start();
      armTimer();
      void retention.start();
      status.state = 'running';
      logger.info({ rewards: status.rewards.map((r) => `${r.rewardKey}:${r.action}`) }, 'channel-point redemptions are running');
    }
    const ready = begin();

    const redemptions: TwitchRedemptions = {
      status() {
        const snapshot = structuredClone(status);
        snapshot.auth = auth.status();
        snapshot.eventsub = listener?.status() ?? null;
        snapshot.counters = { ...pipeline.counters };
        const problems: string[] = [];
        if (snapshot.auth.error) problems.push(snapshot.auth.error);
        if (rewardSyncProblem !== null) problems.push(rewardSyncProblem);
        if (snapshot.eventsub?.subscription === 'revoked') problems.push(`Twitch revoked the redemption subscription (${snapshot.eventsub.revokedBecause})`);
        if (snapshot.eventsub?.subscription === 'failed') problems.push(`subscribing to redemptions failed: ${snapshot.eventsub.lastError}`);
        for (const reward of snapshot.rewards) {
          if (reward.action === 'not-owned' || reward.action === 'failed') problems.push(`reward "${reward.rewardKey}": ${reward.message}`);
        }
        snapshot.problem = problems.length > 0 ? problems.join('; ') : null;
        return snapshot;
      },
      reconcile,
      async stop() {
        if (stopped) return;
        stopped = true;
        timer?.cancel();
        const retentionStopped = retention.stop();
        auth.stop();
        listener?.stop();
        // The pipeline refuses new work at once and a reconciliation under way ends; the redemptions
        // under way get the pipeline's stop wait.
        const pipelineStopped = pipeline.stop();
        // A start under way ends at its next step (its failure is the starter's to report).
        await ready.catch(() => undefined);
        await reconciling;
        await pipelineStopped;
        await retentionStopped;
        await auth.flush();
        status.state = 'stopped';
        logger.info('channel-point redemptions stopped');
      },
    };
    return { redemptions, ready };
  }
}
