// Authentication (DESIGN.md step 2): `Authorization: Bearer <key>`, looked up on every request
// (no cache), so a key revoked by another process stops working on the very next request.
// Failures are counted per client address; an address that used up its budget gets 429 before
// its token is even looked at, so keys cannot be guessed at speed.
import { isIP } from 'node:net';
import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import type { Account } from '../types.ts';
import type { ErrorResponder } from './error-response.ts';
import { MESSAGES } from './error-response.ts';
import type { FixedWindowLimiter } from './fixed-window-limiter.ts';
import type { Authenticate, Clock } from './options.ts';
import { sendTooManyAttempts, setRateLimitHeaders } from './rate-limit.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The calling account, set by authentication; null before it or outside the API. */
    account: Account | null;
    /** What the per-key rate limit counts under: the API key's id, never the key itself. */
    rateLimitKey: string | null;
  }
}

/** The caller; authentication ran in onRequest, so every route behind it has one. */
export function callerOf(request: FastifyRequest): Account {
  const account = request.account;
  if (account === null) throw new Error('route reached without an authenticated account');
  return account;
}

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/** The token of an `Authorization: Bearer <token>` header, or null. */
export function bearerToken(header: string | undefined): string | null {
  if (header === undefined) return null;
  const match = BEARER.exec(header);
  return match?.[1] ?? null;
}

/**
 * The address failed authentications are counted under: the client's, or, when a trusted
 * X-Forwarded-For names something that is not an address (any text, up to the header limit,
 * with `trustProxy: true`), the connection's, so the limiter never keys on client-made text.
 */
export function failedAuthAddress(request: FastifyRequest): string {
  return isIP(request.ip) !== 0 ? request.ip : request.socket.remoteAddress ?? '';
}

export function createAuthenticationHook(options: {
  authenticate: Authenticate;
  failedAuthLimiter: FixedWindowLimiter;
  responder: ErrorResponder;
  now: Clock;
}): onRequestAsyncHookHandler {
  const { authenticate, failedAuthLimiter, responder, now } = options;
  return async function authentication(request: FastifyRequest, reply) {
    const address = failedAuthAddress(request);
    const budget = failedAuthLimiter.peek(address);
    if (!budget.allowed) {
      setRateLimitHeaders(reply, budget);
      return sendTooManyAttempts(request, reply, responder, budget, now);
    }
    const token = bearerToken(request.headers.authorization);
    const caller = token === null ? null : await authenticate(token);
    if (caller === null) {
      failedAuthLimiter.hit(address);
      return responder.send(request, reply, 401, { message: MESSAGES.unauthenticated });
    }
    request.account = caller.account;
    // The spec limits requests per API key: a key made after a revoke is another key, with a
    // window of its own. Its id, from the lookup just made: no second hash, no secret kept.
    request.rateLimitKey = String(caller.keyId);
  };
}
