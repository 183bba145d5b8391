// One channel with channel-point rewards, end to end and all real: FakeHelix (Helix, id.twitch.tv
// and EventSub on one port) driven by the real twurple clients, the bundled service on a SQLite
// file, the real host with the built-in skin-shop plugin on a memory chat, and the redemption
// pipeline between them. `start()` starts (or, after `stop()`, restarts) the redemptions part on
// the same store, as a restarted process would; `stop()` is that process going down: what it left
// running (a handler past the stop's wait: the plugins are shared) can no longer write the ledger.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';
import { afterEach } from 'vitest';
import type { Clock } from '../../src/host/clock.ts';
import { startTwitchRedemptions } from '../../src/adapters/redemptions/twitch-redemptions.ts';
import type { TwitchRedemptions } from '../../src/adapters/redemptions/twitch-redemptions.ts';
import { writeTokenFile } from '../../src/adapters/twitch-auth/token-file.ts';
import type { StoredTwitchToken } from '../../src/adapters/twitch-auth/token-file.ts';
import { createInProcessClient } from '../../src/client/in-process-client.ts';
import type { OverlayStyleClient } from '../../src/client/overlay-style-client.ts';
import { parseConfig } from '../../src/config/load-config.ts';
import type { Config } from '../../src/config/config-schema.ts';
import { createHost } from '../../src/host/host.ts';
import type { Host } from '../../src/host/host.ts';
import { createMemoryChatTransport } from '../../src/host/memory-chat-transport.ts';
import type { MemoryChatTransport } from '../../src/host/memory-chat-transport.ts';
import { BUILT_IN_PLUGIN_DIR } from '../../src/host/plugin-loader.ts';
import { createViewerRegistrations } from '../../src/runtime/viewer-registrations.ts';
import { bindLedger } from '../../src/host/redemptions/redemption-ledger.ts';
import { applySeed } from '../../src/service/seed.ts';
import { openSqliteStore } from '../../src/service/store/sqlite-store.ts';
import type { SqliteStore } from '../../src/service/store/sqlite-store.ts';
import { createStyleService } from '../../src/service/style-service.ts';
import type { StyleService } from '../../src/service/style-service.ts';
import { DEFAULT_TEMPLATES_DIR, loadTemplates } from '../../src/service/settings/templates.ts';
import { FakeHelix } from '../fakes/fake-helix.ts';
import type { FakeHelixOptions, HelixUser, IssuedToken } from '../fakes/fake-helix.ts';
import { captureLogs } from '../host/log-capture.ts';
import type { LogEntry } from '../host/log-capture.ts';

export const CLIENT_ID = 'chatskinclientid';
export const CLIENT_SECRET = 'chatskinclientsecret';
export const CHANNEL = 'somechannel';
export const SCOPES = ['channel:read:redemptions', 'channel:manage:redemptions'];
const TEMPLATES = loadTemplates(DEFAULT_TEMPLATES_DIR);

export const NEON_REWARD = { title: 'Unlock the Neon skin', cost: 500, prompt: 'Unlocks Neon for your messages' };

