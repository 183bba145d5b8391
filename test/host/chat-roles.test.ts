import { describe, expect, it } from 'vitest';
import { chatRoleOf, hasRole } from '../../src/host/chat-roles.ts';
import type { ChatRole } from '../../src/host/chat-roles.ts';
import {
  broadcasterTags, chatTags, founderTags, moderatorTags, ROOM_ID, subscriberTags, viewerTags, vipTags,
} from './irc-tags.ts';

describe('chatRoleOf (tmi.js tags)', () => {
  it('the broadcaster badge makes the broadcaster', () => {
    expect(chatRoleOf(broadcasterTags())).toBe('broadcaster');
  });

  it('room-id equal to user-id makes the broadcaster even without the badge', () => {
    expect(chatRoleOf(chatTags('streamer', { 'user-id': ROOM_ID }))).toBe('broadcaster');
  });

  it('room-id and user-id both "1", which tmi.js gives as true, make the broadcaster; "1" and "0" do not', () => {
    expect(chatRoleOf(chatTags('streamer', { 'room-id': true, 'user-id': true }))).toBe('broadcaster');
    expect(chatRoleOf(chatTags('streamer', { 'room-id': true, 'user-id': '1' }))).toBe('broadcaster');
    expect(chatRoleOf(chatTags('viewer', { 'room-id': true, 'user-id': false }))).toBe('everyone');
  });

  it('the moderator badge, the mod flag (boolean or raw "1") and user-type mod each make a moderator', () => {
    expect(chatRoleOf(moderatorTags())).toBe('moderator');
    expect(chatRoleOf(chatTags('m1', { badges: { moderator: '1' } }))).toBe('moderator');
    expect(chatRoleOf(chatTags('m2', { mod: true }))).toBe('moderator');
    expect(chatRoleOf(chatTags('m3', { mod: '1' }))).toBe('moderator');
    expect(chatRoleOf(chatTags('m4', { 'user-type': 'mod' }))).toBe('moderator');
    expect(chatRoleOf(chatTags('m5', { badges: { lead_moderator: '1' } }))).toBe('moderator');
  });

  it('the vip badge or vip flag make a vip', () => {
    expect(chatRoleOf(vipTags())).toBe('vip');
    expect(chatRoleOf(chatTags('v', { vip: true }))).toBe('vip');
  });

  it('the subscriber flag, subscriber badge or founder badge make a subscriber', () => {
    expect(chatRoleOf(subscriberTags())).toBe('subscriber');
    expect(chatRoleOf(founderTags())).toBe('subscriber');
    expect(chatRoleOf(chatTags('s', { subscriber: true }))).toBe('subscriber');
    expect(chatRoleOf(chatTags('s2', { badges: { subscriber: '3' } }))).toBe('subscriber');
  });

  it('the founder badge alone makes a subscriber (founderTags also sets the subscriber flag, which hid it)', () => {
    expect(chatRoleOf(chatTags('f', { badges: { founder: '0' }, 'badges-raw': 'founder/0' }))).toBe('subscriber');
  });

  it('anyone else is everyone; false flags and other badges grant nothing', () => {
    expect(chatRoleOf(viewerTags())).toBe('everyone');
    expect(chatRoleOf(chatTags('x', { mod: false, subscriber: false, badges: { 'bits': '100', premium: '1' } }))).toBe('everyone');
    expect(chatRoleOf(chatTags('x', { 'room-id': undefined, 'user-id': undefined }))).toBe('everyone');
  });

  it('the highest role wins', () => {
    expect(chatRoleOf(chatTags('both', { badges: { moderator: '1', subscriber: '6' }, mod: true, subscriber: true }))).toBe('moderator');
    expect(chatRoleOf(chatTags('vipsub', { badges: { vip: '1', subscriber: '6' }, subscriber: true }))).toBe('vip');
  });
});

describe('hasRole: roles are ordered broadcaster > moderator > vip > subscriber > everyone', () => {
  const order: ChatRole[] = ['everyone', 'subscriber', 'vip', 'moderator', 'broadcaster'];
  for (const [needIndex, need] of order.entries()) {
    for (const [haveIndex, have] of order.entries()) {
      it(`${have} ${haveIndex >= needIndex ? 'may' : 'may not'} use a ${need} command`, () => {
        expect(hasRole(have, need)).toBe(haveIndex >= needIndex);
      });
    }
  }
});
