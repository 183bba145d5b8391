// Chat replies as lines Twitch accepts: one line (no CR/LF, no control characters), at most
// `maxLength` UTF-16 units per message, split on word boundaries. A word that would leave less
// than half a message before it (or is longer than a whole message) is cut between grapheme
// clusters instead, so an emoji or a surrogate pair is never halved, and a reply of a mention and
// one long word does not spend a whole message on the mention alone.
import { givenValue } from './given-value.ts';
import type { ReplyOutcome } from './plugin-api.ts';
import { INVISIBLE } from './typed-text.ts';
import { mentionName } from './chat-user.ts';

const LINE_BREAKS = /[\r\n\u2028\u2029]+/g;
// C0/C1 controls except tab; a tab becomes a space.
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** One chat line: line breaks and tabs become spaces, other control characters go, ends trimmed. */
export function toChatLine(text: string): string {
  return text.replace(LINE_BREAKS, ' ').replace(/\t/g, ' ').replace(CONTROLS, '').trim();
}

/** A chat line with nothing to see: empty, or only invisible characters (zero-width, direction marks), which would show as a bare `@Name`. */
export function isBlankLine(line: string): boolean {
  return line.replace(INVISIBLE, '').trim() === '';
}

/** Why `text` cannot be a chat line at all (it is no string: `undefined`, a number, an object), or null. */
export function notChatText(text: unknown): string | null {
  if (typeof text === 'string') return null;
  return `the text to send must be a string (got ${givenValue(text)})`;
}

/**
 * Sends `@Name text` with `send`, Name as mentionName gives it; a blank `text` is refused as an
 * empty line is, never sent as a bare mention (which says nothing), and one that is no text at all
 * is not said as "@Name undefined": both are handed to `send` as they are, for the queue to refuse
 * and log.
 */
export function sendMention(
  send: (line: string) => Promise<ReplyOutcome>, user: { displayName: string; login?: string }, text: string,
): Promise<ReplyOutcome> {
  if (notChatText(text) !== null || isBlankLine(toChatLine(text))) return send(text);
  return send(`@${mentionName(user)} ${text}`);
}

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** The longest prefix of `word` of at most `maxLength` units that ends on a grapheme boundary. */
function cutLength(word: string, maxLength: number): number {
  let end = 0;
  for (const { segment } of graphemes.segment(word)) {
    if (end + segment.length > maxLength) break;
    end += segment.length;
  }
  if (end > 0) return end;
  // One grapheme longer than a message (a run of combining marks): cut between code points.
  const high = word.charCodeAt(maxLength - 1);
  return high >= 0xd800 && high <= 0xdbff ? maxLength - 1 : maxLength;
}

/** Splits an already single-line text into messages of at most `maxLength` units. */
export function splitMessage(text: string, maxLength: number): string[] {
  if (!Number.isInteger(maxLength) || maxLength < 2) throw new RangeError(`maxLength must be an integer >= 2, got ${maxLength}`);
  const parts: string[] = [];
  let rest = text.trim();
  while (rest.length > maxLength) {
    // The last space that leaves a part within the limit (a space at maxLength counts too), if
    // the part before it fills more than half a message.
    const space = rest.lastIndexOf(' ', maxLength);
    if (space > maxLength / 2) {
      parts.push(rest.slice(0, space).trimEnd());
      rest = rest.slice(space + 1).trimStart();
    } else {
      const end = cutLength(rest, maxLength);
      parts.push(rest.slice(0, end).trimEnd());
      rest = rest.slice(end).trimStart();
    }
  }
  if (rest.length > 0) parts.push(rest);
  return parts;
}