export interface WorldOptions {
  /** twitch.rewards (default: unlock-neon, unlock-retired, unlock-ghost). */
  rewards?: Record<string, Record<string, unknown>>;
  /** plugins.skin-shop settings (default: the three rewards -> neon, retired, ghost). */
  skinShop?: Record<string, unknown>;
  /** More plugins beside skin-shop (config `plugins:` entries), found in `pluginDirs`. */
  extraPlugins?: Record<string, Record<string, unknown>>;
  /** Config `pluginDirs` (folders of plugins that are not built in). */
  pluginDirs?: string[];
  helix?: FakeHelixOptions;
  /** Wraps the overlay client the plugins get (to count or fail calls). */
  overlayClient?: (client: OverlayStyleClient) => OverlayStyleClient;
  /** Seconds between reconciliations (the timer); default one hour, so tests trigger them. */
  reconcileIntervalSeconds?: number;
  /** twitch.redemptions.ledgerRetentionDays (default: the config's, 30). */
  ledgerRetentionDays?: number;
  /** Default: every line (debug) kept in `logs`. */
  logger?: Logger;
  /** How often the host looks at its token file, in ms (default: tokenFileCheckSeconds). */
  tokenFileCheckMs?: number;
  /** twitch.redemptions.tokenFileCheckSeconds (default: the config's, 5). */
  tokenFileCheckSeconds?: number;
  /** The clock of the redemptions part's timers (default: the system's). */
  clock?: Clock;
  /** How long an EventSub connection may stay unwelcomed (default: the host's, 30 s). */
  welcomeTimeoutMs?: number;
  maxRetryWaitMs?: number;
  /** How long a reconciliation waits for one redemption's handler (default: the pipeline's, 30 s). */
  handlerWaitMs?: number;
  /** How long a stop waits for the redemptions under way (default: the pipeline's, 5 s). */
  stopWaitMs?: number;
  /** twitch.httpTimeoutSeconds (default: the config's, 30). */
  httpTimeoutSeconds?: number;
  /** How long a store write waits for another program's write lock (default: the store's, 5 s). */
  busyTimeoutMs?: number;
}

export interface UnlockCall {
  viewerId: string;
  skinId: number;
  created: boolean | null;
}

export interface RedemptionWorld {
  helix: FakeHelix;
  broadcaster: HelixUser;
  token: IssuedToken;
  dir: string;
  tokenFile: string;
  store: SqliteStore;
  service: StyleService;
  accountId: number;
  skinIds: Record<string, number>;
  chat: MemoryChatTransport;
  host: Host;
  logs: LogEntry[];
  logger: Logger;
  /** Every unlockSkin call the plugins made, with what it answered (null: it failed). */
  unlocks: UnlockCall[];
  config: Config;
  /** The running redemptions part (after start()). */
  redemptions: TwitchRedemptions | null;
  start(configChanges?: { rewards?: Record<string, Record<string, unknown>> }): Promise<TwitchRedemptions>;
  /**
   * Waits until the listener is connected with its EventSub subscription active, then reconciles.
   * `timeoutMs` (default 10 s) bounds the wait for the subscription.
   */
  settled(options?: { timeoutMs?: number }): Promise<void>;
  /** Stops the redemptions part only (the "process" going down). */
  stop(): Promise<void>;
  /** The Twitch reward id the host manages for a reward key. */
  rewardId(rewardKey: string): Promise<string>;
  said(): string[];
  close(): Promise<void>;
}

export const DEFAULT_REWARDS = {
  'unlock-neon': NEON_REWARD,
  'unlock-retired': { title: 'Unlock the Retired skin', cost: 300 },
  'unlock-ghost': { title: 'Unlock a skin that is not there', cost: 100 },
};

export const DEFAULT_SKIN_SHOP = {
  rewards: { 'unlock-neon': 'neon', 'unlock-retired': 'retired', 'unlock-ghost': 'ghost' },
  retryDelayMs: 0,
};

