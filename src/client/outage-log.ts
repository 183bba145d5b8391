// The HTTP client's log of outages: a call's final error is told to the logger once per outage,
// not once per failed call. Every call fails alike until the outage passes or someone mends it,
// so the log says it once, with what to do, and marks the error as said (wasLogged), so a caller
// does not log it again per command. Once the service answers a call for itself again (a
// success, its own 404 or 422), the next outage is logged again.
import type { Endpoint } from './base-url.ts';
import { describeCall, endpointUrl } from './http-call.ts';
import type { Call } from './http-call.ts';
import { isStoreUnwritable, markLogged } from './overlay-style-error.ts';
import type { OverlayStyleError } from './overlay-style-error.ts';
import { stateOfError } from './remote-service-state.ts';

/** The HTTP client's logger (HttpClientOptions.logger). */
export interface ClientLogger {
  warn(details: object, message: string): void;
  error?(details: object, message: string): void;
}

/** An outage: `key` tells one from another, `message` says what to do about it. */
interface Outage {
  key: string;
  level: 'error' | 'warn';
  message: string;
}

/**
 * The outage a call's final error belongs to, and the log line saying what to do about it
 * (`error`: only the streamer or the service's operator can mend it; `warn`: it may pass); none
 * for a refusal of the request itself (404, 422), which is the service working.
 */
function outageOf(endpoint: Endpoint, call: Call, error: OverlayStyleError): Outage | undefined {
  const service = `the overlay service at ${endpointUrl(endpoint)}`;
  if (error.kind === 'unsupported') return undefined;
  if (error.kind === 'timeout' || error.kind === 'network') {
    return { key: 'unreachable', level: 'warn', message: `${service} is not answering: commands that use it fail until it does; check that it runs and that this host can reach it` };
  }
  if (error.kind === 'tls') return { key: 'tls', level: 'error', message: `${service} cannot be reached securely: ${error.message}` };
  if (error.kind !== 'service') {
    return {
      key: 'not-the-service', level: 'error',
      message: `${service} did not answer as the overlay API does (a redirect, or a page that is not its JSON): every call fails until `
        + 'service.baseUrl is the API base URL with its prefix (e.g. http://host:port/api/v1) and nothing in between (a proxy) answers in its place',
    };
  }
  switch (stateOfError(call, error)) {
    case 'key-refused':
      return {
        key: 'key-refused', level: 'error',
        message: `${service} refused the API key (401): every call fails until service.apiKey is a key the service accepts `
          + '(create one there, e.g. `chatskin keys create` on a chatskin service) and chatskin is restarted',
      };
    case 'access-refused':
      return {
        key: `access-refused ${error.message}`, level: 'error',
        message: `${service} refused the bot's access (403): "${error.message}" Every call fails until that is mended: premium active on `
          + 'the account that owns service.apiKey (`chatskin premium on LOGIN` on a chatskin service), or a service.userAgent it accepts',
      };
    case 'rate-limited':
      return {
        key: 'rate-limited', level: 'warn',
        message: `${service} is rate limiting the bot (429): commands answer that it is busy until it lets calls through again `
          + '(30 requests a minute per key, shared by every plugin and by anything else using the key)',
      };
    case 'failing':
      if (isStoreUnwritable(error)) {
        return {
          key: 'store-unwritable', level: 'error',
          message: `${service} cannot save changes (503): "${error.message}" Changes fail until its operator mends its database`,
        };
      }
      return { key: `failing ${error.status}`, level: 'warn', message: `${service} is failing (${error.status}): commands that use it fail until it recovers; its log says why` };
    default:
      return undefined;
  }
}

export class OutageLog {
  readonly #endpoint: Endpoint;
  readonly #logger: ClientLogger | undefined;
  /** The outage last logged, until the service answers a call again: not logged again. */
  #logged: string | undefined;

  constructor(endpoint: Endpoint, logger: ClientLogger | undefined) {
    this.#endpoint = endpoint;
    this.#logger = logger;
  }

  /** A call's final error: logged, and marked so, unless its outage was logged already. */
  failed(call: Call, error: OverlayStyleError): void {
    const logger = this.#logger;
    const outage = outageOf(this.#endpoint, call, error);
    if (outage === undefined) {
      // The service answered for itself (a 404, a 422): it is working.
      this.working();
      return;
    }
    if (logger === undefined) return;
    markLogged(error);
    if (outage.key === this.#logged) return;
    this.#logged = outage.key;
    const details = { call: describeCall(this.#endpoint, call), status: error.status, err: error };
    if (outage.level === 'error' && logger.error) logger.error(details, outage.message);
    else logger.warn(details, outage.message);
  }

  /** The service answered a call for itself: the next outage is logged again. */
  working(): void {
    this.#logged = undefined;
  }
}
