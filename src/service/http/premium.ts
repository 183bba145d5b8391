// Premium check (DESIGN.md step 3): a key works only while its account's premium subscription
// is active. Read from the account that authentication just loaded, so switching premium off
// from another process is seen on the very next request.
import type { onRequestAsyncHookHandler } from 'fastify';
import type { ErrorResponder } from './error-response.ts';
import { MESSAGES } from './error-response.ts';
import type { FixedWindowLimiter } from './fixed-window-limiter.ts';
import { setRateLimitHeaders } from './rate-limit.ts';


export function createPremiumHook(limiter: FixedWindowLimiter, responder: ErrorResponder): onRequestAsyncHookHandler {
  return async function premium(request, reply) {
    const account = request.account;
    if (account === null || account.premium || request.rateLimitKey === null) return;
    // An authenticated response carries the rate-limit headers; a refusal here spends no hit.
    setRateLimitHeaders(reply, limiter.peek(request.rateLimitKey));
    return responder.send(request, reply, 403, { message: MESSAGES.premiumRequired });
  };
}
