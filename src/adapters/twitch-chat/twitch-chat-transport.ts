// Twitch chat through the real tmi.js client: joins the configured channels, turns tmi.js events
// into ChatTransport events, sends the bot's lines, and keeps the connection up.
//
// Reconnecting is done here, not by tmi.js (its `reconnect` option is off): tmi.js schedules its
// reconnect timers where nobody can cancel them, so a stop during a back-off would still open a
// new connection later and hold the process open. Here each wait is a timer stop() clears, the
// state is exact, and tmi.js still rejoins every channel when a new connection logs in. tmi.js
// checks a connection (PING) only once it has logged in, so a login watchdog here drops one that
// opens but never logs in. The back-off starts again from its first delay only once a connection
// has stayed up a while (reconnect-attempts.ts), so a server that drops every new connection is
// retried ever more slowly, not every second. A channel Twitch parts the bot from is rejoined the
// same way.
//
// Lines are sent as one raw PRIVMSG each. tmi.js's own say() splits any line of 500 characters
// or more by itself (outside the reply queue's pacing, dropping a character where there is no
// space) and treats lines starting with "/" or "." as commands; the host has already split and
// paced its lines, so they go out exactly as given.
import type { Logger } from 'pino';
import tmi from 'tmi.js';
import { createChatListeners } from '../chat-listeners.ts';
import { CHAT_MESSAGE_MAX_LENGTH, normalizeChannel, TWITCH_CHAT_LIMITS } from '../../host/chat-transport.ts';
import type { ChatRateLimits, ChatTags, ChatTransport } from '../../host/chat-transport.ts';
import { OwnLineEcho } from './own-line-echo.ts';
import { ReconnectAttempts } from './reconnect-attempts.ts';
import { refusalRemedy } from './refusal-remedy.ts';
import { resolveReconnectBackoff } from './reconnect-backoff.ts';
import type { ReconnectBackoff } from './reconnect-backoff.ts';
import { SendPause } from './send-pause.ts';

export type TwitchChatState = 'connecting' | 'connected' | 'reconnecting' | 'disconnected';

export interface TwitchChatIdentity {
  /** The bot account's login. */
  login: string;
  /** Its user access token (scopes chat:read and chat:edit), with or without "oauth:". */
  token: string;
}

export interface TwitchChatOptions {
  /** Channel logins to join (with or without "#", any case). */
  channels: readonly string[];
  /** null: log in anonymously (justinfan), read-only; say() is refused. */
  identity: TwitchChatIdentity | null;
  /** The chat server (config `twitch.chat`). tmi.js uses wss on port 443 only, ws elsewhere. */
  server: { host: string; port: number; secure: boolean };
  reconnect?: Partial<ReconnectBackoff>;
  /** How long say() waits for the channel to be (re)joined before it rejects. Default 10 s. */
  sendTimeoutMs?: number;
  /** Least time between two channel joins (Twitch allows 20 joins per 10 s). Default 600 ms. */
  joinIntervalMs?: number;
  /** How long a connection attempt may take to log in before it is dropped and retried. Default 20 s. */
  loginTimeoutMs?: number;
  /**
   * How long a connection (or a channel) must have stayed up for the next drop to be retried
   * from the back-off's first delay again. Default 30 s.
   */
  stableAfterMs?: number;
  /** How long every line is held after Twitch says the bot sends too fast (msg_ratelimit). Default 30 s. */
  rateLimitPauseMs?: number;
  limits?: ChatRateLimits;
}

export interface TwitchChatStateChange {
  state: TwitchChatState;
  previous: TwitchChatState;
  /** Why (the drop's reason, the refused login); null for an ordinary change. */
  reason: string | null;
}

export interface TwitchChatTransport extends ChatTransport {
  readonly state: TwitchChatState;
  /** Why the chat gave up (a refused login), null while it has not. */
  readonly lastError: string | null;
  /** Channels joined on the current connection. */
  readonly joinedChannels: readonly string[];
  /** Logged in as justinfan: reads chat, cannot send. */
  readonly anonymous: boolean;
  onStateChange(listener: (change: TwitchChatStateChange) => void): () => void;
  /**
   * Connects. Resolves on the first login; rejects with a TwitchChatError when the login is
   * refused (that is final: no retry) or stop() comes first. Meanwhile failed attempts are
   * retried with back-off, so do not block startup on it: the rest of chatskin works without it.
   */
  start(): Promise<void>;
  /** Disconnects and stops reconnecting; pending say() calls reject. Idempotent. */
  stop(): Promise<void>;
}

