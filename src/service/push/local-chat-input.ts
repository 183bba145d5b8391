// The chat event a local caller (POST /local/chat, docs/push.md) may send, with the defaults
// that make a one-line demo work: only `type` and the fields that event needs are required.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { FieldErrors } from '../types.ts';
import type { ChatBadge, ChatEvent } from './protocol.ts';

const id = z.string().trim().min(1).max(200);
const HEX_COLOR = /^#[0-9a-fA-F]{6}$/;
const BADGE = /^([a-z0-9_-]{1,50})\/([A-Za-z0-9_-]{1,50})$/;
const HTTP_URL = /^https?:\/\/\S+$/;

const badge = z.union([
  z.string().regex(BADGE, { error: 'must be "set/version", e.g. "moderator/1"' }),
  z.strictObject({
    set: z.string().regex(/^[a-z0-9_-]{1,50}$/),
    version: z.string().min(1).max(50).default('1'),
    imageUrl: z.string().max(2000).regex(HTTP_URL, { error: 'must be an http(s) URL' }).nullish(),
    title: z.string().max(100).nullish(),
  }),
]);

const message = z.strictObject({
  type: z.literal('message'),
  id: id.optional(),
  login: z.string().regex(/^[A-Za-z0-9_]{1,25}$/, { error: 'must be a Twitch login: 1 to 25 letters, digits or _' }),
  userId: id.optional(),
  displayName: z.string().trim().min(1).max(100).optional(),
  color: z.string().regex(HEX_COLOR, { error: 'must be a colour #rrggbb' }).nullish(),
  text: z.string().min(1).max(2000),
  emotes: z.string().max(2000).default(''),
  badges: z.array(badge).max(20).default([]),
  avatarUrl: z.string().max(2000).regex(HTTP_URL, { error: 'must be an http(s) URL' }).nullish(),
});

export const localChatEventSchema = z.discriminatedUnion('type', [
  message,
  z.strictObject({ type: z.literal('message-deleted'), messageId: id }),
  z.strictObject({ type: z.literal('user-cleared'), userId: id }),
  z.strictObject({ type: z.literal('chat-cleared') }),
], { error: 'must be an object whose type is message, message-deleted, user-cleared or chat-cleared' });

export const localChatBodySchema = z.strictObject({
  /** Any overlay token of the channel; the event goes to every overlay of that channel. */
  token: z.string().min(1).max(200),
  event: localChatEventSchema,
}, { error: 'must be a JSON object with token and event' });

export type LocalChatBody = z.infer<typeof localChatBodySchema>;

/** The protocol event with defaults filled in: a fresh id, user id = login, display name = login. */
export function toChatEvent(input: z.infer<typeof localChatEventSchema>): ChatEvent {
  if (input.type !== 'message') return input;
  const badges: ChatBadge[] = input.badges.map((b) => {
    if (typeof b !== 'string') return { set: b.set, version: b.version, imageUrl: b.imageUrl ?? null, title: b.title ?? null };
    const [, set, version] = BADGE.exec(b)!;
    return { set: set!, version: version! };
  });
  return {
    type: 'message',
    id: input.id ?? randomUUID(),
    userId: input.userId ?? input.login.toLowerCase(),
    login: input.login.toLowerCase(),
    displayName: input.displayName ?? input.login,
    color: input.color?.toLowerCase() ?? null,
    text: input.text,
    emotes: input.emotes,
    badges,
    avatarUrl: input.avatarUrl ?? null,
  };
}

/** zod issues as the API's `errors` object: dotted field path -> messages. */
/**
 * What follows "The <field>": this schema's own messages read on ("must be ..."); zod's own
 * ("Too big: expected array to have <=20 items", "Invalid input: expected string") are put after
 * "is invalid:".
 */
function issueText(message: string): string {
  if (/^[a-z]/.test(message)) return message;
  const detail = message.replace(/^Invalid input: /, '');
  return `is invalid: ${detail.charAt(0).toLowerCase()}${detail.slice(1)}`;
}

export function fieldErrorsOf(error: z.ZodError): FieldErrors {
  const errors: FieldErrors = {};
  for (const issue of error.issues) {
    const field = issue.path.length === 0 ? 'body' : issue.path.map(String).join('.');
    (errors[field] ??= []).push(`The ${field} ${issueText(issue.message)}`);
  }
  return errors;
}