/** Polls `check` every few milliseconds; the timeout only guards against a hung test. */
export async function waitUntil(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function countingClient(client: OverlayStyleClient, unlocks: UnlockCall[]): OverlayStyleClient {
  return {
    ...client,
    async unlockSkin(request) {
      const call: UnlockCall = { viewerId: String(request.twitch_user_id ?? request.twitch_username), skinId: request.skin_id, created: null };
      unlocks.push(call);
      const result = await client.unlockSkin(request);
      call.created = result.created;
      return result;
    },
  };
}

/**
 * For a test file: `running(options?)` opens a world, starts it and waits until it has settled;
 * every world opened so is closed after each test.
 */
export function useRunningRedemptionWorlds(): (options?: WorldOptions) => Promise<RedemptionWorld> {
  const worlds: RedemptionWorld[] = [];
  afterEach(async () => {
    for (const world of worlds.splice(0)) await world.close();
  });
  return async (options = {}) => {
    const world = await openRedemptionWorld(options);
    worlds.push(world);
    await world.start();
    await world.settled();
    return world;
  };
}

export async function openRedemptionWorld(options: WorldOptions = {}): Promise<RedemptionWorld> {
  const previousMockPort = process.env['TWURPLE_MOCK_API_PORT'];
  const helix = await FakeHelix.start(options.helix);
  helix.registerClient(CLIENT_ID, CLIENT_SECRET);
  const broadcaster = helix.addUser({ login: CHANNEL });
  const token = helix.issueUserToken({ clientId: CLIENT_ID, userId: broadcaster.id, scopes: SCOPES });
  const dir = mkdtempSync(path.join(tmpdir(), 'chatskin-redemptions-'));
  const tokenFile = path.join(dir, 'twitch', 'broadcaster-token.json');
  const stored: StoredTwitchToken = {
    version: 1, clientId: CLIENT_ID, userId: broadcaster.id, login: CHANNEL, accessToken: token.accessToken,
    refreshToken: token.refreshToken!, scope: token.scope, expiresIn: token.expiresIn, obtainmentTimestamp: token.obtainmentTimestamp,
  };
  await writeTokenFile(tokenFile, stored);

  const store = openSqliteStore({ path: path.join(dir, 'chatskin.db'), ...(options.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: options.busyTimeoutMs }) });
  const service = await createStyleService({ store, templates: TEMPLATES });
  const seeded = await applySeed(service, {
    accounts: [{
      login: CHANNEL,
      premium: true,
      overlays: [{ name: 'Main', template: 'bubbles', default: true, values: {} }],
      skins: [
        { slug: 'neon', name: 'Neon', template: 'bubbles', availability: 'purchase', values: { 'bubble.background-color': '#ff00ff' } },
        { slug: 'retired', name: 'Retired', template: 'bubbles', availability: 'purchase', active: false, values: {} },
      ],
    }],
  });
  const accountId = seeded.accounts[CHANNEL]!.id;
  const unlocks: UnlockCall[] = [];
  const inProcess = createInProcessClient(service, accountId);
  const overlayClient = countingClient(options.overlayClient ? options.overlayClient(inProcess) : inProcess, unlocks);

  const baseConfig = (rewards: Record<string, Record<string, unknown>>): Config => parseConfig({
    channel: { login: CHANNEL },
    twitch: {
      enabled: true,
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      bot: { login: 'chatskinbot', token: 'oauth:unused' },
      helix: { mockServerPort: helix.port },
      ...(options.httpTimeoutSeconds === undefined ? {} : { httpTimeoutSeconds: options.httpTimeoutSeconds }),
      broadcaster: { tokenFile },
      redemptions: {
        reconcileIntervalSeconds: options.reconcileIntervalSeconds ?? 3600,
        ...(options.ledgerRetentionDays === undefined ? {} : { ledgerRetentionDays: options.ledgerRetentionDays }),
        ...(options.tokenFileCheckSeconds === undefined ? {} : { tokenFileCheckSeconds: options.tokenFileCheckSeconds }),
      },
      rewards,
    },
    ...(options.pluginDirs === undefined ? {} : { pluginDirs: options.pluginDirs }),
    plugins: { 'skin-shop': options.skinShop ?? DEFAULT_SKIN_SHOP, ...options.extraPlugins },
  });
  let config = baseConfig(options.rewards ?? DEFAULT_REWARDS);
  const captured = captureLogs([CLIENT_SECRET]);
  const logger = options.logger ?? captured.logger;
  const entries = captured.entries;
  const chat = createMemoryChatTransport({ channels: [CHANNEL] });
  // As chatskin's start does (src/runtime/start-chatskin.ts): the viewer who redeemed is signed in
  // to the bundled service, as a chat line of theirs would, before the handler runs.
  const signIn = createViewerRegistrations({ service, logger });
  const host = await createHost({
    config, logger, overlayClient, chatTransports: [chat], builtInPluginDir: BUILT_IN_PLUGIN_DIR,
    beforeRedemption: (user) => signIn.redeemer(user),
  });
  const ledger = bindLedger(service, accountId);
  /** The running redemptions part's ledger: its own, closed once it stopped (see stop()). */
  let ended: (() => void) | null = null;
  const ledgerUntilStopped = (): typeof ledger => {
    let open = true;
    ended = () => { open = false; };
    const gated = {} as Record<string, unknown>;
    for (const [name, operation] of Object.entries(ledger) as Array<[string, (...args: unknown[]) => Promise<unknown>]>) {
      gated[name] = (...args: unknown[]) => (open
        ? operation(...args)
        : Promise.reject(new Error('the stopped host process can no longer write its ledger')));
    }
    return gated as unknown as typeof ledger;
  };

  const world: RedemptionWorld = {
    helix, broadcaster, token, dir, tokenFile, store, service, accountId,
    skinIds: seeded.accounts[CHANNEL]!.skins, chat, host, logs: entries, logger, unlocks, config,
    redemptions: null,
    async start(configChanges = {}) {
      if (configChanges.rewards) {
        config = baseConfig(configChanges.rewards);
        world.config = config;
      }
      world.redemptions = await startTwitchRedemptions({
        config, host, ledger: ledgerUntilStopped(), logger,
        ...(options.clock === undefined ? {} : { clock: options.clock }),
        ...(options.tokenFileCheckMs === undefined ? {} : { tokenFileCheckMs: options.tokenFileCheckMs }),
        ...(options.welcomeTimeoutMs === undefined ? {} : { welcomeTimeoutMs: options.welcomeTimeoutMs }),
        ...(options.maxRetryWaitMs === undefined ? {} : { maxRetryWaitMs: options.maxRetryWaitMs }),
        ...(options.handlerWaitMs === undefined ? {} : { handlerWaitMs: options.handlerWaitMs }),
        ...(options.stopWaitMs === undefined ? {} : { stopWaitMs: options.stopWaitMs }),
      });
      return world.redemptions;
    },
    async settled(settleOptions = {}) {
      const redemptions = world.redemptions;
      if (!redemptions) throw new Error('start() first');
      await helix.eventSub.waitForSubscription('channel.channel_points_custom_reward_redemption.add',
        { userId: broadcaster.id, ...(settleOptions.timeoutMs === undefined ? {} : { timeoutMs: settleOptions.timeoutMs }) });
      await waitUntil(() => redemptions.status().eventsub?.subscription === 'active' && redemptions.status().eventsub?.state === 'connected',
        'the EventSub subscription to be active', settleOptions.timeoutMs)
        .catch((error: unknown) => {
          throw new Error(`${(error as Error).message} (eventsub: ${JSON.stringify(redemptions.status().eventsub)})`);
        });
      await redemptions.reconcile();
    },
    async stop() {
      await world.redemptions?.stop();
      // The process is gone: a handler the stop left running (the plugins, shared by every start
      // here, go on) can no longer record its outcome, nor so send a status, beside the next
      // start's run, or, once the world is closed, to the next world's FakeHelix
      // (TWURPLE_MOCK_API_PORT is process-wide and twurple reads it at every try).
      ended?.();
      ended = null;
      world.redemptions = null;
    },
    async rewardId(rewardKey) {
      const found = (await service.listManagedRewards(accountId)).find((reward) => reward.rewardKey === rewardKey);
      if (!found) throw new Error(`no managed reward ${rewardKey}`);
      return found.twitchRewardId;
    },
    said: () => chat.sent.map((line) => line.text),
    async close() {
      await world.stop();
      await host.stop();
      await signIn.stop();
      await helix.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
      if (previousMockPort === undefined) delete process.env['TWURPLE_MOCK_API_PORT'];
      else process.env['TWURPLE_MOCK_API_PORT'] = previousMockPort;
    },
  };
  return world;
}
