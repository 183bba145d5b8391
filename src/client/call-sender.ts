// Sends one call of the HTTP client to the service: in its place in the line (call-line.ts),
// an attempt at a time (http-attempt.ts), trying again as the policy allows (retry-policy.ts),
// until a 2xx answer or the error the call ends with.
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
import type { Endpoint } from './base-url.ts';
import { errorFromAnswer } from './call-errors.ts';
import type { CallLine } from './call-line.ts';
import type { Attempt } from './http-attempt.ts';
import { AttemptFailure, describeCall, headerValue } from './http-call.ts';
import type { Answer, Call } from './http-call.ts';
import type { ClientLogger } from './outage-log.ts';
import { OverlayStyleError } from './overlay-style-error.ts';
import { stateOfError } from './remote-service-state.ts';
import type { RemoteServiceState } from './remote-service-state.ts';
import type { RetryPolicy } from './retry-policy.ts';
import { backoffDelayMs, LOST_ANSWER_STATUSES, parseRetryAfterMs, RETRYABLE_STATUSES } from './retry-policy.ts';

export interface CallSenderOptions {
  endpoint: Endpoint;
  policy: RetryPolicy;
  line: CallLine;
  attempt: Attempt;
  sleep: (ms: number) => Promise<void>;
  /** Told of every wait before a retry. */
  logger: ClientLogger | undefined;
  /** Told how each attempt that got no 2xx ended (a 2xx is told once its body is read). */
  onAttempt: ((state: RemoteServiceState) => void) | undefined;
}

/**
 * Sends `call`, retrying as the policy allows; resolves with a 2xx answer. An error thrown after
 * an attempt whose answer was lost says so (OverlayStyleError.afterLostAnswer): the request may
 * have been done although the last attempt's failure, a 503 say, did nothing.
 */
export type CallSender = (call: Call) => Promise<Answer>;

export function createCallSender(options: CallSenderOptions): CallSender {
  const { endpoint, policy, line, attempt, sleep, logger, onAttempt } = options;
  /** Calls made so far: each call's number is its place in the line. */
  let calls = 0;
  /** The last 429, whose message a call refused in line carries. */
  let lastRateLimit: OverlayStyleError | undefined;

  function logWait(call: Call, waitMs: number, reason: string): void {
    logger?.warn({ call: describeCall(endpoint, call), waitMs, reason }, `overlay service call held up, ${reason}: trying again in ${waitMs} ms`);
  }

  async function waitToRetry(call: Call, waitMs: number, reason: string): Promise<void> {
    logWait(call, waitMs, reason);
    await sleep(waitMs);
  }

  /** A call refused in line, unsent: the service would answer it 429 too. */
  function refusedInLine(retryAfterSeconds: number, call: Call): OverlayStyleError {
    return new OverlayStyleError({
      status: 429,
      message: lastRateLimit?.message ?? `${describeCall(endpoint, call)} was not sent: the service is rate limiting.`,
      retryAfter: retryAfterSeconds,
    });
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
        onAttempt?.('unreachable');
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
        // Told by the client once it knows whether the body is the service's JSON.
        entry.done('answered');
        return lost.answer ? { ...answer, afterLostAnswer: true } : answer;
      }
      // As the service said it (the error's retryAfter is bounded): a longer one is not waited out.
      const retryAfterMs = parseRetryAfterMs(headerValue(answer.headers, 'retry-after'), Date.now());
      const error = errorFromAnswer(describeCall(endpoint, call), answer, retryAfterMs, policy);
      onAttempt?.(stateOfError(call, error));
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
        if (LOST_ANSWER_STATUSES.has(status)) lost.answer = true;
        await waitToRetry(call, retryAfterMs ?? backoffDelayMs(retry, policy), `the service answered ${status}`);
        retry += 1;
        continue;
      }
      throw error;
    }
  }

  return async function send(call: Call): Promise<Answer> {
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
  };
}
