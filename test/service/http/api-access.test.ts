// The access rules in DESIGN.md's order: edge filter, routing (404/405), authentication,
// premium, rate limits, and the Accept redirect of error responses.
import http from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startApiTestServer } from './api-test-server.ts';
import type { ApiTestServer } from './api-test-server.ts';

let server: ApiTestServer;
afterEach(async () => {
  await server.close();
});

/** A GET with no User-Agent header at all (fetch always sends one). */
function getWithoutUserAgent(url: string, key: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { headers: { Authorization: `Bearer ${key}`, Accept: 'application/json' } }, (response) => {
      let body = '';
      response.on('data', (chunk) => { body += chunk; });
      response.on('end', () => resolve({ status: response.statusCode!, body }));
    });
    request.on('error', reject);
    request.end();
  });
}

describe('edge filter', () => {
  beforeEach(async () => {
    server = await startApiTestServer();
  });

  it.each([
    'curl/8.5.0', 'Wget/1.21.4', 'python-requests/2.31.0', 'Python-urllib/3.12', 'Go-http-client/1.1',
    'node-fetch/1.0', 'axios/1.7.2', 'okhttp/4.12.0', 'Java/17.0.9', 'libwww-perl/6.72', 'Scrapy/2.11.0',
    'node', 'undici', '   ',
  ])('refuses User-Agent %j with 403 JSON, before the key is checked and without a redirect', async (agent) => {
    const answer = await server.call('/template', { headers: { 'User-Agent': agent, Accept: undefined } });
    expect(answer.status).toBe(403);
    expect(Object.keys(answer.body)).toEqual(['message']);
    expect(answer.body.message).toMatch(/User-Agent/);
    expect(answer.headers.get('x-ratelimit-limit')).toBeNull();
  });

  it('refuses a request with no User-Agent header', async () => {
    const answer = await getWithoutUserAgent(`${server.base}/template`, server.keys.alice);
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.body).message).toMatch(/User-Agent/);
  });

  it('comes before routing and authentication, and spends nothing of the rate limit', async () => {
    expect((await server.call('/no-such-route', { headers: { 'User-Agent': 'curl/8' } })).status).toBe(403);
    expect((await server.call('/template', { key: null, headers: { 'User-Agent': 'curl/8' } })).status).toBe(403);
    const first = await server.call('/template');
    expect(first.headers.get('x-ratelimit-remaining')).toBe('29');
  });
});

describe('edge filter with a configured list', () => {
  it('refuses the configured agents instead of the default ones', async () => {
    server = await startApiTestServer({ edgeFilter: { blockedAgents: ['BadBot/'] } });
    expect((await server.call('/template', { headers: { 'User-Agent': 'curl/8.5.0' } })).status).toBe(200);
    expect((await server.call('/template', { headers: { 'User-Agent': 'BadBot/2.0' } })).status).toBe(403);
  });
});

describe('routing', () => {
  beforeEach(async () => {
    server = await startApiTestServer();
  });

  it.each(['/nope', '/template/extra', '/viewers', '/skins/1/extra', ''])('answers 404 {message} for %j', async (path) => {
    const answer = await server.call(path);
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({ message: 'Not Found.' });
  });

  it.each([
    ['POST', '/template', 'GET, HEAD, PUT'],
    ['DELETE', '/template', 'GET, HEAD, PUT'],
    ['POST', '/skins', 'GET, HEAD'],
    ['GET', '/skins/1', 'PUT'],
    ['PATCH', '/skins/1', 'PUT'],
    ['GET', '/viewers/unlock-skin', 'POST, DELETE'],
    ['PUT', '/viewers/unlock-skin', 'POST, DELETE'],
    ['DELETE', '/viewers/viewer_one/skins', 'GET, HEAD'],
  ])('answers %s %s with 405 and Allow: %s', async (method, path, allow) => {
    const answer = await server.call(path, { method, key: null });
    expect(answer.status).toBe(405);
    expect(answer.body).toEqual({ message: 'Method Not Allowed.' });
    expect(answer.headers.get('allow')).toBe(allow);
  });

  it('answers 405 without reading a body sent with the wrong method', async () => {
    const answer = await server.call('/template', { method: 'POST', raw: 'x'.repeat(200_000) });
    expect(answer.status).toBe(405);
  });

  it.each([
    ['malformed JSON', '{bad', 'application/json'],
    ['a body over the limit', `{"x":"${'x'.repeat(70_000)}"}`, 'application/json'],
    ['a content type the API does not take', 'x', 'text/plain'],
  ])('answers 404 for an unknown path without reading its body: %s', async (_label, raw, type) => {
    const answer = await server.call('/nope', { method: 'POST', key: null, raw, headers: { 'Content-Type': type } });
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({ message: 'Not Found.' });
  });

  it('serves HEAD wherever GET is served', async () => {
    const answer = await server.call('/template', { method: 'HEAD' });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-ratelimit-limit')).toBe('30');
  });
});

