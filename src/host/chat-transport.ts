// The edge the host chats through. The tmi.js adapter (Twitch) and the local chat both implement
// it; the host routes their messages to commands and sends replies back through a reply queue.
// Events carry the raw IRC tags (as tmi.js parses them), so roles come from one place.

/**
 * IRC tags of a PRIVMSG or USERSTATE in tmi.js's shape: `badges` as set -> version (or as sent)
 * (`badges-raw` and `emotes-raw` the tags' text), `username`, `message-type`. A value "1" or "0"
 * may come as true or false: tmi.js turns every tag's so, text ones too (a user-id, display name
 * or message id "1" comes as true), as it does for the USERSTATE; the Twitch transport's chat
 * lines (chat-line.ts) keep them as text. Read a text tag with textTag.
 */
export interface ChatTags {
  /** Set -> version; or the tag as sent (`moderator/1,subscriber/12`), as chat lines from Twitch keep it. */
  badges?: Readonly<Record<string, string | null | undefined>> | string | null;
  mod?: boolean | string | null;
  subscriber?: boolean | string | null;
  vip?: boolean | string | null;
  'user-type'?: string | null;
  'room-id'?: string | boolean | null;
  'user-id'?: string | boolean | null;
  /** tmi.js's, from the line's prefix: never turned into a boolean. */
  username?: string | null;
  'display-name'?: string | boolean | null;
  /** The message id (PRIVMSG). */
  id?: string | boolean | null;
  [tag: string]: unknown;
}

/**
 * A tag Twitch sends as text (an id, a name, a message body), as that text; null when it holds
 * none. tmi.js (1.8) turns every tag value "1" into true and "0" into false, except
 * emote-sets, ban-duration and bits, so a chatter whose user-id is "1", or a reply to the
 * message "0", has a boolean there: turned back. A string costs one type check, as before.
 */
export function textTag(value: unknown): string | null {
  if (typeof value === 'string') return value;
  return value === true ? '1' : value === false ? '0' : null;
}

export type ChatTransportEvent =
  /** A chat line. `self` is true for the bot's own lines, which the host never routes. */
  | { type: 'message'; channel: string; text: string; tags: ChatTags; self: boolean }
  /** A moderator deleted one message. */
  | { type: 'message-deleted'; channel: string; messageId: string }
  /** A user was timed out or banned: all their messages go. */
  | { type: 'user-cleared'; channel: string; userId: string }
  /** The whole chat was cleared. */
  | { type: 'chat-cleared'; channel: string }
  /** The bot's own state in a channel (IRC USERSTATE): tells whether it is a moderator there. */
  | { type: 'userstate'; channel: string; tags: ChatTags }
  /** The channel's slow mode (IRC ROOMSTATE with a `slow` tag): least seconds between a non-moderator's lines, 0 = off. */
  | { type: 'room-state'; channel: string; slowSeconds: number }
  /**
   * The chat did not deliver one of the bot's lines (`text` exactly as sent). `reason` is the
   * chat's code for it (Twitch's msg-id); `remedy` says what would make it pass if sent again.
   */
  | { type: 'line-refused'; channel: string; text: string; reason: string; remedy: RefusalRemedy };

/**
 * The reason of a `line-refused` for a line sent into a connection that was lost before the chat
 * answered it: the chat may or may not have shown it.
 */
export const CONNECTION_LOST = 'connection lost';

/** What a refused line needs to pass: a wait (slow mode, rate limit), a different text (a duplicate), or nothing will do. */
export type RefusalRemedy = { kind: 'wait'; ms: number } | { kind: 'differ' } | { kind: 'none' };

export type ChatTransportListener = (event: ChatTransportEvent) => void;

/** How fast the bot may talk on a transport; null on transports with no limits (local chat). */
export interface ChatRateLimits {
  /** Sliding window length. */
  windowMs: number;
  /** Messages per window to channels where the bot is neither moderator nor broadcaster. */
  userMessages: number;
  /** Messages per window in all, the limit where the bot is moderator or broadcaster. */
  moderatorMessages: number;
  /** Least time between two messages to one channel where the bot is not a moderator (a longer slow mode wins). */
  minIntervalMs: number;
  /**
   * Window in which repeating the last message to a channel is dropped by the server when the
   * bot is not a moderator; the queue makes such a repeat differ (an invisible character, U+034F).
   */
  duplicateWindowMs: number;
}

/**
 * How much wider than Twitch's own numbers the reply queue keeps the least time between two lines
 * to a channel (Twitch: 1 s) and the window it counts lines in (Twitch: 30 s). Twitch judges a
 * line when it arrives; the queue can only count from when it sent it. A line held up on the way
 * (the network, the event loop, a proxy) arrives closer to the next one than it was sent, and one
 * the queue counts just out of a window can still be in Twitch's; Twitch then answers
 * msg_ratelimit and the adapter holds every line in every channel for 30 s. 100 ms absorbs such
 * jitter at a cost only where a limit binds: a burst of 20 lines takes 20.9 s instead of 19 s, and
 * a full window lets 20 (or 100) lines through per 30.1 s instead of 30 s (0.3 % slower). A longer
 * stall (a TCP retransmission) is left to the refusal and its re-send.
 */
export const TWITCH_ARRIVAL_MARGIN_MS = 100;

/**
 * Twitch's chat limits for an ordinary (not verified) bot account: 20 lines per 30 s to channels
 * where the bot is neither moderator nor broadcaster, 100 per 30 s in all (dev.twitch.tv/docs/chat,
 * "Rate limits"), and one line per second per such channel (not in Twitch's documentation: from
 * pajbot's notes, github.com/pajbot/tmi-rate-limits), with TWITCH_ARRIVAL_MARGIN_MS on the three
 * times (the duplicate window too). The counts keep Twitch's numbers: the margin on the window covers both.
 */
export const TWITCH_CHAT_LIMITS: Readonly<ChatRateLimits> = Object.freeze({
  windowMs: 30_000 + TWITCH_ARRIVAL_MARGIN_MS,
  userMessages: 20,
  moderatorMessages: 100,
  minIntervalMs: 1_000 + TWITCH_ARRIVAL_MARGIN_MS,
  // The same margin: the earlier line held up on the way leaves Twitch less than 30 s between the two.
  duplicateWindowMs: 30_000 + TWITCH_ARRIVAL_MARGIN_MS,
});

/** Twitch's longest chat message, in characters. */
export const CHAT_MESSAGE_MAX_LENGTH = 500;

export interface ChatTransport {
  /** For logs: "twitch", "local". */
  readonly name: string;
  /** Channel logins (lowercase, no "#") this transport reads and writes. */
  readonly channels: readonly string[];
  readonly limits: ChatRateLimits | null;
  /** Returns the function that unsubscribes. */
  subscribe(listener: ChatTransportListener): () => void;
  /** Sends one line as is (the host has already split and paced it). Rejects when it cannot. */
  say(channel: string, text: string): Promise<void>;
}

/** "#Streamer" -> "streamer". */
export function normalizeChannel(channel: string): string {
  return channel.replace(/^#/, '').toLowerCase();
}
