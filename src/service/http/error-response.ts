// Every error the API answers goes through here, so the envelope ({message} or
// {message, errors}) and the Accept redirect rule are applied in one place.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { storageFaultText } from '../store/storage-fault.ts';
import type { StorageFault } from '../store/storage-fault.ts';
import type { FieldErrors } from '../types.ts';
import { acceptsJsonFirst, redirectLocation } from './accept-redirect.ts';

export interface ErrorBody {
  message: string;
  errors?: FieldErrors;
}

export const MESSAGES = {
  unauthenticated: 'Unauthenticated.',
  tooManyAttempts: 'Too Many Attempts.',
  notFound: 'Not Found.',
  methodNotAllowed: 'Method Not Allowed.',
  serverError: 'Server Error.',
  /** 503 of a request that arrived while the server stops (closing-refusal.ts). */
  stopping: 'The service is stopping; nothing was done. Try again once it runs again.',
  storeBusy: 'The database is busy (another program holds its write lock); nothing was changed. Try again shortly.',
  /** 403 of a key whose account's premium subscription is inactive (premium.ts). */
  premiumRequired: 'An active premium subscription is required to use the API. Renew the premium subscription to restore access.',
  /** 403 of the edge filter (edge-filter.ts): no or a default client User-Agent. */
  edgeFilter: 'Forbidden: send a descriptive User-Agent header naming your tool, for example "MyTool/1.0".',
} as const;

/** How a 503 for a write the database cannot save starts (storage-fault.ts); chat replies read it. */
export const STORE_UNWRITABLE_PREFIX = 'The service cannot save changes now';

/** The 503's message: what is wrong, that nothing was stored, and that waiting alone will not do. */
export function storeUnwritableMessage(fault: StorageFault): string {
  return `${STORE_UNWRITABLE_PREFIX}: ${storageFaultText(fault)}; nothing was changed. Try again once the server's operator has fixed it.`;
}

/** Whether this app redirects error responses for non-JSON clients; set per API instance. */
export interface ErrorResponder {
  send(request: FastifyRequest, reply: FastifyReply, status: number, body: ErrorBody): FastifyReply;
}

export function createErrorResponder(redirectErrors: boolean): ErrorResponder {
  return {
    send(request, reply, status, body) {
      if (redirectErrors && !acceptsJsonFirst(request.headers.accept)) {
        return reply.redirect(redirectLocation(status, request.headers.referer), 302);
      }
      return reply.code(status).type('application/json; charset=utf-8').send(body);
    },
  };
}

/** A 422 body on one field. */
export function fieldError(field: string, message: string): ErrorBody {
  return { message, errors: { [field]: [message] } };
}
