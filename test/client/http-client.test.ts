// The HTTP client's own rules, against undici's MockAgent (status codes and headers a real
// service only gives under load or failure) and against real sockets where the network itself
// is the point (a server that never answers, a port nobody listens on).
import { createServer } from 'node:http';
import type { IncomingMessage, Server } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Agent, MockAgent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHttpClient } from '../../src/client/http-client.ts';
import type { HttpClientOptions } from '../../src/client/http-client.ts';
import { overlayErrorLine } from '../../src/client/overlay-error-line.ts';
import { STORE_UNWRITABLE_RETRY_AFTER_SECONDS } from '../../src/service/http/error-handler.ts';
import { storeUnwritableMessage } from '../../src/service/http/error-response.ts';
import { isOverlayStyleError, isServiceSideError, OverlayStyleError } from '../../src/client/overlay-style-error.ts';
import { DEFAULT_USER_AGENT } from '../../src/client/user-agent.ts';
import packageJson from '../../package.json' with { type: 'json' };

const ORIGIN = 'http://overlay.test';
const BASE_URL = `${ORIGIN}/api/v1`;
const API_KEY = 'cs_test_0123456789abcdef';

const TEMPLATE_VIEW = {
  template_id: 1, template_name: 'Bubbles', template_slug: 'bubbles',
  settings_values: { 'bubble.width': 400 }, source_values: { 'bubble.width': 400 }, override_values: {},
  overridden_keys: [], sync_source_preset_id: null, preset_id: 7, preset_name: 'Main',
};
const UNLOCK_DATA = { twitch_username: 'viewer1', skin: { id: 3, name: 'Neon' } };
const GRANT = { twitch_username: 'viewer1', skin_id: 3 };
const JSON_HEADERS = { 'content-type': 'application/json' };

let mockAgent: MockAgent;
let waits: number[];

function client(options: Partial<HttpClientOptions> = {}) {
  return createHttpClient({
    baseUrl: BASE_URL,
    apiKey: API_KEY,
    dispatcher: mockAgent,
    // Records each wait instead of sleeping: the test checks what was waited, not how long it took.
    sleep: async (ms) => {
      waits.push(ms);
    },
    ...options,
  });
}

function service() {
  return mockAgent.get(ORIGIN);
}

function calls(): number {
  return mockAgent.getCallHistory()?.calls().length ?? 0;
}

async function rejection(promise: Promise<unknown>): Promise<OverlayStyleError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(OverlayStyleError);
  return error as OverlayStyleError;
}

/** Listens on a free loopback port; answers the API's base URL there. */
async function listenOnLoopback(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
}

/** Drops every connection to the server, then stops it listening. */
async function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

beforeEach(() => {
  mockAgent = new MockAgent({ enableCallHistory: true });
  mockAgent.disableNetConnect();
  waits = [];
});

afterEach(async () => {
  await mockAgent.close();
});

describe('request headers', () => {
  it('sends the bearer key, Accept JSON and the chatskin User-Agent; Content-Type only on writes', async () => {
    const seen: Array<{ method: string; headers: Record<string, string> }> = [];
    const update = { settings_values: {}, source_values: {}, override_values: {}, scope: 'independent', preset_id: 7 };
    service().intercept({ path: '/api/v1/template', method: () => true }).reply<object>((opts) => {
      seen.push({ method: opts.method, headers: opts.headers as Record<string, string> });
      const data = opts.method === 'GET' ? { data: TEMPLATE_VIEW } : { message: 'ok', data: update };
      return { statusCode: 200, data, responseOptions: { headers: JSON_HEADERS } };
    }).times(2);

    const overlay = client();
    await overlay.getTemplate();
    await overlay.updateTemplate({ scope: 'independent', values: { 'bubble.width': 300 } });

    expect(DEFAULT_USER_AGENT).toBe(`chatskin/${packageJson.version}`);
    for (const request of seen) {
      expect(request.headers.authorization).toBe(`Bearer ${API_KEY}`);
      expect(request.headers.accept).toBe('application/json');
      expect(request.headers['user-agent']).toBe(DEFAULT_USER_AGENT);
    }
    expect(seen[0]!.headers['content-type']).toBeUndefined();
    expect(seen[1]!.headers['content-type']).toBe('application/json');
  });

  it('sends a caller-chosen User-Agent instead', async () => {
    let agent: string | undefined;
    service().intercept({ path: '/api/v1/skins' }).reply((opts) => {
      agent = (opts.headers as Record<string, string>)['user-agent'];
      return { statusCode: 200, data: { data: [] } };
    });
    await client({ userAgent: 'MyTool/2.1 (+https://example.com)' }).listSkins();
    expect(agent).toBe('MyTool/2.1 (+https://example.com)');
  });

  it('joins paths below a base URL given with a trailing slash', async () => {
    service().intercept({ path: '/api/v1/skins?preset_id=7' }).reply(200, { data: [] });
    await expect(client({ baseUrl: `${BASE_URL}/` }).listSkins(7)).resolves.toEqual([]);
  });
});

