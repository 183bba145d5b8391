// Requests the API has no route for: an unknown path is 404 {message}; a known path with the
// wrong method is 405 {message} with an Allow header. Both are answered before authentication
// (like a router would), after the edge filter, and before any body is read.
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { ErrorResponder } from './error-response.ts';
import { MESSAGES } from './error-response.ts';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/** Collects the methods of every route registered below `app`, by path within the prefix. */
export function collectRoutes(app: FastifyInstance): Map<string, Set<string>> {
  const routes = new Map<string, Set<string>>();
  app.addHook('onRoute', (route: RouteOptions & { routePath?: string }) => {
    const path = route.routePath ?? route.url;
    const methods = routes.get(path) ?? new Set<string>();
    for (const method of [route.method].flat()) methods.add(method.toUpperCase());
    routes.set(path, methods);
  });
  return routes;
}

/** Adds the 405 answers for every method a collected path does not serve. */
export function registerMethodNotAllowed(
  app: FastifyInstance, routes: Map<string, Set<string>>, responder: ErrorResponder,
): void {
  for (const [path, served] of [...routes]) {
    const allow = METHODS.filter((m) => served.has(m)).join(', ');
    const missing = METHODS.filter((m) => !served.has(m));
    if (missing.length === 0) continue;
    app.route({
      method: missing,
      url: path,
      // Answered in onRequest so a body sent with the wrong method is never read.
      onRequest: async (request, reply) => {
        reply.header('Allow', allow);
        return responder.send(request, reply, 405, { message: MESSAGES.methodNotAllowed });
      },
      handler: async () => undefined,
    });
  }
}

/** Call after the edge filter's hook: this one answers in onRequest too, in the order added. */
export function registerNotFound(app: FastifyInstance, responder: ErrorResponder): void {
  const notFound = (request: FastifyRequest, reply: FastifyReply) => responder.send(request, reply, 404, { message: MESSAGES.notFound });
  // The not-found handler alone would run after the body was read and parsed (a bad one would
  // answer 422 or 413 for a path that does not exist): answer before that.
  app.addHook('onRequest', async (request, reply) => {
    if (request.is404) return notFound(request, reply);
  });
  app.setNotFoundHandler(notFound);
}
