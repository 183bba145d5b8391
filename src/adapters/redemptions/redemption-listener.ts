// Live redemptions through twurple's EventSub WebSocket listener, with its connection state kept
// in a status object and logged. twurple speaks the protocol: session_welcome (then it
// subscribes), session_keepalive (silence past the session's keepalive timeout counts as a lost
// connection: twurple drops the socket and opens a new session, even when the old socket is still
// open but nothing comes through any more), session_reconnect (it opens the reconnect_url and
// closes the old socket itself, same session, nothing lost) and revocation. A lost connection
// (not a session_reconnect) loses what Twitch sent meanwhile, so every time the subscription is
// made again `onSubscribed` fires and the host reconciles.
// twurple's keepalive timer only starts with session_welcome, and its connection has no handshake
// timeout: a socket that opens but is never welcomed (a stuck endpoint, a proxy that took the
// upgrade and stalls), or an upgrade request nobody answers, leaves it waiting for ever. A welcome
// watchdog here runs whenever the listener is not welcomed and measures how long twurple has been
// silent about its connection: `welcomeTimeoutMs` from start or from a socket opening, and that
// plus `maxRetryWaitMs` (the longest wait twurple puts between reconnect attempts) from a
// reported failed attempt. Past that, it connects afresh (as restart() does) and counts it in
// `welcomeTimeouts`. A refused attempt is reported, and twurple retries it by itself with a
// growing wait, so an endpoint that is down is not hammered.
import type { ApiClient } from '@twurple/api';
import { EventSubWsListener } from '@twurple/eventsub-ws';
import type { Logger } from 'pino';
import type { RedemptionStatus, TwitchRedemption } from '../../host/redemptions/channel-points.ts';
import { errorText } from '../../host/error-text.ts';
import { describeTwitchError } from '../twitch-auth/twitch-error.ts';
import { twurpleLoggerOptions } from './twurple-logger.ts';

export type EventSubConnectionState = 'stopped' | 'connecting' | 'connected' | 'disconnected';
export type EventSubSubscriptionState = 'none' | 'pending' | 'active' | 'failed' | 'revoked';

export interface EventSubStatus {
  /** connected: welcomed on a session; disconnected: lost, twurple is reconnecting. */
  state: EventSubConnectionState;
  sessionId: string | null;
  subscription: EventSubSubscriptionState;
  /** Sessions opened (a new session after a lost connection counts again). */
  sessions: number;
  /** session_reconnect handovers (same session, new socket). */
  handovers: number;
  /** Connections lost (keepalive missed, socket closed). */
  disconnects: number;
  /**
   * Times the welcome watchdog gave up on a connection that was not welcomed in time (a socket
   * opened and silent, or an attempt never answered); each time the listener connects afresh.
   */
  welcomeTimeouts: number;
  /** Notifications delivered to the pipeline. */
  notifications: number;
  /** Notifications twurple was sent twice (same message id), dropped. */
  duplicateMessages: number;
  lastError: string | null;
  /** Why Twitch revoked the subscription (authorization_revoked, user_removed, version_removed). */
  revokedBecause: string | null;
  /** ISO time of the last welcome. */
  lastWelcomeAt: string | null;
}

export interface RedemptionListenerOptions {
  apiClient: ApiClient;
  broadcasterId: string;
  /** EventSub WebSocket URL; null: Twitch's. Ignored by twurple when TWURPLE_MOCK_API_PORT is set. */
  url: string | null;
  logger: Logger;
  onRedemption(redemption: TwitchRedemption): void;
  /** The subscription was (re)created: notifications may have been lost before it. */
  onSubscribed(): void;
  /**
   * How long an open socket may wait for session_welcome (Twitch sends it at once), and a started
   * connection to open, before the listener connects afresh. Default 30 000.
   */
  welcomeTimeoutMs?: number;
  /** The longest wait twurple puts between two reconnect attempts. Default TWURPLE_MAX_RETRY_WAIT_MS. */
  maxRetryWaitMs?: number;
  /**
   * Whether Twitch refused to refresh the token, so that no subscription can be made until a new
   * one is taken over. A subscription that fails meanwhile closes the connection, and none is
   * opened until restart(): each new one would be closed by Twitch (4003, no subscription) and
   * opened again, for as long as nobody runs `chatskin twitch auth`.
   */
  tokenRefused?: () => boolean;
}

