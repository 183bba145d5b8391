// An answer sent before its request's body has fully arrived (a 401 or 413, refused before the
// body is read) closes the connection: otherwise Node keeps reading the rest of the body to reuse
// the connection, and a client trickling it could hold the connection, and a graceful stop, for
// as long as it likes.
import type { FastifyInstance } from 'fastify';

/** Adds the hook to `app` (the root instance, so every route and error answer has it). */
export function closeConnectionsWithUnreadBodies(app: FastifyInstance): void {
  // A callback hook, not an async one: it runs on every answer, and needs no promise.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (!request.raw.complete) reply.header('Connection', 'close');
    done(null, payload);
  });
}
