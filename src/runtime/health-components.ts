// What GET /healthz reports of this process's parts: one word each, read when asked. Parts not
// built yet (during start) are left out; problems' wording stays in the logs, not on an
// unauthenticated route.
import type { RedemptionsStatus, TwitchRedemptions } from '../adapters/redemptions/index.ts';
import type { RemoteServiceState } from '../client/remote-service-state.ts';
import type { Host } from '../host/index.ts';
import type { SqliteStore } from '../service/store/sqlite-store.ts';
import type { StartedTransports } from './chat-transports.ts';

export interface HealthParts {
  transports?: StartedTransports;
  host?: Host;
  redemptions?: TwitchRedemptions;
  /** With `service.mode: remote`: how the remote service answered the plugins' last call. */
  remoteService?: RemoteServiceState | 'not-called-yet';
  /** The bundled service's database: whether writes are being saved. */
  store?: Pick<SqliteStore, 'storageFault'>;
}

export function healthComponents(parts: HealthParts): Record<string, string> {
  const components: Record<string, string> = {};
  const { transports, host, redemptions } = parts;
  if (parts.store) components['database'] = parts.store.storageFault ?? 'writable';
  if (transports?.twitch) {
    const { state, lastError } = transports.twitch;
    // Given up for good (a refused login, no usable token): unlike a drop, only a person can mend it.
    components['twitch-chat'] = state === 'disconnected' && lastError !== null ? 'failed' : state;
  }
  if (transports?.local) components['local-chat'] = 'running';
  for (const plugin of host?.plugins ?? []) components[`plugin:${plugin.name}`] = plugin.state;
  if (redemptions) components['redemptions'] = redemptionsHealth(redemptions.status());
  if (parts.remoteService !== undefined) components['remote-service'] = parts.remoteService;
  return components;
}

/**
 * The redemptions' state, and while running whether all is well: `needs-auth` once Twitch refused
 * the broadcaster's token (only `chatskin twitch auth` mends it), `degraded` while live delivery
 * or a reward is not working (redemptions made meanwhile are still listed periodically).
 */
function redemptionsHealth(status: RedemptionsStatus): string {
  if (status.state !== 'running') return status.state;
  if (status.auth?.state === 'refresh-failed') return 'needs-auth';
  const eventsub = status.eventsub;
  if (status.problem !== null || eventsub?.state === 'disconnected') return 'degraded';
  return 'running';
}
