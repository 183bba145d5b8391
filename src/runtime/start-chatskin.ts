// The composition root: one process with the overlay style service (API), the overlay page and
// its push socket on one HTTP server, and the bot host with its plugins and chat transports.
// Everything is built here and nowhere else, so the layers below stay unaware of each other.
import Fastify, { LogController } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from '../config/index.ts';
import { startTwitchRedemptions } from '../adapters/redemptions/index.ts';
import type { TwitchRedemptions } from '../adapters/redemptions/index.ts';
import { createOverlayClientFromConfig } from '../client/index.ts';
import type { OverlayStyleClient } from '../client/index.ts';
import { createHost } from '../host/index.ts';
import type { Clock, Host } from '../host/index.ts';
import { bindLedger } from '../host/redemptions/index.ts';
import { registerOverlayServer } from '../overlay/overlay-server.ts';
import {
  apiServerOptions, closeServer, limitConnectionsPerAddress, registerApi, registerHealthz, trustedProxyMatcher,
} from '../service/http/index.ts';
import type { PushGateway } from '../service/push/push-gateway.ts';
import { servicePushSource } from '../service/push/service-push-source.ts';
import type { StyleService } from '../service/style-service.ts';
import type { Account } from '../service/types.ts';
import { createChatTransports } from './chat-transports.ts';
import type { StartedTransports } from './chat-transports.ts';
import { lockStoreForHost } from './host-lock.ts';
import { openService } from './open-service.ts';
import { healthComponents } from './health-components.ts';
import { registerHomePage } from './home-page.ts';
import type { HealthParts } from './health-components.ts';
import { publicBaseUrl } from './public-url.ts';
import { serverErrorHandler, serverNotFoundHandler } from './server-error-handler.ts';

export interface RunningChatskin {
  /** http://HOST:PORT of the overlay and /healthz (overlay.publicUrl when set). */
  baseUrl: string;
  /** The spec's {base_url}. */
  apiUrl: string;
  port: number;
  account: Account;
  service: StyleService;
  gateway: PushGateway;
  host: Host;
  /** The plugins' `ctx.overlay`: the bundled service, or the remote one's HTTP client. */
  overlayClient: OverlayStyleClient;
  transports: StartedTransports;
  /** Channel-point redemptions (EventSub + Helix); idle, with the reason in its status, without Twitch. */
  redemptions: TwitchRedemptions;
  /** Graceful stop: no new chat, in-flight work finished, sockets and database closed. Idempotent: every call resolves once that stop is done. */
  close(): Promise<void>;
}

export interface StartOptions {
  logger: Logger;
  /** Where the local chat reads lines; default process.stdin when localChat.stdin is on. */
  stdin?: NodeJS.ReadableStream | null;
  /** Where the local chat writes bot replies; default process.stdout. */
  stdout?: { write(text: string): unknown };
  /** Time for cooldowns and reply pacing; tests pass a manual clock. Default: the system clock. */
  clock?: Clock;
}