describe('authentication', () => {
  beforeEach(async () => {
    server = await startApiTestServer();
  });

  it.each([
    ['no Authorization header', null],
    ['an unknown key', `csk_${'A'.repeat(43)}`],
    ['a malformed key', 'not-a-key'],
    ['an empty bearer', ''],
  ] as const)('answers 401 {"message":"Unauthenticated."} for %s', async (_label, key: string | null) => {
    const answer = await server.call('/template', { key });
    expect(answer.status).toBe(401);
    expect(answer.text).toBe('{"message":"Unauthenticated."}');
    expect(answer.headers.get('x-ratelimit-limit')).toBeNull();
  });

  it('refuses a key sent with another scheme', async () => {
    const answer = await server.call('/template', { key: null, headers: { Authorization: `Basic ${server.keys.alice}` } });
    expect(answer.status).toBe(401);
  });

  it('takes the Bearer scheme without regard to case', async () => {
    const answer = await server.call('/template', { key: null, headers: { Authorization: `bearer ${server.keys.alice}` } });
    expect(answer.status).toBe(200);
  });

  it('refuses a revoked key on the very next request', async () => {
    expect((await server.call('/template')).status).toBe(200);
    await server.harness.service.revokeKey('alice');
    expect((await server.call('/template')).status).toBe(401);
  });
});

describe('premium', () => {
  beforeEach(async () => {
    server = await startApiTestServer();
  });

  it('answers 403 naming the premium subscription, with the rate-limit headers, spending no request', async () => {
    const answer = await server.call('/template', { key: server.keys.carol });
    expect(answer.status).toBe(403);
    expect(Object.keys(answer.body)).toEqual(['message']);
    expect(answer.body.message).toMatch(/premium subscription/);
    expect(answer.headers.get('x-ratelimit-limit')).toBe('30');
    expect(answer.headers.get('x-ratelimit-remaining')).toBe('30');
  });

  it('is checked after authentication: a bad key is still 401', async () => {
    expect((await server.call('/template', { key: 'nope' })).status).toBe(401);
  });

  it('follows the account on the next request when premium is switched', async () => {
    await server.harness.service.setPremium('carol', true);
    expect((await server.call('/template', { key: server.keys.carol })).status).toBe(200);
    await server.harness.service.setPremium('carol', false);
    expect((await server.call('/template', { key: server.keys.carol })).status).toBe(403);
  });
});

