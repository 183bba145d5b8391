// The overlay client over HTTP (undici), for a remote overlay style service or a script. It is
// made of these parts, each in its own file:
// - operation-requests.ts: each of the spec's seven operations as a request, its checks, the
//   shape of its answer and the result read from it;
// - call-sender.ts: a call sent in its place in the line (call-line.ts), retried as the policy
//   allows (retry-policy.ts);
// - http-attempt.ts: one attempt over undici, with the client's headers and its own timeout;
// - call-errors.ts: an answer or a failure read as the client's error kinds;
// - remote-service-state.ts and outage-log.ts: how the service answered, for the host's
//   /healthz, and each outage told to the log once.
//
// registerViewer, listPickableSkins and pickSkin have no endpoint in the spec: they reject at
// once with an OverlayStyleError of kind `unsupported`, sending nothing.
import { setTimeout as sleepMs } from 'node:timers/promises';
import { getGlobalDispatcher } from 'undici';
import type { Dispatcher } from 'undici';
import type { z } from 'zod';
import { ServiceError } from '../service/types.ts';
import { parseBaseUrl } from './base-url.ts';
import { notTheEnvelopeError, parseJson } from './call-errors.ts';
import { CallLine } from './call-line.ts';
import { createCallSender } from './call-sender.ts';
import { createAttempt } from './http-attempt.ts';
import { describeCall } from './http-call.ts';
import type { Call } from './http-call.ts';
import {
  API_KEY_TEXT, integerOption, isUserAgentText, MAX_RESPONSE_BYTES_LIMIT, MAX_RETRIES_LIMIT, MAX_TIMER_MS,
} from './http-option-rules.ts';
import { operationRequests } from './operation-requests.ts';
import type { CheckedAnswer, OperationRequest } from './operation-requests.ts';
import { OutageLog } from './outage-log.ts';
import type { ClientLogger } from './outage-log.ts';
import type { OverlayStyleClient } from './overlay-style-client.ts';
import { fromServiceError, OverlayStyleError, unsupportedByRemote } from './overlay-style-error.ts';
import type { RemoteServiceState } from './remote-service-state.ts';
import type { RetryPolicy } from './retry-policy.ts';
import { DEFAULT_RETRY_POLICY, rateLimitClosureMs } from './retry-policy.ts';
import { DEFAULT_USER_AGENT } from './user-agent.ts';

export interface HttpClientOptions {
  /** The spec's {base_url}, API prefix included, e.g. `http://127.0.0.1:8080/api/v1`. */
  baseUrl: string;
  apiKey: string;
  /** Default `chatskin/<version>`. */
  userAgent?: string;
  /** Per attempt, from sending to the last byte of the answer. Default 10000. */
  timeoutMs?: number;
  /** Longest answer body read; a longer one is cut off and refused (invalid_response). Default 4 MiB. */
  maxResponseBytes?: number;
  /** Retries after the first attempt. Default 2. */
  maxRetries?: number;
  /** Longest Retry-After waited out before giving up with the 429. Default 60000. */
  maxRetryAfterMs?: number;
  /** Back-off between retries of 5xx and connection failures. Defaults 250 and 5000 ms. */
  backoff?: { baseDelayMs?: number; maxDelayMs?: number };
  /** undici dispatcher (an Agent, a MockAgent in tests); default undici's global dispatcher. */
  dispatcher?: Dispatcher;
  /** How the client waits between attempts; default a timer. Tests pass a recorder. */
  sleep?: (ms: number) => Promise<void>;
  /**
   * Told of every wait before a retry (a 429's Retry-After can be a minute), and of each outage
   * once (a refused key, premium off, no answer, ...), with what to do, until the service answers a
   * call for itself again (`error` where a person must mend it, else `warn`): the host logs them.
   */
  logger?: ClientLogger;
  /** Told how each attempt ended, as the service's state (the host's /healthz shows the last). */
  onAttempt?: (state: RemoteServiceState) => void;
}

const DEFAULT_MAX_RESPONSE_BYTES = 4 * 1024 * 1024;
/** Longest a call waits for the calls before it (timeoutMs if shorter), then it goes anyway. */
const MAX_HOLD_MS = 2_000;