describe('429 Too Many Attempts', () => {
  const tooMany = (retryAfter: string) =>
    [429, { message: 'Too Many Attempts.' }, { headers: { ...JSON_HEADERS, 'retry-after': retryAfter } }] as const;

  it('waits out Retry-After, then succeeds', async () => {
    service().intercept({ path: '/api/v1/template' }).reply(...tooMany('2'));
    service().intercept({ path: '/api/v1/template' }).reply(200, { data: TEMPLATE_VIEW });

    await expect(client().getTemplate()).resolves.toEqual(TEMPLATE_VIEW);
    expect(waits).toEqual([2000]);
    expect(calls()).toBe(2);
  });

  it('gives up with the 429 after maxRetries retries', async () => {
    service().intercept({ path: '/api/v1/template' }).reply(...tooMany('1')).times(4);

    const error = await rejection(client({ maxRetries: 2 }).getTemplate());
    expect(error.status).toBe(429);
    expect(error.message).toBe('Too Many Attempts.');
    expect(error.retryAfter).toBe(1);
    expect(calls()).toBe(3);
    expect(waits).toEqual([1000, 1000]);
  });

  it('logs a refused API key once, as an error saying what to do, until a call succeeds again', async () => {
    const errors: string[] = [];
    const logger = { warn: () => {}, error: (_details: object, message: string) => errors.push(message) };
    const overlay = client({ logger });
    service().intercept({ path: '/api/v1/skins' }).reply(401, { message: 'Unauthenticated.' }).times(2);
    service().intercept({ path: '/api/v1/skins' }).reply(200, { data: [] });
    service().intercept({ path: '/api/v1/skins' }).reply(401, { message: 'Unauthenticated.' });
    expect((await rejection(overlay.listSkins())).status).toBe(401);
    expect((await rejection(overlay.listSkins())).status).toBe(401);
    expect(errors).toEqual([expect.stringMatching(/^the overlay service at https?:\/\/\S+ refused the API key \(401\): every call fails until service\.apiKey is a key the service accepts/)]);
    expect(errors[0]).not.toContain(API_KEY);
    await overlay.listSkins();
    expect((await rejection(overlay.listSkins())).status).toBe(401);
    expect(errors).toHaveLength(2);
  });

  it('tells its logger of every wait, so a minute\'s Retry-After is not a silent minute', async () => {
    service().intercept({ path: '/api/v1/template' }).reply(...tooMany('12'));
    service().intercept({ path: '/api/v1/template' }).reply(503, { message: 'Service Unavailable.' });
    service().intercept({ path: '/api/v1/template' }).reply(200, { data: TEMPLATE_VIEW }, { headers: JSON_HEADERS });
    const warnings: Array<{ details: object; message: string }> = [];
    const logger = { warn: (details: object, message: string) => warnings.push({ details, message }) };

    await client({ logger, backoff: { baseDelayMs: 100, maxDelayMs: 100 } }).getTemplate();
    expect(warnings).toEqual([
      {
        details: { call: `GET ${BASE_URL}/template`, waitMs: 12_000, reason: 'the service is rate limiting (429)' },
        message: 'overlay service call held up, the service is rate limiting (429): trying again in 12000 ms',
      },
      {
        details: { call: `GET ${BASE_URL}/template`, waitMs: expect.any(Number), reason: 'the service answered 503' },
        message: expect.stringMatching(/^overlay service call held up, the service answered 503: trying again in \d+ ms$/),
      },
    ]);
    expect(waits).toEqual([12_000, warnings[1]!.details['waitMs' as keyof object]]);
  });

  it('gives up at once when Retry-After is longer than maxRetryAfterMs', async () => {
    service().intercept({ path: '/api/v1/skins' }).reply(...tooMany('45'));

    const error = await rejection(client({ maxRetryAfterMs: 30_000 }).listSkins());
    expect(error.status).toBe(429);
    expect(error.retryAfter).toBe(45);
    expect(calls()).toBe(1);
    expect(waits).toEqual([]);
  });

  it('keeps from sending for a minute at most, whatever the Retry-After (a proxy\'s in milliseconds would be hours)', async () => {
    for (const retryAfter of ['60000', '99999999999999999999999']) {
      const overlay = client({ maxRetries: 1 });
      waits = [];
      service().intercept({ path: '/api/v1/skins' }).reply(...tooMany(retryAfter));
      service().intercept({ path: '/api/v1/skins' }).reply(200, { data: [] });
      const before = calls();
      const error = await rejection(overlay.listSkins());
      // Over maxRetryAfterMs: not waited out. Chat is told when the bot asks again, not "in 1e+23 s".
      expect(error.retryAfter).toBe(60);
      // The next call waits out the rest of that minute (the test's sleep ends at once) and is sent.
      await expect(overlay.listSkins()).resolves.toEqual([]);
      expect(waits).toHaveLength(1);
      expect(waits[0]).toBeGreaterThan(55_000);
      expect(waits[0]).toBeLessThanOrEqual(60_000);
      expect(calls() - before).toBe(2);
    }
  });

  it('retries a revoke too: the rate limit refuses before anything is done', async () => {
    service().intercept({ path: '/api/v1/viewers/unlock-skin', method: 'DELETE' }).reply(...tooMany('3'));
    service().intercept({ path: '/api/v1/viewers/unlock-skin', method: 'DELETE' }).reply(200, { message: 'Skin access revoked.' });

    await expect(client().revokeSkin(GRANT)).resolves.toBeUndefined();
    expect(waits).toEqual([3000]);
  });

  it('reads an HTTP-date Retry-After', async () => {
    const inTenSeconds = new Date(Date.now() + 10_000).toUTCString();
    service().intercept({ path: '/api/v1/skins' }).reply(...tooMany(inTenSeconds));
    service().intercept({ path: '/api/v1/skins' }).reply(200, { data: [] });

    await client().listSkins();
    expect(waits).toHaveLength(1);
    expect(waits[0]).toBeGreaterThan(8_000);
    expect(waits[0]).toBeLessThanOrEqual(10_000);
  });

  it('holds back the calls made while it waits out a 429: unsent, each paying one retry, then sent in the order made', async () => {
    const order: string[] = [];
    let openLine: () => void = () => {};
    const overlay = client({
      // The first wait is held open until the test lets it go: calls are made meanwhile.
      sleep: (ms) => { waits.push(ms); return new Promise<void>((resolve) => { openLine = resolve; }); },
      maxRetries: 1,
    });
    service().intercept({ path: '/api/v1/template' }).reply(...tooMany('5'));
    service().intercept({ path: '/api/v1/template' }).reply(() => { order.push('template'); return { statusCode: 200, data: { data: TEMPLATE_VIEW } }; });
    service().intercept({ path: '/api/v1/skins' }).reply(() => { order.push('skins'); return { statusCode: 200, data: { data: [] } }; });
    const first = overlay.getTemplate();
    await expect.poll(() => waits).toEqual([5000]);
    const second = overlay.listSkins();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(calls()).toBe(1);
    openLine();
    await expect(first).resolves.toEqual(TEMPLATE_VIEW);
    await expect(second).resolves.toEqual([]);
    expect(order).toEqual(['template', 'skins']);
    expect(waits).toEqual([5000]);
  });

  it('refuses at once, unsent, a call made within a 429\'s Retry-After when it has no retry to pay for the wait', async () => {
    const overlay = client({ maxRetries: 0 });
    service().intercept({ path: '/api/v1/template' }).reply(...tooMany('5'));
    expect((await rejection(overlay.getTemplate())).retryAfter).toBe(5);
    const error = await rejection(overlay.listSkins());
    expect(error).toMatchObject({ status: 429, kind: 'service', message: 'Too Many Attempts.' });
    expect(error.retryAfter).toBeGreaterThanOrEqual(4);
    expect(error.retryAfter).toBeLessThanOrEqual(5);
    expect(calls()).toBe(1);
    expect(waits).toEqual([]);
  });

  it('does not retry at all with maxRetries 0', async () => {
    service().intercept({ path: '/api/v1/skins' }).reply(...tooMany('1'));
    expect((await rejection(client({ maxRetries: 0 }).listSkins())).status).toBe(429);
    expect(calls()).toBe(1);
  });
});

