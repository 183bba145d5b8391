// The configured channels the bot is in on the current connection. say() waits here for its
// channel to be (re)joined, up to a time limit. A channel Twitch parts the bot from, refuses to
// join (msg_channel_suspended: it does not exist or is suspended), or never answers the join of
// (Twitch drops joins past its rate limit without a word) is joined again after a back-off
// (reconnect-attempts.ts): tmi.js itself joins only on a new connection, once.
import type { Logger } from 'pino';
import type tmi from 'tmi.js';
import { normalizeChannel } from '../../host/chat-transport.ts';
import { ReconnectAttempts } from './reconnect-attempts.ts';
import { joinAtEveryLogin } from './tmi-client.ts';
import type { ReconnectBackoff } from './reconnect-backoff.ts';
import { TwitchChatError } from './twitch-chat-error.ts';
import type { TwitchChatState } from './twitch-chat-transport.ts';

export interface ChannelJoinsOptions {
  channels: readonly string[];
  /** After a connection, how long Twitch has to answer the joins tmi.js makes before a channel not joined is joined again. */
  joinWatchMs: number;
  backoff: ReconnectBackoff;
  stableAfterMs: number;
  sendTimeoutMs: number;
  logger: Logger;
  // The transport as it is when asked.
  client(): tmi.Client | null;
  state(): TwitchChatState;
  stopping(): boolean;
  lastError(): string | null;
}

export interface ChannelJoins {
  /** The channels joined on the current connection. */
  list(): string[];
  /** Resolves once `channel` is joined on a connection; rejects when the chat is down for good or it takes too long. */
  waitFor(channel: string): Promise<void>;
  /** Rejects every waitFor() still waiting. */
  rejectWaiters(error: Error): void;
  /** tmi.js's `join` event. */
  onJoin(rawChannel: string, login: string, self: boolean): void;
  /** tmi.js's `part` event. */
  onPart(rawChannel: string, login: string, self: boolean): void;
  /**
   * Twitch answered a join of `channel` with a refusal (`reason`, its notice): it is joined again
   * after the back-off. False when the bot is in the channel, so the refusal answered something else.
   */
  joinRefused(rawChannel: string, reason: string): boolean;
  stopRejoins(): void;
  /** A connection is up, and tmi.js joins every channel on it: a channel not joined in time is joined again. */
  watchJoins(): void;
  /** The connection is gone, and with it what was joined on it and the rejoins planned there. */
  forgetConnection(): void;
}

interface ChannelWaiter {
  channel: string;
  resolve: () => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

export function createChannelJoins(options: ChannelJoinsOptions): ChannelJoins {
  const { channels, backoff, stableAfterMs, sendTimeoutMs, joinWatchMs, logger, client, state, stopping, lastError } = options;
  const joined = new Set<string>();
  const waiters = new Set<ChannelWaiter>();
  const attempts = new Map(channels.map((channel) => [channel, new ReconnectAttempts(backoff, stableAfterMs)]));
  const rejoinTimers = new Map<string, NodeJS.Timeout>();
  let joinWatch: NodeJS.Timeout | null = null;

  const stopRejoins = (): void => {
    for (const timer of rejoinTimers.values()) clearTimeout(timer);
    rejoinTimers.clear();
    if (joinWatch !== null) clearTimeout(joinWatch);
    joinWatch = null;
  };

  /** Joins `channel` again after a back-off: Twitch parted the bot, or the last rejoin failed. */
  const scheduleRejoin = (channel: string, reason: string): void => {
    if (rejoinTimers.has(channel)) return;
    const { attempt, delayMs } = attempts.get(channel)!.down(Date.now());
    logger.warn({ channel, reason, attempt, delayMs }, `Twitch chat is not in #${channel} (${reason}): rejoining in ${delayMs} ms`);
    rejoinTimers.set(channel, setTimeout(() => {
      rejoinTimers.delete(channel);
      const current = client();
      if (stopping() || current === null || state() !== 'connected' || joined.has(channel)) return;
      current.join(channel).catch((why: unknown) => {
        // A late join, or another connection (which joins every channel), needs no retry.
        if (current !== client() || state() !== 'connected' || joined.has(channel)) return;
        scheduleRejoin(channel, `the rejoin failed: ${String(why)}`);
      });
    }, delayMs));
  };

  return {
    list: () => [...joined],

    waitFor(channel) {
      if (state() === 'connected' && joined.has(channel)) return Promise.resolve();
      if (stopping()) return Promise.reject(new TwitchChatError(`Twitch chat is stopped: the line to #${channel} was not sent`));
      if (state() === 'disconnected') {
        const why = lastError() ?? 'it was not started';
        return Promise.reject(new TwitchChatError(`Twitch chat is disconnected (${why}): the line to #${channel} was not sent`));
      }
      return new Promise<void>((resolve, reject) => {
        const waiter: ChannelWaiter = {
          channel,
          resolve,
          reject,
          timer: setTimeout(() => {
            waiters.delete(waiter);
            reject(new TwitchChatError(`Twitch chat did not join #${channel} within ${sendTimeoutMs} ms (state: ${state()}): the line was not sent`));
          }, sendTimeoutMs),
        };
        waiters.add(waiter);
      });
    },

    rejectWaiters(error) {
      for (const waiter of [...waiters]) {
        clearTimeout(waiter.timer);
        waiters.delete(waiter);
        waiter.reject(error);
      }
    },

    onJoin(rawChannel, _login, self) {
      if (!self) return;
      const channel = normalizeChannel(rawChannel);
      joined.add(channel);
      attempts.get(channel)?.up(Date.now());
      logger.info({ channel }, `Twitch chat joined #${channel}`);
      for (const waiter of [...waiters]) {
        if (waiter.channel !== channel) continue;
        clearTimeout(waiter.timer);
        waiters.delete(waiter);
        waiter.resolve();
      }
    },

    // The bot never parts a channel itself: a PART of its own is Twitch's doing, whatever the
    // reason, and tmi.js does not rejoin until the next connection, so this does. tmi.js also
    // strikes the channel off those it joins at a login: put back, so that a connection made
    // before the rejoin joins it with the others, not only once the join watch finds it missing.
    onPart(rawChannel, _login, self) {
      if (!self) return;
      const channel = normalizeChannel(rawChannel);
      joined.delete(channel);
      const current = client();
      if (current !== null && channels.includes(channel)) joinAtEveryLogin(current, channel);
      if (!stopping() && state() === 'connected' && channels.includes(channel)) scheduleRejoin(channel, 'Twitch parted the bot');
    },

    joinRefused(rawChannel, reason) {
      const channel = normalizeChannel(rawChannel);
      if (joined.has(channel) || !channels.includes(channel)) return false;
      if (!stopping() && state() === 'connected') scheduleRejoin(channel, reason);
      return true;
    },

    stopRejoins,

    watchJoins() {
      if (joinWatch !== null) clearTimeout(joinWatch);
      joinWatch = setTimeout(() => {
        joinWatch = null;
        if (stopping() || state() !== 'connected') return;
        for (const channel of channels) {
          if (!joined.has(channel)) scheduleRejoin(channel, `Twitch did not answer the join within ${joinWatchMs} ms`);
        }
      }, joinWatchMs);
    },

    forgetConnection() {
      joined.clear();
      // A new connection joins every configured channel by itself.
      stopRejoins();
    },
  };
}
