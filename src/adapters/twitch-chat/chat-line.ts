// A chat line (PRIVMSG) read from tmi.js's parsed line, as tmi.js's `message` and `cheer` events
// would give it, without asking tmi.js to handle the line. Its handling of a PRIVMSG (every tag
// unescaped, badges, badge-info and emotes parsed into objects on the line's tags, a log line
// formatted, two events) cost about 4.5 µs a line: more than its parsing of the line, and about
// as much as all of the host's own work on it (bench:chat, docs/benchmarks.md). The host reads a
// few tags, so only those parts are done here, with tmi.js's own helpers where it has them.
//
// The tags differ from tmi.js's event in that values stay text ("1" and "0" are not made true and
// false, which textTag undoes anyway), and `badges` and `emotes` stay the tags as sent (tmi.js
// makes them objects; `badges-raw` and `emotes-raw` hold their unescaped text, as in tmi.js's).
// twitch-chat-line-parity.test.ts holds this to tmi.js on generated lines.
import tmiUtils from 'tmi.js/lib/utils.js';
import type { ChatTags } from '../../host/chat-transport.ts';
import type { RawIrcMessage } from './parsed-line-tap.ts';

export interface ChatLine {
  /** As the line names it (`#Channel`); the caller normalizes it. */
  channel: string;
  /** Of a `/me` line, the action without its wrapping. */
  text: string;
  tags: ChatTags;
}

/**
 * The chat line a PRIVMSG carries, or null for one tmi.js gives no chat event for (one without a
 * chatter's prefix or without text, which tmi.js warns of or fails on, or the retired `jtv` host
 * notices): those are left to tmi.js as before. Takes over `message.tags`.
 */
export function chatLineOf(message: RawIrcMessage): ChatLine | null {
  const [channel, sent] = message.params;
  const prefix = message.prefix;
  // tmi.js reads a PRIVMSG as chat only from a chatter's prefix, not from the server's or jtv's.
  if (channel === undefined || sent === undefined || prefix === null || prefix === 'tmi.twitch.tv' || prefix === 'jtv') return null;
  const bang = prefix.indexOf('!');
  const username = bang === -1 ? prefix : prefix.slice(0, bang);
  if (username === 'jtv') return null;
  const tags = message.tags as ChatTags;
  // Kept as sent (tmi.js reads its sets from the text before unescaping it), and read only for
  // a chatter's role (chat-roles.ts): most lines are no command.
  const badges = tags.badges;
  // One look at the whole line rather than one per tag: most lines hold no backslash at all.
  const escaped = message.raw.includes('\\');
  for (const key in tags) {
    const value = tags[key];
    // tmi.js's parser gives an empty value ("flags=") as true, its handler as null.
    if (value === true) tags[key] = null;
    else if (escaped && typeof value === 'string' && value.includes('\\')) tags[key] = tmiUtils.unescapeIRC(value);
  }
  if (typeof badges === 'string') {
    // As tmi.js keeps it: the text, unescaped.
    const text: unknown = tags.badges;
    tags['badges-raw'] = text;
    tags.badges = badges;
  }
  if (tags.emotes !== undefined) tags['emotes-raw'] = tags.emotes;
  tags.username = username;
  const action = sent.charCodeAt(0) === 1 ? tmiUtils.actionMessage(sent) : null;
  tags['message-type'] = action === null ? 'chat' : 'action';
  return { channel, text: action === null ? sent : action[1]!, tags };
}
