// How the remote service answered an attempt, as one word the host shows on /healthz
// (HttpClientOptions.onAttempt) and the outage log sorts failures by (outage-log.ts).
import { MESSAGES } from '../service/http/error-response.ts';
import type { Call } from './http-call.ts';
import type { OverlayStyleError } from './overlay-style-error.ts';

/**
 * How the remote service answered the last attempt: `ok` (any answer of its own but those below:
 * a 404 or a 422 is the service working), `rate-limited` (429), `key-refused` (401),
 * `access-refused` (403 to the key itself: premium inactive on its account, or the User-Agent
 * refused), `failing` (5xx), `unreachable` (no answer: refused, reset, timed out; or an answer
 * that is not the service's: a redirect, a body that is not its JSON, such as a proxy's HTML page).
 */
export type RemoteServiceState = 'ok' | 'rate-limited' | 'key-refused' | 'access-refused' | 'failing' | 'unreachable';

/**
 * A 403 that refuses the request, not the key: editing a global skin (PUT /skins/{id}), the one
 * operation of the spec's the service forbids for what it asks. Any other 403 (premium inactive,
 * the User-Agent refused) refuses every call alike.
 */
function isRequestRefusal403(call: Call, error: OverlayStyleError): boolean {
  return call.method === 'PUT' && call.path.startsWith('/skins/')
    && error.message !== MESSAGES.premiumRequired && error.message !== MESSAGES.edgeFilter;
}

/** The state an error answer (not 2xx) shows, given the error it was read as. */
export function stateOfError(call: Call, error: OverlayStyleError): RemoteServiceState {
  // Something other than the service answered (a redirect, a page that is not its JSON).
  if (error.kind !== 'service') return 'unreachable';
  if (error.status === 401) return 'key-refused';
  if (error.status === 403 && !isRequestRefusal403(call, error)) return 'access-refused';
  if (error.status === 429) return 'rate-limited';
  return error.status >= 500 ? 'failing' : 'ok';
}
