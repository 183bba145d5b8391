// Who speaks a local chat line: a login and a role, from what the line or request asked for.
// The channel's own login is always its broadcaster (as on Twitch, where room-id = user-id), and
// the broadcaster is always the channel's login.
import type { ChatRole } from '../../host/chat-roles.ts';
import type { LocalChatter } from './local-chat-tags.ts';

/** Role words the line prefixes and `role` fields accept. */
export const LOCAL_ROLE_WORDS: Readonly<Record<string, ChatRole>> = Object.freeze({
  broadcaster: 'broadcaster',
  streamer: 'broadcaster',
  moderator: 'moderator',
  mod: 'moderator',
  vip: 'vip',
  subscriber: 'subscriber',
  sub: 'subscriber',
  viewer: 'everyone',
  everyone: 'everyone',
});

export const LOCAL_LOGIN = /^[a-z0-9_]{1,25}$/;

export function roleOfWord(word: string): ChatRole | null {
  const key = word.toLowerCase();
  return Object.hasOwn(LOCAL_ROLE_WORDS, key) ? LOCAL_ROLE_WORDS[key]! : null;
}

export interface ChatterRequest {
  login: string | null;
  role: ChatRole | null;
}

export type ChatterResult = { ok: true; chatter: LocalChatter } | { ok: false; field: 'login' | 'role'; message: string };

/** `defaultLogin` speaks when no login is asked for (as a viewer unless a role is asked for). */
export function resolveLocalChatter(request: ChatterRequest, channel: string, defaultLogin: string): ChatterResult {
  const login = request.login?.toLowerCase() ?? null;
  if (login !== null && !LOCAL_LOGIN.test(login)) {
    return { ok: false, field: 'login', message: `"${request.login}" is not a Twitch login (1 to 25 letters, digits or _)` };
  }
  if (request.role === 'broadcaster') {
    if (login !== null && login !== channel) {
      return { ok: false, field: 'login', message: `the broadcaster of #${channel} is ${channel}, not ${login}` };
    }
    return { ok: true, chatter: { login: channel, role: 'broadcaster' } };
  }
  const speaker = login ?? defaultLogin;
  if (speaker === channel) {
    if (request.role !== null && request.role !== 'everyone') {
      return { ok: false, field: 'role', message: `${channel} is the broadcaster of #${channel}; it cannot speak as ${request.role}` };
    }
    return { ok: true, chatter: { login: channel, role: 'broadcaster' } };
  }
  return { ok: true, chatter: { login: speaker, role: request.role ?? 'everyone' } };
}