export interface RedemptionListener {
  start(): void;
  /**
   * Drops the connection and subscribes afresh on a new one (e.g. with a new token after Twitch
   * revoked the subscription, or after the connection was closed for a refused token); the
   * counters carry on. Only when started.
   */
  restart(): void;
  status(): EventSubStatus;
  stop(): void;
}

const MESSAGE_ID_MEMORY_MS = 10 * 60 * 1000;
export const DEFAULT_WELCOME_TIMEOUT_MS = 30_000;
/** twurple (@d-fischer/connection) waits 0, 1, 1, 2, 3, 5, ... seconds between reconnect attempts, at most 120. */
export const TWURPLE_MAX_RETRY_WAIT_MS = 120_000;

type HandleSingleEventPayload = EventSubWsListener['_handleSingleEventPayload'];
/** @twurple/eventsub-base's event class (not a direct dependency), by the handler's parameter. */
type EventSubChannelRedemptionAddEvent = Parameters<Parameters<EventSubWsListener['onChannelRedemptionAdd']>[1]>[0];

/**
 * twurple drops a repeated message id with a 10-minute timer per message that nothing clears, so
 * a stopped listener would hold the process open for 10 minutes. Same rule here, without timers:
 * ids are kept in arrival order and the stale ones dropped as new ones come.
 */
class EventSubWsListenerWithoutTimers extends EventSubWsListener {
  readonly #seen = new Map<string, number>();
  onDuplicateMessage: () => void = () => {};

  override _handleSingleEventPayload(...args: Parameters<HandleSingleEventPayload>): void {
    const [subscription, payload, messageId] = args;
    const now = Date.now();
    for (const [id, at] of this.#seen) {
      if (now - at < MESSAGE_ID_MEMORY_MS) break;
      this.#seen.delete(id);
    }
    if (this.#seen.has(messageId)) {
      this.onDuplicateMessage();
      return;
    }
    this.#seen.set(messageId, now);
    subscription._handleData(payload).catch((error: unknown) => {
      this._logger.error(`EventSub handler failed: ${errorText(error)}`);
    });
  }

  /** The sockets this listener had when first stopped: twurple's stop() forgets them. */
  #stoppedSockets: readonly RetiredSocket[] | null = null;

  /**
   * stop(), plus what twurple's stop() leaves behind:
   * - in the middle of a session_reconnect (the new socket open, its welcome not yet read), the
   *   old socket stays open and, once it closes, reconnects on its own; the keepalive timer stays
   *   armed;
   * - between two reconnect attempts (waiting after a failed one), the connection says it is
   *   neither connected nor connecting, so stop() leaves it alone and the next attempt still
   *   comes: a stopped listener would open a session later;
   * - an attempt twurple no longer keeps track of (a handover's connection still opening when
   *   a retry replaced it) stays bound to the connection, and when it ends, however late, the
   *   connection starts over, on the handover's dead reconnect_url, for ever.
   * All are ended here, through twurple's internals (guarded: absent fields are skipped): the
   * connection is disconnected and can never start an attempt again. Safe to call again.
   */
  stopCompletely(): void {
    const current = [...((this as unknown as { _sockets?: Map<string, unknown> })._sockets?.values() ?? [])] as RetiredSocket[];
    this.#stoppedSockets = [...new Set([...(this.#stoppedSockets ?? []), ...current])];
    this.stop();
    for (const socket of this.#stoppedSockets) {
      const connection = socket._connection;
      if (connection) {
        // No attempt of any kind from now on (a late close runs _reconnect, a retry timer _tryConnect).
        connection._startTryingToConnect = () => {};
        connection._tryConnect = () => {};
      }
      const previous = connection?._previousConnection;
      if (connection && previous) {
        connection._previousConnection = undefined;
        previous.disconnect();
      }
      connection?.disconnect?.();
      socket._clearKeepaliveTimer?.();
    }
  }
}

/** Whether one of twurple's sockets of `listener` has its connection open now. */
function hasOpenConnection(listener: EventSubWsListener): boolean {
  const sockets = (listener as unknown as { _sockets?: Map<string, { _connection?: { isConnected?: boolean } }> })._sockets;
  return [...(sockets?.values() ?? [])].some((socket) => socket._connection?.isConnected === true);
}

/** What stopCompletely reaches of a twurple EventSubWsSocket and its PersistentConnection. */
interface RetiredSocket {
  _connection?: {
    _previousConnection?: { disconnect(): void };
    disconnect?: () => void;
    _startTryingToConnect?: () => void;
    _tryConnect?: () => void;
  };
  _clearKeepaliveTimer?: () => void;
}

