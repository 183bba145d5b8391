// Tags for a local chat line, shaped as tmi.js delivers a Twitch PRIVMSG's (badges parsed to an
// object plus the raw string, "1"/"0" flags as booleans), so the host reads roles, ids and names
// from local lines exactly as from Twitch's.
import { createHash, randomUUID } from 'node:crypto';
import type { ChatRole } from '../../host/chat-roles.ts';
import type { ChatTags } from '../../host/chat-transport.ts';

/** Twitch's default name colours; a local chatter gets one picked from its login. */
const NAME_COLORS = [
  '#FF0000', '#0000FF', '#008000', '#B22222', '#FF7F50', '#9ACD32', '#FF4500', '#2E8B57',
  '#DAA520', '#D2691E', '#5F9EA0', '#1E90FF', '#FF69B4', '#8A2BE2', '#00FF7F',
];

function digest(login: string): Buffer {
  return createHash('sha256').update(login.toLowerCase()).digest();
}

/**
 * A stable numeric user id for a local chatter: "9" and 15 digits from the login. Real Twitch
 * ids are far shorter, so a local chatter is never mistaken for a Twitch account in the store.
 */
export function localUserIdOf(login: string): string {
  const number = digest(login).readUIntBE(0, 6) % 1e15;
  return `9${String(number).padStart(15, '0')}`;
}

export function localUserColorOf(login: string): string {
  return NAME_COLORS[digest(login)[6]! % NAME_COLORS.length]!;
}

/** "alice" -> "Alice": local chatters have no display name of their own. */
export function localDisplayNameOf(login: string): string {
  return login.charAt(0).toUpperCase() + login.slice(1);
}

/** The badges Twitch shows for a role (a subscriber of one year). */
const ROLE_BADGES: Readonly<Record<ChatRole, Record<string, string> | null>> = {
  broadcaster: { broadcaster: '1' },
  moderator: { moderator: '1' },
  vip: { vip: '1' },
  subscriber: { subscriber: '12' },
  everyone: null,
};

export interface LocalChatter {
  login: string;
  role: ChatRole;
  /**
   * The user id to send, when the transport chose one (a viewer in the store that holds this
   * login, or `local:<login>` when that could not be told); default the LocalTagsContext rule.
   */
  userId?: string;
}

export interface LocalTagsContext {
  /** The channel's room id: the broadcaster's user id. */
  roomId: string;
  /** User id of the broadcaster (equal to roomId). */
  broadcasterUserId: string;
  /**
   * Whether other chatters get Twitch-like numeric ids (localUserIdOf), so they can be viewers
   * in the store. Off while a real Twitch chat runs beside the local one: there a made-up viewer
   * could take a real viewer's login, so chatters get `local:<login>`, which no plugin takes for
   * a Twitch account.
   */
  viewerIds: boolean;
}

/** The id a chatter gets when the transport chose none: see LocalTagsContext. */
export function defaultUserIdOf(login: string, role: ChatRole, context: LocalTagsContext): string {
  if (role === 'broadcaster') return context.broadcasterUserId;
  return context.viewerIds ? localUserIdOf(login) : `local:${login.toLowerCase()}`;
}

/** Tags for one message from `chatter`; `id` is new each time. */
export function localChatTags(chatter: LocalChatter, context: LocalTagsContext, now = Date.now()): ChatTags {
  const login = chatter.login.toLowerCase();
  const badges = ROLE_BADGES[chatter.role];
  const subscriber = chatter.role === 'subscriber';
  const tags: ChatTags = {
    'badge-info': subscriber ? { subscriber: '14' } : null,
    'badge-info-raw': subscriber ? 'subscriber/14' : null,
    badges: badges === null ? null : { ...badges },
    'badges-raw': badges === null ? null : Object.entries(badges).map(([set, version]) => `${set}/${version}`).join(','),
    color: localUserColorOf(login),
    'display-name': localDisplayNameOf(login),
    emotes: null,
    'emotes-raw': null,
    'first-msg': false,
    flags: null,
    id: randomUUID(),
    mod: chatter.role === 'moderator',
    'returning-chatter': false,
    'room-id': context.roomId,
    subscriber,
    'tmi-sent-ts': String(now),
    turbo: false,
    'user-id': chatter.userId ?? defaultUserIdOf(login, chatter.role, context),
    'user-type': chatter.role === 'moderator' ? 'mod' : '',
    username: login,
    'message-type': 'chat',
  };
  if (chatter.role === 'vip') tags.vip = true;
  return tags;
}
