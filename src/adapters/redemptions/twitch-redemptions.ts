// Channel-point redemptions on Twitch, put together: the broadcaster's token (refreshed and saved),
// the managed rewards kept in step with the config, live redemptions over EventSub, the periodic
// listing of UNFULFILLED ones, and the pipeline that gives each one its effect once and its status
// (docs/redemptions.md). Without a token, or with Twitch off, it starts nothing and says why in
// its status; the rest of the host runs on.
import type { Logger } from 'pino';
import type { Config } from '../../config/config-schema.ts';
import { redemptionSettings } from '../../config/config-schema.ts';
import { systemClock } from '../../host/clock.ts';
import type { Clock, ScheduledTimer } from '../../host/clock.ts';
import type { Host } from '../../host/host.ts';
import { errorText } from '../../host/redemptions/channel-points.ts';
import { createLedgerRetention } from '../../host/redemptions/ledger-retention.ts';
import type { LedgerRetention } from '../../host/redemptions/ledger-retention.ts';
import type { ManagedRewardStore, RedemptionLedger, RedemptionLedgerRetention } from '../../host/redemptions/redemption-ledger.ts';
import { createRedemptionPipeline } from '../../host/redemptions/redemption-pipeline.ts';
import type { PipelineCounters, ReconcileReport, RedemptionPipeline } from '../../host/redemptions/redemption-pipeline.ts';
import { syncManagedRewards } from '../../host/redemptions/reward-sync.ts';
import type { RewardSyncEntry } from '../../host/redemptions/reward-sync.ts';
import { createBroadcasterAuth, REAUTHORIZE_HINT } from './broadcaster-auth.ts';
import type { BroadcasterAuth, BroadcasterAuthStatus } from './broadcaster-auth.ts';
import { createHelixChannelPoints } from './helix-channel-points.ts';
import { createRedemptionListener } from './redemption-listener.ts';
import type { EventSubStatus, RedemptionListener } from './redemption-listener.ts';
import { missingScopes } from './scopes.ts';
import { readBroadcasterToken } from './token-file.ts';
import { applyTwurpleMockPort } from './twitch-endpoints.ts';

export type RedemptionsState =
  /** Twitch or redemptions switched off in the config. */
  | 'off'
  /** No usable broadcaster token: `chatskin twitch auth` is needed. */
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
  host: Pick<Host, 'handleRedemption' | 'plugins'>;
  /** The service's ledger bound to the channel's account (`bindLedger(service, account.id)`). */
  ledger: RedemptionLedger & RedemptionLedgerRetention & ManagedRewardStore;
  logger: Logger;
  clock?: Clock;
  /** How often the token file is looked at for a token `chatskin twitch auth` saved meanwhile; default 5 000 ms. */
  tokenFileCheckMs?: number;
}

