// GET /healthz: liveness for process managers and load balancers; no auth, outside the API prefix.
// `status` is "ok" whenever the process serves: a Twitch outage is not fixed by a restart, so it
// never fails the probe. What each part is doing (chat connection, plugins, redemptions) comes
// from the composition root as one word per part, so the service stays unaware of what they are.
import type { FastifyInstance } from 'fastify';
import { RESPONSE_SCHEMAS } from '../response-schemas.ts';

/** Part name -> one word of state ("connected", "running", "failed"...). No details or secrets. */
export type HealthComponents = () => Record<string, string>;

export function registerHealthz(app: FastifyInstance, components?: HealthComponents): void {
  app.get('/healthz', { schema: { response: RESPONSE_SCHEMAS.healthz } }, async () =>
    components ? { status: 'ok', components: components() } : { status: 'ok' });
}
