// The one error both overlay clients throw, so a plugin handles the bundled service and a
// remote one alike: `status` is the HTTP status the service answered (or would answer, for the
// in-process client), `errors` the 422 field errors, `retryAfter` the seconds a 429 or 503 asks for.
import { STORE_UNWRITABLE_PREFIX } from '../service/http/error-response.ts';
import type { FieldErrors, ServiceError } from '../service/types.ts';

/**
 * What went wrong:
 * - `service`: the service answered with an error status (4xx/5xx) and its `{message, errors}`;
 * - `redirect`: a 3xx arrived instead of JSON (never followed; usually a wrong base URL);
 * - `timeout`: no complete answer within the per-request timeout (`status` 0);
 * - `network`: the connection failed (refused, reset, DNS; `status` 0);
 * - `tls`: no TLS connection could be made (https to a plain-http service, an untrusted or
 *   expired certificate, another host's; `status` 0): a setup fault, never retried;
 * - `invalid_response`: a success status whose body is not the JSON envelope the spec promises,
 *   or an answer longer than the client reads (maxResponseBytes);
 * - `unsupported`: the operation has no spec endpoint, so a remote service cannot do it
 *   (`status` 0, nothing was sent); it needs the bundled service.
 */
export type OverlayStyleErrorKind = 'service' | 'redirect' | 'timeout' | 'network' | 'tls' | 'invalid_response' | 'unsupported';

export interface OverlayStyleErrorInit {
  status: number;
  message: string;
  kind?: OverlayStyleErrorKind;
  errors?: FieldErrors | undefined;
  /** Seconds, from a 429's or 503's Retry-After. */
  retryAfter?: number | undefined;
  /** An earlier attempt of the call may have been carried out, its answer lost (HTTP client). */
  afterLostAnswer?: boolean;
  cause?: unknown;
}

export class OverlayStyleError extends Error {
  /** HTTP status; 0 when no response arrived (timeout, network). */
  readonly status: number;
  readonly kind: OverlayStyleErrorKind;
  /** Field errors of a 422, keyed like the spec's `errors` (`values.bubble.width`, `scope`, ...). */
  readonly errors: FieldErrors | undefined;
  /** Seconds the service asked to wait (Retry-After of a 429, or of a 503 for a busy database), when it said. */
  readonly retryAfter: number | undefined;
  /**
   * HTTP client only: an earlier attempt of this call failed in a way that may have left the
   * request done (a timeout, a connection lost once sent, a 502 or 504 from something in
   * between), and this error is a later attempt's. The call may have taken effect even so (an
   * unlock's grant made): the error says only that the service did not confirm it.
   */
  readonly afterLostAnswer: boolean;

  constructor(init: OverlayStyleErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'OverlayStyleError';
    this.status = init.status;
    this.kind = init.kind ?? 'service';
    this.errors = init.errors;
    this.retryAfter = init.retryAfter;
    this.afterLostAnswer = init.afterLostAnswer ?? false;
  }
}

/** The error a remote client throws for an operation only the bundled service has. */
export function unsupportedByRemote(operation: string): OverlayStyleError {
  return new OverlayStyleError({
    status: 0,
    kind: 'unsupported',
    message: `${operation} is not supported by a remote overlay style service: the API has no endpoint for it. `
      + 'It needs the bundled service (config service.mode: bundled).',
  });
}

/**
 * Whether `error` is an OverlayStyleError; with `status`, whether it is the service's own
 * refusal with that status (kind `service`), not an answer from something else in its place (a
 * wrong base URL's 404 page is `invalid_response`), for `catch` blocks in plugins.
 */
export function isOverlayStyleError(error: unknown, status?: number): error is OverlayStyleError {
  return error instanceof OverlayStyleError && (status === undefined || (error.kind === 'service' && error.status === status));
}

/** Errors whose outage the client that threw them has already told its log of (see wasLogged). */
const loggedErrors = new WeakSet<OverlayStyleError>();

/** Marks `error` as told to the log already, by the client that threw it (its outage's one line). */
export function markLogged(error: OverlayStyleError): void {
  loggedErrors.add(error);
}

/**
 * Whether the client that threw `error` has told its log of the outage it belongs to (the HTTP
 * client, given a logger, says each outage once, with what to do): a caller need not log it again.
 */
export function wasLogged(error: OverlayStyleError): boolean {
  return loggedErrors.has(error);
}

/**
 * Whether the cause lies with the service or with how the bot reaches it, not with the request:
 * it is away, busy or failing, refuses the bot's key or access (401, 403), or something else
 * answered in its place. Worth a line in the log for the streamer; a refusal of the request itself
 * (404, 422) is only answered.
 */
export function isServiceSideError(error: OverlayStyleError): boolean {
  return error.kind !== 'service' || error.status >= 500 || error.status === 429 || error.status === 401 || error.status === 403;
}

/**
 * The service's 503 for a database that cannot be written (full or read-only disk): unlike a
 * database another program holds locked, only its operator can mend it.
 */
export function isStoreUnwritable(error: OverlayStyleError): boolean {
  return error.kind === 'service' && error.status === 503 && error.message.startsWith(STORE_UNWRITABLE_PREFIX);
}

/**
 * The error the HTTP API answers for a ServiceError: its status, message and field errors, or
 * 500 "Server Error." for a 5xx (the API never shows a server failure's details).
 */
export function fromServiceError(error: ServiceError): OverlayStyleError {
  if (error.status >= 500) return new OverlayStyleError({ status: 500, message: 'Server Error.', cause: error });
  return new OverlayStyleError({ status: error.status, message: error.message, errors: error.errors, cause: error });
}
