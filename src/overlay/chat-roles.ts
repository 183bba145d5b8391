// Which skin a chat message renders with: the viewer's own pick on the channel first, else the
// skin assigned to the highest of the chatter's roles. Roles come from the message's badges
// (IRC `badges` tag). Pure, shared by the page and the tests.
import type { ChatBadge, OverlayStyle } from '../service/push/protocol.ts';
import type { Role } from '../service/types.ts';

/** Highest first: a moderator who subscribes gets the moderator skin. */
export const ROLE_PRECEDENCE: readonly Role[] = Object.freeze(['broadcaster', 'moderator', 'vip', 'subscriber']);

/** Badge set -> the role it shows. `founder` replaces the subscriber badge for early subscribers. */
const BADGE_ROLES: Readonly<Record<string, Role>> = {
  broadcaster: 'broadcaster',
  moderator: 'moderator',
  'lead_moderator': 'moderator',
  vip: 'vip',
  subscriber: 'subscriber',
  founder: 'subscriber',
};

export function rolesFromBadges(badges: readonly Pick<ChatBadge, 'set'>[]): Set<Role> {
  const roles = new Set<Role>();
  for (const badge of badges) {
    const role = Object.hasOwn(BADGE_ROLES, badge.set) ? BADGE_ROLES[badge.set] : undefined;
    if (role !== undefined) roles.add(role);
  }
  return roles;
}

/** The skin id a message from this chatter renders with, or null for the overlay's own style. */
export function resolveMessageSkin(
  chatter: { userId: string; badges: readonly Pick<ChatBadge, 'set'>[] },
  style: Pick<OverlayStyle, 'skins' | 'roleSkins' | 'viewerSkins'>,
): number | null {
  const known = new Set(style.skins.map((skin) => skin.id));
  const picked = Object.hasOwn(style.viewerSkins, chatter.userId) ? style.viewerSkins[chatter.userId] : undefined;
  if (picked !== undefined && known.has(picked)) return picked;
  const roles = rolesFromBadges(chatter.badges);
  for (const role of ROLE_PRECEDENCE) {
    const skinId = style.roleSkins[role];
    if (roles.has(role) && skinId !== undefined && known.has(skinId)) return skinId;
  }
  return null;
}
