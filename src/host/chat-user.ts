// The chatter of a message, from its IRC tags.
import { chatRoleOf } from './chat-roles.ts';
import { textTag } from './chat-transport.ts';
import type { ChatTags } from './chat-transport.ts';
import type { ChatUser } from './plugin-api.ts';

/** The tag's text, trimmed (a "1" or "0" tmi.js made a boolean too); null when there is none. */
function tagText(value: unknown): string | null {
  const text = textTag(value)?.trim();
  return text === undefined || text === '' ? null : text;
}

/** null when the tags name no chatter (no login). The local chat, without user ids, uses the login. */
export function chatUserFromTags(tags: ChatTags): ChatUser | null {
  const login = tagText(tags.username)?.toLowerCase();
  if (login === undefined) return null;
  return {
    id: tagText(tags['user-id']) ?? login,
    login,
    displayName: tagText(tags['display-name']) ?? login,
    role: chatRoleOf(tags),
  };
}

/**
 * The name a reply @-mentions: the display name when it is the login in other case (Mod_mia for
 * mod_mia), else the login. Twitch highlights a mention of the login for its chatter; a localized
 * display name (健二 for kenji) is another word, which may not highlight nor name them for others.
 */
export function mentionName(user: { displayName: string; login?: string }): string {
  const { displayName, login } = user;
  return login === undefined || displayName.toLowerCase() === login ? displayName : login;
}
