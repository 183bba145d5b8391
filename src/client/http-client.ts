// The overlay client over HTTP (undici), for a remote overlay style service or a script.
//
// Every request sends `Authorization: Bearer <key>`, `Accept: application/json` (so the
// service answers errors as JSON, never with its 302 compatibility redirect), a descriptive
// `User-Agent` (the service's edge filter refuses generic ones) and, on writes,
// `Content-Type: application/json`. Each attempt has its own timeout.
//
// Retries (bounded by maxRetries, shared by every kind of failure of one call):
// - 429: waits out Retry-After when it is within maxRetryAfterMs, for every operation (the
//   rate limit refuses before anything is done); otherwise gives up with the 429 at once.
// - connection refused / DNS failure / connect timeout: the request never left, so every
//   operation is sent again after a back-off.
// - 5xx (500, 502, 503, 504), timeouts, resets: only idempotent operations are sent again. GETs
//   and PUTs are (a PUT merges the same values into the same state); POST unlock is too, by the
//   spec's rule 3 (a repeat creates nothing); an unlock whose repeat hears "already held" after
//   such a failure says so (afterLostAnswer), since the grant may be its own. DELETE revoke is not
//   retried after such a failure: if the first attempt did revoke, a repeat would answer 404 for a
//   call that succeeded.
// The calls go one at a time, in the order made, and a 429 holds back every call until its
// Retry-After has passed (call-line.ts): a burst of commands takes effect in the order typed.
// A 3xx is never followed: it means the base URL is wrong or something in between rewrote the
// request, and following it could carry the key elsewhere.
//
// registerViewer, listPickableSkins and pickSkin have no endpoint in the spec: they reject at
// once with an OverlayStyleError of kind `unsupported`, sending nothing.
import { setTimeout as sleepMs } from 'node:timers/promises';
import { getGlobalDispatcher } from 'undici';
import type { Dispatcher } from 'undici';
import type { z } from 'zod';
import type { OverlayStyleClient } from './overlay-style-client.ts';
import { parseBaseUrl } from './base-url.ts';
import { fromServiceError, OverlayStyleError, unsupportedByRemote } from './overlay-style-error.ts';
import { ServiceError } from '../service/types.ts';
import { errorEnvelope } from './response-shapes.ts';
import { operationRequests } from './operation-requests.ts';
import type { OperationRequest } from './operation-requests.ts';
import { CallLine } from './call-line.ts';
import { OutageLog } from './outage-log.ts';
import type { ClientLogger } from './outage-log.ts';
import { stateOfError } from './remote-service-state.ts';
import type { RemoteServiceState } from './remote-service-state.ts';
import { AttemptFailure, describeCall, headerValue } from './http-call.ts';
import type { Answer, Call } from './http-call.ts';
import type { RetryPolicy } from './retry-policy.ts';
import {
  backoffDelayMs, DEFAULT_RETRY_POLICY, isTlsFailureCode, isUntrustedCertificateCode, MAYBE_SENT_ERROR_CODES, NOT_SENT_ERROR_CODES,
  parseRetryAfterMs, rateLimitClosureMs,
  RETRYABLE_STATUSES,
} from './retry-policy.ts';
import { DEFAULT_USER_AGENT } from './user-agent.ts';
import {
  API_KEY_TEXT, integerOption, isUserAgentText, MAX_RESPONSE_BYTES_LIMIT, MAX_RETRIES_LIMIT, MAX_TIMER_MS,
} from './http-option-rules.ts';

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

/** Answers of something between the client and the service (a proxy): the service may have done the request. */
const GATEWAY_STATUSES: ReadonlySet<number> = new Set([502, 504]);

const DEFAULT_MAX_RESPONSE_BYTES = 4 * 1024 * 1024;
/** How to trust a self-signed or private-CA certificate: Node's own way, for the whole process. */
const UNTRUSTED_CERTIFICATE_HINT = ' (a self-signed certificate, or one of your own CA: start chatskin with the environment variable'
  + ' NODE_EXTRA_CA_CERTS naming a PEM file of that certificate or CA)';
