// What GET /healthz reports of this process's parts: one word each, read when asked. Parts not
// built yet (during start) are left out; problems' wording stays in the logs, not on an
// unauthenticated route.
import type { TwitchRedemptions } from '../adapters/redemptions/index.ts';
import type { Host } from '../host/index.ts';
import type { StartedTransports } from './chat-transports.ts';

export interface HealthParts {
  transports?: StartedTransports;
  host?: Host;
  redemptions?: TwitchRedemptions;
}

export function healthComponents(parts: HealthParts): Record<string, string> {
  const components: Record<string, string> = {};
  const { transports, host, redemptions } = parts;
  if (transports?.twitch) {
    const { state, lastError } = transports.twitch;
    // Given up for good (a refused login, no usable token): unlike a drop, only a person can mend it.
    components['twitch-chat'] = state === 'disconnected' && lastError !== null ? 'failed' : state;
  }
  if (transports?.local) components['local-chat'] = 'running';
  for (const plugin of host?.plugins ?? []) components[`plugin:${plugin.name}`] = plugin.state;
  if (redemptions) components['redemptions'] = redemptions.status().state;
  return components;
}