describe('rate limit per key', () => {
  beforeEach(async () => {
    server = await startApiTestServer();
  });

  it('allows 30 requests per window, counting down X-RateLimit-Remaining, then 429 with retry headers', async () => {
    const windowStart = server.clock.now;
    for (let i = 1; i <= 30; i++) {
      const answer = await server.call('/template');
      expect(answer.status).toBe(200);
      expect(answer.headers.get('x-ratelimit-limit')).toBe('30');
      expect(answer.headers.get('x-ratelimit-remaining')).toBe(String(30 - i));
      expect(answer.headers.get('retry-after')).toBeNull();
    }
    server.clock.now = windowStart + 15_000;
    const refused = await server.call('/template');
    expect(refused.status).toBe(429);
    expect(refused.text).toBe('{"message":"Too Many Attempts."}');
    expect(refused.headers.get('x-ratelimit-limit')).toBe('30');
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(refused.headers.get('retry-after')).toBe('45');
    expect(refused.headers.get('x-ratelimit-reset')).toBe(String((windowStart + 60_000) / 1000));
  });

  it('counts every authenticated request, also refused ones, on every endpoint', async () => {
    await server.call('/template?preset_id=x');
    await server.call('/skins/999999', { method: 'PUT', json: { values: { 'bubble.gap': 1 } } });
    const third = await server.call('/viewers/viewer_one/skins');
    expect(third.headers.get('x-ratelimit-remaining')).toBe('27');
  });

  it('puts the headers on error responses of authenticated requests', async () => {
    const answer = await server.call('/template?preset_id=999999');
    expect(answer.status).toBe(404);
    expect(answer.headers.get('x-ratelimit-limit')).toBe('30');
    expect(answer.headers.get('x-ratelimit-remaining')).toBe('29');
  });

  // The limit comes before the body is read (docs/api.md, Order of checks): a refused body still
  // spent a request and says so, and a caller over the limit gets 429 whatever its body.
  it('counts and labels refused bodies (413, 422 on errors.body) too, and answers 429 before reading a body', async () => {
    const tooLarge = await server.call('/template', { method: 'PUT', raw: `{"x":"${'x'.repeat(70_000)}"}` });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.headers.get('x-ratelimit-remaining')).toBe('29');
    const malformed = await server.call('/template', { method: 'PUT', raw: '{"scope":' });
    expect(malformed.status).toBe(422);
    expect(malformed.headers.get('x-ratelimit-limit')).toBe('30');
    expect(malformed.headers.get('x-ratelimit-remaining')).toBe('28');
    for (let i = 0; i < 28; i++) await server.call('/template');
    for (const raw of ['{"scope":', `{"x":"${'x'.repeat(70_000)}"}`]) {
      const refused = await server.call('/template', { method: 'PUT', raw });
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('60');
    }
  });

  it('opens a fresh window when the clock passes the end of the old one', async () => {
    const windowStart = server.clock.now;
    for (let i = 0; i < 30; i++) await server.call('/template');
    server.clock.now = windowStart + 59_999;
    expect((await server.call('/template')).status).toBe(429);
    server.clock.now = windowStart + 60_000;
    const fresh = await server.call('/template');
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get('x-ratelimit-remaining')).toBe('29');
  });

  it('keeps keys apart: another account is not limited by this one', async () => {
    for (let i = 0; i < 31; i++) await server.call('/template');
    expect((await server.call('/template')).status).toBe(429);
    const bob = await server.call('/template', { key: server.keys.bob });
    expect(bob.status).toBe(200);
    expect(bob.headers.get('x-ratelimit-remaining')).toBe('29');
  });

  // Spec, Limits: "30 requests per minute per API key". A key made after the old one was revoked
  // is another key: it starts with the whole allowance, whatever the old key spent.
  it('counts per API key: a new key of the same account starts with the full allowance', async () => {
    for (let i = 0; i < 30; i++) expect((await server.call('/template')).status).toBe(200);
    expect((await server.call('/template')).status).toBe(429);
    await server.harness.service.revokeKey('alice');
    const { token } = await server.harness.service.createKey('alice');
    const fresh = await server.call('/template', { key: token });
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get('x-ratelimit-remaining')).toBe('29');
  });

  it('refuses writes over the limit without running them', async () => {
    for (let i = 0; i < 30; i++) await server.call('/template');
    const before = server.dump();
    const answer = await server.call('/template', { method: 'PUT', json: { scope: 'independent', values: { 'bubble.gap': 1 } } });
    expect(answer.status).toBe(429);
    expect(server.dump()).toEqual(before);
  });
});

describe('rate limit from options', () => {
  it('uses rateLimit.perMinute', async () => {
    server = await startApiTestServer({ rateLimit: { perMinute: 2 } });
    expect((await server.call('/template')).headers.get('x-ratelimit-limit')).toBe('2');
    await server.call('/template');
    expect((await server.call('/template')).status).toBe(429);
  });
});

