// When the HTTP client tries a request again, and how long it waits first. Pure functions, so
// the rules are tested without a clock.

export interface RetryPolicy {
  /** Retries after the first attempt, for every retryable failure together. */
  maxRetries: number;
  /** Longest Retry-After the client waits out; a longer one gives up at once with the 429. */
  maxRetryAfterMs: number;
  /** Back-off before retry n (0-based) is between half and all of min(maxDelayMs, baseDelayMs * 2^n). */
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
  maxRetries: 2,
  // The service's rate limit is a fixed 60 s window, so a Retry-After never exceeds a minute.
  maxRetryAfterMs: 60_000,
  baseDelayMs: 250,
  maxDelayMs: 5_000,
});

/** Statuses that say "try again later" without the request having done anything lasting. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([500, 502, 503, 504]);

/**
 * Connection failures where the request never reached the server, so even a write that is
 * not idempotent may be sent again.
 */
export const NOT_SENT_ERROR_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT',
]);

/**
 * Failures after which the request may or may not have been processed: only an idempotent
 * request is sent again.
 */
export const MAYBE_SENT_ERROR_CODES: ReadonlySet<string> = new Set([
  'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/**
 * Failures to make a TLS connection (a scheme or certificate problem): they fail the same way
 * every time, so they are a setup fault, not something to try again.
 */
export function isTlsFailureCode(code: string): boolean {
  return code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_') || code === 'EPROTO' || code.includes('CERT');
}

/** Bounded exponential back-off with jitter (half fixed, half random), in ms. */
export function backoffDelayMs(retry: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry);
  return Math.round(ceiling / 2 + (ceiling / 2) * random());
}

/**
 * Retry-After in ms: delay-seconds or an HTTP-date (RFC 9110 section 10.2.3).
 * Undefined when absent or unreadable; never negative.
 */
export function parseRetryAfterMs(header: string | undefined, nowMs: number): number | undefined {
  if (header === undefined) return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  if (Number.isNaN(date) || !/[a-z]/i.test(value)) return undefined;
  return Math.max(0, date - nowMs);
}