describe('5xx answers', () => {
  it('retries an idempotent read after a 503, with bounded back-off', async () => {
    service().intercept({ path: '/api/v1/template' }).reply(503, { message: 'Service Unavailable.' }).times(2);
    service().intercept({ path: '/api/v1/template' }).reply(200, { data: TEMPLATE_VIEW });

    await expect(client({ backoff: { baseDelayMs: 100, maxDelayMs: 150 } }).getTemplate()).resolves.toEqual(TEMPLATE_VIEW);
    expect(calls()).toBe(3);
    expect(waits).toHaveLength(2);
    expect(waits[0]).toBeGreaterThanOrEqual(50);
    expect(waits[0]).toBeLessThanOrEqual(100);
    expect(waits[1]).toBeGreaterThanOrEqual(75);
    expect(waits[1]).toBeLessThanOrEqual(150);
  });

  it('retries PUTs and the unlock POST (idempotent by the spec), then gives up with the last 5xx', async () => {
    service().intercept({ path: '/api/v1/skins/4', method: 'PUT' }).reply(500, { message: 'Server Error.' }).times(3);
    const error = await rejection(client().updateSkin(4, { 'bubble.width': 10 }));
    expect(error.status).toBe(500);
    expect(error.message).toBe('Server Error.');
    expect(calls()).toBe(3);

    service().intercept({ path: '/api/v1/viewers/unlock-skin', method: 'POST' }).reply(502, 'Bad Gateway');
    service().intercept({ path: '/api/v1/viewers/unlock-skin', method: 'POST' }).reply(201, { message: 'ok', data: UNLOCK_DATA });
    await expect(client().unlockSkin(GRANT)).resolves.toEqual({ created: true, ...UNLOCK_DATA });
  });

  it('never repeats a revoke after a 5xx: it may have revoked already', async () => {
    service().intercept({ path: '/api/v1/viewers/unlock-skin', method: 'DELETE' }).reply(500, { message: 'Server Error.' });

    const error = await rejection(client().revokeSkin(GRANT));
    expect(error.status).toBe(500);
    expect(calls()).toBe(1);
    expect(waits).toEqual([]);
  });

  it('a 503 for a database that cannot save writes is not retried (its Retry-After is over the bound), and reads in chat as the operator\'s to mend', async () => {
    const message = storeUnwritableMessage('disk-full');
    service().intercept({ path: '/api/v1/template', method: 'PUT' }).reply(503, { message }, { headers: { 'retry-after': String(STORE_UNWRITABLE_RETRY_AFTER_SECONDS) } });
    const error = await rejection(client().updateTemplate({ scope: 'independent', values: { 'bubble.width': 10 } }));
    expect(error.status).toBe(503);
    expect(error.message).toBe(message);
    expect(calls()).toBe(1);
    expect(waits).toEqual([]);
    expect(overlayErrorLine(error)).toBe('the overlay service cannot save changes now; the streamer should check its log.');
    // Another 503 (a busy database, a proxy) still reads as "busy".
    expect(overlayErrorLine(new OverlayStyleError({ status: 503, message: 'Service Unavailable.' }))).toBe('the overlay service is busy; try again in a moment.');
  });

  it('after a lost answer, a busy or failed last attempt is not read as "nothing changed": the change may be done', async () => {
    // The first attempt's answer is lost (a 504 from a proxy after the service acted), the retry finds the database busy.
    service().intercept({ path: '/api/v1/viewers/unlock-skin', method: 'POST' }).reply(504, { message: 'Gateway Timeout.' });
    service().intercept({ path: '/api/v1/viewers/unlock-skin', method: 'POST' }).reply(503, { message: 'Service Unavailable.' }).times(2);
    const error = await rejection(client().unlockSkin({ twitch_username: 'vera', skin_id: 7 }));
    expect(error).toMatchObject({ status: 503, afterLostAnswer: true });
    expect(overlayErrorLine(error)).toBe('the overlay service did not confirm it, but it may have been done; check, or try again in a moment.');
    for (const status of [429, 500, 503]) {
      expect(overlayErrorLine(new OverlayStyleError({ status, message: 'x', afterLostAnswer: true }))).toMatch(/may have been done/);
    }
    // A refusal is what it says, whatever came before it.
    expect(overlayErrorLine(new OverlayStyleError({ status: 404, message: 'Viewer not found.', afterLostAnswer: true }))).toBe('Viewer not found.');
  });

  it('does not retry other 5xx statuses such as 501', async () => {
    service().intercept({ path: '/api/v1/skins' }).reply(501, { message: 'Not Implemented.' });
    expect((await rejection(client().listSkins())).status).toBe(501);
    expect(calls()).toBe(1);
  });

  it('gives a readable message when an error body is not JSON (a proxy page)', async () => {
    service().intercept({ path: '/api/v1/skins' }).reply(504, '<html>Gateway Timeout</html>').times(3);
    const error = await rejection(client().listSkins());
    expect(error.status).toBe(504);
    expect(error.message).toBe(`GET ${BASE_URL}/skins failed with HTTP 504.`);
    expect(error.errors).toBeUndefined();
  });
});