/** Longest a call waits for the calls before it (timeoutMs if shorter), then it goes anyway. */
const MAX_HOLD_MS = 2_000;

function errorCode(error: unknown): string | undefined {
  // undici puts the code on the error; a socket error may sit one level down as the cause.
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 3; depth++) {
    const code = (current as Error & { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = current.cause;
  }
  return undefined;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

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
  const maxResponseBytes = integerOption('maxResponseBytes', options.maxResponseBytes, DEFAULT_MAX_RESPONSE_BYTES, 1, MAX_RESPONSE_BYTES_LIMIT);
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
  const dispatcher = options.dispatcher ?? getGlobalDispatcher();
  const sleep = options.sleep ?? ((ms: number) => sleepMs(ms));
  const authorization = `Bearer ${options.apiKey}`;
  const line = new CallLine({
    sleep, maxWaitMs: policy.maxRetryAfterMs, closureMs: (ms) => rateLimitClosureMs(ms, policy), holdMs: Math.min(timeoutMs, MAX_HOLD_MS),
  });
  /** Calls made so far: each call's number is its place in the line. */
  let calls = 0;
  /** The last 429, whose message a call refused in line carries. */
  let lastRateLimit: OverlayStyleError | undefined;
  const outages = new OutageLog(endpoint, options.logger);

  function describe(call: Call): string {
    return describeCall(endpoint, call);
  }

  async function attempt(call: Call): Promise<Answer> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    try {
      const headers: Record<string, string> = {
        authorization,
        accept: 'application/json',
        'user-agent': userAgent,
      };
      if (call.body !== undefined) headers['content-type'] = 'application/json';
      const response = await dispatcher.request({
        origin: endpoint.origin,
        path: endpoint.basePath + call.path,
        method: call.method,
        headers,
        body: call.body ?? null,
        signal: controller.signal,
      });
      if (response.statusCode >= 300 && response.statusCode < 400) {
        // A redirect's body is of no use; it is drained so the connection can be reused.
        await response.body.dump();
        return { status: response.statusCode, headers: response.headers, text: '' };
      }
      return { status: response.statusCode, headers: response.headers, text: await readCapped(call, response.statusCode, response.body) };
    } catch (error) {
      if (error instanceof AttemptFailure) throw error;
      if (controller.signal.aborted) {
        // No period: a logger shows the cause's message after a colon.
        const timeout = new OverlayStyleError({
          status: 0, kind: 'timeout', message: `${describe(call)} got no complete answer within ${timeoutMs} ms`, cause: error,
        });
        throw new AttemptFailure(timeout, true, true, `no complete answer within ${timeoutMs} ms`);
      }
      const code = errorCode(error);
      const notSent = code !== undefined && NOT_SENT_ERROR_CODES.has(code);
      const maybeSent = code !== undefined && MAYBE_SENT_ERROR_CODES.has(code);
      const tls = code !== undefined && isTlsFailureCode(code);
      // The cause's message (which a logger shows after this one) says the rest.
      const network = new OverlayStyleError({
        status: 0,
        kind: tls ? 'tls' : 'network',
        message: `${describe(call)} failed${code === undefined ? '' : ` (${code})`}`
          + (tls ? ': no TLS connection could be made; check that baseUrl\'s scheme (http or https) is the service\'s and that its certificate is trusted' : '')
          + (tls && isUntrustedCertificateCode(code) ? UNTRUSTED_CERTIFICATE_HINT : ''),
        cause: error,
      });
      const reason = `the connection failed: ${code ?? String(error)}`;
      throw new AttemptFailure(network, !notSent, notSent || maybeSent, reason);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * The body as text, refused past maxResponseBytes: a service never sends that much (a template
   * is about 9 KB), so a longer answer is a wrong URL or a broken server, and is not kept in memory.
   */
  async function readCapped(call: Call, status: number, body: Dispatcher.ResponseData['body']): Promise<string> {
    const chunks: Buffer[] = [];
    let bytes = 0;
    for await (const chunk of body as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      if (bytes > maxResponseBytes) {
        body.destroy();
        const tooLong = new OverlayStyleError({
          status,
          kind: 'invalid_response',
          message: `${describe(call)} answered ${status} with a body over ${maxResponseBytes} bytes (maxResponseBytes); it was not read further.`,
        });
        // It was answered, so it may have been done: not sent again.
        throw new AttemptFailure(tooLong, true, false, 'the answer was too long');
      }
      chunks.push(chunk);
    }
    // As undici's body.text() does: UTF-8, a leading BOM dropped.
    return new TextDecoder().decode(Buffer.concat(chunks, bytes));
  }

  function errorFromAnswer(call: Call, answer: Answer): OverlayStyleError {
    const { status } = answer;
    if (status >= 300 && status < 400) {
      const location = (headerValue(answer.headers, 'location') ?? '(no Location)').slice(0, 200);
      return new OverlayStyleError({
        status,
        kind: 'redirect',
        message: `${describe(call)} was answered with a ${status} redirect to ${location} instead of JSON; `
          + 'check that baseUrl is the API base URL with its prefix (e.g. http://host:port/api/v1).',
      });
    }
    const retryAfterMs = parseRetryAfterMs(headerValue(answer.headers, 'retry-after'), Date.now());
    const envelope = errorEnvelope.safeParse(parseJson(answer.text));
    if (!envelope.success && status >= 400 && status < 500 && status !== 429) {
      // Not the service's refusal but something else's answer (a web server's or a framework's
      // "no such route", a proxy's page): the base URL is wrong or something in between refused.
      return new OverlayStyleError({
        status,
        kind: 'invalid_response',
        message: `${describe(call)} answered ${status} without the spec's error body ({"message": ...}); `
          + 'check that baseUrl is the API base URL with its prefix (e.g. http://host:port/api/v1).',
      });
    }
    return new OverlayStyleError({
      status,
      message: envelope.success ? envelope.data.message : `${describe(call)} failed with HTTP ${status}.`,
      errors: envelope.success ? envelope.data.errors : undefined,
      // When this client sends again: a 429 keeps it from sending a minute at most (call-line.ts).
      retryAfter: retryAfterMs === undefined ? undefined : Math.ceil(rateLimitClosureMs(retryAfterMs, policy) / 1000),
    });
  }

  function logWait(call: Call, waitMs: number, reason: string): void {
    options.logger?.warn({ call: describe(call), waitMs, reason }, `overlay service call held up, ${reason}: trying again in ${waitMs} ms`);
  }

  async function waitToRetry(call: Call, waitMs: number, reason: string): Promise<void> {
    logWait(call, waitMs, reason);
    await sleep(waitMs);
  }

  /**
   * Sends `call`, retrying as the policy allows; resolves with a 2xx answer. An error thrown after
   * an attempt whose answer was lost says so (OverlayStyleError.afterLostAnswer): the request may
   * have been done although the last attempt's failure, a 503 say, did nothing.
   */
  async function send(call: Call): Promise<Answer> {
    // An attempt failed in a way that may have left the request done (see Answer.afterLostAnswer).
    const lost = { answer: false };
    try {
      return await sendAttempts(call, lost);
    } catch (error) {
      if (!lost.answer || !(error instanceof OverlayStyleError) || error.afterLostAnswer) throw error;
      throw new OverlayStyleError({
        status: error.status, message: error.message, kind: error.kind, errors: error.errors, retryAfter: error.retryAfter,
        afterLostAnswer: true, cause: error.cause,
      });
    }
  }

  async function sendAttempts(call: Call, lost: { answer: boolean }): Promise<Answer> {
    // The calls go one at a time, in the order they were made (call-line.ts).
    const order = ++calls;
    // Retries used: after a failed attempt, and for each closure of the line waited through.
    let retry = 0;
    // Whether the line's closure under way is the one this call's own 429 started (counted already).
    let paid = false;
    for (;;) {
      const entry = await line.enter(order, policy.maxRetries - retry, paid,
        (waitMs) => logWait(call, waitMs, 'an earlier call was answered 429 (rate limiting)'));
      if (entry.refused) throw refusedInLine(entry.retryAfterSeconds, call);
      retry += entry.waited;
      paid = false;
      const canRetry = retry < policy.maxRetries;
      let answer: Answer;
      try {
        answer = await attempt(call);
      } catch (failure) {
        entry.done('failed');
        options.onAttempt?.('unreachable');
        if (!(failure instanceof AttemptFailure)) throw failure;
        const mayRepeat = failure.retryable && (call.idempotent || !failure.maybeSent);
        if (!canRetry || !mayRepeat) throw failure.error;
        if (failure.maybeSent) lost.answer = true;
        await waitToRetry(call, backoffDelayMs(retry, policy), failure.reason);
        retry += 1;
        continue;
      }
      const { status } = answer;
      if (status >= 200 && status < 300) {
        // Told by sendFor, once it knows whether the body is the service's JSON.
        entry.done('answered');
        return lost.answer ? { ...answer, afterLostAnswer: true } : answer;
      }
      const error = errorFromAnswer(call, answer);
      options.onAttempt?.(stateOfError(call, error));
      // As the service said it (the error's retryAfter is bounded): a longer one is not waited out.
      const retryAfterMs = parseRetryAfterMs(headerValue(answer.headers, 'retry-after'), Date.now());
      if (status === 429) {
        const wait = retryAfterMs ?? backoffDelayMs(retry, policy);
        const willWait = canRetry && wait <= policy.maxRetryAfterMs;
        // Before the next call in line may go: it would only be refused too.
        lastRateLimit = error;
        line.close(wait, willWait);
        entry.done('answered');
        if (!willWait) throw error;
        logWait(call, wait, 'the service is rate limiting (429)');
        retry += 1;
        paid = true;
        continue;
      }
      entry.done(status >= 500 ? 'failed' : 'answered');
      if (RETRYABLE_STATUSES.has(status) && call.idempotent && canRetry) {
        if (retryAfterMs !== undefined && retryAfterMs > policy.maxRetryAfterMs) throw error;
        if (GATEWAY_STATUSES.has(status)) lost.answer = true;
        await waitToRetry(call, retryAfterMs ?? backoffDelayMs(retry, policy), `the service answered ${status}`);
        retry += 1;
        continue;
      }
      throw error;
    }
  }

  /** A call refused in line, unsent: the service would answer it 429 too. */
  function refusedInLine(retryAfterSeconds: number, call: Call): OverlayStyleError {
    return new OverlayStyleError({
      status: 429,
      message: lastRateLimit?.message ?? `${describe(call)} was not sent: the service is rate limiting.`,
      retryAfter: retryAfterSeconds,
    });
  }

  /** Sends `call` and checks the 2xx body against `shape`. */
  async function sendFor<T extends z.ZodType>(call: Call, shape: T): Promise<{ status: number; body: z.output<T>; afterLostAnswer: boolean }> {
    try {
      return await sendAndRead(call, shape);
    } catch (error) {
      if (error instanceof OverlayStyleError) outages.failed(call, error);
      throw error;
    }
  }

  async function sendAndRead<T extends z.ZodType>(call: Call, shape: T): Promise<{ status: number; body: z.output<T>; afterLostAnswer: boolean }> {
    const answer = await send(call);
    const parsed = shape.safeParse(parseJson(answer.text));
    // A 2xx that is not the spec's envelope is something else's page (a proxy's), not the service.
    options.onAttempt?.(parsed.success ? 'ok' : 'unreachable');
    if (parsed.success) outages.working();
    if (!parsed.success) {
      throw new OverlayStyleError({
        status: answer.status,
        kind: 'invalid_response',
        message: `${describe(call)} answered ${answer.status} with a body that is not the spec's JSON envelope.`,
        cause: parsed.error,
      });
    }
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
