/**
 * IRCv3 lines as Twitch chat speaks them: parse what a client sends, format what
 * the server sends. Used by FakeTwitchIrc; usable by any test that needs to read
 * or build a raw Twitch chat line.
 *
 *   parseIrcLine('@id=1 :nick!nick@nick.tmi.twitch.tv PRIVMSG #chan :hi there')
 *     -> { tags: { id: '1' }, prefix: 'nick!nick@nick.tmi.twitch.tv', command: 'PRIVMSG',
 *          params: ['#chan', 'hi there'] }
 *   formatIrcLine({ tags: { 'display-name': 'A B' }, prefix: 'tmi.twitch.tv', command: 'NOTICE', params: ['*', 'x'] })
 *     -> '@display-name=A\sB :tmi.twitch.tv NOTICE * :x'
 *
 * Tag values are escaped per IRCv3 (`\:` `;`, `\s` space, `\\` backslash, `\r`, `\n`).
 * The last param is always written as a trailing param (`:` prefix), as Twitch does.
 */

export type IrcTags = Record<string, string>;

export interface IrcMessage {
  tags: IrcTags;
  /** Source without the leading colon, or null when absent. */
  prefix: string | null;
  command: string;
  params: string[];
}

const TAG_ESCAPES: Record<string, string> = { ';': '\\:', ' ': '\\s', '\\': '\\\\', '\r': '\\r', '\n': '\\n' };
const TAG_UNESCAPES: Record<string, string> = { ':': ';', s: ' ', '\\': '\\', r: '\r', n: '\n' };

export function escapeTagValue(value: string): string {
  return value.replace(/[; \\\r\n]/g, (ch) => TAG_ESCAPES[ch] ?? ch);
}

export function unescapeTagValue(value: string): string {
  return value.replace(/\\(.)?/g, (_match, ch: string | undefined) => (ch === undefined ? '' : (TAG_UNESCAPES[ch] ?? ch)));
}

export function formatTags(tags: IrcTags): string {
  let out = '';
  for (const key in tags) {
    const value = tags[key] as string;
    out += (out ? ';' : '') + key + '=' + escapeTagValue(value);
  }
  return out;
}

/** Builds one line (no CRLF). `withTags: false` drops tags for clients without the tags capability. */
export function formatIrcLine(message: IrcMessage, withTags = true): string {
  let line = '';
  if (withTags) {
    const tags = formatTags(message.tags);
    if (tags) line += '@' + tags + ' ';
  }
  if (message.prefix !== null) line += ':' + message.prefix + ' ';
  line += message.command;
  const { params } = message;
  for (let i = 0; i < params.length; i++) {
    line += i === params.length - 1 ? ' :' + params[i] : ' ' + params[i];
  }
  return line;
}

/** Parses one line (CR/LF already stripped). Returns null for a blank or malformed line. */
export function parseIrcLine(raw: string): IrcMessage | null {
  const line = raw.replace(/[\r\n]+$/, '');
  let pos = 0;
  const tags: IrcTags = {};
  let prefix: string | null = null;

  if (line.startsWith('@')) {
    const end = line.indexOf(' ');
    if (end === -1) return null;
    for (const pair of line.slice(1, end).split(';')) {
      if (!pair) continue;
      const eq = pair.indexOf('=');
      if (eq === -1) tags[pair] = '';
      else tags[pair.slice(0, eq)] = unescapeTagValue(pair.slice(eq + 1));
    }
    pos = end + 1;
  }
  while (line[pos] === ' ') pos++;

  if (line[pos] === ':') {
    const end = line.indexOf(' ', pos);
    if (end === -1) return null;
    prefix = line.slice(pos + 1, end);
    pos = end + 1;
    while (line[pos] === ' ') pos++;
  }

  const commandEnd = line.indexOf(' ', pos);
  const command = (commandEnd === -1 ? line.slice(pos) : line.slice(pos, commandEnd)).toUpperCase();
  if (!command) return null;

  const params: string[] = [];
  if (commandEnd !== -1) {
    pos = commandEnd + 1;
    while (pos < line.length) {
      while (line[pos] === ' ') pos++;
      if (pos >= line.length) break;
      if (line[pos] === ':') {
        params.push(line.slice(pos + 1));
        break;
      }
      const next = line.indexOf(' ', pos);
      if (next === -1) {
        params.push(line.slice(pos));
        break;
      }
      params.push(line.slice(pos, next));
      pos = next + 1;
    }
  }
  return { tags, prefix, command, params };
}
