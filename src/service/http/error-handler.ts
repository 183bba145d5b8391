// Maps every error a route, parser or hook can throw to the API's envelope. Known refusals keep
// their status; a write that waited out another program's lock on the database is 503 with
// Retry-After (nothing was stored; the same request can simply be sent again), and so is one the
// database cannot save at all (a full or read-only disk: logged as an error, for the operator to
// mend); anything
// unexpected is logged (never with the Authorization header) and answered 500
// {"message":"Server Error."}, so bad input can never surface as a 5xx with internals.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { storageFaultOf, storageFaultText } from '../store/storage-fault.ts';
import type { StorageFault } from '../store/storage-fault.ts';
import { isDatabaseBusy } from '../store/store-open-error.ts';
import { ServiceError } from '../types.ts';
import type { ErrorBody, ErrorResponder } from './error-response.ts';
import { MESSAGES, storeUnwritableMessage } from './error-response.ts';
import { BODY_MESSAGES, bodyError } from './json-body.ts';

export interface MappedError {
  status: number;
  body: ErrorBody;
  /** Unexpected: log it. */
  unexpected: boolean;
  /** Sent as Retry-After. */
  retryAfterSeconds?: number;
  /** The database cannot be written (a full or read-only disk): logged for the operator. */
  storageFault?: StorageFault;
}

/** How soon a write refused because the database was locked may be sent again. */
export const STORE_BUSY_RETRY_AFTER_SECONDS = 1;

/**
 * How soon a write the disk could not take is worth sending again: a person has to act first.
 * Over a minute, so a client that waits out at most a rate-limit window (ours does) gives up at
 * once instead of holding a chat command for minutes of retries.
 */
export const STORE_UNWRITABLE_RETRY_AFTER_SECONDS = 120;

const BODY_ERROR_CODES: Record<string, string> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: BODY_MESSAGES.notJson,
  FST_ERR_CTP_EMPTY_JSON_BODY: BODY_MESSAGES.notObject,
  FST_ERR_CTP_INVALID_JSON_BODY: BODY_MESSAGES.invalidJson,
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'The request body does not match its Content-Length.',
};

export function mapError(error: unknown, bodyLimitBytes: number): MappedError {
  if (error instanceof ServiceError) {
    if (error.status >= 500) return { status: 500, body: { message: MESSAGES.serverError }, unexpected: true };
    const body: ErrorBody = { message: error.message };
    if (error.errors !== undefined) body.errors = error.errors;
    return { status: error.status, body, unexpected: false };
  }
  if (isDatabaseBusy(error)) {
    return { status: 503, body: { message: MESSAGES.storeBusy }, unexpected: false, retryAfterSeconds: STORE_BUSY_RETRY_AFTER_SECONDS };
  }
  const storageFault = storageFaultOf(error);
  if (storageFault !== null) {
    return {
      status: 503, body: { message: storeUnwritableMessage(storageFault) }, unexpected: false,
      retryAfterSeconds: STORE_UNWRITABLE_RETRY_AFTER_SECONDS, storageFault,
    };
  }
  const fastifyError = error as Partial<FastifyError> | null;
  const code = typeof fastifyError?.code === 'string' ? fastifyError.code : '';
  if (code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return {
      status: 413,
      body: { message: `Payload Too Large: the request body is over ${bodyLimitBytes} bytes.` },
      unexpected: false,
    };
  }
  const bodyMessage = BODY_ERROR_CODES[code];
  if (bodyMessage !== undefined) {
    const refusal = bodyError(bodyMessage);
    return { status: 422, body: { message: refusal.message, errors: refusal.errors! }, unexpected: false };
  }
  // Other client errors Fastify raises (malformed requests) keep their 4xx status, and so does a
  // client that hung up in the middle of its body (Node's "aborted", ECONNRESET): no server fault.
  const status = fastifyError?.statusCode;
  if ((code.startsWith('FST_') || code === 'ECONNRESET') && typeof status === 'number' && status >= 400 && status < 500) {
    return { status, body: { message: fastifyError?.message ?? 'Bad Request.' }, unexpected: false };
  }
  return { status: 500, body: { message: MESSAGES.serverError }, unexpected: true };
}

export function createApiErrorHandler(responder: ErrorResponder, bodyLimitBytes: number) {
  return function apiErrorHandler(error: unknown, request: FastifyRequest, reply: FastifyReply) {
    const mapped = mapError(error, bodyLimitBytes);
    if (mapped.unexpected) {
      // The request serializer logs method, url and address only; no headers, so no key.
      request.log.error({ err: error, method: request.method, url: request.url }, 'unexpected error in API request');
    } else if (mapped.storageFault !== undefined) {
      request.log.error({ method: request.method, url: request.url, storageFault: mapped.storageFault, err: error },
        `a write could not be saved: ${storageFaultText(mapped.storageFault)}`);
    } else if (mapped.status === 503) {
      request.log.warn({ method: request.method, url: request.url }, 'a write waited out the busy timeout: another program holds the database\'s write lock');
    }
    if (mapped.retryAfterSeconds !== undefined) reply.header('Retry-After', String(mapped.retryAfterSeconds));
    // An oversized body is not read on: its answer closes the connection (unread-bodies.ts).
    return responder.send(request, reply, mapped.status, mapped.body);
  };
}