export class TwitchChatError extends Error {
  override name = 'TwitchChatError';
}

const TRANSPORT_NAME = 'twitch';
const CHANNEL_LOGIN = /^[a-z0-9_]{1,25}$/;
/** tmi.js reasons after which Twitch will refuse every further attempt too. */
const REFUSED_LOGIN = ['Login authentication failed', 'Login unsuccessful', 'Error logging in', 'Improperly formatted auth', 'Invalid NICK'];
/** Longest wait for tmi.js to confirm a disconnect on stop. */
const STOP_WAIT_MS = 2_000;

interface ChannelWaiter {
  channel: string;
  resolve: () => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

/**
 * Calls `tap` with each line tmi.js parsed, just before tmi.js handles it (tags still as sent).
 * Not tmi.js's 'raw_message' event: for that one it deep-copies every line through a JSON round
 * trip, which cost more than all the rest of the host's work on a chat line (bench:chat). tmi.js
 * (1.8, pinned) hands each line to `this.handleMessage`, so wrapping it on the instance sees
 * the same line; the transport tests fail if that ever stops being so.
 */
function tapParsedLines(client: tmi.Client, tap: (message: RawIrcMessage) => void): void {
  const target = client as unknown as { handleMessage(message: RawIrcMessage): unknown };
  const handle = target.handleMessage;
  if (typeof handle !== 'function') throw new Error('This tmi.js has no handleMessage: USERSTATE and NOTICE could not be read.');
  target.handleMessage = function (this: unknown, message: RawIrcMessage) {
    if (message) tap(message);
    return handle.call(this, message);
  };
}

/** A line as tmi.js parsed it (tags still as sent). */
interface RawIrcMessage {
  command: string;
  params: string[];
  tags: Record<string, unknown>;
}

export function createTwitchChatTransport(options: TwitchChatOptions, parentLogger: Logger): TwitchChatTransport {
  const logger = parentLogger.child({ transport: TRANSPORT_NAME });
  const channels = [...new Set(options.channels.map(normalizeChannel))];
  checkOptions(options, channels);
  const backoff = resolveReconnectBackoff(options.reconnect);
  const sendTimeoutMs = options.sendTimeoutMs ?? 10_000;
  const loginTimeoutMs = options.loginTimeoutMs ?? 20_000;
  const stableAfterMs = options.stableAfterMs ?? 30_000;
  const rateLimitPauseMs = options.rateLimitPauseMs ?? 30_000;
  const identity = options.identity === null ? null : { login: options.identity.login.toLowerCase(), token: options.identity.token };
  const listeners = createChatListeners(logger);
  const stateListeners = new Set<(change: TwitchChatStateChange) => void>();
  const joined = new Set<string>();
  const roomIds = new Map<string, string>();
  const echo = new OwnLineEcho();
  const channelWaiters = new Set<ChannelWaiter>();
  const pause = new SendPause();
  const connectionAttempts = new ReconnectAttempts(backoff, stableAfterMs);
  const channelAttempts = new Map(channels.map((channel) => [channel, new ReconnectAttempts(backoff, stableAfterMs)]));
  const rejoinTimers = new Map<string, NodeJS.Timeout>();
  const where = `${options.server.secure ? 'wss' : 'ws'}://${options.server.host}:${options.server.port}`;

  let state: TwitchChatState = 'disconnected';
  let lastError: string | null = null;
  let client: tmi.Client | null = null;
  let botUserId: string | null = null;
  let reconnectTimer: NodeJS.Timeout | null = null;
  let loginTimer: NodeJS.Timeout | null = null;
  // Twitch sent RECONNECT: tmi.js reconnects by itself after that one drop.
  let serverAskedReconnect = false;
  let started: { promise: Promise<void>; resolve: () => void; reject: (error: Error) => void; settled: boolean } | null = null;
  let stopping = false;
  let stopPromise: Promise<void> | null = null;

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
    for (const waiter of [...channelWaiters]) {
      clearTimeout(waiter.timer);
      channelWaiters.delete(waiter);
      waiter.reject(error);
    }
    pause.cancel(error);
  };

