// A request that arrives while the server closes (pipelined on a keep-alive connection behind one
// still under way) is refused with the API's 503: `{message}`, Retry-After, Connection: close, the
// Accept redirect under the API prefix; never Fastify's own `{"error","message","statusCode"}`.
// Nothing of it runs. The request under way is answered as usual.
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { buildApiApp } from '../../../src/service/http/app.ts';
import type { StyleOperations } from '../../../src/service/types.ts';

/**
 * Sends the first request on a keep-alive connection; once it reaches its route, closes the
 * server and sends the second on the same connection; returns all that came back.
 */
async function pipelined(requests: [string, string], slowMs: number): Promise<{ answers: string; authenticated: number }> {
  let authenticated = 0;
  let started!: () => void;
  const firstStarted = new Promise<void>((resolve) => { started = resolve; });
  const app = buildApiApp({ logger: false, operations: {} as StyleOperations, authenticate: async () => { authenticated += 1; return null; } });
  app.get('/slow', async () => {
    started();
    await new Promise((resolve) => setTimeout(resolve, slowMs));
    return { done: true };
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const socket = net.connect((app.server.address() as AddressInfo).port, '127.0.0.1');
  let answers = '';
  socket.on('data', (chunk) => { answers += String(chunk); });
  const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  socket.write(requests[0]);
  await firstStarted;
  const closed = app.close();
  socket.write(requests[1]);
  await closed;
  await ended;
  return { answers, authenticated };
}

const request = (path: string, accept: string) =>
  `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: MyTool/1.0\r\nAccept: ${accept}\r\nAuthorization: Bearer csk_x\r\nConnection: keep-alive\r\n\r\n`;

describe('a request arriving while the server closes', () => {
  it('is answered 503 in the API envelope with Retry-After, after the request under way is answered', async () => {
    const { answers, authenticated } = await pipelined([request('/slow', 'application/json'), request('/api/v1/template', 'application/json')], 100);
    const [first, second] = answers.split(/(?=HTTP\/1\.1 )/);
    expect(first).toMatch(/^HTTP\/1\.1 200 /);
    expect(first).toContain('{"done":true}');
    expect(second).toMatch(/^HTTP\/1\.1 503 /);
    expect(second).toMatch(/\r\nretry-after: 1\r\n/i);
    expect(second).toMatch(/\r\nconnection: close\r\n/i);
    expect(JSON.parse(second!.split('\r\n\r\n')[1]!)).toEqual({ message: 'The service is stopping; nothing was done. Try again once it runs again.' });
    // It never reached authentication, let alone a route.
    expect(authenticated).toBe(0);
  });

  it('follows the Accept redirect rule under the API prefix', async () => {
    const { answers } = await pipelined([request('/slow', 'application/json'), request('/api/v1/template', 'text/html')], 100);
    const second = answers.split(/(?=HTTP\/1\.1 )/)[1];
    expect(second).toMatch(/^HTTP\/1\.1 302 /);
    expect(second).toMatch(/\r\nlocation: \/\r\n/i);
  });

  it('refuses a path outside the API (the overlay, the local chat) the same way, never redirected', async () => {
    const { answers } = await pipelined([request('/slow', 'application/json'), request('/slow', 'text/html')], 100);
    const second = answers.split(/(?=HTTP\/1\.1 )/)[1];
    expect(second).toMatch(/^HTTP\/1\.1 503 /);
    expect(JSON.parse(second!.split('\r\n\r\n')[1]!)).toEqual({ message: 'The service is stopping; nothing was done. Try again once it runs again.' });
  });
});