describe('failed authentication limit per client address', () => {
  beforeEach(async () => {
    server = await startApiTestServer({ rateLimit: { failedAuthPerMinute: 10 } });
  });

  it('answers 429 after 10 failures, before looking at the token, until the window ends', async () => {
    const windowStart = server.clock.now;
    for (let i = 0; i < 10; i++) expect((await server.call('/template', { key: `guess-${i}` })).status).toBe(401);
    const guess = await server.call('/template', { key: 'guess-10' });
    expect(guess.status).toBe(429);
    expect(guess.body).toEqual({ message: 'Too Many Attempts.' });
    expect(guess.headers.get('retry-after')).toBe('60');
    expect(guess.headers.get('x-ratelimit-reset')).toBe(String((windowStart + 60_000) / 1000));
    // A right key from the same address learns nothing either.
    expect((await server.call('/template')).status).toBe(429);
    server.clock.now = windowStart + 60_000;
    expect((await server.call('/template')).status).toBe(200);
  });

  it('does not count successful requests', async () => {
    for (let i = 0; i < 25; i++) expect((await server.call('/template')).status).toBe(200);
    for (let i = 0; i < 10; i++) expect((await server.call('/template', { key: null })).status).toBe(401);
  });
});

describe('failed authentication limit behind a reverse proxy', () => {
  const failFrom = async (client: string | undefined) =>
    (await server.call('/template', { key: 'guess', headers: client === undefined ? {} : { 'X-Forwarded-For': client } })).status;

  it('ignores X-Forwarded-For without trustProxy: a client cannot dodge the limit by naming another address', async () => {
    server = await startApiTestServer({ rateLimit: { failedAuthPerMinute: 3 } });
    for (let i = 0; i < 3; i++) expect(await failFrom(`203.0.113.${i}`)).toBe(401);
    expect(await failFrom('203.0.113.99')).toBe(429);
  });

  it('counts per forwarded client when the proxy is trusted: one client at its limit does not lock out another', async () => {
    server = await startApiTestServer({ rateLimit: { failedAuthPerMinute: 3 }, trustProxy: ['127.0.0.1'] });
    for (let i = 0; i < 3; i++) expect(await failFrom('203.0.113.7')).toBe(401);
    expect(await failFrom('203.0.113.7')).toBe(429);
    expect(await failFrom('198.51.100.4')).toBe(401);
    // The proxy's own requests (no header) are a client of their own.
    expect(await failFrom(undefined)).toBe(401);
  });

  it('does not believe a proxy it was not told of', async () => {
    server = await startApiTestServer({ rateLimit: { failedAuthPerMinute: 3 }, trustProxy: ['10.0.0.0/8'] });
    for (let i = 0; i < 3; i++) expect(await failFrom(`203.0.113.${i}`)).toBe(401);
    expect(await failFrom('203.0.113.99')).toBe(429);
  });

  it('counts a forwarded value that is not an address under the connection\'s address, so its text is never a key', async () => {
    // With trustProxy: true the leftmost value, the client's own, is believed: any text up to
    // the header limit, which as a limiter key would cost memory per request.
    server = await startApiTestServer({ rateLimit: { failedAuthPerMinute: 3 }, trustProxy: true });
    for (let i = 0; i < 3; i++) expect(await failFrom(`not-an-address-${i}-${'x'.repeat(4000)}`)).toBe(401);
    expect(await failFrom('not-an-address-99')).toBe(429);
    // Clients named by a real address are still counted apart.
    expect(await failFrom('203.0.113.7')).toBe(401);
  });

  it('counts an IPv6 client by its /64, from which it may send from any address; an IPv4-mapped one by its IPv4 address', async () => {
    server = await startApiTestServer({ rateLimit: { failedAuthPerMinute: 3 }, trustProxy: ['127.0.0.1'] });
    for (let i = 1; i <= 3; i++) expect(await failFrom(`2001:db8:aa:bb::${i.toString(16)}`)).toBe(401);
    expect(await failFrom('2001:db8:aa:bb:1234:5678:9abc:def0')).toBe(429);
    expect(await failFrom('2001:DB8:AA:BB::ffff')).toBe(429);
    expect(await failFrom('2001:db8:aa:bc::1')).toBe(401);
    for (let i = 0; i < 3; i++) expect(await failFrom('::ffff:203.0.113.50')).toBe(401);
    expect(await failFrom('203.0.113.50')).toBe(429);
    expect(await failFrom('::ffff:203.0.113.51')).toBe(401);
  });

  it('remembers at most maxTrackedAddresses clients, forgetting the oldest first', async () => {
    server = await startApiTestServer({ rateLimit: { failedAuthPerMinute: 1, maxTrackedAddresses: 10 }, trustProxy: true });
    expect(await failFrom('203.0.113.1')).toBe(401);
    expect(await failFrom('203.0.113.1')).toBe(429);
    for (let i = 0; i < 9; i++) expect(await failFrom(`198.51.100.${i}`)).toBe(401);
    // Ten addresses remembered: the first is still limited.
    expect(await failFrom('203.0.113.1')).toBe(429);
    expect(await failFrom('198.51.100.200')).toBe(401);
    // An eleventh made room by forgetting the oldest.
    expect(await failFrom('203.0.113.1')).toBe(401);
  });
});