describe('connection failures', () => {
  it('retries a reset connection for reads, and not for a revoke', async () => {
    const reset = () => Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' });
    service().intercept({ path: '/api/v1/viewers/viewer1/skins' }).replyWithError(reset());
    service().intercept({ path: '/api/v1/viewers/viewer1/skins' }).reply(200, { data: [{ id: 3, name: 'Neon', slug: 'neon' }] });
    await expect(client().listViewerSkins('viewer1')).resolves.toEqual([{ id: 3, name: 'Neon', slug: 'neon' }]);
    expect(waits).toHaveLength(1);

    service().intercept({ path: '/api/v1/viewers/unlock-skin', method: 'DELETE' }).replyWithError(reset());
    const error = await rejection(client().revokeSkin(GRANT));
    expect(error.kind).toBe('network');
    expect(error.status).toBe(0);
    expect(waits).toHaveLength(1);
  });

  it('retries even a revoke when the connection was refused (nothing was sent), over a real socket', async () => {
    // A port that was just free: listen, note it, close.
    const probe = createTcpServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));

    const agent = new Agent();
    try {
      const overlay = client({ baseUrl: `http://127.0.0.1:${port}/api/v1`, dispatcher: agent, maxRetries: 2 });
      const error = await rejection(overlay.revokeSkin(GRANT));
      expect(error.kind).toBe('network');
      expect(error.status).toBe(0);
      expect(error.message).toContain('ECONNREFUSED');
      expect(error.message).not.toContain(API_KEY);
      expect(waits).toHaveLength(2);
    } finally {
      await agent.close();
    }
  });
});

