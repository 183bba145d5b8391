// The real API over a real socket: the real service on a temp SQLite file seeded with a fixture
// of three channels, a key per channel, the app from buildApiApp listening on port 0, and a
// fetch helper that sends the headers a well-behaved tool sends. The rate limiters run on a
// manual clock, so windows only roll over when a test moves it.
import { Writable } from 'node:stream';
import pino from 'pino';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { buildApiApp } from '../../../src/service/http/app.ts';
import type { ApiAppOptions, ApiOptions } from '../../../src/service/http/options.ts';
import { applySeed } from '../../../src/service/seed.ts';
import type { SeedResult } from '../../../src/service/seed.ts';
import type { SqliteStoreOptions } from '../../../src/service/store/sqlite-store.ts';
import { ALICE_ACCOUNT, openHarness } from '../core/service-harness.ts';
import type { Harness } from '../core/service-harness.ts';

export const TEST_USER_AGENT = 'chatskin-http-tests/1.0';

/**
 * alice (ALICE_ACCOUNT, as in the service tests' world) and bob are premium channels with
 * overlays, skins and grants; carol is not premium.
 */
export const API_FIXTURE = {
  accounts: [
    ALICE_ACCOUNT,
    {
      login: 'bob',
      premium: true,
      overlays: [
        { name: 'Bob main', template: 'bubbles', default: true, values: { 'bubble.gap': 4 } },
        { name: 'Bob synced', template: 'bubbles', sync_source: 'Bob main', overrides: { 'avatar.show': false } },
      ],
      skins: [
        { slug: 'bobskin', name: 'Bob skin', template: 'bubbles', availability: 'purchase', values: { 'bubble.width': 300 } },
      ],
    },
    { login: 'carol', premium: false, overlays: [{ name: 'Carol main', template: 'bubbles', default: true }] },
  ],
  global_skins: [{ slug: 'classic', name: 'Classic', template: 'bubbles', availability: 'free', values: {} }],
  viewers: [
    { twitch_user_id: '1001', twitch_username: 'viewer_one' },
    { twitch_user_id: '1002', twitch_username: 'viewer_two' },
    { twitch_user_id: '1003', twitch_username: '4242' },
  ],
  purchases: [
    { account: 'alice', viewer: 'viewer_one', skin: 'neon' },
    { account: 'bob', viewer: 'viewer_two', skin: 'bobskin' },
  ],
  grants: [{ account: 'bob', viewer: 'viewer_one', skin: 'bobskin' }],
};

export interface ApiAnswer {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed JSON body, or undefined when the body is not JSON. */
  body: any;
}

export interface CallInit {
  method?: string;
  /** Sent as JSON (with Content-Type: application/json). */
  json?: unknown;
  /** Sent as is. */
  raw?: string;
  /** The API key to send; null sends no Authorization header. Default alice's key. */
  key?: string | null;
  /** Extra headers; a header set to undefined is left out. */
  headers?: Record<string, string | undefined>;
}

export interface ApiTestServer {
  app: FastifyInstance;
  /** http://127.0.0.1:PORT */
  origin: string;
  /** origin + /api/v1 */
  base: string;
  ids: SeedResult;
  keys: { alice: string; bob: string; carol: string };
  harness: Harness;
  /** The limiters' clock (ms); move `clock.now` to roll windows over. */
  clock: { now: number };
  /** Log lines the app wrote (JSON text). */
  logs: string[];
  call(path: string, init?: CallInit): Promise<ApiAnswer>;
  /** Every row of every table, through a separate connection. */
  dump(): Record<string, unknown[]>;
  close(): Promise<void>;
}

export type ApiTestServerOptions = Partial<Omit<ApiOptions, 'operations' | 'authenticate'>>
  & Pick<ApiAppOptions, 'trustProxy' | 'requestTimeoutMs'> & { logLevel?: pino.Level; store?: Partial<SqliteStoreOptions> };

export async function startApiTestServer(options: ApiTestServerOptions = {}): Promise<ApiTestServer> {
  const harness = await openHarness(options.store);
  const ids = await applySeed(harness.service, structuredClone(API_FIXTURE));
  const keys = {
    alice: (await harness.service.createKey('alice')).token,
    bob: (await harness.service.createKey('bob')).token,
    carol: (await harness.service.createKey('carol')).token,
  };
  const clock = { now: Date.UTC(2030, 0, 1, 12, 0, 0) };
  const logs: string[] = [];
  const logger = pino({ level: options.logLevel ?? 'info' }, new Writable({
    write(chunk, _encoding, done) {
      logs.push(String(chunk));
      done();
    },
  }));
  const { store: _storeOptions, ...appOptions } = options;
  const app = buildApiApp({
    ...appOptions,
    operations: harness.service,
    authenticate: (token) => harness.service.authenticate(token),
    rateLimit: { failedAuthPerMinute: 1000, ...options.rateLimit, now: () => clock.now },
    logger,
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  const origin = `http://127.0.0.1:${port}`;
  const base = `${origin}${options.prefix ?? '/api/v1'}`;

  async function call(path: string, init: CallInit = {}): Promise<ApiAnswer> {
    const key = init.key === undefined ? keys.alice : init.key;
    const headers: Record<string, string> = { 'User-Agent': TEST_USER_AGENT, Accept: 'application/json' };
    if (key !== null) headers.Authorization = `Bearer ${key}`;
    let body: string | undefined;
    if (init.json !== undefined) {
      body = JSON.stringify(init.json);
      headers['Content-Type'] = 'application/json';
    } else if (init.raw !== undefined) {
      body = init.raw;
      headers['Content-Type'] = 'application/json';
    }
    for (const [name, value] of Object.entries(init.headers ?? {})) {
      const existing = Object.keys(headers).find((h) => h.toLowerCase() === name.toLowerCase());
      if (existing !== undefined) delete headers[existing];
      if (value !== undefined) headers[name] = value;
    }
    const response = await fetch(base + path, { method: init.method ?? 'GET', headers, body, redirect: 'manual' });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: response.status, headers: response.headers, text, body: parsed };
  }

  return {
    app, origin, base, ids, keys, harness, clock, logs, call,
    dump: () => harness.dump(),
    async close() {
      await app.close();
      await harness.close();
    },
  };
}

/**
 * A server of its own for each test of the file or describe block this is called in: started in
 * beforeEach from the seeded fixture, closed in afterEach. The object returned stands for the
 * server of the test that is running; a beforeEach registered after this call sees it started.
 */
export function apiTestServerForEachTest(options: ApiTestServerOptions = {}): ApiTestServer {
  return apiTestServerBetween(beforeEach, afterEach, options);
}

/**
 * One server for all the tests of the file or describe block this is called in: started in
 * beforeAll, closed in afterAll; a beforeAll registered after this call sees it started.
 */
export function apiTestServerForSuite(options: ApiTestServerOptions = {}): ApiTestServer {
  return apiTestServerBetween(beforeAll, afterAll, options);
}

function apiTestServerBetween(
  start: (hook: () => Promise<void>) => void, stop: (hook: () => Promise<void>) => void, options: ApiTestServerOptions,
): ApiTestServer {
  // The tests hold this one object; each start fills it in with the server it started.
  const server = {} as ApiTestServer;
  start(async () => {
    Object.assign(server, await startApiTestServer(options));
  });
  stop(async () => {
    await server.close();
  });
  return server;
}

/** Asserts nothing about the answer; returns the `errors` keys of a 422 body, sorted. */
export function errorFields(answer: ApiAnswer): string[] {
  return Object.keys((answer.body as { errors?: object } | undefined)?.errors ?? {}).sort();
}
