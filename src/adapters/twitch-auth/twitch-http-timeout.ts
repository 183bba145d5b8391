// How long an HTTP call to Twitch (Helix, id.twitch.tv) may wait for Twitch's answer
// (twitch.httpTimeoutSeconds). Without a bound, a Twitch that takes the request and never answers
// holds it for undici's default of 300 s (its headersTimeout), and twurple's token fetcher makes
// every later call for that user wait on the same refresh.
//
// twurple 8 sends everything through the global fetch, and its token refresh (RefreshingAuthProvider,
// refreshUserToken) takes no fetch options of ours, so no signal or deadline of ours can reach it.
// The bound is put where that fetch looks instead: the global undici dispatcher, wrapped once so
// that a request to twurple's origins (twurpleHttpOrigins) gets headersTimeout and bodyTimeout (at
// most this long for the answer to start, and between two pieces of it); every other request goes
// through unchanged. Process-wide, as TWURPLE_MOCK_API_PORT is. A call that runs out fails like a
// lost connection: a fault that may pass, never Twitch refusing (twitch-error.ts words it). Our own
// fetch calls (the device flow, /validate) have a signal of their own with the same bound.
import { getGlobalDispatcher, setGlobalDispatcher } from 'undici';
import type { Dispatcher } from 'undici';
import { twurpleHttpOrigins } from './twitch-endpoints.ts';

/** twitch.httpTimeoutSeconds' default. */
export const DEFAULT_TWITCH_HTTP_TIMEOUT_MS = 30_000;

/** undici's codes for a request that got no answer (or no more of it) in time. */
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

let timeoutMs = DEFAULT_TWITCH_HTTP_TIMEOUT_MS;
/** The global dispatcher this module set (null: none yet). */
let installed: Dispatcher | null = null;

function originOf(origin: string | URL | undefined): string | null {
  if (origin === undefined) return null;
  return typeof origin === 'string' ? origin.replace(/\/+$/, '') : origin.origin;
}

/** Every later call of twurple's to Twitch (in this process) waits at most `ms` for an answer. */
export function boundTwitchHttp(ms: number): void {
  timeoutMs = ms;
  // Already in place, unless something set another global dispatcher since: then on top of that one.
  if (installed !== null && getGlobalDispatcher() === installed) return;
  installed = getGlobalDispatcher().compose((dispatch) => (options, handler) => {
    const origin = originOf(options.origin);
    const bounded = origin !== null && twurpleHttpOrigins().includes(origin);
    return dispatch(bounded ? { ...options, headersTimeout: timeoutMs, bodyTimeout: timeoutMs } : options, handler);
  });
  setGlobalDispatcher(installed);
}

/** The bound in force (the default until boundTwitchHttp is called). */
export function twitchHttpTimeoutMs(): number {
  return timeoutMs;
}

/** Whether `error` is a call that ran out of the bound (fetch's error, its cause undici's). */
export function isTwitchHttpTimeout(error: unknown): boolean {
  for (let cause = error, depth = 0; cause instanceof Error && depth < 5; cause = cause.cause, depth++) {
    if (TIMEOUT_CODES.has(String((cause as { code?: unknown }).code))) return true;
  }
  return false;
}

/** What a call that ran out of `ms` says, in every log line and status. */
export function noAnswerText(ms: number): string {
  return `Twitch did not answer within ${ms / 1000} s`;
}
