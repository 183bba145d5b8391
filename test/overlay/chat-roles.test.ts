import { describe, expect, it } from 'vitest';
import { resolveMessageSkin, rolesFromBadges } from '../../src/overlay/chat-roles.ts';
import type { OverlayStyle } from '../../src/service/push/protocol.ts';

const skin = (id: number) => ({ id, name: `Skin ${id}`, slug: `skin-${id}`, settings: {}, overrides: {} });
const style: Pick<OverlayStyle, 'skins' | 'roleSkins' | 'viewerSkins'> = {
  skins: [skin(1), skin(2), skin(3), skin(4)],
  roleSkins: { moderator: 1, subscriber: 2, broadcaster: 4 },
  viewerSkins: { '1001': 3, '1002': 99 },
};

describe('rolesFromBadges', () => {
  it('maps badge sets to roles, founder counting as subscriber', () => {
    expect([...rolesFromBadges([{ set: 'founder' }, { set: 'vip' }, { set: 'premium' }])].sort()).toEqual(['subscriber', 'vip']);
  });

  it('ignores inherited object keys as badge sets', () => {
    expect(rolesFromBadges([{ set: 'constructor' }, { set: '__proto__' }]).size).toBe(0);
  });
});

describe('resolveMessageSkin', () => {
  it("uses the viewer's own pick before any role skin", () => {
    expect(resolveMessageSkin({ userId: '1001', badges: [{ set: 'moderator' }] }, style)).toBe(3);
  });

  it('uses the highest role that has a skin', () => {
    expect(resolveMessageSkin({ userId: '7', badges: [{ set: 'subscriber' }, { set: 'moderator' }] }, style)).toBe(1);
    expect(resolveMessageSkin({ userId: '7', badges: [{ set: 'subscriber' }, { set: 'vip' }] }, style)).toBe(2);
    expect(resolveMessageSkin({ userId: '7', badges: [{ set: 'broadcaster' }, { set: 'moderator' }] }, style)).toBe(4);
  });

  it('ranks the roles broadcaster, moderator, VIP, subscriber when each has a skin (docs/overlay.md)', () => {
    const everyRole = { ...style, roleSkins: { broadcaster: 4, moderator: 1, vip: 3, subscriber: 2 } };
    const skinOf = (...sets: string[]) => resolveMessageSkin({ userId: '7', badges: sets.map((set) => ({ set })) }, everyRole);
    expect(skinOf('vip', 'moderator')).toBe(1);
    expect(skinOf('subscriber', 'vip')).toBe(3);
    expect(skinOf('vip', 'broadcaster')).toBe(4);
    expect(skinOf('founder', 'lead_moderator', 'vip')).toBe(1);
  });

  it('falls back to roles when the picked skin is not in the style, and to none without roles', () => {
    expect(resolveMessageSkin({ userId: '1002', badges: [{ set: 'subscriber' }] }, style)).toBe(2);
    expect(resolveMessageSkin({ userId: '7', badges: [] }, style)).toBeNull();
  });
});
