// Every error the API answers goes through here, so the envelope ({message} or
// {message, errors}) and the Accept redirect rule are applied in one place.
import type { FastifyReply, FastifyRequest } from 'fastify';
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
  storeBusy: 'The database is busy (another program holds its write lock); nothing was changed. Try again shortly.',
} as const;

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
