// The Twitch chat transport's options: what each means, its default, and the checks made before
// anything connects, so a mistake in the config stops the chat at once with every problem named,
// rather than as a refused login or a connection that never comes up.
import { normalizeChannel } from '../../host/chat-transport.ts';
import type { ChatRateLimits } from '../../host/chat-transport.ts';
import type { Clock } from '../../host/clock.ts';
import { resolveReconnectBackoff } from './reconnect-backoff.ts';
import type { ReconnectBackoff } from './reconnect-backoff.ts';
import { TwitchChatError } from './twitch-chat-error.ts';

/** tmi.js's wait between two joins: Twitch allows 20 joins per 10 s. */
export const DEFAULT_JOIN_INTERVAL_MS = 600;

/** The bot's token kept in a file that `chatskin twitch auth --bot` writes (twitch.bot.tokenFile). */
export interface BotTokenFile {
  path: string;
  /** The application's credentials: refreshing the token needs them. */
  clientId: string;
  clientSecret: string;
  /** How often the file is looked at for a new token while the chat is off for a refused one. Default 5 s. */
  checkIntervalMs?: number;
  /** twitch.helix.mockServerPort: refresh at this local twurple mock API port instead of id.twitch.tv. */
  mockServerPort?: number | null;
  /** twitch.httpTimeoutSeconds: a refresh Twitch has not answered by then fails (a fault that may pass). Default 30 s. */
  httpTimeoutMs?: number;
  /** Longest wait for Twitch's answer to a refresh before the login is tried again. Default 30 s. */
  refreshWaitMs?: number;
  /** twitch.oauth.url: id.twitch.tv's OAuth base (null: Twitch's, or the mock API port's /auth). */
  oauthUrl?: string | null;
  /**
   * How often, while the chat is connected, the token in use is checked at id.twitch.tv's
   * /validate, which Twitch asks of every chatbot (at start and hourly). Default one hour.
   */
  validateIntervalMs?: number;
}

/**
 * Where and how often a fixed twitch.bot.token is checked at id.twitch.tv's /validate, which
 * Twitch asks of every chatbot (at start and hourly): before the first login (a token Twitch does
 * not accept, of another account or without a scope stops the chat there, saying what to do) and
 * then while the chat is connected (one Twitch no longer accepts ends the session).
 */
export interface FixedTokenCheck {
  /** twitch.oauth.url: id.twitch.tv's OAuth base (null: Twitch's, or the mock API port's /auth). */
  oauthUrl?: string | null;
  /** twitch.helix.mockServerPort. */
  mockServerPort?: number | null;
  /** twitch.httpTimeoutSeconds: a check Twitch has not answered by then tells nothing. Default 30 s. */
  httpTimeoutMs?: number;
  /** How often the token is checked while the chat is connected. Default one hour. */
  validateIntervalMs?: number;
}

/**
 * The bot account (its login, any case) and its user access token (scopes chat:read and
 * chat:edit): fixed (`token`, with or without "oauth:"; Twitch refusing it is final), or read
 * from a token file and refreshed when Twitch refuses it (`tokenFile`). A fixed token is checked
 * at id.twitch.tv only when `check` is given (twitchChatOptionsFromConfig always gives it).
 */
export type TwitchChatIdentity =
  | { login: string; token: string; check?: FixedTokenCheck }
  | { login: string; tokenFile: BotTokenFile };

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
  /**
   * How long Twitch has to answer the joins of a new connection (plus joinIntervalMs per channel)
   * before a channel not joined is joined again (Twitch drops a join past its limits unanswered). Default 10 s.
   */
  joinWatchMs?: number;
  /** How long a connection attempt may take to log in before it is dropped and retried. Default 20 s. */
  loginTimeoutMs?: number;
  /**
   * How long a connection (or a channel) must have stayed up for the next drop to be retried
   * from the back-off's first delay again. Default 30 s.
   */
  stableAfterMs?: number;
  /** How long every line is held after Twitch says the bot sends too fast (msg_ratelimit). Default 30 s. */
  rateLimitPauseMs?: number;
  /** How often a logged-in connection is checked with a PING of the transport's own (connection-check.ts). Default 60 s. */
  pingIntervalMs?: number;
  /** How long Twitch may take to answer that PING before the connection is taken for dead, dropped and replaced. Default 10 s. */
  pingTimeoutMs?: number;
  /** Time for the once-a-minute warning of the lines tmi.js could not read (chat-events.ts). Default the system clock. */
  clock?: Clock;
  limits?: ChatRateLimits;
}

/** The options checked, with the defaults filled in. */
export interface TwitchChatSettings {
  /** Normalized (no "#", lower case), each once. */
  channels: string[];
  /** The login in lower case. */
  identity: TwitchChatIdentity | null;
  backoff: ReconnectBackoff;
  sendTimeoutMs: number;
  /** joinWatchMs plus joinIntervalMs per channel. */
  joinWatchMs: number;
  loginTimeoutMs: number;
  stableAfterMs: number;
  rateLimitPauseMs: number;
  pingIntervalMs: number;
  pingTimeoutMs: number;
}

const CHANNEL_LOGIN = /^[a-z0-9_]{1,25}$/;

/** Throws a TwitchChatError naming every problem of `options` (a RangeError for the back-off's). */
export function resolveTwitchChatOptions(options: TwitchChatOptions): TwitchChatSettings {
  const channels = [...new Set(options.channels.map(normalizeChannel))];
  checkOptions(options, channels);
  return {
    channels,
    identity: options.identity === null ? null : { ...options.identity, login: options.identity.login.toLowerCase() },
    backoff: resolveReconnectBackoff(options.reconnect),
    sendTimeoutMs: options.sendTimeoutMs ?? 10_000,
    joinWatchMs: (options.joinWatchMs ?? 10_000) + (options.joinIntervalMs ?? DEFAULT_JOIN_INTERVAL_MS) * channels.length,
    loginTimeoutMs: options.loginTimeoutMs ?? 20_000,
    stableAfterMs: options.stableAfterMs ?? 30_000,
    rateLimitPauseMs: options.rateLimitPauseMs ?? 30_000,
    pingIntervalMs: options.pingIntervalMs ?? 60_000,
    pingTimeoutMs: options.pingTimeoutMs ?? 10_000,
  };
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
    problems.push(...identityProblems(options.identity));
  }
  if (problems.length > 0) throw new TwitchChatError(`Twitch chat cannot start: ${problems.join('; ')}`);
}

function identityProblems(identity: TwitchChatIdentity): string[] {
  if (!('tokenFile' in identity)) return identity.token.replace(/^oauth:/i, '').trim() === '' ? ['twitch.bot.token is empty'] : [];
  const { path, clientId, clientSecret, checkIntervalMs } = identity.tokenFile;
  const problems: string[] = [];
  if (path.trim() === '') problems.push('twitch.bot.tokenFile is empty');
  // A token file's token is refreshed with the application's credentials.
  if (clientId.trim() === '' || clientSecret.trim() === '') {
    problems.push('twitch.clientId and twitch.clientSecret are needed to refresh the token of twitch.bot.tokenFile');
  }
  if (checkIntervalMs !== undefined && !(Number.isFinite(checkIntervalMs) && checkIntervalMs > 0)) {
    problems.push('the token file check interval must be above 0 ms');
  }
  return problems;
}
