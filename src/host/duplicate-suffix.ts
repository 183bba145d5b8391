// Twitch drops a line identical to the bot's previous one within 30 s (unseen where the bot is
// not a moderator, or refused with msg_duplicate); an invisible character at the end makes a
// repeat differ without changing what chat shows. U+034F (COMBINING GRAPHEME JOINER), as
// Chatterino and 7TV use: since August 2025 Twitch drops the tag character U+E0000 they (and
// this) used before, so a repeat with it arrived identical and was refused.
import { splitMessage } from './split-message.ts';

export const DUPLICATE_SUFFIX = ' \u034F';

/** `text` made to differ from itself with the suffix; a line too long for it is shortened to make room. */
export function withDuplicateSuffix(text: string, maxLength: number): string {
  const room = maxLength - DUPLICATE_SUFFIX.length;
  // splitMessage's first part: cut at a space, or else between graphemes, never mid-character.
  const kept = text.length <= room ? text : splitMessage(text, Math.max(2, room))[0]!;
  return kept + DUPLICATE_SUFFIX;
}

/**
 * A line refused as a duplicate, made to differ: one with the suffix repeated a line that had it
 * too, so it goes without; one without gets it.
 */
export function madeToDiffer(text: string, maxLength: number): string {
  return text.endsWith(DUPLICATE_SUFFIX) ? text.slice(0, -DUPLICATE_SUFFIX.length) : withDuplicateSuffix(text, maxLength);
}