describe('an answer cut off on the way, over a real socket', () => {
  let server: Server;
  let baseUrl: string;
  let received: string[];
  /**
   * What the server does to each next answer: `reset` sends the head and part of the body, then
   * resets the connection (ECONNRESET on the client); `close` ends the connection there instead
   * (the body falls short of its Content-Length). Once the plan is used up it answers in full.
   */
  let plan: Array<'reset' | 'close'>;

  beforeEach(async () => {
    received = [];
    plan = [];
    server = createServer((request, response) => {
      received.push(`${request.method} ${request.url}`);
      request.resume();
      request.on('end', () => {
        const body = JSON.stringify(request.method === 'DELETE' ? { message: 'Skin access revoked.' } : { data: TEMPLATE_VIEW });
        const step = plan.shift();
        if (step === undefined) {
          response.writeHead(200, JSON_HEADERS);
          response.end(body);
          return;
        }
        response.writeHead(200, { ...JSON_HEADERS, 'content-length': String(Buffer.byteLength(body)) });
        response.write(body.slice(0, 10), () => {
          if (step === 'reset') response.socket?.resetAndDestroy();
          else response.socket?.end();
        });
      });
    });
    baseUrl = await listenOnLoopback(server);
  });

  afterEach(() => closeServer(server));

  it('sends a read again after a reset and after a short body, and uses the full answer', async () => {
    plan = ['reset', 'close'];
    const agent = new Agent();
    try {
      await expect(client({ baseUrl, dispatcher: agent, maxRetries: 2 }).getTemplate()).resolves.toEqual(TEMPLATE_VIEW);
      expect(received).toEqual(['GET /api/v1/template', 'GET /api/v1/template', 'GET /api/v1/template']);
      expect(waits).toHaveLength(2);
    } finally {
      await agent.destroy();
    }
  });

  it('never sends a revoke again once its answer was cut off: the revoke may have been done', async () => {
    const agent = new Agent();
    try {
      for (const step of ['reset', 'close'] as const) {
        plan = [step];
        received = [];
        const error = await rejection(client({ baseUrl, dispatcher: agent, maxRetries: 2 }).revokeSkin(GRANT));
        expect(error.kind).toBe('network');
        expect(error.status).toBe(0);
        expect(received).toEqual(['DELETE /api/v1/viewers/unlock-skin']);
      }
      expect(waits).toEqual([]);
    } finally {
      await agent.destroy();
    }
  });
});

describe('a TLS connection that cannot be made, over a real socket', () => {
  it('https to a plain-HTTP service is a tls error, a setup fault: not retried, with a line saying to check the settings', async () => {
    let requests = 0;
    const plain = createServer((_request, response) => {
      requests += 1;
      response.end('{}');
    });
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    const agent = new Agent();
    try {
      const { port } = plain.address() as AddressInfo;
      const error = await rejection(client({ baseUrl: `https://127.0.0.1:${port}/api/v1`, dispatcher: agent, maxRetries: 2 }).getTemplate());
      expect(error.kind).toBe('tls');
      expect(error.status).toBe(0);
      expect(error.message).toMatch(/^GET https:\/\/127\.0\.0\.1:\d+\/api\/v1\/template failed \((ERR_SSL_\w+|EPROTO)\): no TLS connection could be made/);
      expect(waits).toEqual([]);
      expect(requests).toBe(0);
      expect(overlayErrorLine(error)).toBe('the bot cannot connect to the overlay service securely; the streamer should check the service settings.');
    } finally {
      await agent.close();
      await new Promise<void>((resolve) => plain.close(() => resolve()));
    }
  });
});

