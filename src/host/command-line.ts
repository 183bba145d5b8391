// Which chat lines the commands read, and what of them. Twitch chat carries lines that are not
// addressed to the bot, and lines with more than the command: those are shown on the overlay as
// they came, and the router gets only what a command is read from.
import type { ChatTags } from './chat-transport.ts';

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
 *   there): it is dropped, so that a reply may carry a command.
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
  if (!text.startsWith('@')) return text;
  for (const tag of REPLY_PARENT_NAMES) {
    // tmi.js gives an empty tag as null, and "1" or "0" as a boolean.
    const name = tags[tag];
    if (typeof name !== 'string' || name === '') continue;
    const end = 1 + name.length;
    if (text.slice(1, end).toLowerCase() === name.toLowerCase() && (end === text.length || /\s/.test(text[end]!))) {
      return text.slice(end).trimStart();
    }
  }
  return text;
}
