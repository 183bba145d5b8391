// Twitch chat through the real tmi.js client: joins the configured channels, turns tmi.js events
// into ChatTransport events, sends the bot's lines, and keeps the connection up.
//
// Reconnecting is done here, not by tmi.js (its `reconnect` option is off): tmi.js schedules its
// reconnect timers where nobody can cancel them, so a stop during a back-off would still open a
// new connection later and hold the process open. Here each wait is a timer stop() clears, the
// state is exact, and tmi.js still rejoins every channel when a new connection logs in. tmi.js
// checks a connection (PING) only once it has logged in, so a login watchdog here drops one that
// opens but never logs in; and tmi.js never reports a logged-in connection that died without
// closing, so the transport PINGs it itself and drops it when unanswered (connection-check.ts). The back-off starts again from its first delay only once a connection
// has stayed up a while (reconnect-attempts.ts), so a server that drops every new connection is
// retried ever more slowly, not every second. A channel Twitch parts the bot from is rejoined the
// same way (channel-joins.ts). What the connection hears in the channels is chat-events.ts's.
//
// The login token is asked of a token source before every (re)connect (chat-token-source.ts). A
// fixed twitch.bot.token refused is final. A token file's refused token is renewed (refreshed, or
// the newer one saved to the file taken) and the chat reconnects with it as after any drop, with
// back-off; only when it cannot be renewed, or the renewed one is refused too, does the chat give
// up, and then it connects again once a usable token is saved to the file (refused-login.ts).
// Twitch's chat keeps a logged-in connection up whatever becomes of its token, so while connected
// the token is checked as Twitch asks of a chatbot (hourly, at id.twitch.tv's /validate): a token
// file's expired one is renewed with the session kept; one Twitch revoked that cannot be renewed
// (and a fixed twitch.bot.token Twitch no longer accepts) ends the session, as Twitch asks, and the
// chat waits for a new token as after a refused login (a fixed token: until a restart). A fixed
// token is also checked before its first login (chat-token-source.ts).
//
// Lines are sent as one raw PRIVMSG each. tmi.js's own say() splits any line of 500 characters
// or more by itself (outside the reply queue's pacing, dropping a character where there is no
// space) and treats lines starting with "/" or "." as commands; the host has already split and
// paced its lines, so they go out exactly as given. (Twitch itself still reads a line starting with
// "/" or "." as a command: notices.ts pairs its refusal with the line.)
import type { Logger } from 'pino';
import type tmi from 'tmi.js';
import { createChatListeners } from '../chat-listeners.ts';
import { CHAT_MESSAGE_MAX_LENGTH, CONNECTION_LOST, normalizeChannel, TWITCH_CHAT_LIMITS } from '../../host/chat-transport.ts';
import type { ChatTransport } from '../../host/chat-transport.ts';
import { errorText } from '../../host/error-text.ts';
import { systemClock } from '../../host/clock.ts';
import { createChannelJoins } from './channel-joins.ts';
import { createChatEvents } from './chat-events.ts';
import { ConnectionCheck } from './connection-check.ts';
import { chatTokenSource } from './chat-token-source.ts';
import type { ChatTokenSource, TokenRenewal } from './chat-token-source.ts';
import { OwnLineEcho } from './own-line-echo.ts';
import { ReconnectAttempts } from './reconnect-attempts.ts';
import {
  isRefusedLogin, noLoginTokenMessage, refusedLoginMessage, refusedRenewedLoginMessage, revokedTokenMessage, unrenewableLoginMessage,
} from './refused-login.ts';
import { SendPause } from './send-pause.ts';
import { abandonTmiClient, disarmTmiClient, newTmiClient } from './tmi-client.ts';
import { ChatTokenError, TwitchChatError } from './twitch-chat-error.ts';
import { resolveTwitchChatOptions } from './twitch-chat-options.ts';
import type { TwitchChatOptions } from './twitch-chat-options.ts';