describe('timeouts, over a real socket', () => {
  let server: Server;
  let baseUrl: string;
  let received: string[];

  beforeEach(async () => {
    received = [];
    // Reads the request, never answers.
    server = createServer((request) => {
      received.push(`${request.method} ${request.url}`);
      request.resume();
    });
    baseUrl = await listenOnLoopback(server);
  });

  afterEach(() => closeServer(server));

  it('times a silent read out per attempt and retries it up to the bound', async () => {
    const agent = new Agent();
    try {
      const error = await rejection(client({ baseUrl, dispatcher: agent, timeoutMs: 100, maxRetries: 1 }).getTemplate(7));
      expect(error.kind).toBe('timeout');
      expect(error.status).toBe(0);
      expect(error.message).toBe(`GET ${baseUrl}/template?preset_id=7 got no complete answer within 100 ms`);
      expect(received).toEqual(['GET /api/v1/template?preset_id=7', 'GET /api/v1/template?preset_id=7']);
    } finally {
      await agent.destroy();
    }
  });

  it('calls made side by side to a service that hangs each cost about their own timeout, not the sum of those before them', async () => {
    const agent = new Agent();
    try {
      // How many of the calls the service holds open at once: a line that made each call wait for
      // the one before it to time out would never have more than one (or two, as one ends) open.
      let open = 0;
      let mostOpen = 0;
      server.on('request', (request: IncomingMessage) => {
        open += 1;
        mostOpen = Math.max(mostOpen, open);
        request.socket.once('close', () => { open -= 1; });
      });
      const overlay = client({ baseUrl, dispatcher: agent, timeoutMs: 300, maxRetries: 0 });
      const started = Date.now();
      const ended: number[] = [];
      const errors = await Promise.all(Array.from({ length: 4 }, () => rejection(overlay.getTemplate()).finally(() => { ended.push(Date.now() - started); })));
      expect(errors.map((error) => error.kind)).toEqual(['timeout', 'timeout', 'timeout', 'timeout']);
      expect(received).toHaveLength(4);
      // The first holds the line up to its timeout; then the others go together…
      expect(mostOpen).toBeGreaterThanOrEqual(3);
      // …so the four cost about two timeouts, not the sum of four. Counted in the first call's own
      // cost (one timeout, 300 ms here, more on a loaded machine, whose timers run late for all four
      // alike) rather than in ms: under 3 of them (900 ms unloaded, tighter than the 1 s it was).
      const [first, , , last] = ended as [number, number, number, number];
      expect(last).toBeLessThan(3 * first);
    } finally {
      await agent.destroy();
    }
  });

  it('does not repeat a revoke that timed out', async () => {
    const agent = new Agent();
    try {
      const error = await rejection(client({ baseUrl, dispatcher: agent, timeoutMs: 100 }).revokeSkin(GRANT));
      expect(error.kind).toBe('timeout');
      expect(received).toEqual(['DELETE /api/v1/viewers/unlock-skin']);
    } finally {
      await agent.destroy();
    }
  });
});

describe('an answer body past maxResponseBytes, over a real socket', () => {
  let server: Server;
  let baseUrl: string;
  let requests: number;
  /** Bytes the server got written before the client hung up. */
  let written: number;
  let hungUp: Promise<void>;

  beforeEach(async () => {
    requests = 0;
    written = 0;
    let onHangUp!: () => void;
    hungUp = new Promise((resolve) => { onHangUp = resolve; });
    // A 200 whose body never ends: 64 KiB at a time for as long as the client reads.
    server = createServer((request, response) => {
      requests += 1;
      request.resume();
      response.writeHead(200, JSON_HEADERS);
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const pump = () => {
        while (!response.destroyed && response.write(chunk)) written += chunk.length;
        if (!response.destroyed) response.once('drain', pump);
      };
      response.on('close', onHangUp);
      pump();
    });
    baseUrl = await listenOnLoopback(server);
  });

  afterEach(() => closeServer(server));

  it('stops reading, hangs up and refuses it as invalid_response, without a retry', async () => {
    const agent = new Agent();
    try {
      const error = await rejection(client({ baseUrl, dispatcher: agent, maxResponseBytes: 256 * 1024, maxRetries: 2 }).getTemplate(7));
      expect(error.kind).toBe('invalid_response');
      expect(error.status).toBe(200);
      expect(error.message).toBe(`GET ${baseUrl}/template?preset_id=7 answered 200 with a body over 262144 bytes (maxResponseBytes); it was not read further.`);
      await hungUp;
      // Far less than the default timeout's worth of an endless body: the client let go early.
      expect(written).toBeLessThan(16 * 1024 * 1024);
      expect(requests).toBe(1);
    } finally {
      await agent.destroy();
    }
  });

  it('refuses a maxResponseBytes that is not a positive integer', () => {
    expect(() => client({ maxResponseBytes: 0 })).toThrow(/maxResponseBytes must be an integer from 1/);
  });
});

