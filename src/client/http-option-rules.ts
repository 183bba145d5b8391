// What createHttpClient accepts for its options, in one place: it checks them when the client is
// made, and the config schema (client-from-config.ts) checks a config's section by the same
// rules, so a mistake is a config error naming the key, not a TypeError when the host starts.

/** Longest timer Node keeps (about 24.8 days): the longest timeout or wait an option may ask for. */
export const MAX_TIMER_MS = 2_147_483_647;
/** Most retries maxRetries may ask for. */
export const MAX_RETRIES_LIMIT = 10;
/** Largest maxResponseBytes: 1 GiB. */
export const MAX_RESPONSE_BYTES_LIMIT = 2 ** 30;

/** The API key: a token of visible ASCII characters (it goes in a header as it is). */
export const API_KEY_TEXT = /^[\x21-\x7e]+$/;
const HEADER_TEXT = /^[\x20-\x7e]+$/;

/** Whether `value` can be the User-Agent header: printable ASCII, not only spaces. */
export function isUserAgentText(value: unknown): value is string {
  return typeof value === 'string' && HEADER_TEXT.test(value) && value.trim() !== '';
}

/** An integer option from `min` to `max`, `fallback` when not given; a TypeError naming it otherwise. */
export function integerOption(name: string, value: number | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new TypeError(`createHttpClient: ${name} must be an integer from ${min} to ${max}, got ${String(value)}`);
  }
  return value;
}