describe('Accept redirect of error responses', () => {
  beforeEach(async () => {
    server = await startApiTestServer();
  });

  it('redirects a 401 to /login without Accept', async () => {
    const answer = await server.call('/template', { key: null, headers: { Accept: undefined } });
    expect(answer.status).toBe(302);
    expect(answer.headers.get('location')).toBe('/login');
  });

  it('redirects other errors to the Referer, or to / without one', async () => {
    const withReferer = await server.call('/template?preset_id=x', {
      headers: { Accept: 'text/html', Referer: 'https://tool.example/settings' },
    });
    expect(withReferer.status).toBe(302);
    expect(withReferer.headers.get('location')).toBe('https://tool.example/settings');
    expect(withReferer.headers.get('x-ratelimit-remaining')).toBe('29');
    const withoutReferer = await server.call('/nope', { headers: { Accept: '*/*' } });
    expect(withoutReferer.status).toBe(302);
    expect(withoutReferer.headers.get('location')).toBe('/');
    const notFirst = await server.call('/template?preset_id=999999', { headers: { Accept: 'text/html, application/json' } });
    expect(notFirst.status).toBe(302);
  });

  it('redirects a 429 and keeps its retry headers', async () => {
    for (let i = 0; i < 30; i++) await server.call('/template');
    const answer = await server.call('/template', { headers: { Accept: undefined } });
    expect(answer.status).toBe(302);
    expect(answer.headers.get('retry-after')).toBe('60');
  });

  it('answers success as JSON whatever Accept says', async () => {
    const answer = await server.call('/template', { headers: { Accept: 'text/html' } });
    expect(answer.status).toBe(200);
    expect(answer.body.data.preset_name).toBe('Main');
  });

  it('answers JSON errors when JSON is the preferred type', async () => {
    const answer = await server.call('/template', { key: null, headers: { Accept: 'text/html;q=0.9, application/json' } });
    expect(answer.status).toBe(401);
  });
});

describe('Accept redirect switched off', () => {
  it('answers errors as JSON without Accept when redirectErrors is false', async () => {
    server = await startApiTestServer({ redirectErrors: false });
    const answer = await server.call('/template', { key: null, headers: { Accept: undefined } });
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual({ message: 'Unauthenticated.' });
  });
});

describe('prefix option', () => {
  it('serves the API under the configured prefix only', async () => {
    server = await startApiTestServer({ prefix: '/style/v2' });
    expect(server.base.endsWith('/style/v2')).toBe(true);
    expect((await server.call('/template')).status).toBe(200);
    const old = await fetch(`${server.origin}/api/v1/template`, { headers: { 'User-Agent': 'T/1', Authorization: `Bearer ${server.keys.alice}` } });
    expect(old.status).toBe(404);
  });
});
