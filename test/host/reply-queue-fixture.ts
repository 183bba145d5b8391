// A reply queue on a memory transport with Twitch's limits and a manual clock; `sentAt` has the
// time (from the start) at which the transport sent each line. The limits' numbers are exported
// under the names the tests use, so a test says "the minimum spacing" or "the window", not a
// number of milliseconds that a change of the limits would leave wrong.
import { TWITCH_CHAT_LIMITS } from '../../src/host/chat-transport.ts';
import { createMemoryChatTransport } from '../../src/host/memory-chat-transport.ts';
import { createReplyQueue } from '../../src/host/reply-queue.ts';
import type { ReplyQueueOptions } from '../../src/host/reply-queue.ts';
import { captureLogs } from './log-capture.ts';
import { ManualClock } from './manual-clock.ts';

/** Least time between two lines to one channel where the bot is not a moderator. */
export const SPACING_MS = TWITCH_CHAT_LIMITS.minIntervalMs;
/** The sliding window both line counts are kept over. */
export const WINDOW_MS = TWITCH_CHAT_LIMITS.windowMs;
/** Lines per window to channels where the bot is not a moderator. */
export const USER_LIMIT = TWITCH_CHAT_LIMITS.userMessages;
/** Lines per window in all (the limit where the bot is a moderator). */
export const MODERATOR_LIMIT = TWITCH_CHAT_LIMITS.moderatorMessages;

/** `count` send times the minimum spacing apart, the first at `from`. */
export function spaced(count: number, from = 0): number[] {
  return Array.from({ length: count }, (_, index) => from + index * SPACING_MS);
}

export function replyQueueSetup(options: Partial<ReplyQueueOptions> & { limits?: typeof TWITCH_CHAT_LIMITS | null } = {}) {
  const transport = createMemoryChatTransport({ name: 'twitch', channels: ['streamer', 'other'], limits: options.limits === undefined ? TWITCH_CHAT_LIMITS : options.limits });
  const clock = new ManualClock();
  const start = clock.now();
  const { logger, entries } = captureLogs();
  const sentAt: number[] = [];
  const say = transport.say.bind(transport);
  transport.say = async (channel, text) => {
    await say(channel, text);
    sentAt.push(clock.now() - start);
  };
  const queue = createReplyQueue({ transport, clock, logger, maxQueued: 200, ...options });
  return { transport, clock, queue, logs: entries, sentAt };
}

/** Makes the transport hold the line `text` until `release()` (as one waits for its channel to be rejoined). */
export function holdLine(transport: { say(channel: string, text: string): Promise<void> }, text: string): { release: () => void } {
  let release!: () => void;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const say = transport.say.bind(transport);
  transport.say = async (channel, line) => {
    if (line === text) await held;
    await say(channel, line);
  };
  return { release };
}
