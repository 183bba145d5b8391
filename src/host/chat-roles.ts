// A chatter's role for command permissions, from the IRC tags: the broadcaster badge or the room
// being the chatter's own (room-id = user-id), the mod flag or moderator badge, the vip flag or
// badge, the subscriber flag or subscriber/founder badge.
//
// Roles are ordered: broadcaster > moderator > vip > subscriber > everyone. A command's `role` is
// the least it needs, so a subscriber-only command also answers VIPs who do not subscribe.
import { textTag } from './chat-transport.ts';
import type { ChatTags } from './chat-transport.ts';

export type ChatRole = 'broadcaster' | 'moderator' | 'vip' | 'subscriber' | 'everyone';

/** Highest first. */
export const CHAT_ROLES: readonly ChatRole[] = Object.freeze(['broadcaster', 'moderator', 'vip', 'subscriber', 'everyone']);

const RANK: Readonly<Record<ChatRole, number>> = { broadcaster: 4, moderator: 3, vip: 2, subscriber: 1, everyone: 0 };

export function isChatRole(value: unknown): value is ChatRole {
  return typeof value === 'string' && Object.hasOwn(RANK, value);
}

/** Whether a chatter with role `actual` may do what needs `required`. */
export function hasRole(actual: ChatRole, required: ChatRole): boolean {
  return RANK[actual] >= RANK[required];
}

function flagSet(value: unknown): boolean {
  return value === true || value === '1';
}

function hasBadge(tags: ChatTags, ...sets: string[]): boolean {
  const badges = tags.badges;
  if (badges === null || badges === undefined) return false;
  // The tag as sent (`moderator/1,subscriber/12`): its sets, read as tmi.js reads them.
  if (typeof badges === 'string') return badges.split(',').some((entry) => sets.includes(entry.split('/')[0]!));
  return sets.some((set) => Object.hasOwn(badges, set));
}

export function chatRoleOf(tags: ChatTags): ChatRole {
  // Both "1" for the chatter whose user id is 1, which tmi.js gives as true.
  const roomId = textTag(tags['room-id']);
  if (hasBadge(tags, 'broadcaster') || (roomId !== null && roomId !== '' && roomId === textTag(tags['user-id']))) return 'broadcaster';
  if (flagSet(tags.mod) || tags['user-type'] === 'mod' || hasBadge(tags, 'moderator', 'lead_moderator')) return 'moderator';
  if (flagSet(tags.vip) || hasBadge(tags, 'vip')) return 'vip';
  if (flagSet(tags.subscriber) || hasBadge(tags, 'subscriber', 'founder')) return 'subscriber';
  return 'everyone';
}
