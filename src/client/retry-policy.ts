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

/**
 * Longest a 429 keeps the client from sending (or maxRetryAfterMs, if longer): the spec's rate
 * limit window, so no Retry-After of a service that keeps to it is longer. A longer one (a
 * proxy's in milliseconds) would silence the bot for hours; after this the next call asks again.
 */
export const RATE_LIMIT_WINDOW_MS = 60_000;

/** How long a 429 with this Retry-After keeps the client from sending. */
export function rateLimitClosureMs(retryAfterMs: number, policy: Pick<RetryPolicy, 'maxRetryAfterMs'>): number {
  return Math.min(retryAfterMs, Math.max(policy.maxRetryAfterMs, RATE_LIMIT_WINDOW_MS));
}

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
 * Failed checks of the service's certificate whose OpenSSL names do not say CERT: above all
 * UNABLE_TO_VERIFY_LEAF_SIGNATURE, what a certificate of a private CA (or one served without its
 * intermediate) fails with.
 */
const OTHER_CERTIFICATE_CODES: ReadonlySet<string> = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY', 'INVALID_CA', 'PATH_LENGTH_EXCEEDED',
  'INVALID_PURPOSE', 'HOSTNAME_MISMATCH', 'UNABLE_TO_GET_CRL', 'UNABLE_TO_DECRYPT_CRL_SIGNATURE', 'CRL_SIGNATURE_FAILURE',
  'CRL_NOT_YET_VALID', 'CRL_HAS_EXPIRED', 'ERROR_IN_CRL_LAST_UPDATE_FIELD', 'ERROR_IN_CRL_NEXT_UPDATE_FIELD',
]);

/**
 * A certificate no CA this process trusts vouches for: self-signed, or of a private CA. Trusting
 * it (NODE_EXTRA_CA_CERTS) mends it, unlike an expired one or one of another host.
 */
const UNTRUSTED_CERTIFICATE_CODES: ReadonlySet<string> = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'CERT_UNTRUSTED',
]);

/**
 * Failures to make a TLS connection (a scheme or certificate problem): they fail the same way
 * every time, so they are a setup fault, not something to try again.
 */
export function isTlsFailureCode(code: string): boolean {
  return code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_') || code === 'EPROTO' || code.includes('CERT')
    || OTHER_CERTIFICATE_CODES.has(code);
}

/** Whether the TLS failure `code` is a certificate the process does not trust (see UNTRUSTED_CERTIFICATE_CODES). */
export function isUntrustedCertificateCode(code: string): boolean {
  return UNTRUSTED_CERTIFICATE_CODES.has(code);
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

/**
 * Answers of something between the client and the service (a proxy, 502 and 504): the service
 * may have done the request, its answer lost on the way back.
 */
export const LOST_ANSWER_STATUSES: ReadonlySet<number> = new Set([502, 504]);
