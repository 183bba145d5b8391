// Reads the lines tmi.js has no event for (USERSTATE, NOTICE, the slow tag of ROOMSTATE,
// RECONNECT), and chat lines without tmi.js's costly handling of them (chat-line.ts), by tapping
// tmi.js's parsed lines. The tap sees every line, so it must stay cheap: see tapParsedLines. It
// also keeps a line tmi.js fails on from ending the process.
import type tmi from 'tmi.js';

/** A line as tmi.js parsed it (tags still as sent). */
export interface RawIrcMessage {
  /** The line as received. */
  raw: string;
  /** `nick!user@host`, `tmi.twitch.tv`, or null when the line has none. */
  prefix: string | null;
  command: string;
  params: string[];
  tags: Record<string, unknown>;
}

/**
 * Calls `tap` with each line tmi.js parsed, just before tmi.js handles it (tags still as sent);
 * a line `tap` answers true for is the tap's alone, and tmi.js does not handle it.
 * Not tmi.js's 'raw_message' event: for that one it deep-copies every line through a JSON round
 * trip, which cost more than all the rest of the host's work on a chat line (bench:chat). tmi.js
 * (1.8, pinned) hands each line to `this.handleMessage`, so wrapping it on the instance sees
 * the same line; the transport tests fail if that ever stops being so.
 *
 * tmi.js throws on some lines Twitch could send malformed (a PRIVMSG or NOTICE without its text:
 * it reads the missing text), from inside the WebSocket's message event, where nothing catches
 * it: an uncaught exception, which stops chatskin, and the lines after it in the same frame were
 * lost. Such a line is skipped instead, and `onFailure` told (with the line's command); the
 * transport warns of those at most once a minute (chat-events.ts), as a server could send thousands.
 */
export function tapParsedLines(
  client: tmi.Client,
  tap: (message: RawIrcMessage) => boolean | undefined,
  onFailure: (error: unknown, command: string) => void,
): void {
  const target = client as unknown as { handleMessage(message: RawIrcMessage): unknown };
  const handle = target.handleMessage;
  if (typeof handle !== 'function') throw new Error('This tmi.js has no handleMessage: USERSTATE and NOTICE could not be read.');
  target.handleMessage = function (this: unknown, message: RawIrcMessage) {
    try {
      if (message && tap(message) === true) return undefined;
      return handle.call(this, message);
    } catch (error) {
      onFailure(error, String(message?.command));
      return undefined;
    }
  };
}
