// Request bodies: the 64 KiB limit (declared and chunked), JSON-only objects, prototype
// poisoning, and what an unexpected fault looks like (500, logged without the key).
import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { TEST_USER_AGENT, apiTestServerForEachTest, errorFields } from './api-test-server.ts';

const server = apiTestServerForEachTest();

/** A JSON object body of exactly `bytes` bytes (padded with spaces, valid JSON). */
function bodyOfSize(bytes: number): string {
  const json = JSON.stringify({ scope: 'independent', values: { 'bubble.gap': 9 } });
  return json + ' '.repeat(bytes - Buffer.byteLength(json));
}

describe('body size limit', () => {
  it('accepts a body of exactly 65,536 bytes', async () => {
    const answer = await server.call('/template', { method: 'PUT', raw: bodyOfSize(65_536) });
    expect(answer.status).toBe(200);
  });

  it('answers 413 {message} for 65,537 bytes, writing nothing', async () => {
    const before = server.dump();
    const answer = await server.call('/template', { method: 'PUT', raw: bodyOfSize(65_537) });
    expect(answer.status).toBe(413);
    expect(Object.keys(answer.body)).toEqual(['message']);
    expect(answer.body.message).toMatch(/65536 bytes/);
    expect(server.dump()).toEqual(before);
  });

  it.each([
    ['PUT', () => '/template'],
    ['PUT', () => `/skins/${server.ids.accounts.alice!.skins.neon}`],
    ['POST', () => '/viewers/unlock-skin'],
    ['DELETE', () => '/viewers/unlock-skin'],
  ])('applies to %s %s', async (method, path) => {
    const answer = await server.call(path(), { method, raw: bodyOfSize(100_000) });
    expect(answer.status).toBe(413);
  });

  it('answers 413 to a chunked body with no Content-Length and stops reading it', async () => {
    const url = new URL(`${server.base}/template`);
    const limit = 64 * 1024 * 1024;
    const outcome = await new Promise<{ status: number; body: string; connection: string | undefined; written: number }>((resolve) => {
      const request = http.request(url, {
        method: 'PUT',
        headers: {
          'User-Agent': TEST_USER_AGENT, Accept: 'application/json', Authorization: `Bearer ${server.keys.alice}`,
          'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked',
        },
      });
      let written = 0;
      let status = 0;
      let body = '';
      let connection: string | undefined;
      const chunk = `{"values":{"x":"${'a'.repeat(16_000)}`;
      // Keeps sending for as long as the socket takes it, also after the answer: a server that
      // kept reading would swallow all 64 MiB and the request would end normally.
      const pump = () => {
        while (!request.destroyed && written < limit) {
          written += chunk.length;
          if (!request.write(chunk)) {
            request.once('drain', pump);
            return;
          }
        }
        if (!request.destroyed) request.end();
      };
      request.on('response', (response) => {
        status = response.statusCode!;
        connection = response.headers.connection;
        response.on('data', (data) => { body += data; });
      });
      request.on('error', () => undefined);
      request.on('close', () => resolve({ status, body, connection, written }));
      pump();
    });
    expect(outcome.status).toBe(413);
    expect(JSON.parse(outcome.body).message).toMatch(/65536 bytes/);
    expect(outcome.connection).toBe('close');
    expect(outcome.written).toBeLessThan(limit);
  });
});

describe('JSON bodies', () => {
  it.each([
    ['malformed JSON', '{"scope":'],
    ['an empty body', ''],
    ['an array', '[{"scope":"independent","values":{}}]'],
    ['a string', '"independent"'],
    ['a number', '42'],
    ['null', 'null'],
  ])('refuses %s with 422 on errors.body and writes nothing', async (_label, raw) => {
    const before = server.dump();
    const answer = await server.call('/template', { method: 'PUT', raw });
    expect(answer.status).toBe(422);
    expect(typeof answer.body.message).toBe('string');
    expect(errorFields(answer)).toEqual(['body']);
    expect(server.dump()).toEqual(before);
  });

  it('refuses a body that is not application/json with 422 on errors.body', async () => {
    const answer = await server.call('/template', {
      method: 'PUT', raw: 'scope=independent', headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(answer.status).toBe(422);
    expect(errorFields(answer)).toEqual(['body']);
  });

  it.each(['gzip', 'deflate, gzip', 'br'])('refuses a body sent with Content-Encoding %s (never decoded, so never read as JSON), and writes nothing', async (encoding) => {
    const before = server.dump();
    const answer = await server.call('/template', {
      method: 'PUT', raw: JSON.stringify({ scope: 'independent', values: { 'bubble.gap': 3 } }), headers: { 'Content-Encoding': encoding },
    });
    expect(answer.status).toBe(422);
    expect(errorFields(answer)).toEqual(['body']);
    expect(answer.body.message).toMatch(/Content-Encoding/);
    expect(server.dump()).toEqual(before);
  });

  it('takes a body sent with Content-Encoding: identity', async () => {
    const answer = await server.call('/template', {
      method: 'PUT', raw: JSON.stringify({ scope: 'independent', values: { 'bubble.gap': 3 } }), headers: { 'Content-Encoding': 'identity' },
    });
    expect(answer.status).toBe(200);
  });

  it('refuses a write with no body at all with 422 on errors.body', async () => {
    const answer = await server.call('/viewers/unlock-skin', { method: 'POST' });
    expect(answer.status).toBe(422);
    expect(errorFields(answer)).toEqual(['body']);
  });

  it('takes application/json with a charset parameter', async () => {
    const answer = await server.call('/template', {
      method: 'PUT',
      raw: JSON.stringify({ scope: 'independent', values: { 'bubble.gap': 2 } }),
      headers: { 'Content-Type': 'application/json; charset=utf-8' },
    });
    expect(answer.status).toBe(200);
  });

  it.each([
    ['__proto__ at the top', '{"__proto__":{"polluted":true},"scope":"independent","values":{"bubble.gap":1}}'],
    ['__proto__ in values', '{"scope":"independent","values":{"__proto__":{"bubble.gap":1}}}'],
    ['an escaped __proto__', '{"scope":"independent","values":{"\\u005f_proto__":{"x":1}}}'],
    ['constructor.prototype', '{"scope":"independent","values":{"bubble.gap":1},"constructor":{"prototype":{"polluted":true}}}'],
    ['constructor.prototype deep down', '{"scope":"independent","values":{"a":[{"constructor":{"prototype":{}}}]}}'],
  ])('refuses %s with 422 (not 400), merging nothing', async (_label, raw) => {
    const before = server.dump();
    const answer = await server.call('/template', { method: 'PUT', raw });
    expect(answer.status).toBe(422);
    expect(errorFields(answer)).toEqual(['body']);
    expect(answer.body.message).toMatch(/__proto__/);
    expect(server.dump()).toEqual(before);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('unexpected faults', () => {
  it('answer 500 {"message":"Server Error."} and are logged without the Authorization header', async () => {
    // A real fault: the database is gone under the running app.
    await server.harness.store.close();
    const answer = await server.call('/template');
    expect(answer.status).toBe(500);
    expect(answer.text).toBe('{"message":"Server Error."}');
    const logged = server.logs.join('');
    expect(logged).toMatch(/unexpected error in API request/);
    expect(logged).not.toContain(server.keys.alice);
    expect(logged).not.toContain(server.keys.alice.slice(4));
  });
});