export function createHttpClient(options: HttpClientOptions): OverlayStyleClient {
  const endpoint = parseBaseUrl(options.baseUrl);
  if (typeof options.apiKey !== 'string' || !API_KEY_TEXT.test(options.apiKey)) {
    // Never echo the key itself.
    throw new TypeError('createHttpClient: apiKey must be a non-empty token of visible ASCII characters');
  }
  const userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
  if (!isUserAgentText(userAgent)) {
    throw new TypeError('createHttpClient: userAgent must be a non-empty header value such as "MyTool/1.0"');
  }
  const timeoutMs = integerOption('timeoutMs', options.timeoutMs, 10_000, 1, MAX_TIMER_MS);
  const maxResponseBytes = integerOption(
    'maxResponseBytes', options.maxResponseBytes, DEFAULT_MAX_RESPONSE_BYTES, 1, MAX_RESPONSE_BYTES_LIMIT,
  );
  const policy: RetryPolicy = {
    maxRetries: integerOption('maxRetries', options.maxRetries, DEFAULT_RETRY_POLICY.maxRetries, 0, MAX_RETRIES_LIMIT),
    maxRetryAfterMs: integerOption(
      'maxRetryAfterMs', options.maxRetryAfterMs, DEFAULT_RETRY_POLICY.maxRetryAfterMs, 0, MAX_TIMER_MS,
    ),
    baseDelayMs: integerOption(
      'backoff.baseDelayMs', options.backoff?.baseDelayMs, DEFAULT_RETRY_POLICY.baseDelayMs, 0, MAX_TIMER_MS,
    ),
    maxDelayMs: integerOption(
      'backoff.maxDelayMs', options.backoff?.maxDelayMs, DEFAULT_RETRY_POLICY.maxDelayMs, 0, MAX_TIMER_MS,
    ),
  };
  const sleep = options.sleep ?? ((ms: number) => sleepMs(ms));
  const { onAttempt } = options;
  const outages = new OutageLog(endpoint, options.logger);
  const send = createCallSender({
    endpoint,
    policy,
    line: new CallLine({
      sleep, maxWaitMs: policy.maxRetryAfterMs, closureMs: (ms) => rateLimitClosureMs(ms, policy), holdMs: Math.min(timeoutMs, MAX_HOLD_MS),
    }),
    attempt: createAttempt({
      endpoint, apiKey: options.apiKey, userAgent, timeoutMs, maxResponseBytes, dispatcher: options.dispatcher ?? getGlobalDispatcher(),
    }),
    sleep,
    logger: options.logger,
    onAttempt,
  });

  /** Sends `call` and checks the 2xx body against `shape`; a final error is told to the outage log. */
  async function sendFor<T extends z.ZodType>(call: Call, shape: T): Promise<CheckedAnswer<z.output<T>>> {
    try {
      return await sendAndRead(call, shape);
    } catch (error) {
      if (error instanceof OverlayStyleError) outages.failed(call, error);
      throw error;
    }
  }

  async function sendAndRead<T extends z.ZodType>(call: Call, shape: T): Promise<CheckedAnswer<z.output<T>>> {
    const answer = await send(call);
    const parsed = shape.safeParse(parseJson(answer.text));
    // A 2xx that is not the spec's envelope is something else's page (a proxy's), not the service.
    onAttempt?.(parsed.success ? 'ok' : 'unreachable');
    if (!parsed.success) throw notTheEnvelopeError(describeCall(endpoint, call), answer.status, parsed.error);
    outages.working();
    return { status: answer.status, body: parsed.data, afterLostAnswer: answer.afterLostAnswer === true };
  }

  /**
   * Builds the operation's request (its local checks) and sends it; a local refusal becomes the
   * error the API would answer.
   */
  async function perform<S extends z.ZodType, R>(build: () => OperationRequest<S, R>): Promise<R> {
    try {
      const request = build();
      return request.result(await sendFor(request.call, request.shape));
    } catch (error) {
      throw error instanceof ServiceError ? fromServiceError(error) : error;
    }
  }

  return {
    getTemplate: (presetId) => perform(() => operationRequests.getTemplate(presetId)),
    updateTemplate: (request) => perform(() => operationRequests.updateTemplate(request)),
    listSkins: (presetId) => perform(() => operationRequests.listSkins(presetId)),
    updateSkin: (skinId, values) => perform(() => operationRequests.updateSkin(skinId, values)),
    unlockSkin: (request) => perform(() => operationRequests.unlockSkin(request)),
    revokeSkin: (request) => perform(() => operationRequests.revokeSkin(request)),
    listViewerSkins: (identifier) => perform(() => operationRequests.listViewerSkins(identifier)),

    registerViewer: () => Promise.reject(unsupportedByRemote('registerViewer')),
    listPickableSkins: () => Promise.reject(unsupportedByRemote('listPickableSkins')),
    pickSkin: () => Promise.reject(unsupportedByRemote('pickSkin')),
  };
}
