// POST /local/chat/say over a real socket: lines reach the local chat from loopback, with clear
// refusals for bad bodies and for requests that look proxied.
import Fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_CHAT_SAY_PATH, registerLocalChatSayRoute } from '../../../src/adapters/local-chat/local-chat-say-route.ts';
import { createLocalChatTransport } from '../../../src/adapters/local-chat/local-chat-transport.ts';
import { localUserIdOf } from '../../../src/adapters/local-chat/local-chat-tags.ts';
import { chatRoleOf } from '../../../src/host/chat-roles.ts';
import { recordChatEvents } from '../chat-event-recorder.ts';
import type { ChatEventRecorder } from '../chat-event-recorder.ts';

let app: FastifyInstance;
let origin: string;
let recorder: ChatEventRecorder;
const printed: string[] = [];

beforeAll(async () => {
  const chat = createLocalChatTransport({ channel: 'streamer', output: { write: (text: string) => printed.push(text) } });
  recorder = recordChatEvents(chat);
  app = Fastify();
  registerLocalChatSayRoute(app, chat);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
afterAll(async () => {
  recorder.stop();
  await app.close();
});

async function post(body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${origin}${LOCAL_CHAT_SAY_PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() as { message: string; errors?: Record<string, string[]>; data?: Record<string, unknown> } };
}

describe(`POST ${LOCAL_CHAT_SAY_PATH}`, () => {
  it('accepts a line (202) and the local chat sends it as the asked-for chatter and role', async () => {
    const since = recorder.events.length;
    const response = await post({ text: '!style bubble.width 300', login: 'Mia', role: 'mod' });
    expect(response.status).toBe(202);
    expect(response.body.message).toBe('Sent to the local chat of #streamer as mia (moderator).');
    expect(response.body.data).toMatchObject({ login: 'mia', displayName: 'Mia', role: 'moderator', text: '!style bubble.width 300' });
    const message = await recorder.next('message', () => true, since);
    expect(message).toMatchObject({ channel: 'streamer', text: '!style bubble.width 300', self: false });
    expect(message.tags.id).toBe(response.body.data?.id);
    expect(message.tags['user-id']).toBe(localUserIdOf('mia'));
    expect(chatRoleOf(message.tags)).toBe('moderator');
    expect(printed.at(-1)).toBe('mia (moderator): !style bubble.width 300\n');
  });

  it('takes /me as an action line and // as a line that starts with /, as the terminal does', async () => {
    const since = recorder.events.length;
    expect((await post({ text: '/me !skin neon', login: 'alice' })).status).toBe(202);
    expect((await post({ text: '//shrug', login: 'alice' })).status).toBe(202);
    const [action, slashed] = recorder.events.slice(since);
    expect(action).toMatchObject({ type: 'message', text: '!skin neon', tags: { 'message-type': 'action' } });
    expect(slashed).toMatchObject({ type: 'message', text: '/shrug', tags: { 'message-type': 'chat' } });
    expect(printed.slice(-2)).toEqual(['alice: /me !skin neon\n', 'alice: /shrug\n']);
  });

  it('sends as the local user, a viewer, when no login or role is given', async () => {
    const response = await post({ text: 'hello' });
    expect(response.status).toBe(202);
    expect(response.body.message).toBe('Sent to the local chat of #streamer as you (viewer).');
    expect(response.body.data).toMatchObject({ login: 'you', role: 'everyone' });
  });

  it.each([
    ['an empty text', { text: '' }, 'text', 'The text must not be empty'],
    ['a text over 500 characters', { text: 'x'.repeat(501) }, 'text', 'The text must be at most 500 characters, as on Twitch'],
    ['a text of only line breaks', { text: '\n\t' }, 'text', 'The text is refused: the text is empty.'],
    ['a bad login', { text: 'hi', login: 'bad login' }, 'login', 'The login must be a Twitch login: 1 to 25 letters, digits or _'],
    ['an unknown role', { text: 'hi', role: 'admin' }, 'role', 'The role must be one of broadcaster, streamer, moderator, mod, vip, subscriber, sub, viewer, everyone'],
    ['another broadcaster', { text: 'hi', login: 'alice', role: 'broadcaster' }, 'login', 'The login is refused: the broadcaster of #streamer is streamer, not alice.'],
    ['an unknown key', { text: 'hi', extra: 1 }, 'body', 'The body has unknown key "extra"; allowed keys: text, login, role'],
    ['no text', { login: 'alice' }, 'text', 'The text must be the chat line, a string'],
    // The terminal's prefixes: sent as text they restyled nothing and put "/mod ..." on the overlay.
    ['a role prefix', { text: '/mod !style bubble.width 300' }, 'text',
      'The text is refused: /mod picks the role in the terminal only: give it apart here (chatskin chat say --role mod; the role list on the chat page).'],
    ['an /as prefix', { text: '/as alice !skins', role: 'vip' }, 'text',
      'The text is refused: /as picks the chatter in the terminal only: give the login apart here (chatskin chat say --as LOGIN; the login field on the chat page).'],
    ['another slash word', { text: '/ban troll' }, 'text',
      'The text is refused: a line starting with /ban is a command on Twitch, never chat text: start it with // to say it as text.'],
    ['a /me with nothing after it', { text: '/me  ' }, 'text', 'The text is refused: nothing to say after /me.'],
    ['a /redeem', { text: '/redeem unlock-neon' }, 'text',
      'The text is refused: /redeem is typed in the terminal chatskin runs in (its local chat), not posted as a chat line.'],
  ])('refuses %s with 422 naming the field', async (_label, body, field, message) => {
    const since = recorder.events.length;
    const response = await post(body);
    expect(response.status).toBe(422);
    expect(Object.keys(response.body.errors ?? {})).toEqual([field]);
    expect(response.body.message).toContain(message);
    expect(recorder.events.length).toBe(since);
  });

  it('refuses a body that is not JSON with 422, and one over 8 KiB with 413', async () => {
    const malformed = await post('{"text":');
    expect(malformed.status).toBe(422);
    expect(Object.keys(malformed.body.errors ?? {})).toEqual(['body']);
    expect((await post({ text: 'x'.repeat(9_000) })).status).toBe(413);
  });

  it('refuses a request that looks proxied with 403, even from loopback', async () => {
    for (const header of ['x-forwarded-for', 'forwarded', 'x-real-ip']) {
      const since = recorder.events.length;
      const response = await post({ text: 'hi' }, { [header]: '203.0.113.9' });
      expect(response.status).toBe(403);
      expect(response.body.message).toBe(`POST ${LOCAL_CHAT_SAY_PATH} only answers requests from this machine (a loopback address and host name, no proxy headers).`);
      expect(recorder.events.length).toBe(since);
    }
  });
});
