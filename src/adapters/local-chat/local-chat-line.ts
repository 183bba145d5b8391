// The local chat's line syntax (docs/chat.md): a line is chat text, optionally led by prefixes
// choosing who says it.
//
//   hello                          as the local user (a viewer)
//   /mod !style bubble.width 300   as a moderator (also /vip, /sub, /broadcaster, /viewer)
//   /as alice hello                as alice; /as alice /vip hi combines both
//   /me waves                      an action, as Twitch's /me: shown, never a command
//   //slash at the start           "/slash at the start", as text
//   /redeem unlock-neon            redeem the reward unlock-neon, as on Twitch (/as alice /redeem ...)
//   /help                          the syntax
import { REWARD_KEY_PATTERN } from '../../config/config-schema.ts';
import { CHAT_MESSAGE_MAX_LENGTH } from '../../host/chat-transport.ts';
import type { ChatRole } from '../../host/chat-roles.ts';
import { toChatLine } from '../../host/split-message.ts';
import { LOCAL_LOGIN, roleOfWord } from './local-chat-chatter.ts';

export type LocalChatLine =
  | { kind: 'message'; text: string; login: string | null; role: ChatRole | null; action?: true }
  /** A channel-point redemption of the reward `rewardKey` (a key of twitch.rewards), with what the viewer typed. */
  | { kind: 'redeem'; rewardKey: string; input: string; login: string | null; role: ChatRole | null }
  | { kind: 'help' }
  | { kind: 'empty' }
  | { kind: 'error'; message: string };

export const LOCAL_CHAT_SYNTAX = [
  'Local chat: type a line to chat. Prefixes choose who says it:',
  '  /mod TEXT, /vip TEXT, /sub TEXT, /broadcaster TEXT, /viewer TEXT   as that role',
  '  /as LOGIN TEXT                                                     as another chatter (combine: /as alice /vip hi)',
  '  /me TEXT                                                           an action, as on Twitch: no command runs from it',
  '  /redeem KEY [TEXT]                                                 redeem the channel-point reward KEY (its plugin runs; with Twitch off)',
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
    // Twitch's /me: the rest, prefixes and all, is what the chatter does (the last prefix).
    if (name === 'me') return messageOf(after, login, role, true);
    if (name === 'redeem') return redemptionOf(after, login, role);
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
      return { kind: 'error', message: `unknown prefix /${word}: use /mod, /vip, /sub, /broadcaster, /viewer, /as LOGIN or /me (// starts a line with /; /redeem KEY redeems a reward; /help)` };
    }
    if (role !== null) return { kind: 'error', message: 'one role prefix per line' };
    role = named;
    rest = after;
  }
  return messageOf(rest, login, role, false);
}

function redemptionOf(rest: string, login: string | null, role: ChatRole | null): LocalChatLine {
  const [, rewardKey = '', input = ''] = /^(\S*)\s*([\s\S]*)$/.exec(rest.trim()) ?? [];
  if (rewardKey === '') return { kind: 'error', message: '/redeem needs a reward key: /redeem unlock-neon (the keys of twitch.rewards)' };
  if (!REWARD_KEY_PATTERN.test(rewardKey)) return { kind: 'error', message: `/redeem ${rewardKey}: a reward key is 1 to 100 letters, digits, _ . : or -` };
  return { kind: 'redeem', rewardKey, input: input.trim(), login, role };
}

function messageOf(rest: string, login: string | null, role: ChatRole | null, action: boolean): LocalChatLine {
  const text = rest.trim();
  if (text === '') return { kind: 'error', message: action ? 'nothing to say after /me' : 'nothing to say after the prefixes' };
  if (text.length > CHAT_MESSAGE_MAX_LENGTH) {
    return { kind: 'error', message: `a chat line is at most ${CHAT_MESSAGE_MAX_LENGTH} characters; this one has ${text.length}` };
  }
  return action ? { kind: 'message', text, login, role, action: true } : { kind: 'message', text, login, role };
}

/**
 * A line posted with its chatter given apart (POST /local/chat/say: `chatskin chat say`, the
 * chat page), after toChatLine: /me and // as typed, but no prefix that chooses the chatter, and
 * no other /word, which Twitch chat takes for a command and never shows as text. Sent as it
 * was, such a line restyled nothing and left its sender to guess why.
 */
export function parsePostedLine(line: string): { text: string; action: boolean } | { error: string } {
  if (!line.startsWith('/')) return { text: line, action: false };
  if (line.startsWith('//')) return { text: line.slice(1), action: false };
  const [, word = '', after = ''] = /^\/(\S*)\s*(.*)$/.exec(line) ?? [];
  const name = word.toLowerCase();
  if (name === 'me') {
    const text = after.trim();
    return text === '' ? { error: 'nothing to say after /me' } : { text, action: true };
  }
  if (name === 'as') {
    return { error: '/as picks the chatter in the terminal only: give the login apart here (chatskin chat say --as LOGIN; the login field on the chat page)' };
  }
  if (name === 'redeem') return { error: '/redeem is typed in the terminal chatskin runs in (its local chat), not posted as a chat line' };
  if (roleOfWord(name) !== null) {
    return { error: `/${word} picks the role in the terminal only: give it apart here (chatskin chat say --role ${name}; the role list on the chat page)` };
  }
  return { error: `a line starting with /${word} is a command on Twitch, never chat text: start it with // to say it as text` };
}
