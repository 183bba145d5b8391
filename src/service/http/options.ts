// Options of the API layer and their defaults (DESIGN.md section 2).
import type { FastifyBaseLogger } from 'fastify';
import type { ApiKeyCaller } from '../api-keys.ts';
import type { StyleOperations } from '../types.ts';
import { DEFAULT_MAX_KEYS } from './fixed-window-limiter.ts';

/** Looks a bearer token up; null for a missing, unknown or revoked key. Called on every request. */
export type Authenticate = (token: string) => Promise<ApiKeyCaller | null> | ApiKeyCaller | null;

/** Milliseconds since the Unix epoch; injectable so tests can roll windows over without sleeping. */
export type Clock = () => number;

/**
 * Default client agents the edge filter refuses. An entry ending in `/` matches as a prefix of
 * the User-Agent; any other entry must equal the whole header (Node's bare `node`, `undici`).
 * Matching ignores case.
 */
export const DEFAULT_BLOCKED_AGENTS: readonly string[] = Object.freeze([
  'curl/', 'Wget/', 'python-requests/', 'python-urllib/', 'Go-http-client/', 'node-fetch/',
  'axios/', 'okhttp/', 'Java/', 'libwww-perl/', 'Scrapy/', 'node', 'undici',
]);

export interface RateLimitOptions {
  /** Requests per fixed 60 s window per API key (account). Default 30. */
  perMinute?: number;
  /** Failed authentications per fixed 60 s window per client address. Default 30. */
  failedAuthPerMinute?: number;
  /**
   * Client addresses whose failed authentications are remembered at most (the oldest is
   * forgotten first), so many addresses cannot grow the process's memory. Default 100000.
   */
  maxTrackedAddresses?: number;
  /** Clock for both limiters; default Date.now. */
  now?: Clock;
}

export interface ApiOptions {
  operations: StyleOperations;
  authenticate: Authenticate;
  /** Path prefix of the API, the spec's {base_url} path. Default `/api/v1`. */
  prefix?: string;
  rateLimit?: RateLimitOptions;
  /** Largest accepted write body in bytes. Default 65536. */
  bodyLimitBytes?: number;
  edgeFilter?: { blockedAgents?: readonly string[] };
  /** Redirect error responses of requests that do not accept JSON first (302). Default true. */
  redirectErrors?: boolean;
}

export interface ApiAppOptions extends ApiOptions {
  /** A pino logger, or false for none (the default). */
  logger?: FastifyBaseLogger | false;
  /**
   * Whose X-Forwarded-For names the client (behind a reverse proxy): Fastify's trustProxy (true,
   * or the proxies' addresses). Default false: the socket's address.
   */
  trustProxy?: boolean | readonly string[];
  /** How long a client may take to send one whole request; then 408 and the connection closes. Default 30 s. */
  requestTimeoutMs?: number;
}

export interface ResolvedApiOptions {
  operations: StyleOperations;
  authenticate: Authenticate;
  prefix: string;
  perMinute: number;
  failedAuthPerMinute: number;
  maxTrackedAddresses: number;
  now: Clock;
  bodyLimitBytes: number;
  blockedAgents: readonly string[];
  redirectErrors: boolean;
}

export const DEFAULT_PREFIX = '/api/v1';
export const DEFAULT_PER_MINUTE = 30;
export const DEFAULT_FAILED_AUTH_PER_MINUTE = 30;
export const DEFAULT_BODY_LIMIT_BYTES = 65_536;

/**
 * The longest path parameter the API's router matches (its `maxParamLength`), in UTF-16 code
 * units of the decoded segment: a longer one matches no route, so the API answers its routing 404
 * (docs/api.md, GET /viewers/{identifier}/skins). The in-process client answers the same.
 */
export const MAX_PATH_PARAM_LENGTH = 100;

function positiveInteger(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new TypeError(`API option ${name} must be a positive integer, got ${String(value)}`);
  }
  return value;
}

export function resolveApiOptions(options: ApiOptions): ResolvedApiOptions {
  const prefix = options.prefix ?? DEFAULT_PREFIX;
  if (prefix !== '' && (!prefix.startsWith('/') || prefix.endsWith('/'))) {
    throw new TypeError(`API option prefix must start with "/" and not end with one, got "${prefix}"`);
  }
  return {
    operations: options.operations,
    authenticate: options.authenticate,
    prefix,
    perMinute: positiveInteger('rateLimit.perMinute', options.rateLimit?.perMinute, DEFAULT_PER_MINUTE),
    failedAuthPerMinute: positiveInteger(
      'rateLimit.failedAuthPerMinute', options.rateLimit?.failedAuthPerMinute, DEFAULT_FAILED_AUTH_PER_MINUTE,
    ),
    maxTrackedAddresses: positiveInteger(
      'rateLimit.maxTrackedAddresses', options.rateLimit?.maxTrackedAddresses, DEFAULT_MAX_KEYS,
    ),
    now: options.rateLimit?.now ?? Date.now,
    bodyLimitBytes: positiveInteger('bodyLimitBytes', options.bodyLimitBytes, DEFAULT_BODY_LIMIT_BYTES),
    blockedAgents: options.edgeFilter?.blockedAgents ?? DEFAULT_BLOCKED_AGENTS,
    redirectErrors: options.redirectErrors ?? true,
  };
}
