// What a call's answer or failure means, as the client's error kinds (overlay-style-error.ts):
// a redirect, something other than the service answering, the service's own refusal, no answer
// in time, a connection or TLS failure, an answer too long to read. `call` is the call as
// describeCall names it, for the messages.
import { OverlayStyleError } from './overlay-style-error.ts';
import { AttemptFailure, headerValue } from './http-call.ts';
import type { Answer } from './http-call.ts';
import { errorEnvelope } from './response-shapes.ts';
import type { RetryPolicy } from './retry-policy.ts';
import {
  isTlsFailureCode, isUntrustedCertificateCode, MAYBE_SENT_ERROR_CODES, NOT_SENT_ERROR_CODES, rateLimitClosureMs,
} from './retry-policy.ts';

/** How to trust a self-signed or private-CA certificate: Node's own way, for the whole process. */
const UNTRUSTED_CERTIFICATE_HINT = ' (a self-signed certificate, or one of your own CA: start chatskin with the environment variable'
  + ' NODE_EXTRA_CA_CERTS naming a PEM file of that certificate or CA)';

/** The body's JSON, or undefined when it is not JSON. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function errorCode(error: unknown): string | undefined {
  // undici puts the code on the error; a socket error may sit one level down as the cause.
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 3; depth++) {
    const code = (current as Error & { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = current.cause;
  }
  return undefined;
}

/**
 * The error of an answer that is not a 2xx. `retryAfterMs` is its Retry-After as the service said
 * it; the error's retryAfter is bounded as the client's wait is.
 */
export function errorFromAnswer(
  call: string, answer: Answer, retryAfterMs: number | undefined, policy: Pick<RetryPolicy, 'maxRetryAfterMs'>,
): OverlayStyleError {
  const { status } = answer;
  if (status >= 300 && status < 400) {
    const location = (headerValue(answer.headers, 'location') ?? '(no Location)').slice(0, 200);
    return new OverlayStyleError({
      status,
      kind: 'redirect',
      message: `${call} was answered with a ${status} redirect to ${location} instead of JSON; `
        + 'check that baseUrl is the API base URL with its prefix (e.g. http://host:port/api/v1).',
    });
  }
  const envelope = errorEnvelope.safeParse(parseJson(answer.text));
  if (!envelope.success && status >= 400 && status < 500 && status !== 429) {
    // Not the service's refusal but something else's answer (a web server's or a framework's
    // "no such route", a proxy's page): the base URL is wrong or something in between refused.
    return new OverlayStyleError({
      status,
      kind: 'invalid_response',
      message: `${call} answered ${status} without the spec's error body ({"message": ...}); `
        + 'check that baseUrl is the API base URL with its prefix (e.g. http://host:port/api/v1).',
    });
  }
  return new OverlayStyleError({
    status,
    message: envelope.success ? envelope.data.message : `${call} failed with HTTP ${status}.`,
    errors: envelope.success ? envelope.data.errors : undefined,
    // When this client sends again: a 429 keeps it from sending a minute at most (call-line.ts).
    retryAfter: retryAfterMs === undefined ? undefined : Math.ceil(rateLimitClosureMs(retryAfterMs, policy) / 1000),
  });
}

/** A 2xx whose body is not the spec's envelope: something else's page (a proxy's), not the service. */
export function notTheEnvelopeError(call: string, status: number, cause: unknown): OverlayStyleError {
  return new OverlayStyleError({
    status,
    kind: 'invalid_response',
    message: `${call} answered ${status} with a body that is not the spec's JSON envelope.`,
    cause,
  });
}

/** An attempt that got no complete answer within `timeoutMs`: it may have been done. */
export function timeoutFailure(call: string, timeoutMs: number, cause: unknown): AttemptFailure {
  // No period: a logger shows the cause's message after a colon.
  const timeout = new OverlayStyleError({
    status: 0, kind: 'timeout', message: `${call} got no complete answer within ${timeoutMs} ms`, cause,
  });
  return new AttemptFailure(timeout, true, true, `no complete answer within ${timeoutMs} ms`);
}

/** An attempt whose connection failed: by its code, never sent, maybe sent, or a TLS setup fault. */
export function connectionFailure(call: string, error: unknown): AttemptFailure {
  const code = errorCode(error);
  const notSent = code !== undefined && NOT_SENT_ERROR_CODES.has(code);
  const maybeSent = code !== undefined && MAYBE_SENT_ERROR_CODES.has(code);
  const tls = code !== undefined && isTlsFailureCode(code);
  // The cause's message (which a logger shows after this one) says the rest.
  const network = new OverlayStyleError({
    status: 0,
    kind: tls ? 'tls' : 'network',
    message: `${call} failed${code === undefined ? '' : ` (${code})`}`
      + (tls ? ': no TLS connection could be made; check that baseUrl\'s scheme (http or https) is the service\'s and that its certificate is trusted' : '')
      + (tls && isUntrustedCertificateCode(code) ? UNTRUSTED_CERTIFICATE_HINT : ''),
    cause: error,
  });
  const reason = `the connection failed: ${code ?? String(error)}`;
  return new AttemptFailure(network, !notSent, notSent || maybeSent, reason);
}

/** An answer longer than maxResponseBytes, cut off unread. */
export function tooLongFailure(call: string, status: number, maxResponseBytes: number): AttemptFailure {
  const tooLong = new OverlayStyleError({
    status,
    kind: 'invalid_response',
    message: `${call} answered ${status} with a body over ${maxResponseBytes} bytes (maxResponseBytes); it was not read further.`,
  });
  // It was answered, so it may have been done: not sent again.
  return new AttemptFailure(tooLong, true, false, 'the answer was too long');
}