export { ChatTokenError, TwitchChatError } from './twitch-chat-error.ts';
export type { BotTokenFile, TwitchChatIdentity, TwitchChatOptions } from './twitch-chat-options.ts';

export type TwitchChatState = 'connecting' | 'connected' | 'reconnecting' | 'disconnected';

export interface TwitchChatStateChange {
  state: TwitchChatState;
  previous: TwitchChatState;
  /** Why (the drop's reason, the refused login); null for an ordinary change. */
  reason: string | null;
}

export interface TwitchChatTransport extends ChatTransport {
  readonly state: TwitchChatState;
  /** Why the chat gave up (a refused login, no token to log in with), null while it has not. */
  readonly lastError: string | null;
  /** Channels joined on the current connection. */
  readonly joinedChannels: readonly string[];
  /** Logged in as justinfan: reads chat, cannot send. */
  readonly anonymous: boolean;
  onStateChange(listener: (change: TwitchChatStateChange) => void): () => void;
  /**
   * Connects. Resolves on the first login; rejects with a TwitchChatError when the login is
   * refused for good (a fixed token: no retry; a token file's that cannot be renewed: it connects
   * again once a usable token is saved there) or stop() comes first. Meanwhile failed attempts
   * are retried with back-off, so do not block startup on it: the rest of chatskin works without it.
   */
  start(): Promise<void>;
  /** Disconnects and stops reconnecting; pending say() calls reject. Idempotent. */
  stop(): Promise<void>;
}

const TRANSPORT_NAME = 'twitch';
/** Longest wait for tmi.js to confirm a disconnect on stop. */
const STOP_WAIT_MS = 2_000;

