import { describe, expect, it } from 'vitest';
import { fieldErrorsOf, localChatBodySchema, toChatEvent } from '../../../src/service/push/local-chat-input.ts';

describe('local chat input', () => {
  it('fills in the defaults of a minimal message', () => {
    const body = localChatBodySchema.parse({ token: 't', event: { type: 'message', login: 'Alice', text: 'hi' } });
    const event = toChatEvent(body.event);
    expect(event).toEqual({
      type: 'message', id: expect.stringMatching(/^[0-9a-f-]{36}$/), userId: 'alice', login: 'alice', displayName: 'Alice',
      color: null, text: 'hi', emotes: '', badges: [], avatarUrl: null,
    });
  });

  it('reads badges written as set/version', () => {
    const body = localChatBodySchema.parse({ token: 't', event: { type: 'message', login: 'a', text: 'x', badges: ['moderator/1', { set: 'vip' }] } });
    const event = toChatEvent(body.event);
    expect(event.type === 'message' && event.badges).toEqual([{ set: 'moderator', version: '1' }, { set: 'vip', version: '1', imageUrl: null, title: null }]);
  });

  it('keys errors by field', () => {
    const result = localChatBodySchema.safeParse({ token: 't', event: { type: 'message', login: 'not a login', text: '', avatarUrl: 'javascript:alert(1)' } });
    expect(result.success).toBe(false);
    const errors = fieldErrorsOf(result.error!);
    expect(Object.keys(errors).sort()).toEqual(['event.avatarUrl', 'event.login', 'event.text']);
    expect(errors['event.login']![0]).toMatch(/Twitch login/);
  });

  it('words zod\'s own messages after "is invalid:" and the schema\'s own as they are', () => {
    const result = localChatBodySchema.safeParse({
      token: 't', event: { type: 'message', login: 'alice', text: 42, badges: Array(21).fill('vip/1'), color: 'red' },
    });
    const errors = fieldErrorsOf(result.error!);
    expect(errors['event.badges']).toEqual(['The event.badges is invalid: too big: expected array to have <=20 items']);
    expect(errors['event.text']).toEqual(['The event.text is invalid: expected string, received number']);
    expect(errors['event.color']).toEqual(['The event.color must be a colour #rrggbb']);
  });

  it('refuses an unknown event type', () => {
    const result = localChatBodySchema.safeParse({ token: 't', event: { type: 'explode' } });
    expect(result.success).toBe(false);
    expect(Object.keys(fieldErrorsOf(result.error!))).toEqual(['event.type']);
  });
});
