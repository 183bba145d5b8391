// What a chat event pushed to the overlay, and a chatter registered as a viewer, must look like
// whatever the line they came from (docs/push.md's chat frame, docs/chat.md's For developers):
// shared by the property tests of the Twitch line path.
import { expect } from 'vitest';
import type { ViewerIdentity } from '../../src/adapters/chat-event-mapping.ts';
import { emoteSegments, parseEmotesTag } from '../../src/overlay/emote-segments.ts';
import type { ChatEvent } from '../../src/service/push/protocol.ts';

/** A string with no lone surrogate: it has a UTF-8 form, so the page gets what was sent. */
export function wellFormed(text: string): boolean {
  return text.isWellFormed();
}

/** Every string anywhere in a JSON-able value. */
function stringsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsOf);
  if (value !== null && typeof value === 'object') return Object.entries(value).flatMap(([key, inner]) => [key, ...stringsOf(inner)]);
  return [];
}

/**
 * `event` as docs/push.md describes a chat frame's event: its fields of the right types, JSON that
 * reads back the same and encodes to valid UTF-8, and for a message, emote segments that tile its
 * text exactly (nothing lost, nothing twice), each emote where the tag put one.
 */
export function expectWellFormedChatEvent(event: ChatEvent): void {
  const json = JSON.stringify(event);
  expect(JSON.parse(json)).toEqual(event);
  expect(Buffer.from(json, 'utf8').toString('utf8')).toBe(json);
  for (const text of stringsOf(event)) expect(wellFormed(text), `lone surrogate in ${JSON.stringify(text)}`).toBe(true);
  switch (event.type) {
    case 'message': {
      expect(Object.keys(event).sort()).toEqual(['avatarUrl', 'badges', 'color', 'displayName', 'emotes', 'id', 'login', 'text', 'type', 'userId'].sort());
      for (const key of ['id', 'userId', 'login', 'displayName'] as const) {
        expect(typeof event[key]).toBe('string');
        expect(event[key].trim()).toBe(event[key]);
        expect(event[key]).not.toBe('');
      }
      expect(event.login).toBe(event.login.toLowerCase());
      expect(typeof event.text).toBe('string');
      expect(event.color === null || /^#[0-9a-f]{6}$/.test(event.color)).toBe(true);
      expect(typeof event.emotes).toBe('string');
      expect(event.avatarUrl).toBeNull();
      for (const badge of event.badges) {
        expect(Object.keys(badge).sort()).toEqual(['set', 'version']);
        expect(badge.set).not.toBe('');
        expect(badge.version).not.toBe('');
      }
      expectEmotesTileText(event.text, event.emotes);
      break;
    }
    case 'message-deleted':
      expect(typeof event.messageId).toBe('string');
      expect(event.messageId).not.toBe('');
      break;
    case 'user-cleared':
      expect(typeof event.userId).toBe('string');
      expect(event.userId).not.toBe('');
      break;
    case 'chat-cleared':
      expect(Object.keys(event)).toEqual(['type']);
      break;
  }
}

/** The page's segments of `text` (src/overlay/emote-segments.ts) put back together are `text`. */
export function expectEmotesTileText(text: string, emotes: string): void {
  const segments = emoteSegments(text, emotes);
  expect(segments.map((segment) => (segment.type === 'text' ? segment.text : segment.code)).join('')).toBe(text);
  const codePoints = Array.from(text);
  const ranges = parseEmotesTag(emotes);
  let at = 0;
  for (const segment of segments) {
    const piece = segment.type === 'text' ? segment.text : segment.code;
    expect(piece).not.toBe('');
    const length = Array.from(piece).length;
    if (segment.type === 'emote') {
      // An emote stands where one of the tag's ranges of that id starts and ends, inside the text.
      expect(ranges.some((range) => range.id === segment.id && range.start === at && range.end === at + length - 1)).toBe(true);
      expect(at + length).toBeLessThanOrEqual(codePoints.length);
    }
    at += length;
  }
  expect(at).toBe(codePoints.length);
}

/** A viewer the service can take: a numeric user id, a Twitch login, a display name it keeps. */
export function expectSaneViewer(viewer: ViewerIdentity): void {
  expect(viewer.twitchUserId).toMatch(/^[0-9]{1,32}$/);
  expect(viewer.login).toMatch(/^[a-z0-9_]{1,25}$/);
  if (viewer.displayName !== undefined) {
    expect(viewer.displayName.length).toBeGreaterThan(0);
    expect(viewer.displayName.length).toBeLessThanOrEqual(100);
    expect(viewer.displayName.trim()).toBe(viewer.displayName);
    expect(wellFormed(viewer.displayName)).toBe(true);
  }
}
