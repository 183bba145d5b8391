// What went wrong, as one line of text for a log message or a status: an Error's message, else
// the thrown value itself (code may throw anything, `undefined` included).
import { inspect, types } from 'node:util';
import { redactInspectedFields } from '../config/secret-key.ts';

/** Longest description of a thrown non-Error object: a status line, not a dump. */
const MAX_THROWN_TEXT = 200;

export function errorText(error: unknown): string {
  // A plugin may throw a value that throws when read (an Error whose message getter throws, a
  // Proxy): saying what went wrong must not fail in turn, in the catch that isolates the plugin.
  try {
    return readErrorText(error);
  } catch {
    return 'a value that cannot be read was thrown (reading it threw)';
  }
}

function readErrorText(error: unknown): string {
  if (error instanceof Error || types.isNativeError(error)) return (error as Error).message;
  if (error === undefined || error === null) return `${String(error)} was thrown (not an Error)`;
  if (typeof error !== 'object' && typeof error !== 'function') return String(error);
  // String() of an object says "[object Object]", and throws for one without a prototype or
  // with a toString that throws; inspect shows its fields, circular ones included, and never throws.
  // A plugin may throw what holds its settings or a token it got: secret-named fields are
  // redacted. No string is cut short by inspect before the whole text is (see shortened).
  const shown = redactInspectedFields(
    inspect(error, { depth: 1, compact: true, breakLength: Infinity, maxArrayLength: 10, maxStringLength: MAX_THROWN_TEXT })
      .replace(/\s*\n\s*/g, ' '),
  );
  return `${shortened(shown)} was thrown (not an Error)`;
}

/**
 * At most MAX_THROWN_TEXT characters, cut where a word ends: a secret cut through (a token, a
 * URL holding one) would show a part of itself that no scrubber recognises.
 */
function shortened(text: string): string {
  if (text.length <= MAX_THROWN_TEXT) return text;
  const cut = text.slice(0, MAX_THROWN_TEXT - 3);
  const space = cut.lastIndexOf(' ');
  return `${space > 0 ? cut.slice(0, space) : ''}...`;
}
