// A tmi.js client set up the way this adapter drives it: it does not reconnect by itself (the
// transport does, so that stop() can cancel every wait), it skips the work chatskin has no use
// for, and its log lines go to the adapter's logger as debug detail.
import type { Logger } from 'pino';
import tmi from 'tmi.js';
import { DEFAULT_JOIN_INTERVAL_MS } from './twitch-chat-options.ts';
import type { TwitchChatOptions } from './twitch-chat-options.ts';

/** Who logs in: the bot's login, and its token as it is at each login (tmi.js asks every time, a reconnect it makes itself too). */
export interface TmiLogin {
  username: string;
  /** Without "oauth:". */
  token(): string;
}

/**
 * A new client, not connected, with no handlers; `login` null logs in anonymously.
 * `reconnectIntervalMs` is only used when Twitch sends RECONNECT: tmi.js then reconnects by
 * itself after that wait.
 */
export function newTmiClient(
  options: TwitchChatOptions, login: TmiLogin | null, channels: readonly string[], reconnectIntervalMs: number, logger: Logger,
): tmi.Client {
  return new tmi.Client({
    options: {
      // Otherwise tmi.js calls the retired api.twitch.tv/kraken on every USERSTATE.
      skipUpdatingEmotesets: true,
      // Other chatters' JOIN/PART are not needed, and are heavy in big channels.
      skipMembership: true,
      joinInterval: options.joinIntervalMs ?? DEFAULT_JOIN_INTERVAL_MS,
    },
    connection: {
      server: options.server.host,
      port: options.server.port,
      secure: options.server.secure,
      reconnect: false,
      reconnectInterval: reconnectIntervalMs,
      reconnectDecay: 1,
    },
    identity: login === null ? {} : { username: login.username, password: () => `oauth:${login.token()}` },
    channels: [...channels],
    // tmi.js's own lines (every chat line among them) are debug detail; this adapter logs the
    // connection's story itself.
    logger: {
      info: (line: string) => logger.debug({ source: 'tmi.js' }, String(line)),
      warn: (line: string) => logger.debug({ source: 'tmi.js' }, String(line)),
      error: (line: string) => logger.debug({ source: 'tmi.js', tmiLevel: 'error' }, String(line)),
    },
  });
}

/**
 * Lets go of a client whose connection may never finish closing (a hung login, a network that
 * went away): asks it to close, in the background, and stops the ping timer tmi.js started at its
 * login, which only that close would stop (it would go on closing the socket again every minute).
 */
export function abandonTmiClient(client: tmi.Client): void {
  // tmi.js 1.8's own fields (pinned; the transport tests see a connection given up on).
  const timers = client as unknown as { pingLoop?: NodeJS.Timeout | null; pingTimeout?: NodeJS.Timeout | null };
  if (timers.pingLoop) clearInterval(timers.pingLoop);
  if (timers.pingTimeout) clearTimeout(timers.pingTimeout);
  client.disconnect().catch(() => {});
  disarmTmiClient(client);
}

/**
 * Makes a client let go of (abandoned, or stopped) open no connection any more. After Twitch's
 * RECONNECT, tmi.js connects again by itself from a timer nobody can cancel; its `connect()` is
 * this instance's from now on, which opens nothing.
 */
export function disarmTmiClient(client: tmi.Client): void {
  (client as unknown as { connect: () => Promise<unknown> }).connect = () => Promise.resolve();
}

/**
 * Keeps `channel` among those tmi.js joins at each login of `client`. tmi.js strikes a channel
 * the server parts it from off that list (its `opts.channels`, to which its constructor gave a
 * "#"), so a connection made before the rejoin would not join it with the others.
 */
export function joinAtEveryLogin(client: tmi.Client, channel: string): void {
  const joinedAtLogin = client.getOptions().channels;
  const name = `#${channel}`;
  if (joinedAtLogin !== undefined && !joinedAtLogin.includes(name)) joinedAtLogin.push(name);
}
