// Closing the HTTP server for a graceful stop: idle connections go at once (Fastify's default),
// requests under way get a moment to finish, then every connection still open is cut, so a client
// that is slow to send its request (or never finishes it) cannot hold the stop up.
import type { FastifyInstance } from 'fastify';

/** How long requests under way may still take once the server is closing. */
export const CLOSE_GRACE_MS = 2_000;

export async function closeServer(app: FastifyInstance, graceMs = CLOSE_GRACE_MS): Promise<void> {
  const cut = setTimeout(() => app.server.closeAllConnections(), graceMs);
  cut.unref();
  try {
    await app.close();
  } finally {
    clearTimeout(cut);
  }
}