  const waitForChannel = (channel: string): Promise<void> => {
    if (state === 'connected' && joined.has(channel)) return Promise.resolve();
    if (stopping) return Promise.reject(new TwitchChatError(`Twitch chat is stopped: the line to #${channel} was not sent`));
    if (state === 'disconnected') {
      const why = lastError ?? 'it was not started';
      return Promise.reject(new TwitchChatError(`Twitch chat is disconnected (${why}): the line to #${channel} was not sent`));
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: ChannelWaiter = {
        channel,
        resolve,
        reject,
        timer: setTimeout(() => {
          channelWaiters.delete(waiter);
          reject(new TwitchChatError(`Twitch chat did not join #${channel} within ${sendTimeoutMs} ms (state: ${state}): the line was not sent`));
        }, sendTimeoutMs),
      };
      channelWaiters.add(waiter);
    });
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
      connect(client);
    }, delayMs);
  };

  const stopLoginWatchdog = (): void => {
    if (loginTimer !== null) clearTimeout(loginTimer);
    loginTimer = null;
  };

  /** Drops the connection attempt if it has not logged in `waitMs` from now. */
  const startLoginWatchdog = (waitMs: number): void => {
    stopLoginWatchdog();
    loginTimer = setTimeout(() => {
      loginTimer = null;
      const stuck = client;
      if (stopping || stuck === null) return;
      // Its socket may never finish closing (a hung server sends no close frame either), so a
      // fresh client makes the next attempt and this one's events are ignored from now on.
      client = createClient();
      stuck.disconnect().catch(() => {});
      serverAskedReconnect = false;
      forgetConnection();
      scheduleReconnect(`no login within ${loginTimeoutMs} ms`);
    }, waitMs);
  };

  const stopRejoins = (): void => {
    for (const timer of rejoinTimers.values()) clearTimeout(timer);
    rejoinTimers.clear();
  };

  /** The connection is gone, and with it what was joined on it and the rejoins planned there. */
  const forgetConnection = (): void => {
    joined.clear();
    echo.clear();
    // A new connection joins every configured channel by itself.
    stopRejoins();
  };

  /** Joins `channel` again after a back-off: Twitch parted the bot, or the last rejoin failed. */
  const scheduleRejoin = (channel: string, reason: string): void => {
    if (rejoinTimers.has(channel)) return;
    const { attempt, delayMs } = channelAttempts.get(channel)!.down(Date.now());
    logger.warn({ channel, reason, attempt, delayMs }, `Twitch chat is not in #${channel} (${reason}): rejoining in ${delayMs} ms`);
    rejoinTimers.set(channel, setTimeout(() => {
      rejoinTimers.delete(channel);
      const current = client;
      if (stopping || current === null || state !== 'connected' || joined.has(channel)) return;
      current.join(channel).catch((why: unknown) => {
        // A late join, or another connection (which joins every channel), needs no retry.
        if (current !== client || state !== 'connected' || joined.has(channel)) return;
        scheduleRejoin(channel, `the rejoin failed: ${String(why)}`);
      });
    }, delayMs));
  };

  /** Gives up for good: Twitch will refuse every further attempt too. */
  const fail = (message: string, reason: string): void => {
    lastError = message;
    logger.error({ server: where, reason }, message);
    if (reconnectTimer !== null) clearTimeout(reconnectTimer);
    reconnectTimer = null;
    stopLoginWatchdog();
    stopRejoins();
    setState('disconnected', message);
    const error = new TwitchChatError(message);
    settleStart(error);
    rejectWaiters(error);
  };

  const connect = (current: tmi.Client): void => {
    startLoginWatchdog(loginTimeoutMs);
    current.connect().catch((reason: unknown) => {
      // tmi.js rejects with a reason string, and reports those through `disconnected` as well; an
      // Error is a connection that could not even be opened (a malformed server name).
      if (reason instanceof Error && !stopping && current === client) fail(`Twitch chat cannot connect to ${where}: ${reason.message}`, reason.message);
    });
  };

  const onDisconnected = (reason: string): void => {
    forgetConnection();
    if (stopping) {
      setState('disconnected', null);
      return;
    }
    if (REFUSED_LOGIN.some((text) => reason.includes(text))) {
      fail(refusedLoginMessage(reason, identity), reason);
      return;
    }
    if (serverAskedReconnect) {
      serverAskedReconnect = false;
      logger.info({ server: where }, 'Twitch asked chat to reconnect');
      setState('reconnecting', 'Twitch asked to reconnect');
      // The login watchdog started at the RECONNECT runs on: tmi.js's own attempt must log in too.
      return;
    }
    stopLoginWatchdog();
    scheduleReconnect(reason === '' ? 'connection closed' : reason);
  };

  const onConnected = (): void => {
    if (stopping) return;
    stopLoginWatchdog();
    connectionAttempts.up(Date.now());
    const wasReconnect = state === 'reconnecting';
    lastError = null;
    logger.info({ server: where, login: client?.getUsername(), anonymous: identity === null, channels },
      wasReconnect ? 'Twitch chat reconnected: rejoining channels' : 'Twitch chat connected');
    setState('connected', null);
    settleStart(null);
  };

  const onJoin = (rawChannel: string, _login: string, self: boolean): void => {
    if (!self) return;
    const channel = normalizeChannel(rawChannel);
    joined.add(channel);
    channelAttempts.get(channel)?.up(Date.now());
    logger.info({ channel }, `Twitch chat joined #${channel}`);
    for (const waiter of [...channelWaiters]) {
      if (waiter.channel !== channel) continue;
      clearTimeout(waiter.timer);
      channelWaiters.delete(waiter);
      waiter.resolve();
    }
  };

  // The bot never parts a channel itself: a PART of its own is Twitch's doing, whatever the
  // reason, and tmi.js does not rejoin until the next connection, so this does. (tmi.js also
  // strikes the channel from its `opts.channels` only when given with "#"; these have none, so
  // the next connection still joins it.)
  const onPart = (rawChannel: string, _login: string, self: boolean): void => {
    if (!self) return;
    const channel = normalizeChannel(rawChannel);
    joined.delete(channel);
    if (!stopping && state === 'connected' && channels.includes(channel)) scheduleRejoin(channel, 'Twitch parted the bot');
  };

  const isOwnLogin = (login: unknown): boolean => identity !== null && typeof login === 'string' && login.toLowerCase() === identity.login;

  const onMessage = (rawChannel: string, tags: tmi.ChatUserstate, text: string, self: boolean): void => {
    // Whispers come through the same tmi.js event, with the sender as "channel".
    if (tags['message-type'] === 'whisper') return;
    const channel = normalizeChannel(rawChannel);
    if (!channels.includes(channel)) return;
    // The bot's account chatting from elsewhere counts as the bot too: never answer yourself.
    listeners.emit({ type: 'message', channel, text, tags: tags as ChatTags, self: self || isOwnLogin(tags.username) });
  };

  /** `text`: the bot's line this USERSTATE accepted (it carries the new message's id), paired when it came. */
  const onUserstate = (channel: string, tags: ChatTags, text: string | null): void => {
    listeners.emit({ type: 'userstate', channel, tags });
    // Show the accepted line as chat.
    if (text === null || identity === null) return;
    const ownTags: ChatTags = {
      ...tags,
      'user-id': botUserId,
      'room-id': roomIds.get(channel) ?? null,
      username: identity.login,
      emotes: null,
      'emotes-raw': null,
      'message-type': 'chat',
      'tmi-sent-ts': String(Date.now()),
    };
    listeners.emit({ type: 'message', channel, text, tags: ownTags, self: true });
  };

  const onNotice = (channel: string, msgId: string, text: string): void => {
    if (!msgId.startsWith('msg_')) {
      logger.info({ channel, msgId, notice: text }, `Twitch chat notice in #${channel}: ${text}`);
      return;
    }
    // A msg_* notice answers a PRIVMSG that Twitch did not deliver. Sending it again is the
    // reply queue's to do (it paces every line), so the line goes to it with what would let it pass.
    const line = echo.answered(channel, Date.now());
    const remedy = refusalRemedy(msgId, text, rateLimitPauseMs);
    logger[remedy.kind === 'none' ? 'warn' : 'info']({ channel, msgId, notice: text, line: line?.slice(0, 100) ?? null },
      `Twitch did not deliver the bot's message in #${channel} (${msgId}): ${text}`);
    if (msgId === 'msg_ratelimit') {
      pause.hold(rateLimitPauseMs, Date.now());
      logger.warn({ channel, pauseMs: rateLimitPauseMs }, `Twitch says the bot sends too fast: holding its lines for ${rateLimitPauseMs} ms`);
    }
    if (line !== null) listeners.emit({ type: 'line-refused', channel, text: line, reason: msgId, remedy });
  };

  // A full ROOMSTATE on join, a partial one when a moderator changes a mode: only one with the
  // `slow` tag says anything of slow mode.
  const onRoomState = (channel: string, slow: string): void => {
    const slowSeconds = Number(slow);
    if (Number.isInteger(slowSeconds) && slowSeconds >= 0) listeners.emit({ type: 'room-state', channel, slowSeconds });
  };

  // Runs for every line (chat too), so it looks at nothing before the command says it is one of its own.
  const onRawMessage = (message: RawIrcMessage): void => {
    switch (message.command) {
      case 'USERSTATE': {
        // tmi.js has no userstate event; it parses these tags (badges, flags) right after this
        // tap, in the same turn, so they are read once that is done. The line it accepted is
        // paired now, though: a NOTICE refusing the next line may be handled in the same turn,
        // and Twitch's answers pair with the bot's lines in the order they came.
        const channel = normalizeChannel(message.params[0] ?? '');
        if (!channels.includes(channel)) break;
        const accepted = typeof message.tags['id'] === 'string' && identity !== null ? echo.answered(channel, Date.now()) : null;
        queueMicrotask(() => onUserstate(channel, { ...message.tags } as ChatTags, accepted));
        break;
      }
      case 'NOTICE': {
        const channel = normalizeChannel(message.params[0] ?? '');
        const msgId = message.tags['msg-id'];
        if (typeof msgId === 'string' && channels.includes(channel)) onNotice(channel, msgId, message.params[1] ?? '');
        break;
      }
      case 'ROOMSTATE': {
        const channel = normalizeChannel(message.params[0] ?? '');
        const slow = message.tags['slow'];
        if (typeof slow === 'string' && channels.includes(channel)) onRoomState(channel, slow);
        break;
      }
      case 'RECONNECT':
        serverAskedReconnect = true;
        // tmi.js reconnects by itself after its wait; that attempt must log in in time too.
        startLoginWatchdog(backoff.initialDelayMs + loginTimeoutMs);
        break;
      default:
        break;
    }
  };

  const createClient = (): tmi.Client => {
    const created = new tmi.Client({
      options: {
        // Otherwise tmi.js calls the retired api.twitch.tv/kraken on every USERSTATE.
        skipUpdatingEmotesets: true,
        // Other chatters' JOIN/PART are not needed, and are heavy in big channels.
        skipMembership: true,
        joinInterval: options.joinIntervalMs ?? 600,
      },
      connection: {
        server: options.server.host,
        port: options.server.port,
        secure: options.server.secure,
        reconnect: false,
        // Only used when Twitch sends RECONNECT: tmi.js then reconnects by itself after this wait.
        reconnectInterval: backoff.initialDelayMs,
        reconnectDecay: 1,
      },
      identity: identity === null ? {} : { username: identity.login, password: `oauth:${identity.token.replace(/^oauth:/i, '')}` },
      channels: [...channels],
      // tmi.js's own lines (every chat line among them) are debug detail; this adapter logs the
      // connection's story itself.
      logger: {
        info: (line: string) => logger.debug({ source: 'tmi.js' }, String(line)),
        warn: (line: string) => logger.debug({ source: 'tmi.js' }, String(line)),
        error: (line: string) => logger.debug({ source: 'tmi.js', tmiLevel: 'error' }, String(line)),
      },
    });
    // Events of a client the login watchdog gave up on are ignored.
    const live = <Args extends unknown[]>(handler: (...args: Args) => void) => (...args: Args): void => {
      if (created === client) handler(...args);
    };
    // A connection tmi.js opens after stop() or for a client given up on (its RECONNECT timer
    // cannot be cancelled) is closed at once.
    created.on('connecting', () => {
      if (stopping || created !== client) created.disconnect().catch(() => {});
    });
    created.on('connected', live(onConnected));
    created.on('disconnected', live(onDisconnected));
    created.on('join', live(onJoin));
    created.on('part', live(onPart));
    created.on('message', live(onMessage));
    // tmi.js gives a line with bits only as `cheer`, never as `message`.
    created.on('cheer', live((rawChannel: string, tags: tmi.ChatUserstate, text: string) => onMessage(rawChannel, tags, text, false)));
    // A real tmi.js event that @types/tmi.js does not list.
    const onGlobalUserstate = (tags: Record<string, unknown>): void => {
      if (typeof tags['user-id'] === 'string') botUserId = tags['user-id'];
    };
    created.on('globaluserstate' as never, live(onGlobalUserstate) as never);
    created.on('roomstate', live((rawChannel: string, tags: { 'room-id'?: string }) => {
      if (typeof tags['room-id'] === 'string') roomIds.set(normalizeChannel(rawChannel), tags['room-id']);
    }));
    created.on('messagedeleted', live((rawChannel: string, _login: string, _text: string, tags: tmi.DeleteUserstate) => {
      const messageId: unknown = tags['target-msg-id'];
      if (typeof messageId === 'string' && messageId !== '') {
        listeners.emit({ type: 'message-deleted', channel: normalizeChannel(rawChannel), messageId });
      }
    }));
    const userCleared = (rawChannel: string, tags: tmi.TimeoutUserstate | tmi.BanUserstate): void => {
      const userId: unknown = tags['target-user-id'];
      if (typeof userId === 'string' && userId !== '') listeners.emit({ type: 'user-cleared', channel: normalizeChannel(rawChannel), userId });
    };
    created.on('timeout', live((rawChannel: string, _login: string, _reason: string, _seconds: number, tags: tmi.TimeoutUserstate) => userCleared(rawChannel, tags)));
    created.on('ban', live((rawChannel: string, _login: string, _reason: string, tags: tmi.BanUserstate) => userCleared(rawChannel, tags)));
    created.on('clearchat', live((rawChannel: string) => {
      listeners.emit({ type: 'chat-cleared', channel: normalizeChannel(rawChannel) });
    }));
    tapParsedLines(created, live(onRawMessage));
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
      return [...joined];
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
      logger.info({ server: where, login: identity?.login ?? null, channels }, identity === null
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
      await waitForChannel(channel);
      while (pause.holding(Date.now())) {
        await pause.over(Date.now());
        // The connection may have dropped meanwhile.
        await waitForChannel(channel);
      }
      const current = client;
      if (current === null) throw new TwitchChatError(`Twitch chat is stopped: the line to #${channel} was not sent`);
      try {
        await current.raw(`PRIVMSG #${channel} :${text}`);
      } catch (reason) {
        throw new TwitchChatError(`Twitch chat could not send to #${channel}: ${reason instanceof Error ? reason.message : String(reason)}`);
      }
      echo.sent(channel, text, Date.now());
    },

    stop() {
      if (stopPromise) return stopPromise;
      stopping = true;
      stopPromise = (async () => {
        if (reconnectTimer !== null) clearTimeout(reconnectTimer);
        reconnectTimer = null;
        stopLoginWatchdog();
        stopRejoins();
        const error = new TwitchChatError('Twitch chat stopped');
        settleStart(error);
        rejectWaiters(error);
        const current = client;
        if (current !== null && current.readyState() !== 'CLOSED') {
          await Promise.race([
            current.disconnect().catch(() => {}),
            new Promise((resolve) => setTimeout(resolve, STOP_WAIT_MS).unref()),
          ]);
        }
        forgetConnection();
        setState('disconnected', null);
        logger.info({ server: where }, 'Twitch chat stopped');
      })();
      return stopPromise;
    },
  };
  return transport;
}

