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
import { retryAfterSeconds, sendTooManyAttempts, setRateLimitHeaders } from './rate-limit.ts';

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
 * An IPv6 client is counted by its /64 (addressBlock).
 */
export function failedAuthAddress(request: FastifyRequest): string {
  return addressBlock(isIP(request.ip) !== 0 ? request.ip : request.socket.remoteAddress ?? '');
}

/**
 * What one client holds: an IPv4 address, or an IPv6 address's /64, since a host is given a whole
 * /64 and may send from any address in it (counted per address, it could guess without limit).
 * An IPv4-mapped IPv6 address (a dual-stack server's IPv4 client) is its IPv4 address.
 */
export function addressBlock(address: string): string {
  if (isIP(address) !== 6) return address;
  const groups = ipv6Groups(address);
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join('.');
  }
  return `${groups.slice(0, 4).map((group) => group.toString(16)).join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address (`::` expanded, a dotted IPv4 tail as two groups). */
function ipv6Groups(address: string): number[] {
  const bare = address.split('%')[0]!;
  const toGroups = (part: string): number[] => (part === '' ? [] : part.split(':').flatMap((piece) => {
    if (!piece.includes('.')) return [Number.parseInt(piece, 16)];
    const [a, b, c, d] = piece.split('.').map(Number) as [number, number, number, number];
    return [(a << 8) | b, (c << 8) | d];
  }));
  const gap = bare.indexOf('::');
  if (gap === -1) return toGroups(bare);
  const head = toGroups(bare.slice(0, gap));
  const tail = toGroups(bare.slice(gap + 2));
  return [...head, ...Array<number>(8 - head.length - tail.length).fill(0), ...tail];
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
      const used = failedAuthLimiter.hit(address);
      // Once per window: the failure that used up the address's budget (the 429s after it are not logged).
      if (used.allowed && used.remaining === 0) {
        const seconds = retryAfterSeconds(used, now);
        request.log.warn({ address, limit: used.limit, retryAfterSeconds: seconds },
          `API failed authentication ${used.limit} times from ${address} in this 60 s window; its API requests are answered 429 for ${seconds} s. `
          + 'A tool there uses a wrong or revoked key (give it a key from chatskin keys create), or someone is guessing keys; '
          + 'the limit is api.rateLimit.failedAuthPerMinute');
      }
      return responder.send(request, reply, 401, { message: MESSAGES.unauthenticated });
    }
    request.account = caller.account;
    // The spec limits requests per API key: a key made after a revoke is another key, with a
    // window of its own. Its id, from the lookup just made: no second hash, no secret kept.
    request.rateLimitKey = String(caller.keyId);
  };
}
