// IRC tag objects shaped exactly as tmi.js 1.8 hands them to a `message` / USERSTATE listener
// (badges parsed to set -> version, "1"/"0" flags turned into booleans, the *-raw copies).
import type { ChatTags } from '../../src/host/chat-transport.ts';

export const ROOM_ID = '40286300';
let nextUserId = 500_000;
let nextMessage = 0;
// One Twitch user id per login, as on Twitch: `viewerTags('ann')` twice is the same Ann, so a
// test of a per-user cooldown or of a viewer's state sees one chatter, not two.
const userIds = new Map<string, string>();

function userIdOf(login: string): string {
  let id = userIds.get(login);
  if (id === undefined) {
    id = String(++nextUserId);
    userIds.set(login, id);
  }
  return id;
}

function badgeTags(badges: Record<string, string> | null): Pick<ChatTags, 'badges' | 'badges-raw'> {
  return {
    badges,
    'badges-raw': badges === null ? null : Object.entries(badges).map(([set, version]) => `${set}/${version}`).join(','),
  };
}

/**
 * A PRIVMSG's tags from `login` (an ordinary viewer unless `overrides` say otherwise): a new
 * message id each time, and the login's own user id, the same on every call.
 */
export function chatTags(login: string, overrides: Partial<ChatTags> = {}): ChatTags {
  return {
    'badge-info': null,
    ...badgeTags(null),
    'client-nonce': 'c0ffee',
    color: '#1E90FF',
    'display-name': login[0]!.toUpperCase() + login.slice(1),
    emotes: null,
    'first-msg': false,
    flags: null,
    id: `8a3f1c2e-0000-4000-8000-${String(++nextMessage).padStart(12, '0')}`,
    mod: false,
    'returning-chatter': false,
    'room-id': ROOM_ID,
    subscriber: false,
    'tmi-sent-ts': '1700000000000',
    turbo: false,
    'user-id': userIdOf(login),
    'user-type': '',
    'emotes-raw': null,
    'badge-info-raw': null,
    username: login,
    'message-type': 'chat',
    ...overrides,
  };
}

export const broadcasterTags = (login = 'streamer'): ChatTags =>
  chatTags(login, { ...badgeTags({ broadcaster: '1', 'sub-gifter': '5' }), 'user-id': ROOM_ID });

export const moderatorTags = (login = 'mod_mia'): ChatTags =>
  chatTags(login, { ...badgeTags({ moderator: '1' }), mod: true, 'user-type': 'mod' });

export const vipTags = (login = 'vip_vic'): ChatTags =>
  chatTags(login, { ...badgeTags({ vip: '1' }), vip: true });

export const subscriberTags = (login = 'sub_sam'): ChatTags =>
  chatTags(login, { ...badgeTags({ subscriber: '12' }), 'badge-info': { subscriber: '14' }, 'badge-info-raw': 'subscriber/14', subscriber: true });

export const founderTags = (login = 'founder_fay'): ChatTags =>
  chatTags(login, { ...badgeTags({ founder: '0' }), 'badge-info': { founder: '3' }, 'badge-info-raw': 'founder/3', subscriber: true });

export const viewerTags = (login = 'viewer_val'): ChatTags => chatTags(login);

/** The bot's USERSTATE in a channel where it is (or is not) a moderator. */
export function botUserstate(moderator: boolean): ChatTags {
  return {
    'badge-info': null,
    ...badgeTags(moderator ? { moderator: '1' } : null),
    color: '#8A2BE2',
    'display-name': 'MyBot',
    'emote-sets': '0,300374282',
    mod: moderator,
    subscriber: false,
    'user-type': moderator ? 'mod' : '',
    'badge-info-raw': null,
    username: 'mybot',
  };
}

/** The bot's USERSTATE in a channel where it is a VIP (slow mode does not apply to it; the rate limit does). */
export function botVipUserstate(): ChatTags {
  return { ...botUserstate(false), ...badgeTags({ vip: '1' }), vip: true };
}
