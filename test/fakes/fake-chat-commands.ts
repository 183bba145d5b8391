/**
 * Chat commands for FakeTwitchIrc, as Twitch reads a client's PRIVMSG: a text starting with "/"
 * or "." and a letter (after leading spaces) is a command, never chat text, whoever sends it and
 * however it was sent (tmi.js's say() and a raw PRIVMSG alike). Since February 2023 Twitch runs
 * no command over IRC but /me (an action line, shown without the "/me"): any other is answered
 * with NOTICE msg-id `unrecognized_cmd` ("Unrecognized command: /ban") and not delivered; a /me
 * with no text with `usage_me`.
 *
 *   chatCommandOf('/me waves')   -> { prefix: '/', name: 'me', text: 'waves' }
 *   chatCommandOf('.ban fan')    -> { prefix: '.', name: 'ban', text: 'fan' }
 *   chatCommandOf('hi /ban fan') -> null (chat text)
 *   commandRefusal({ prefix: '/', name: 'ban', text: 'fan' })
 *     -> { msgId: 'unrecognized_cmd', notice: 'Unrecognized command: /ban' }
 */
export interface ChatCommand {
  prefix: '/' | '.';
  /** Lowercase. */
  name: string;
  /** What follows the command word, trimmed ('' for none). */
  text: string;
}

export function chatCommandOf(line: string): ChatCommand | null {
  const found = /^([/.])([a-z][a-z0-9_]*)(?:\s+([\s\S]*))?$/i.exec(line.trimStart());
  if (found === null) return null;
  return { prefix: found[1] as '/' | '.', name: found[2]!.toLowerCase(), text: (found[3] ?? '').trim() };
}

/** The NOTICE Twitch answers a command with instead of delivering it; null for a /me that is delivered (as an action). */
export function commandRefusal(command: ChatCommand): { msgId: string; notice: string } | null {
  if (command.name !== 'me') return { msgId: 'unrecognized_cmd', notice: `Unrecognized command: ${command.prefix}${command.name}` };
  if (command.text === '') return { msgId: 'usage_me', notice: 'Usage: "/me <message>" - Express an action in the third person.' };
  return null;
}
