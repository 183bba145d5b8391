// GET /healthz: liveness for process managers and load balancers; no auth, outside the API prefix.
import type { FastifyInstance } from 'fastify';
import { RESPONSE_SCHEMAS } from '../response-schemas.ts';

export function registerHealthz(app: FastifyInstance): void {
  app.get('/healthz', { schema: { response: RESPONSE_SCHEMAS.healthz } }, async () => ({ status: 'ok' }));
}
