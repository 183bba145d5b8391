// The edge filter (DESIGN.md step 1): in front of everything on the API prefix, a request with
// a missing or empty User-Agent, or a default client agent, is refused with 403. It stands for
// the CDN rule of the hosted service, so it answers JSON whatever the Accept header says.
import type { onRequestAsyncHookHandler } from 'fastify';
import { MESSAGES } from './error-response.ts';


/** Whether `userAgent` is refused by `blockedAgents` (entries ending in "/" are prefixes). */
export function isBlockedAgent(userAgent: string | undefined, blockedAgents: readonly string[]): boolean {
  const agent = userAgent?.trim().toLowerCase() ?? '';
  if (agent === '') return true;
  for (const entry of blockedAgents) {
    const blocked = entry.toLowerCase();
    if (blocked.endsWith('/') ? agent.startsWith(blocked) : agent === blocked) return true;
  }
  return false;
}

export function createEdgeFilterHook(blockedAgents: readonly string[]): onRequestAsyncHookHandler {
  return async function edgeFilter(request, reply) {
    if (isBlockedAgent(request.headers['user-agent'], blockedAgents)) {
      return reply.code(403).type('application/json; charset=utf-8').send({ message: MESSAGES.edgeFilter });
    }
  };
}