describe('error mapping', () => {
  it('keeps a 422 message and its field errors', async () => {
    const errors = { 'values.bubble.width': ['The bubble.width must be at most 10000.'], scope: ['The scope field is required.'] };
    service().intercept({ path: '/api/v1/template', method: 'PUT' })
      .reply(422, { message: 'The bubble.width must be at most 10000. (and 1 more error)', errors }, { headers: JSON_HEADERS });

    const error = await rejection(client().updateTemplate({ scope: 'independent', values: { 'bubble.width': 10_001 } }));
    expect(error.status).toBe(422);
    expect(error.kind).toBe('service');
    expect(error.message).toBe('The bubble.width must be at most 10000. (and 1 more error)');
    expect(error.errors).toEqual(errors);
    expect(calls()).toBe(1);
  });

  it.each([
    [401, 'Unauthenticated.'],
    [403, 'An active premium subscription is required to use the API.'],
    [404, 'No viewer with that login has an account.'],
    [413, 'Payload Too Large: the request body is over 65536 bytes.'],
  ])('maps %i to the same error class with the service message, without retrying', async (status, message) => {
    service().intercept({ path: '/api/v1/viewers/unlock-skin', method: 'POST' }).reply(status, { message });
    const error = await rejection(client().unlockSkin(GRANT));
    expect(error.status).toBe(status);
    expect(error.message).toBe(message);
    expect(error.errors).toBeUndefined();
    expect(error.retryAfter).toBeUndefined();
    expect(calls()).toBe(1);
  });

  it('drops an errors field that is not field -> messages', async () => {
    service().intercept({ path: '/api/v1/skins' }).reply(422, { message: 'Bad.', errors: 'nope' });
    const error = await rejection(client().listSkins());
    expect(error.message).toBe('Bad.');
    expect(error.errors).toBeUndefined();
  });

  it.each([
    ['a web server\'s HTML page', 404, '<html><body>404 Not Found</body></html>'],
    ['a framework\'s own JSON (a route the server does not have)', 404, { message: 'Route GET:/template not found', error: 'Not Found', statusCode: 404 }],
    ['a proxy\'s refusal page', 403, '<html>Access denied by policy</html>'],
    ['a JSON body with no message', 400, { error: 'bad' }],
  ])('reads a 4xx with %s as something else answering in the service\'s place, not as its refusal', async (_label, status, body) => {
    service().intercept({ path: '/api/v1/viewers/viewer1/skins' }).reply(status, body);
    const error = await rejection(client().listViewerSkins('viewer1'));
    expect(error.kind).toBe('invalid_response');
    expect(error.status).toBe(status);
    expect(error.message).toBe(`GET ${BASE_URL}/viewers/viewer1/skins answered ${status} without the spec's error body ({"message": ...}); `
      + 'check that baseUrl is the API base URL with its prefix (e.g. http://host:port/api/v1).');
    // A plugin asking "did the service say 404?" hears no.
    expect(isOverlayStyleError(error, status)).toBe(false);
    expect(isServiceSideError(error)).toBe(true);
    expect(calls()).toBe(1);
  });

  it('treats a 302 as an error and never follows it', async () => {
    service().intercept({ path: '/api/v1/template' }).reply(302, '', { headers: { location: '/login' } });
    service().intercept({ path: '/login' }).reply(200, { data: TEMPLATE_VIEW });

    const error = await rejection(client().getTemplate());
    expect(error.status).toBe(302);
    expect(error.kind).toBe('redirect');
    expect(error.message).toContain('redirect to /login');
    expect(calls()).toBe(1);
  });

  it('refuses a 2xx body that is not the spec envelope', async () => {
    service().intercept({ path: '/api/v1/template' }).reply(200, '<html>captive portal</html>');
    const error = await rejection(client().getTemplate());
    expect(error.kind).toBe('invalid_response');
    expect(error.status).toBe(200);

    service().intercept({ path: '/api/v1/skins' }).reply(200, { data: [{ id: 'one' }] });
    expect((await rejection(client().listSkins())).kind).toBe('invalid_response');
  });
});