function redemptionOf(event: EventSubChannelRedemptionAddEvent): TwitchRedemption {
  return {
    id: event.id,
    rewardId: event.rewardId,
    broadcasterId: event.broadcasterId,
    user: { id: event.userId, login: event.userName, displayName: event.userDisplayName },
    input: event.input,
    redeemedAt: event.redemptionDate,
    status: redemptionStatusOf(event.status),
  };
}

/**
 * EventSub's `status` (lowercase: unfulfilled, fulfilled, canceled or unknown; `fulfilled` for a
 * reward that skips the request queue) in Helix's words.
 */
function redemptionStatusOf(status: string): RedemptionStatus {
  switch (status.toLowerCase()) {
    case 'unfulfilled': return 'UNFULFILLED';
    case 'fulfilled': return 'FULFILLED';
    case 'canceled': return 'CANCELED';
    default: return 'UNKNOWN';
  }
}

/**
 * Connections twurple may see closed in a row without a session_welcome before its own retries
 * are given up for a fresh connection: a session_reconnect whose connection was refused and
 * closed, or an endpoint that opens sockets and closes them at once.
 */
const UNWELCOMED_CLOSES_BEFORE_AFRESH = 3;

export function createRedemptionListener(options: RedemptionListenerOptions): RedemptionListener {
  const log = options.logger.child({ component: 'eventsub' });
  const status: EventSubStatus = {
    state: 'stopped', sessionId: null, subscription: 'none', sessions: 0, handovers: 0, disconnects: 0,
    welcomeTimeouts: 0, notifications: 0, duplicateMessages: 0, lastError: null, revokedBecause: null, lastWelcomeAt: null,
  };
  let listener: EventSubWsListenerWithoutTimers | null = null;
  const welcomeTimeoutMs = options.welcomeTimeoutMs ?? DEFAULT_WELCOME_TIMEOUT_MS;
  const maxRetryWaitMs = options.maxRetryWaitMs ?? TWURPLE_MAX_RETRY_WAIT_MS;
  /** Armed while `listener` is not welcomed; cleared on the welcome and by stop(). */
  let welcomeWatchdog: NodeJS.Timeout | null = null;
  /**
   * Sockets that opened and then closed since the last session_welcome (see
   * UNWELCOMED_CLOSES_BEFORE_AFRESH). A refused upgrade never opens, and twurple backs those off
   * by itself.
   */
  let unwelcomedCloses = 0;
  /** A socket is open and not yet welcomed: its close counts as an unwelcomed one. */
  let unwelcomedSocketOpen = false;
  /** A fresh connection waiting its turn after twurple's own retries were given up. */
  let afreshTimer: NodeJS.Timeout | null = null;
  /** Closed because the token is refused: no connection until restart(). */
  let parked = false;

  function clearWelcomeWatchdog(): void {
    if (welcomeWatchdog === null) return;
    clearTimeout(welcomeWatchdog);
    welcomeWatchdog = null;
  }

  /**
   * Gives `watched` `waitMs` more to be welcomed (replacing any earlier wait); past it, `why`
   * says what twurple was waiting for.
   */
  function armWelcomeWatchdog(watched: EventSubWsListenerWithoutTimers, waitMs: number, why: (seconds: number) => string): void {
    clearWelcomeWatchdog();
    welcomeWatchdog = setTimeout(() => {
      welcomeWatchdog = null;
      if (status.state === 'stopped' || watched !== listener) return;
      status.welcomeTimeouts++;
      status.lastError = why(waitMs / 1000);
      log.warn({ welcomeTimeouts: status.welcomeTimeouts },
        `EventSub connection not welcomed: ${status.lastError}; connecting afresh, and missed redemptions will be listed`);
      connectAfresh();
    }, waitMs);
  }

  /** A connection attempt starts now (start, connect afresh). */
  function watchNewConnection(watched: EventSubWsListenerWithoutTimers): void {
    armWelcomeWatchdog(watched, welcomeTimeoutMs, (seconds) => `no EventSub connection opened within ${seconds} s (the WebSocket upgrade was never answered)`);
  }

  /**
   * Ends twurple's retries now and connects afresh after `waitMs`. twurple keeps retrying the
   * reconnect_url of a handover that failed (it forgets it only on a welcome), and because each
   * such socket opens before Twitch closes it (4007), its back-off starts over every time: a loop
   * of thousands of connections a second. A fresh listener connects to the base URL instead.
   */
  function connectAfreshLater(waitMs: number): void {
    const retired = listener;
    // Not heard from again (every handler checks that its listener is the current one).
    listener = null;
    clearWelcomeWatchdog();
    // Called while twurple handles the close, before it schedules its next attempt: stopping it
    // now would be undone by that attempt, so it is stopped just after.
    setImmediate(() => retired?.stopCompletely());
    if (afreshTimer !== null) clearTimeout(afreshTimer);
    afreshTimer = setTimeout(() => {
      afreshTimer = null;
      if (status.state !== 'stopped') connectAfresh();
    }, waitMs);
  }

  /**
   * The token is refused, so no subscription can be made: closes the connection and opens none
   * until restart() (a new token). Called from twurple's subscription handling, so the listener is
   * stopped just after, as in connectAfreshLater.
   */
  function park(): void {
    const retired = listener;
    listener = null;
    parked = true;
    clearWelcomeWatchdog();
    if (afreshTimer !== null) clearTimeout(afreshTimer);
    afreshTimer = null;
    status.state = 'disconnected';
    status.sessionId = null;
    setImmediate(() => retired?.stopCompletely());
  }

  /** Drops the current listener (and its connection) and subscribes afresh on a new one. */
  function connectAfresh(): void {
    const previous = listener;
    clearWelcomeWatchdog();
    listener = build();
    previous?.stopCompletely();
    status.state = 'connecting';
    status.sessionId = null;
    status.subscription = 'none';
    listener.start();
    watchNewConnection(listener);
  }

  /**
   * Whether `created` is no longer the listener (replaced, or stopped); then it is stopped again.
   * One stop may not be the last word: a connection twurple had set going before it (the closes
   * of a failed handover each schedule the next attempt) can come back, so a replaced listener
   * that is heard from at all is stopped once more, just after twurple's own handling.
   */
  function quenchedIfReplaced(created: EventSubWsListenerWithoutTimers): boolean {
    if (created === listener) return false;
    setImmediate(() => created.stopCompletely());
    return true;
  }

  function build(): EventSubWsListenerWithoutTimers {
    const created = new EventSubWsListenerWithoutTimers({
      apiClient: options.apiClient,
      ...(options.url === null ? {} : { url: options.url }),
      logger: twurpleLoggerOptions(options.logger, 'error'),
    });
    created.onDuplicateMessage = () => {
      if (created !== listener) return;
      status.duplicateMessages++;
      log.debug('EventSub sent a message twice; the copy was dropped');
    };
    created.onUserSocketConnect(() => {
      // A listener already replaced by restart() (or stopped) is not heard any more.
      if (quenchedIfReplaced(created) || status.state === 'stopped') return;
      unwelcomedSocketOpen = true;
      log.debug('EventSub socket open, waiting for the welcome');
      armWelcomeWatchdog(created, welcomeTimeoutMs,
        (seconds) => `no session_welcome from Twitch within ${seconds} s of the connection opening (the endpoint accepted the WebSocket but sent nothing)`);
    });
    created.onUserSocketReady((_userId: string, sessionId: string) => {
      if (status.state === 'stopped' || created !== listener) return;
      clearWelcomeWatchdog();
      unwelcomedCloses = 0;
      // Welcomed: when this socket closes, it is not one of the closes that go nowhere.
      unwelcomedSocketOpen = false;
      status.lastWelcomeAt = new Date().toISOString();
      if (sessionId === status.sessionId && status.state === 'connected') {
        status.handovers++;
        log.info({ sessionId }, 'EventSub session moved to a new connection (session_reconnect); nothing was lost');
      } else {
        status.sessions++;
        status.subscription = 'pending';
        log.info({ sessionId, sessions: status.sessions }, 'EventSub connected (session_welcome)');
      }
      status.state = 'connected';
      status.sessionId = sessionId;
    });
    created.onUserSocketDisconnect((_userId: string, error?: Error) => {
      if (quenchedIfReplaced(created) || status.state === 'stopped') return;
      // twurple connects again on its own, after a wait of up to maxRetryWaitMs; each failed
      // attempt is reported here. Silence for longer than that is an attempt that hangs.
      armWelcomeWatchdog(created, welcomeTimeoutMs + maxRetryWaitMs,
        (seconds) => `no EventSub connection opened within ${seconds} s of the last failed attempt (twurple's reconnection hangs)`);
      status.state = 'disconnected';
      status.disconnects++;
      if (status.subscription === 'active') status.subscription = 'pending';
      // twurple gives no error only when its keepalive timer gave the socket up: nothing (not even a
      // session_keepalive) came within the session's keepalive_timeout_seconds (twurple waits 1.2 times it).
      status.lastError = error ? describeTwitchError(error).message : 'no message from Twitch within the session\'s keepalive timeout (the connection went silent)';
      if (unwelcomedSocketOpen) unwelcomedCloses++;
      unwelcomedSocketOpen = false;
      // 4007: Twitch refused the reconnect_url; repeated closes with no welcome: twurple's retries
      // go nowhere. Either way a fresh connection, after a wait that doubles each time, up to
      // twurple's own longest.
      if (/\b4007\b/.test(status.lastError) || unwelcomedCloses >= UNWELCOMED_CLOSES_BEFORE_AFRESH) {
        const waitMs = Math.min(maxRetryWaitMs, 1_000 * 2 ** Math.min(Math.max(unwelcomedCloses - 1, 0), 10));
        log.warn({ sessionId: status.sessionId, unwelcomedCloses },
          `EventSub connection lost: ${status.lastError}; connecting afresh in ${Math.round(waitMs / 1000)} s, and missed redemptions will be listed`);
        connectAfreshLater(waitMs);
        return;
      }
      log.warn({ sessionId: status.sessionId }, `EventSub connection lost: ${status.lastError}; reconnecting, and missed redemptions will be listed`);
      // Just after twurple's own handling: is its connection open after all? Then the "lost"
      // connection was the old socket of a handover twurple lost track of. It keeps one "reconnect
      // in progress" flag: a session_reconnect arriving on the new socket before the previous
      // handover's old socket has closed sets it again, and that close clears it, so the next
      // handover is taken for a new session (subscribed again: 409), and the close of its old
      // socket for the loss of the connection: twurple drops its subscriptions and its keepalive
      // timer, yet keeps the open socket and never reconnects. The listener would stay
      // `disconnected` until the watchdog (150 s), the notifications meanwhile dropped.
      setImmediate(() => {
        if (created !== listener || status.state !== 'disconnected' || !hasOpenConnection(created)) return;
        log.warn({ sessionId: status.sessionId }, 'EventSub: twurple reported the connection lost while its socket is open '
          + '(a session_reconnect came before the previous handover had closed its old socket); connecting afresh, and missed redemptions will be listed');
        connectAfresh();
      });
    });
    created.onSubscriptionCreateSuccess(() => {
      if (created !== listener) return;
      status.subscription = 'active';
      status.revokedBecause = null;
      log.info({ sessionId: status.sessionId }, 'subscribed to channel-point redemptions');
      options.onSubscribed();
    });
    created.onSubscriptionCreateFailure((_subscription: unknown, error: Error) => {
      if (created !== listener) return;
      status.subscription = 'failed';
      if (options.tokenRefused?.()) {
        status.lastError = 'the broadcaster\'s token is refused (Twitch refused to refresh it)';
        log.error(`subscribing to channel-point redemptions failed: ${status.lastError}; `
          + 'the EventSub connection stays closed until a new token is taken over, then missed redemptions are listed');
        park();
        return;
      }
      status.lastError = describeTwitchError(error).message;
      log.error(`subscribing to channel-point redemptions failed: ${status.lastError}; redemptions are only listed periodically`);
    });
    created.onRevoke((_subscription: unknown, reason: string) => {
      if (created !== listener) return;
      status.subscription = 'revoked';
      status.revokedBecause = reason;
      log.error({ reason }, `Twitch revoked the redemption subscription (${reason}); redemptions are only listed periodically`
        + (reason === 'authorization_revoked' ? '; the broadcaster withdrew the app\'s access: run `chatskin twitch auth` again' : ''));
    });
    created.onChannelRedemptionAdd(options.broadcasterId, (event) => {
      if (created !== listener) return;
      status.notifications++;
      options.onRedemption(redemptionOf(event));
    });
    return created;
  }

  return {
    start() {
      if (listener) return;
      status.state = 'connecting';
      listener = build();
      listener.start();
      watchNewConnection(listener);
    },
    restart() {
      if (!listener && !parked) return;
      parked = false;
      log.info('EventSub: connecting afresh to subscribe to channel-point redemptions again');
      connectAfresh();
    },
    status: () => ({ ...status }),
    stop() {
      clearWelcomeWatchdog();
      if (afreshTimer !== null) clearTimeout(afreshTimer);
      afreshTimer = null;
      parked = false;
      status.state = 'stopped';
      if (status.subscription !== 'revoked') status.subscription = 'none';
      listener?.stopCompletely();
      listener = null;
    },
  };
}
