// What the composition root does with each chat event, as pure mappings: the viewer to register
// in the service (so entitlements and picked skins find the chatter by Twitch user id) and the
// event to push to the channel's overlays. Both take any transport's events (Twitch, local).
import { textTag } from '../host/chat-transport.ts';
import type { ChatTags, ChatTransportEvent } from '../host/chat-transport.ts';
import type { ChatBadge, ChatEvent } from '../service/push/protocol.ts';

/** The service's viewer sign-in (`registerViewer`) for a chatter. */
export interface ViewerIdentity {
  twitchUserId: string;
  login: string;
  /** Absent when the tags carry none (the stored one is then kept). */
  displayName?: string;
}

const USER_ID = /^[0-9]{1,32}$/;
const LOGIN = /^[a-z0-9_]{1,25}$/;
const HEX_COLOR = /^#[0-9a-f]{6}$/;
const MAX_DISPLAY_NAME = 100;

/**
 * A tag's text, trimmed, with any lone surrogate (half of a character: no UTF-8 has it) made
 * U+FFFD; null when there is none. Twitch's lines come as UTF-8 and hold none, but the local chat
 * takes JSON, where "\ud800" is one. A "1" or "0" tmi.js made a boolean is that text (textTag).
 */
function tagText(value: unknown): string | null {
  const raw = textTag(value);
  if (raw === null) return null;
  const text = raw.trim().toWellFormed();
  return text === '' ? null : text;
}

/**
 * The chatter of a `message` event, to register as a viewer. null for other events, for the
 * bot's own lines, and when the tags lack a usable user id or login (the service would refuse them).
 */
export function viewerIdentityOf(event: ChatTransportEvent): ViewerIdentity | null {
  if (event.type !== 'message' || event.self) return null;
  return viewerIdentityFrom(event.tags['user-id'], event.tags.username, event.tags['display-name']);
}

/**
 * A viewer to register from a Twitch user id, login and display name, checked and normalized as
 * a chatter's tags are (viewerIdentityOf); a channel-point redemption's viewer comes this way.
 * null when the user id or login is unusable; a display name that is not is left out.
 */
export function viewerIdentityFrom(userId: unknown, userLogin: unknown, userDisplayName: unknown): ViewerIdentity | null {
  const twitchUserId = tagText(userId);
  const login = tagText(userLogin)?.toLowerCase() ?? null;
  if (twitchUserId === null || !USER_ID.test(twitchUserId) || login === null || !LOGIN.test(login)) return null;
  const displayName = tagText(userDisplayName);
  return displayName !== null && displayName.length <= MAX_DISPLAY_NAME ? { twitchUserId, login, displayName } : { twitchUserId, login };
}

/**
 * The overlay's chat event for a transport event (`pushChatEvent(accountId, event)`); null for
 * events the overlay does not show (the bot's USERSTATE) and for a message without an id, user id
 * or login. The bot's own lines are shown too, as Twitch's chat shows them.
 */
export function overlayChatEventOf(event: ChatTransportEvent): ChatEvent | null {
  switch (event.type) {
    case 'message':
      return overlayMessageOf(event.text, event.tags);
    case 'message-deleted':
      return { type: 'message-deleted', messageId: event.messageId };
    case 'user-cleared':
      return { type: 'user-cleared', userId: event.userId };
    case 'chat-cleared':
      return { type: 'chat-cleared' };
    default:
      return null;
  }
}

function overlayMessageOf(text: string, tags: ChatTags): ChatEvent | null {
  const id = tagText(tags.id);
  const userId = tagText(tags['user-id']);
  const login = tagText(tags.username)?.toLowerCase() ?? null;
  if (id === null || userId === null || login === null) return null;
  const color = tagText(tags.color)?.toLowerCase() ?? null;
  return {
    type: 'message',
    id,
    userId,
    login,
    displayName: tagText(tags['display-name']) ?? login,
    color: color !== null && HEX_COLOR.test(color) ? color : null,
    // U+FFFD for a lone surrogate is still one code point: the emotes' positions stay right.
    text: text.toWellFormed(),
    emotes: rawEmotesOf(tags),
    badges: badgesOf(tags),
    avatarUrl: null,
  };
}

/**
 * The IRC `emotes` tag as Twitch sent it (`25:0-4,12-16/1902:6-10`). Its positions count code
 * points, which the overlay resolves; kept raw so an emoji before an emote stays right.
 */
function rawEmotesOf(tags: ChatTags): string {
  const raw = tags['emotes-raw'];
  if (typeof raw === 'string') return raw.toWellFormed();
  // Tags built without tmi.js's *-raw copies: rebuild the tag from the parsed form.
  const parsed = tags.emotes;
  if (parsed === null || typeof parsed !== 'object') return '';
  return Object.entries(parsed as Record<string, unknown>)
    .filter((entry): entry is [string, string[]] => Array.isArray(entry[1]) && entry[1].every((range) => typeof range === 'string'))
    .map(([emoteId, ranges]) => `${emoteId}:${ranges.join(',')}`)
    .join('/')
    .toWellFormed();
}

/** Badges in Twitch's order (the raw tag's), as `{ set, version }`. */
function badgesOf(tags: ChatTags): ChatBadge[] {
  const raw = tags['badges-raw'];
  if (typeof raw === 'string' && raw !== '') return badgesOfRaw(raw.toWellFormed());
  const parsed = tags.badges;
  // The tag as sent, when its unescaped text came out empty (`badges=\n`): tmi.js keeps its sets.
  if (typeof parsed === 'string') return badgesOfRaw(parsed.toWellFormed());
  if (parsed === null || parsed === undefined || typeof parsed !== 'object') return [];
  // As from the raw tag, an entry without a set is no badge.
  return Object.entries(parsed).filter(([set]) => set !== '').map(([set, version]) => ({
    set: set.toWellFormed(),
    version: typeof version === 'string' && version !== '' ? version.toWellFormed() : '1',
  }));
}

/** The raw `badges` tag (`moderator/1,subscriber/12`) as badges. */
function badgesOfRaw(raw: string): ChatBadge[] {
  // A plain loop over the tag: this runs for every chat line shown on an overlay.
  const badges: ChatBadge[] = [];
  for (let start = 0; start <= raw.length;) {
    let end = raw.indexOf(',', start);
    if (end === -1) end = raw.length;
    const slash = raw.indexOf('/', start);
    const setEnd = slash === -1 || slash > end ? end : slash;
    const version = setEnd === end ? '' : raw.slice(setEnd + 1, end);
    if (setEnd > start) badges.push({ set: raw.slice(start, setEnd), version: version === '' ? '1' : version });
    start = end + 1;
  }
  return badges;
}
