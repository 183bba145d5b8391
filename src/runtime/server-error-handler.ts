// How the host's HTTP server answers an error no route answered itself (the overlay page, its
// assets, /healthz; the API and the local routes have their own): as the API does (mapError), so
// an unexpected failure is 500 {"message":"Server Error."}, never Fastify's default body, which
// carries the error's own message (a database error's SQL) to whoever asked. A 500 is logged:
// the host turns Fastify's per-request lines off, and with them went its error lines. The route's
// pattern is logged, never the address: an overlay's address holds its token.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { mapError } from '../service/http/error-handler.ts';
import { MESSAGES } from '../service/http/error-response.ts';
import { DEFAULT_BODY_LIMIT_BYTES } from '../service/http/options.ts';

export function serverErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const mapped = mapError(error, DEFAULT_BODY_LIMIT_BYTES);
  if (mapped.unexpected) {
    request.log.error({ err: error, method: request.method, route: request.routeOptions.url ?? null }, 'unexpected error in request');
  }
  if (mapped.retryAfterSeconds !== undefined) reply.header('Retry-After', String(mapped.retryAfterSeconds));
  return reply.code(mapped.status).type('application/json; charset=utf-8').send(mapped.body);
}

/**
 * A path no part of the host serves (outside the API, whose prefix answers its own 404s): the
 * API's 404 body, not Fastify's default, which repeats the method and the path.
 */
export function serverNotFoundHandler(_request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return reply.code(404).type('application/json; charset=utf-8').send({ message: MESSAGES.notFound });
}