describe('answers', () => {
  it('reports created from the unlock status: 201 new grant, 200 already held', async () => {
    service().intercept({ path: '/api/v1/viewers/unlock-skin', method: 'POST' })
      .reply(201, { message: 'Skin unlocked for the viewer.', data: UNLOCK_DATA });
    service().intercept({ path: '/api/v1/viewers/unlock-skin', method: 'POST' })
      .reply(200, { message: 'The viewer already has this skin.', data: UNLOCK_DATA });

    await expect(client().unlockSkin(GRANT)).resolves.toEqual({ created: true, ...UNLOCK_DATA });
    await expect(client().unlockSkin(GRANT)).resolves.toEqual({ created: false, ...UNLOCK_DATA });
  });

  it('returns only the spec fields of an answer', async () => {
    service().intercept({ path: '/api/v1/template' }).reply(200, { data: { ...TEMPLATE_VIEW, internal_note: 'x' }, extra: 1 });
    expect(Object.keys(await client().getTemplate()).sort()).toEqual(Object.keys(TEMPLATE_VIEW).sort());
  });

  it('sends the write bodies the spec names', async () => {
    const bodies: unknown[] = [];
    const record = (opts: { body?: unknown }) => {
      bodies.push(JSON.parse(String(opts.body)));
    };
    service().intercept({ path: '/api/v1/skins/4', method: 'PUT' }).reply(200, (opts) => {
      record(opts);
      return { message: 'ok', data: { id: 4, name: 'Neon', settings_values: {} } };
    });
    service().intercept({ path: '/api/v1/viewers/unlock-skin', method: 'DELETE' }).reply(200, (opts) => {
      record(opts);
      return { message: 'ok' };
    });
    await client().updateSkin(4, { 'bubble.width': 10, 'bubble.gap': null });
    await client().revokeSkin({ twitch_user_id: '12345', skin_id: 3 });
    expect(bodies).toEqual([
      { values: { 'bubble.width': 10, 'bubble.gap': null } },
      { twitch_user_id: '12345', skin_id: 3 },
    ]);
  });
});

describe('URLs and local checks', () => {
  it('encodes the viewer identifier as one path segment, dots included', async () => {
    const paths: string[] = [];
    service().intercept({ path: () => true }).reply((opts) => {
      paths.push(opts.path);
      return { statusCode: 200, data: { data: [] } };
    }).times(3);
    const overlay = client();
    await overlay.listViewerSkins('..');
    await overlay.listViewerSkins('a/b?c');
    await overlay.listViewerSkins('Viewer_1');
    expect(paths).toEqual([
      '/api/v1/viewers/%2E%2E/skins',
      '/api/v1/viewers/a%2Fb%3Fc/skins',
      '/api/v1/viewers/Viewer_1/skins',
    ]);
  });

  it('refuses ids and identifiers the API would refuse, without a request', async () => {
    const overlay = client();
    for (const [call, field] of [
      [() => overlay.getTemplate(1.5), 'preset_id'],
      [() => overlay.listSkins(0), 'preset_id'],
      [() => overlay.updateSkin(-3, {}), 'skin_id'],
      [() => overlay.updateSkin(Number.NaN, {}), 'skin_id'],
      [() => overlay.listViewerSkins(''), 'identifier'],
    ] as const) {
      const error = await rejection(call());
      expect(error.status).toBe(422);
      expect(Object.keys(error.errors ?? {})).toEqual([field]);
    }
    expect(calls()).toBe(0);
  });

  it('refuses a write body over 64 KiB with 413, without a request', async () => {
    const error = await rejection(client().updateSkin(4, { 'bubble.background-gradient': 'x'.repeat(70_000) }));
    expect(error.status).toBe(413);
    expect(calls()).toBe(0);
  });
});

describe('options', () => {
  it.each([
    [{ baseUrl: 'not a url' }, /baseUrl must be an absolute http\(s\) URL/],
    [{ baseUrl: 'ftp://example.com/api/v1' }, /baseUrl must use http or https/],
    [{ baseUrl: 'http://user:pw@example.com/api/v1' }, /must not carry credentials/],
    [{ baseUrl: 'http://example.com/api/v1?x=1' }, /must not have a query/],
    [{ apiKey: '' }, /apiKey must be a non-empty token/],
    [{ apiKey: 'two words' }, /apiKey must be a non-empty token/],
    [{ userAgent: '   ' }, /userAgent must be a non-empty header value/],
    [{ timeoutMs: 0 }, /timeoutMs must be an integer from 1/],
    [{ maxRetries: -1 }, /maxRetries must be an integer from 0 to 10/],
    [{ maxRetries: 1.5 }, /maxRetries must be an integer/],
  ])('refuses %j with a clear message', (bad, message) => {
    expect(() => createHttpClient({ baseUrl: BASE_URL, apiKey: API_KEY, ...bad })).toThrow(message);
  });

  it('never puts the key in an option error', () => {
    let thrown: unknown;
    try {
      createHttpClient({ baseUrl: BASE_URL, apiKey: 'secret key' });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(TypeError);
    expect((thrown as Error).message).not.toContain('secret');
  });
});