function checkOptions(options: TwitchChatOptions, channels: readonly string[]): void {
  const problems: string[] = [];
  if (channels.length === 0) problems.push('no channel to join');
  for (const channel of channels) {
    if (!CHANNEL_LOGIN.test(channel)) problems.push(`"${channel}" is not a Twitch login (1 to 25 letters, digits or _)`);
  }
  const { port, secure } = options.server;
  // tmi.js connects with wss to port 443 whenever either is set, whatever the other says.
  if (secure && port !== 443) problems.push(`twitch.chat.secure: true works only with port 443 (tmi.js always uses 443 for wss), got port ${port}`);
  if (!secure && port === 443) problems.push('twitch.chat.port 443 always means wss with tmi.js: set twitch.chat.secure: true, or another port');
  if (options.identity !== null) {
    if (!CHANNEL_LOGIN.test(options.identity.login.toLowerCase())) problems.push(`twitch.bot.login "${options.identity.login}" is not a Twitch login`);
    if (options.identity.token.replace(/^oauth:/i, '').trim() === '') problems.push('twitch.bot.token is empty');
  }
  if (problems.length > 0) throw new TwitchChatError(`Twitch chat cannot start: ${problems.join('; ')}`);
}

function refusedLoginMessage(reason: string, identity: TwitchChatIdentity | null): string {
  const who = identity === null ? 'the anonymous login' : `the bot's login as ${identity.login}`;
  return `Twitch refused ${who} (${reason}). Check twitch.bot.login and twitch.bot.token: a user access token `
    + 'of that account with the chat:read and chat:edit scopes that has not expired or been revoked. Twitch chat stays off until restart.';
}
