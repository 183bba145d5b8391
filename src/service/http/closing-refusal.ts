// A request that arrives while the server is closing (on a keep-alive connection opened before the
// stop began) is refused with 503 in the API's envelope, with Retry-After and the Accept redirect
// rule under the API prefix, instead of Fastify's own closing answer (`{"error","message",
// "statusCode"}`, no Retry-After, never redirected). Nothing of it runs: no hook, no route, no
// write. Requests already under way when the stop began are answered as usual.
import type { FastifyInstance } from 'fastify';
import { createErrorResponder, MESSAGES } from './error-response.ts';
import { STORE_BUSY_RETRY_AFTER_SECONDS } from './error-handler.ts';

/**
 * Adds the refusal to `app` (the root instance, so every route has it). The server must be made
 * with `return503OnClosing: false` (apiServerOptions), else Fastify answers before this hook runs.
 */
export function refuseRequestsWhileClosing(app: FastifyInstance, inApi: (url: string) => boolean, redirectErrors: boolean): void {
  const api = createErrorResponder(redirectErrors);
  const other = createErrorResponder(false);
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  // A callback hook, not an async one: it runs on every request, and needs no promise.
  app.addHook('onRequest', (request, reply, done) => {
    if (!closing) {
      done();
      return;
    }
    // Fastify adds Connection: close to every answer once it is closing.
    reply.header('Retry-After', String(STORE_BUSY_RETRY_AFTER_SECONDS));
    void (inApi(request.url) ? api : other).send(request, reply, 503, { message: MESSAGES.stopping });
  });
}
