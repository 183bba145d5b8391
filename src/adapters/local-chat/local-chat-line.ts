// The local chat's line syntax (docs/chat.md): a line is chat text, optionally led by prefixes
// choosing who says it.
//
//   hello                          as the local user (a viewer)
//   /mod !style bubble.width 300   as a moderator (also /vip, /sub, /broadcaster, /viewer)
//   /as alice hello                as alice; /as alice /vip hi combines both
//   //slash at the start           "/slash at the start", as text
//   /help                          the syntax
import { CHAT_MESSAGE_MAX_LENGTH } from '../../host/chat-transport.ts';
import type { ChatRole } from '../../host/chat-roles.ts';
import { toChatLine } from '../../host/split-message.ts';
import { LOCAL_LOGIN, roleOfWord } from './local-chat-chatter.ts';

export type LocalChatLine =
  | { kind: 'message'; text: string; login: string | null; role: ChatRole | null }
  | { kind: 'help' }
  | { kind: 'empty' }
  | { kind: 'error'; message: string };

export const LOCAL_CHAT_SYNTAX = [
  'Local chat: type a line to chat. Prefixes choose who says it:',
  '  /mod TEXT, /vip TEXT, /sub TEXT, /broadcaster TEXT, /viewer TEXT   as that role',
  '  /as LOGIN TEXT                                                     as another chatter (combine: /as alice /vip hi)',
  '  //TEXT                                                             text that starts with /',
].join('\n');

export function parseLocalChatLine(line: string): LocalChatLine {
  let rest = toChatLine(line);
  if (rest === '') return { kind: 'empty' };
  let login: string | null = null;
  let role: ChatRole | null = null;
  while (rest.startsWith('/')) {
    if (rest.startsWith('//')) {
      rest = rest.slice(1);
      break;
    }
    const [, word = '', after = ''] = /^\/(\S*)\s*(.*)$/.exec(rest) ?? [];
    const name = word.toLowerCase();
    if (name === 'help' || name === '?') return { kind: 'help' };
    if (name === 'as') {
      const [, who = '', text = ''] = /^(\S*)\s*(.*)$/.exec(after) ?? [];
      if (who === '' || who.startsWith('/')) return { kind: 'error', message: '/as needs a login: /as alice hello' };
      if (!LOCAL_LOGIN.test(who.toLowerCase())) return { kind: 'error', message: `/as ${who}: a login is 1 to 25 letters, digits or _` };
      if (login !== null) return { kind: 'error', message: 'one /as per line' };
      login = who.toLowerCase();
      rest = text;
      continue;
    }
    const named = roleOfWord(name);
    if (named === null) {
      return { kind: 'error', message: `unknown prefix /${word}: use /mod, /vip, /sub, /broadcaster, /viewer or /as LOGIN (// starts a line with /; /help)` };
    }
    if (role !== null) return { kind: 'error', message: 'one role prefix per line' };
    role = named;
    rest = after;
  }
  const text = rest.trim();
  if (text === '') return { kind: 'error', message: 'nothing to say after the prefixes' };
  if (text.length > CHAT_MESSAGE_MAX_LENGTH) {
    return { kind: 'error', message: `a chat line is at most ${CHAT_MESSAGE_MAX_LENGTH} characters; this one has ${text.length}` };
  }
  return { kind: 'message', text, login, role };
}