export interface TwitchRedemptions {
  status(): RedemptionsStatus;
  /** Finishes missed redemptions now (the timer does it every reconcileIntervalSeconds). */
  reconcile(): Promise<ReconcileReport | null>;
  /** Stops listening and the timer, waits for redemptions under way and saved tokens. Idempotent. */
  stop(): Promise<void>;
}

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
  const twitch = config.twitch;
  if (!twitch.enabled) return inert(status);
  const settings = redemptionSettings(twitch);
  if (!settings.redemptions.enabled) {
    logger.info('channel-point redemptions are switched off (twitch.redemptions.enabled: false)');
    return inert(status);
  }
  applyTwurpleMockPort(twitch.helix.mockServerPort);

  const needsAuth = (problem: string): TwitchRedemptions => {
    status.state = 'needs-auth';
    status.problem = problem;
    logger.warn(`channel-point redemptions are not running: ${problem}`);
    return inert(status);
  };
  const tokenFile = settings.broadcaster.tokenFile;
  let stored;
  try {
    stored = await readBroadcasterToken(tokenFile, {
      onLoosePermissions: (mode) => logger.warn({ tokenFile, mode: mode.toString(8) }, 'the token file was readable by others; its permissions are now 600'),
    });
  } catch (error) {
    return needsAuth(`${errorText(error)}`);
  }
  if (stored === null) return needsAuth(`there is no broadcaster token at ${tokenFile}: run \`chatskin twitch auth\`, then restart chatskin`);
  if (stored.clientId !== twitch.clientId) {
    return needsAuth(`the token in ${tokenFile} was issued to the client id ${stored.clientId}, not twitch.clientId; ${REAUTHORIZE_HINT}`);
  }
  if (stored.login !== config.channel.login) {
    return needsAuth(`the token in ${tokenFile} belongs to "${stored.login}", not the channel "${config.channel.login}"; ${REAUTHORIZE_HINT}`);
  }
  const missing = missingScopes(stored.scope);
  if (missing.length > 0) return needsAuth(`the token in ${tokenFile} lacks ${missing.join(', ')}; ${REAUTHORIZE_HINT}`);

  status.state = 'starting';
  const auth: BroadcasterAuth = createBroadcasterAuth({
    clientId: twitch.clientId, clientSecret: twitch.clientSecret, tokenFile, token: stored, logger, clock,
    ...(options.tokenFileCheckMs === undefined ? {} : { tokenFileCheckMs: options.tokenFileCheckMs }),
    // `chatskin twitch auth` ran while the host runs: carry on with the new token, no restart.
    // (Called asynchronously, after a look at the file: the variables below exist by then.)
    onTokenReloaded: () => {
      if (stopped) return;
      // A subscription Twitch revoked (the broadcaster withdrew the app's access) or that failed is made again.
      const subscription = listener?.status().subscription;
      if (subscription === 'revoked' || subscription === 'failed') listener?.restart();
      // Statuses owed and redemptions missed while the token was refused (after a listing under
      // way, which may have been refused too).
      if (reconciling) void reconciling.finally(() => void reconcile());
      else void reconcile();
    },
  });
  const channelPoints = createHelixChannelPoints(auth.apiClient, auth.userId);
  /** Twitch reward id -> reward key, of every reward the host manages (disabled ones too: their pending redemptions still count). */
  let rewardKeys = new Map<string, string>();
  const pipeline: RedemptionPipeline = createRedemptionPipeline({
    ledger,
    channelPoints,
    handle: (event) => host.handleRedemption(event),
    channel: config.channel.login,
    rewardKeyOf: (rewardId) => rewardKeys.get(rewardId),
    logger,
  });
  let rewardsSynced = false;
  let stopped = false;
  let timer: ScheduledTimer | null = null;
  let reconciling: Promise<ReconcileReport | null> | null = null;
  let listener: RedemptionListener | null = null;
  // Settled ledger rows older than ledgerRetentionDays: deleted at start, then hourly.
  const retention: LedgerRetention = createLedgerRetention({ ledger, retentionDays: settings.redemptions.ledgerRetentionDays, clock, logger });

  const handledKeys = (): Set<string> => new Set(host.plugins.filter((p) => p.state === 'running').flatMap((p) => p.rewards));

  async function syncRewards(): Promise<void> {
    try {
      status.rewards = await syncManagedRewards({
        rewards: settings.rewards, channelPoints, store: ledger, broadcasterId: auth.userId, logger,
      });
      rewardsSynced = true;
    } catch (error) {
      rewardsSynced = false;
      logger.error({ err: error }, `the channel-point rewards could not be synced (tried again at the next reconciliation): ${errorText(error)}`);
    }
    try {
      rewardKeys = new Map((await ledger.listManagedRewards()).map((reward) => [reward.twitchRewardId, reward.rewardKey]));
    } catch (error) {
      logger.error({ err: error }, `the managed rewards could not be read: ${errorText(error)}`);
    }
    const handled = handledKeys();
    status.unhandledRewardKeys = Object.keys(settings.rewards).filter((key) => !handled.has(key));
    for (const key of status.unhandledRewardKeys) {
      logger.warn({ rewardKey: key }, `no running plugin handles the reward "${key}": its redemptions will be refunded`);
    }
  }

  function reconcile(): Promise<ReconcileReport | null> {
    if (stopped) return Promise.resolve(null);
    reconciling ??= (async () => {
      try {
        if (!rewardsSynced) await syncRewards();
        const report = await pipeline.reconcile([...rewardKeys.keys()]);
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

  function armTimer(): void {
    if (stopped) return;
    timer = clock.schedule(() => {
      void reconcile().finally(armTimer);
    }, settings.redemptions.reconcileIntervalSeconds * 1000);
  }

  await syncRewards();
  // Redemptions made while the host was down are finished before live ones are taken.
  await reconcile();
  listener = createRedemptionListener({
    apiClient: auth.apiClient,
    broadcasterId: auth.userId,
    url: twitch.eventsub.url,
    logger,
    onRedemption: (redemption) => {
      void pipeline.process(redemption);
    },
    // Anything sent while there was no subscription (a lost connection) is listed now.
    onSubscribed: () => {
      void reconcile();
    },
  });
  listener.start();
  armTimer();
  void retention.start();
  status.state = 'running';
  logger.info({ rewards: status.rewards.map((r) => `${r.rewardKey}:${r.action}`) }, 'channel-point redemptions are running');

  return {
    status() {
      const snapshot = structuredClone(status);
      snapshot.auth = auth.status();
      snapshot.eventsub = listener?.status() ?? null;
      snapshot.counters = { ...pipeline.counters };
      const problems: string[] = [];
      if (snapshot.auth.error) problems.push(snapshot.auth.error);
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
      // The pipeline refuses new work at once; a reconciliation under way ends after its current redemptions.
      const pipelineStopped = pipeline.stop();
      await reconciling;
      await pipelineStopped;
      await retentionStopped;
      await auth.flush();
      status.state = 'stopped';
      logger.info('channel-point redemptions stopped');
    },
  };
}
