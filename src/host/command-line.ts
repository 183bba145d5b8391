// Which chat lines the commands read, and what of them. Twitch chat carries lines that are not
// addressed to the bot, and lines with more than the command: those are shown on the overlay as
// they came, and the router gets only what a command is read from.
import { textTag } from './chat-transport.ts';
import type { ChatTags } from './chat-transport.ts';
import { INVISIBLE } from './typed-text.ts';

const ONE_INVISIBLE = new RegExp(INVISIBLE.source, 'u');
const LEADING_BLANKS = new RegExp(`^(?:\\s|${INVISIBLE.source})*`, 'u');

/** The tags that name the chatter a reply answers (Twitch's reply threads). */
const REPLY_PARENT_NAMES = ['reply-parent-display-name', 'reply-parent-user-login'] as const;

/**
 * The text the command router reads of a chat line, or null when no command runs from it.
 * - A `/me` line (tmi.js's message-type `action`) tells what the chatter does, as in "/me shows
 *   how !skin works", so, as with most bots, it is not a command.
 * - A line of a Shared Chat session sent in another channel (its source-room-id is not its
 *   room-id) is that channel's: its own bot answers it there, and a bot joined to both channels
 *   would answer each shared line twice, once in each copy. Only the copy in the channel it was
 *   sent in (the same room, or no source-room-id outside a session) is a command.
 * - A reply starts with "@<name of the chatter answered> " (Twitch's site and the clients put it
 *   there): it is dropped, so that a reply may carry a command. Invisible characters in and
 *   around it (a chat client's, or pasted) do not hide it, as they hide no command.
 */
export function commandTextOf(text: string, tags: ChatTags): string | null {
  if (tags['message-type'] === 'action' || isFromAnotherChannel(tags)) return null;
  return withoutReplyMention(text, tags);
}

function isFromAnotherChannel(tags: ChatTags): boolean {
  const source = tags['source-room-id'];
  return source !== undefined && source !== null && source !== tags['room-id'];
}

function withoutReplyMention(text: string, tags: ChatTags): string {
  const visible = text.replace(INVISIBLE, '');
  if (!visible.startsWith('@')) return text;
  for (const tag of REPLY_PARENT_NAMES) {
    // tmi.js gives an empty tag as null, and "1" or "0" as a boolean (textTag turns it back).
    const name = textTag(tags[tag]);
    if (name === null || name === '') continue;
    const end = 1 + name.length;
    if (visible.slice(1, end).toLowerCase() === name.toLowerCase() && (end === visible.length || /\s/.test(visible[end]!))) {
      return text.slice(afterVisible(text, end)).replace(LEADING_BLANKS, '');
    }
  }
  return text;
}

/** Where `text`'s first `count` visible UTF-16 units end (invisible characters not counted). */
function afterVisible(text: string, count: number): number {
  let seen = 0;
  let index = 0;
  for (const char of text) {
    if (seen >= count) break;
    index += char.length;
    if (!ONE_INVISIBLE.test(char)) seen += char.length;
  }
  return index;
}
