// Clients that are slow to send, send what is not HTTP, or hang up half-way, over a real socket:
// bytes Node cannot read as a request are 400 or 431 {message}; a request must
// arrive whole within the request timeout (then 408 and the connection closes); an answer sent
// before the body arrived (a 401) closes the connection instead of reading the rest of the body;
// a client that hangs up mid-body is no server fault in the logs.
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { mapError } from '../../../src/service/http/error-handler.ts';
import { startApiTestServer, TEST_USER_AGENT } from './api-test-server.ts';
import type { ApiTestServer } from './api-test-server.ts';

let server: ApiTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

interface RawClient {
  socket: net.Socket;
  /** Everything the server sent. */
  received(): string;
  closed: Promise<void>;
}

/** A raw connection that sends a PUT's headers and the first bytes of a 1,000-byte body, then nothing. */
function halfSentPut(origin: string, key: string | null): Promise<RawClient> {
  const { port } = new URL(origin);
  return new Promise((resolve, reject) => {
    let text = '';
    const socket = net.connect(Number(port), '127.0.0.1', () => {
      const auth = key === null ? '' : `Authorization: Bearer ${key}\r\n`;
      socket.write(`PUT /api/v1/template HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: ${TEST_USER_AGENT}\r\nAccept: application/json\r\n${auth}`
        + 'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"scope":');
      resolve({ socket, received: () => text, closed });
    });
    const closed = new Promise<void>((done) => socket.on('close', () => done()));
    socket.on('data', (chunk) => { text += String(chunk); });
    socket.on('error', reject);
  });
}

/** Sends `text` as is on a new connection; resolves with all the server sent once it closed the connection. */
function rawExchange(origin: string, text: string): Promise<string> {
  const { port } = new URL(origin);
  return new Promise((resolve, reject) => {
    let received = '';
    const socket = net.connect(Number(port), '127.0.0.1', () => socket.write(text));
    socket.on('data', (chunk) => { received += String(chunk); });
    socket.on('close', () => resolve(received));
    socket.on('error', reject);
  });
}

/** The JSON body of a raw HTTP answer. */
function bodyOf(answer: string): unknown {
  return JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
}

describe('requests Node cannot read as HTTP', () => {
  it.each([
    ['a Content-Length that is not a number', 'Content-Length: abc\r\n'],
    ['two different Content-Lengths', 'Content-Length: 2\r\nContent-Length: 3\r\n'],
  ])('answers %s with 400 {message} and closes the connection', async (_label, header) => {
    server = await startApiTestServer();
    const answer = await rawExchange(server.origin, `PUT /api/v1/template HTTP/1.1\r\nHost: 127.0.0.1\r\n${header}\r\n{}`);
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer.toLowerCase()).toContain('connection: close');
    expect(bodyOf(answer)).toEqual({ message: 'Bad Request: the request could not be read as HTTP.' });
  });

  it('answers headers over the size limit with 431 {message}', async () => {
    server = await startApiTestServer();
    const answer = await rawExchange(server.origin, `GET /api/v1/template HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 431 /);
    expect(bodyOf(answer)).toEqual({ message: expect.stringMatching(/^Request Header Fields Too Large: the headers are over \d+ bytes\.$/) });
  });
});

describe('logs of requests Node cannot read', () => {
  it.each([
    ['two different Content-Lengths', 'Content-Length: 2\r\nContent-Length: 3\r\n'],
    ['headers over the size limit', `X-Filler: ${'a'.repeat(20_000)}\r\n`],
  ])('never write the raw bytes (%s), which hold the API key and the path', async (_label, header) => {
    server = await startApiTestServer({ logLevel: 'debug' });
    const key = server.keys.alice;
    const answer = await rawExchange(server.origin,
      `PUT /api/v1/template?overlay=secret-path-part HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\n${header}\r\n{}`);
    expect(answer).toMatch(/^HTTP\/1\.1 4\d\d /);
    await expect.poll(() => server!.logs.some((line) => line.includes('client error'))).toBe(true);
    const logged = server.logs.join('');
    // Neither as text nor as the byte array a serialized Buffer becomes.
    expect(logged).not.toContain(key);
    expect(logged).not.toContain([...Buffer.from(key)].join(','));
    expect(logged).not.toContain('secret-path-part');
    expect(logged).not.toContain([...Buffer.from('secret-path-part')].join(','));
    // Still says what went wrong.
    expect(logged).toMatch(/HPE_/);
  });
});

describe('slow and vanishing clients', () => {
  it('answers a request that does not arrive whole in time with 408 and closes its connection', async () => {
    server = await startApiTestServer({ requestTimeoutMs: 500 });
    const client = await halfSentPut(server.origin, server.keys.alice);
    await client.closed;
    expect(client.received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(bodyOf(client.received())).toEqual({ message: 'Request Timeout: the request did not arrive whole within 0.5 s.' });
  });

  it('closes the connection of a request refused before its body arrived, instead of reading the rest', async () => {
    server = await startApiTestServer();
    const client = await halfSentPut(server.origin, null);
    await client.closed;
    expect(client.received()).toMatch(/^HTTP\/1\.1 401 /);
    expect(client.received().toLowerCase()).toContain('connection: close');
  });

  it('does not log a client that hung up in the middle of its body as a server fault', async () => {
    server = await startApiTestServer();
    const { app, logs } = server;
    const client = await halfSentPut(server.origin, server.keys.alice);
    await expect.poll(() => new Promise<number>((done) => app.server.getConnections((_error, count) => done(count)))).toBe(1);
    client.socket.destroy();
    await expect.poll(() => new Promise<number>((done) => app.server.getConnections((_error, count) => done(count)))).toBe(0);
    await new Promise((done) => setImmediate(done));
    expect(logs.filter((line) => JSON.parse(line).level >= 50)).toEqual([]);
    // What Node raises for it, as the error handler sees it: a client error, not "unexpected".
    const aborted = Object.assign(new Error('aborted'), { code: 'ECONNRESET', statusCode: 400 });
    expect(mapError(aborted, 65_536)).toMatchObject({ status: 400, unexpected: false });
  });
});
