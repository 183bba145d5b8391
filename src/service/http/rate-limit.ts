// Rate limit per API key (the spec's Limits; DESIGN.md step 4): 30 requests per fixed 60 s
// window. Every response to an authenticated request carries X-RateLimit-Limit and
// X-RateLimit-Remaining; a refusal is 429 {"message":"Too Many Attempts."} with Retry-After (s)
// and X-RateLimit-Reset (Unix s). Keyed by the API key (request.rateLimitKey, set by
// authentication): a key made after a revoke is another key, with a window of its own.
import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import type { ErrorResponder } from './error-response.ts';
import { MESSAGES } from './error-response.ts';
import type { FixedWindowLimiter, LimiterState } from './fixed-window-limiter.ts';
import type { Clock } from './options.ts';

export function setRateLimitHeaders(reply: FastifyReply, state: LimiterState): void {
  reply.header('X-RateLimit-Limit', state.limit);
  reply.header('X-RateLimit-Remaining', state.remaining);
}

/** Whole seconds until the window of `state` ends (at least 1): the Retry-After of its 429s. */
export function retryAfterSeconds(state: LimiterState, now: Clock): number {
  return Math.max(1, Math.ceil((state.resetAt - now()) / 1000));
}

/** Answers 429 for a refused hit, with the retry headers. */
export function sendTooManyAttempts(
  request: FastifyRequest, reply: FastifyReply, responder: ErrorResponder, state: LimiterState, now: Clock,
): FastifyReply {
  reply.header('Retry-After', retryAfterSeconds(state, now));
  reply.header('X-RateLimit-Reset', Math.ceil(state.resetAt / 1000));
  return responder.send(request, reply, 429, { message: MESSAGES.tooManyAttempts });
}

/** Runs after authentication and the premium check: counts the request, or refuses it. */
export function createRateLimitHook(
  limiter: FixedWindowLimiter, responder: ErrorResponder, now: Clock,
): onRequestAsyncHookHandler {
  return async function rateLimit(request, reply) {
    const key = request.rateLimitKey;
    if (key === null) return;
    const state = limiter.hit(key);
    setRateLimitHeaders(reply, state);
    if (!state.allowed) {
      // Once per window, not per refusal: a tool that keeps calling would flood the log.
      if (state.firstRefusal === true) {
        const login = request.account?.login ?? '?';
        const seconds = retryAfterSeconds(state, now);
        request.log.warn({ account: login, keyId: Number(key), limit: state.limit, retryAfterSeconds: seconds },
          `API rate limit: the key of ${login} used up its ${state.limit} requests of this 60 s window; its requests are answered 429 for ${seconds} s. `
          + 'A tool of that account calls too often: slow it down, or raise api.rateLimit.perMinute');
      }
      return sendTooManyAttempts(request, reply, responder, state, now);
    }
  };
}