export async function startChatskin(config: Config, options: StartOptions): Promise<RunningChatskin> {
  const { logger } = options;
  const lock = lockStoreForHost(config.store.path);
  let opened: Awaited<ReturnType<typeof openService>>;
  try {
    opened = await openService(config, { warmFonts: true });
  } catch (error) {
    lock.release();
    throw error;
  }
  const { service } = opened;
  // Run last first: the lock is let go once the database is closed.
  const cleanups: Array<() => Promise<unknown>> = [async () => lock.release(), () => opened.close()];
  const runCleanups = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) {
      await cleanup().catch((error: unknown) => logger.error({ err: error }, 'shutdown step failed'));
    }
  };
  try {
    const account = await service.ensureAccount(config.channel.login);

    const app = Fastify({
      ...apiServerOptions({
        logger: logger.child({ component: 'http' }), redirectErrors: config.api.redirectErrors, trustProxy: config.http.trustProxy, prefix: config.api.prefix,
      }),
      // One log line per request would drown the host's own logs; errors are logged by the
      // error handlers (the API's, the local routes', serverErrorHandler for the rest).
      logController: new LogController({ disableRequestLogging: true }),
    });
    app.setErrorHandler(serverErrorHandler);
    app.setNotFoundHandler(serverNotFoundHandler);
    // Filled in as the parts are built; /healthz reports those that exist.
    const parts: HealthParts = { store: opened.store };
    registerHealthz(app, () => healthComponents(parts));
    registerHomePage(app, { apiPrefix: config.api.prefix, localChat: config.localChat.enabled });
    registerApi(app, {
      operations: service,
      authenticate: (token) => service.authenticate(token),
      prefix: config.api.prefix,
      rateLimit: { perMinute: config.api.rateLimit.perMinute, failedAuthPerMinute: config.api.rateLimit.failedAuthPerMinute },
      bodyLimitBytes: config.api.bodyLimitBytes,
      edgeFilter: { blockedAgents: config.api.edgeFilter.blockedAgents },
      redirectErrors: config.api.redirectErrors,
    });
    const gateway = registerOverlayServer(app, servicePushSource(service), {
      // With the local chat off, no loopback-only chat route is served at all (docs/config.md).
      localChat: config.localChat.enabled,
      page: {
        maxMessages: config.overlay.maxMessages,
        emoteBaseUrl: config.overlay.emoteCdn,
        fontStylesheetBaseUrl: config.overlay.googleFontsCss,
      },
    });
    cleanups.push(() => closeServer(app));

    if (config.service.mode === 'remote') parts.remoteService = 'not-called-yet';
    const overlayClient = createOverlayClientFromConfig(config.service, {
      bundled: { operations: service, accountId: account.id }, logger: logger.child({ component: 'overlay-client' }),
      onAttempt: (state) => { parts.remoteService = state; },
    });
    // The host is made after the transports (it needs their list); the local chat reads no line
    // before transports.start(), by when it is there.
    let running: Host | null = null;
    const transports = createChatTransports(config, {
      logger, service, gateway, account, app,
      stdin: options.stdin, stdout: options.stdout ?? process.stdout,
      redeem: (redemption) => (running === null ? Promise.reject(new Error('the host is not running yet')) : running.handleRedemption(redemption)),
    });
    // Cleanups run last first: the host stops routing and lets running commands finish (their
    // replies still reach chat) before chat disconnects, then sockets and the database close.
    cleanups.push(() => transports.stop());
    parts.transports = transports;
    // A command from a chatter not registered yet waits for it, where the plugins use this service.
    // A redemption signs its viewer in as a chat line of theirs would, and its handler waits for
    // that likewise: a viewer who never chatted is one for the plugins too. With a remote service,
    // as for a command, nothing is waited for (it learns of its viewers by its own sign-in).
    const bundled = config.service.mode === 'bundled';
    const host = await createHost({
      config, logger, overlayClient, chatTransports: transports.list, clock: options.clock,
      beforeCommand: bundled ? transports.registeredFor : undefined,
      beforeRedemption: (user) => {
        const registering = transports.signInRedeemer(user);
        return bundled ? registering : undefined;
      },
    });
    cleanups.push(() => host.stop());
    parts.host = host;
    running = host;

    // Past this, Node closes a new connection at once: many idle or slow clients cannot use up the
    // process's open files, which the database and the chat connection need too.
    app.server.maxConnections = config.http.maxConnections;
    // Nor can one client take all of them; a trusted proxy's connections carry many clients.
    limitConnectionsPerAddress(app.server, {
      max: config.http.maxConnectionsPerAddress, exempt: trustedProxyMatcher(config.http.trustProxy),
    });
    await app.listen({ host: config.http.host, port: config.http.port });
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : config.http.port;
    // Chat is taken last, once every consumer of it is listening; it is stopped first.
    await transports.start();
    // After chat and plugins: its first catch-up may already fulfil redemptions and reply in chat.
    const redemptions = await startTwitchRedemptions({ config, host, ledger: bindLedger(service, account.id), logger });
    // The redemptions under way and the commands under way are waited for at once (each up to
    // 5 s), so the whole stop keeps within the process's 10 s shutdown deadline.
    cleanups.push(() => Promise.all([redemptions.stop(), host.drain()]));
    parts.redemptions = redemptions;

    const baseUrl = publicBaseUrl(config, port);
    // One stop, however many ask: a second caller (a signal during the stop an uncaught exception
    // began) found the steps already taken and resolved at once, and its exit cut the first short.
    let closing: Promise<void> | undefined;
    return {
      baseUrl, apiUrl: `${baseUrl}${config.api.prefix}`, port, account, service, gateway, host, overlayClient, transports, redemptions,
      close: () => (closing ??= runCleanups()),
    };
  } catch (error) {
    await runCleanups();
    throw error;
  }
}