export function createTwitchChatTransport(options: TwitchChatOptions, parentLogger: Logger): TwitchChatTransport {
  const logger = parentLogger.child({ transport: TRANSPORT_NAME });
  const {
    channels, identity, backoff, sendTimeoutMs, joinWatchMs, loginTimeoutMs, stableAfterMs, rateLimitPauseMs, pingIntervalMs, pingTimeoutMs,
  } = resolveTwitchChatOptions(options);
  const listeners = createChatListeners(logger);
  const stateListeners = new Set<(change: TwitchChatStateChange) => void>();
  const echo = new OwnLineEcho();
  const pause = new SendPause();
  const connectionAttempts = new ReconnectAttempts(backoff, stableAfterMs);
  const connectionCheck = new ConnectionCheck(pingIntervalMs, pingTimeoutMs);
  const where = `${options.server.secure ? 'wss' : 'ws'}://${options.server.host}:${options.server.port}`;
  const tokens: ChatTokenSource | null = identity === null ? null : chatTokenSource(identity, logger);

  let state: TwitchChatState = 'disconnected';
  let lastError: string | null = null;
  let client: tmi.Client | null = null;
  let reconnectTimer: NodeJS.Timeout | null = null;
  let loginTimer: NodeJS.Timeout | null = null;
  /** The token's regular check while connected (tokens.validateIntervalMs). */
  let tokenCheckTimer: NodeJS.Timeout | null = null;
  // Twitch sent RECONNECT: tmi.js reconnects by itself after that one drop.
  let serverAskedReconnect = false;
  let started: { promise: Promise<void>; resolve: () => void; reject: (error: Error) => void; settled: boolean } | null = null;
  let stopping = false;
  let stopPromise: Promise<void> | null = null;
  /** The token the current attempt logs in with (tmi.js asks for it at every login). */
  let loginToken = '';
  /** A renewed token has not logged in yet: Twitch refusing it too is final. */
  let renewedUnused = false;

  const joins = createChannelJoins({
    channels, backoff, stableAfterMs, sendTimeoutMs, joinWatchMs, logger,
    client: () => client,
    state: () => state,
    stopping: () => stopping,
    lastError: () => lastError,
  });

  const setState = (next: TwitchChatState, reason: string | null): void => {
    if (next === state) return;
    const change: TwitchChatStateChange = { state: next, previous: state, reason };
    state = next;
    for (const listener of [...stateListeners]) {
      try {
        listener(change);
      } catch (error) {
        logger.error({ err: error }, 'a Twitch chat state listener failed');
      }
    }
  };

  const settleStart = (error: Error | null): void => {
    if (!started || started.settled) return;
    started.settled = true;
    if (error) started.reject(error);
    else started.resolve();
  };

  const rejectWaiters = (error: Error): void => {
    joins.rejectWaiters(error);
    pause.cancel(error);
  };

  const scheduleReconnect = (reason: string): void => {
    if (reconnectTimer !== null) return;
    const { attempt, delayMs } = connectionAttempts.down(Date.now());
    logger.warn({ server: where, reason, attempt, delayMs }, `Twitch chat connection lost (${reason}): reconnecting in ${delayMs} ms`);
    setState('reconnecting', reason);
    reconnectTimer = setTimeout(() => {
      reconnectTimer = null;
      if (stopping || !client) return;
      if (client.readyState() !== 'CLOSED') return;
      logger.info({ server: where, attempt }, 'Twitch chat reconnecting');
      // A failure comes back as a `disconnected` event, which schedules the next attempt.
      connect(freshClient());
    }, delayMs);
  };

  /**
   * The next connection's client. tmi.js joins the channels of a login from a queue nobody can
   * stop, 600 ms apart, which runs on into whatever connection its client has next: the same
   * client reconnected during those joins would join channels twice, past the join pacing.
   */
  const freshClient = (): tmi.Client => {
    const previous = client;
    client = createClient();
    if (previous !== null) disarmTmiClient(previous);
    return client;
  };

  const stopLoginWatchdog = (): void => {
    if (loginTimer !== null) clearTimeout(loginTimer);
    loginTimer = null;
  };

  /** Gives up on the current connection (hung, or dead without closing) and reconnects after the back-off. */
  const abandonConnection = (reason: string): void => {
    const stuck = client;
    if (stopping || stuck === null) return;
    // Its socket may never finish closing (a hung server or a dead network sends no close frame
    // either), so a fresh client makes the next attempt and this one's events are ignored from now on.
    client = createClient();
    abandonTmiClient(stuck);
    serverAskedReconnect = false;
    stopLoginWatchdog();
    forgetConnection();
    scheduleReconnect(reason);
  };

  /** Drops the connection attempt if it has not logged in `waitMs` from now. */
  const startLoginWatchdog = (waitMs: number): void => {
    stopLoginWatchdog();
    loginTimer = setTimeout(() => {
      loginTimer = null;
      abandonConnection(`no login within ${loginTimeoutMs} ms`);
    }, waitMs);
  };

  const stopTokenCheck = (): void => {
    if (tokenCheckTimer !== null) clearInterval(tokenCheckTimer);
    tokenCheckTimer = null;
  };

  /** While this connection is up: checks the token every validateIntervalMs, and ends the session once Twitch revoked it. */
  const startTokenCheck = (): void => {
    stopTokenCheck();
    const every = tokens?.validateIntervalMs ?? null;
    if (tokens === null || every === null) return;
    const checked = client;
    tokenCheckTimer = setInterval(() => {
      tokens.validate().catch((error: unknown) => {
        if (stopping || checked !== client || state !== 'connected') return;
        if (error instanceof ChatTokenError && error.final) endSession(revokedTokenMessage(error.message));
        else logger.warn({ err: error }, `checking the bot's token failed: ${errorText(error)}`);
      });
    }, every);
  };

  /** Twitch no longer accepts the token of this session, for good: the session ends, and the chat waits for a new token. */
  const endSession = (message: string): void => {
    const ending = client;
    if (ending === null) return;
    // Its events are ignored from now on; a new token connects a fresh one (onNewToken).
    client = createClient();
    abandonTmiClient(ending);
    forgetConnection();
    giveUp(message, 'token revoked');
  };

  /** Cancels every wait planned: the next reconnect attempt, the login watchdog, the rejoins. */
  const stopTimers = (): void => {
    stopTokenCheck();
    connectionCheck.stop();
    if (reconnectTimer !== null) clearTimeout(reconnectTimer);
    reconnectTimer = null;
    stopLoginWatchdog();
    joins.stopRejoins();
  };

  /**
   * The connection is gone, and with it what was joined on it. The bot's lines Twitch had not
   * answered may never have reached it (a connection that died without a close is only noticed
   * at tmi.js's next ping, up to a minute later): they go back to the reply queue as refused, to
   * be sent again once chat is back (at least once: one Twitch took just before the drop may show
   * twice).
   */
  const forgetConnection = (): void => {
    stopTokenCheck();
    connectionCheck.stop();
    joins.forgetConnection();
    const unanswered = echo.clear();
    if (unanswered.length === 0) return;
    logger.warn({ lines: unanswered.length },
      `${unanswered.length} of the bot's lines got no answer from Twitch before the connection was lost: they are sent again once chat is back`);
    for (const { channel, text } of unanswered) {
      listeners.emit({ type: 'line-refused', channel, text, reason: CONNECTION_LOST, remedy: { kind: 'wait', ms: 0 } });
    }
  };

  /** Gives up for good: Twitch will refuse every further attempt too. */
  const fail = (message: string, reason: string): void => {
    lastError = message;
    logger.error({ server: where, reason }, message);
    stopTimers();
    setState('disconnected', message);
    const error = new TwitchChatError(message);
    settleStart(error);
    rejectWaiters(error);
  };

  /** Gives up for good, and with a token file waits for a usable token saved there. */
  const giveUp = (message: string, reason: string): void => {
    fail(message, reason);
    if (tokens?.renewable) tokens.awaitNewToken(onNewToken);
  };

  const onNewToken = (): void => {
    if (stopping || state !== 'disconnected') return;
    // Refused too, it would not be renewed: it is as fresh as a token gets.
    renewedUnused = true;
    logger.info({ server: where }, 'Twitch chat connecting again with the new bot token');
    setState('connecting', null);
    // The last client gave up on its connection: a fresh one starts clean.
    client = createClient();
    connect(client);
  };

  const connect = (current: tmi.Client): void => {
    if (tokens === null) {
      startLoginWatchdog(loginTimeoutMs);
      open(current);
      return;
    }
    // The login wait starts once the token is in hand: getting it (a fixed token's check at
    // id.twitch.tv before the first login, a token file's refresh) is bounded by
    // twitch.httpTimeoutSeconds on its own and says itself why it took long, which a login
    // watchdog firing in the middle of it would have put on the login instead.
    tokens.current().then((token) => {
      if (stopping || current !== client) return;
      loginToken = token;
      startLoginWatchdog(loginTimeoutMs);
      open(current);
    }, (error: unknown) => {
      if (stopping || current !== client) return;
      stopLoginWatchdog();
      giveUp(noLoginTokenMessage(errorText(error)), 'no usable token');
    });
  };

  /** Twitch refused a token file's token: a renewed one logs in after the back-off, as after a drop. */
  const renewToken = (reason: string): void => {
    const login = identity!.login;
    if (renewedUnused) {
      giveUp(refusedRenewedLoginMessage(reason, login), reason);
      return;
    }
    logger.warn({ server: where, reason }, `Twitch refused the bot's token (${reason}): renewing it`);
    setState('reconnecting', reason);
    tokens!.renew(loginToken).then((how: TokenRenewal) => {
      if (stopping) return;
      renewedUnused = true;
      scheduleReconnect(`Twitch refused the bot's token; logging in with the ${how === 'refreshed' ? 'refreshed' : 'new'} one`);
    }, (error: unknown) => {
      if (stopping) return;
      if (error instanceof ChatTokenError && error.final) giveUp(unrenewableLoginMessage(reason, login, error.message), reason);
      // The network or Twitch's 5xx: the next attempt is refused again and renews again.
      else scheduleReconnect(`Twitch refused the bot's token and renewing it failed: ${errorText(error)}`);
    });
  };

  const open = (current: tmi.Client): void => {
    current.connect().catch((reason: unknown) => {
      // tmi.js rejects with a reason string, and reports those through `disconnected` as well; an
      // Error is a connection that could not even be opened (a malformed server name).
      if (reason instanceof Error && !stopping && current === client) fail(`Twitch chat cannot connect to ${where}: ${reason.message}`, reason.message);
    });
  };

  const onDisconnected = (reason: string): void => {
    // tmi.js says "Unable to connect." for any close, also of a connection that was up.
    const wasUp = state === 'connected';
    forgetConnection();
    if (stopping) {
      setState('disconnected', null);
      return;
    }
    if (isRefusedLogin(reason)) {
      if (tokens?.renewable) {
        stopLoginWatchdog();
        renewToken(reason);
      } else {
        fail(refusedLoginMessage(reason, identity), reason);
      }
      return;
    }
    if (serverAskedReconnect) {
      serverAskedReconnect = false;
      logger.info({ server: where }, 'Twitch asked chat to reconnect');
      setState('reconnecting', 'Twitch asked to reconnect');
      // After the first delay, as tmi.js would, but with a fresh client (freshClient); its login
      // watchdog takes over from the one started at the RECONNECT.
      const next = freshClient();
      reconnectTimer = setTimeout(() => {
        reconnectTimer = null;
        if (!stopping && next === client) connect(next);
      }, backoff.initialDelayMs);
      return;
    }
    stopLoginWatchdog();
    scheduleReconnect(reason === '' || (wasUp && reason === 'Unable to connect.') ? 'the connection closed' : reason);
  };

  const onConnected = (): void => {
    if (stopping) return;
    stopLoginWatchdog();
    connectionAttempts.up(Date.now());
    const checked = client;
    connectionCheck.start(
      () => checked?.raw('PING').catch(() => {}),
      () => {
        if (checked === client) abandonConnection(`no answer to PING within ${pingTimeoutMs} ms`);
      },
    );
    renewedUnused = false;
    startTokenCheck();
    const wasReconnect = state === 'reconnecting';
    lastError = null;
    logger.info({ server: where, login: client?.getUsername(), anonymous: identity === null, channels },
      wasReconnect ? 'Twitch chat reconnected: rejoining channels' : 'Twitch chat connected');
    setState('connected', null);
    joins.watchJoins();
    settleStart(null);
  };

  const onReconnectAsked = (): void => {
    serverAskedReconnect = true;
    // tmi.js reconnects by itself after its wait; that attempt must log in in time too.
    startLoginWatchdog(backoff.initialDelayMs + loginTimeoutMs);
  };

  const chatEvents = createChatEvents({
    channels, identity, listeners, echo, pause, rateLimitPauseMs, logger, onReconnectAsked, joinRefused: joins.joinRefused,
    clock: options.clock ?? systemClock,
  });

  const createClient = (): tmi.Client => {
    const login = identity === null ? null : { username: identity.login, token: () => loginToken };
    const created = newTmiClient(options, login, channels, backoff.initialDelayMs, logger);
    // Events of a client the login watchdog gave up on are ignored.
    const live = <Args extends unknown[], Result>(handler: (...args: Args) => Result) => (...args: Args): Result | undefined =>
      (created === client ? handler(...args) : undefined);
    // A connection tmi.js opens after stop() or for a client given up on (its RECONNECT timer
    // cannot be cancelled) is closed at once.
    created.on('connecting', () => {
      if (stopping || created !== client) created.disconnect().catch(() => {});
    });
    created.on('connected', live(onConnected));
    // tmi.js's event for a PONG from Twitch: its own, and the connection check's.
    created.on('pong', live(() => connectionCheck.answered()));
    created.on('disconnected', live(onDisconnected));
    created.on('join', live(joins.onJoin));
    created.on('part', live(joins.onPart));
    chatEvents.attach(created, live);
    return created;
  };

  const transport: TwitchChatTransport = {
    name: TRANSPORT_NAME,
    channels,
    limits: options.limits ?? TWITCH_CHAT_LIMITS,
    anonymous: identity === null,

    get state() {
      return state;
    },
    get lastError() {
      return lastError;
    },
    get joinedChannels() {
      return joins.list();
    },

    subscribe: listeners.subscribe,

    onStateChange(listener) {
      stateListeners.add(listener);
      return () => {
        stateListeners.delete(listener);
      };
    },

    start() {
      if (stopping) return Promise.reject(new TwitchChatError('Twitch chat was stopped; create a new transport to connect again'));
      if (started) return started.promise;
      let resolve!: () => void;
      let reject!: (error: Error) => void;
      const promise = new Promise<void>((done, fail) => {
        resolve = done;
        reject = fail;
      });
      started = { promise, resolve, reject, settled: false };
      const tokenFile = identity !== null && 'tokenFile' in identity ? identity.tokenFile.path : undefined;
      logger.info({ server: where, login: identity?.login ?? null, channels, ...(tokenFile === undefined ? {} : { tokenFile }) }, identity === null
        ? 'Twitch chat connecting anonymously (read-only: no twitch.bot identity)'
        : 'Twitch chat connecting');
      setState('connecting', null);
      client = createClient();
      connect(client);
      return promise;
    },

    async say(rawChannel, text) {
      const channel = normalizeChannel(rawChannel);
      if (identity === null) {
        throw new TwitchChatError('Twitch chat is read-only: it logged in anonymously because no bot identity (twitch.bot.login and token) is set, so it cannot send');
      }
      if (!channels.includes(channel)) {
        throw new TwitchChatError(`Twitch chat does not serve #${channel} (it joins ${channels.map((name) => `#${name}`).join(', ')})`);
      }
      if (text.trim() === '' || /[\r\n\0]/.test(text)) {
        throw new TwitchChatError('Twitch chat sends one non-empty line: the text is empty or has a line break');
      }
      if (text.length > CHAT_MESSAGE_MAX_LENGTH) {
        throw new TwitchChatError(`Twitch chat messages are at most ${CHAT_MESSAGE_MAX_LENGTH} characters; this one has ${text.length}`);
      }
      await joins.waitFor(channel);
      while (pause.holding(Date.now())) {
        await pause.over(Date.now());
        // The connection may have dropped meanwhile.
        await joins.waitFor(channel);
      }
      const current = client;
      if (current === null) throw new TwitchChatError(`Twitch chat is stopped: the line to #${channel} was not sent`);
      try {
        await current.raw(`PRIVMSG #${channel} :${text}`);
      } catch (reason) {
        throw new TwitchChatError(`Twitch chat could not send to #${channel}: ${errorText(reason)}`);
      }
      echo.sent(channel, text, Date.now());
    },

    stop() {
      if (stopPromise) return stopPromise;
      stopping = true;
      stopPromise = (async () => {
        stopTimers();
        const error = new TwitchChatError('Twitch chat stopped');
        settleStart(error);
        rejectWaiters(error);
        const current = client;
        // Within tmi.js's wait after a RECONNECT, its timer would still connect it.
        if (current !== null) disarmTmiClient(current);
        if (current !== null && current.readyState() !== 'CLOSED') {
          await Promise.race([
            current.disconnect().catch(() => {}),
            new Promise((resolve) => setTimeout(resolve, STOP_WAIT_MS).unref()),
          ]);
        }
        forgetConnection();
        chatEvents.stop();
        // A refreshed token is still saved (Twitch may have replaced the refresh token), within reason.
        await Promise.race([tokens?.stop(), new Promise((resolve) => setTimeout(resolve, STOP_WAIT_MS).unref())]);
        setState('disconnected', null);
        logger.info({ server: where }, 'Twitch chat stopped');
      })();
      return stopPromise;
    },
  };
  return transport;
}
