// POST /local/chat over real sockets: delivered to the channel's overlays from loopback,
// refused from anywhere else.
import { request } from 'node:http';
import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isLoopbackAddress, isLoopbackHostName } from '../../../src/service/push/local-chat-route.ts';
import { OverlaySocket, startPushTestServer } from './push-test-server.ts';
import type { PushTestServer } from './push-test-server.ts';

const externalAddress = Object.values(networkInterfaces()).flat()
  .find((i) => i !== undefined && !i.internal && i.family === 'IPv4')?.address;

describe('POST /local/chat', () => {
  let server: PushTestServer;
  // Listening on every interface, so the test can also come from a non-loopback address.
  beforeAll(async () => { server = await startPushTestServer({ host: '0.0.0.0' }); });
  afterAll(async () => { await server.close(); });

  const post = (body: unknown, headers: Record<string, string> = {}, origin = server.origin) =>
    fetch(`${origin}/local/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    }).then(async (r) => ({ status: r.status, body: await r.json() as any }));

  it("delivers a message, with defaults filled in, to every overlay of the token's channel", async () => {
    const sockets = [new OverlaySocket(server.origin, server.main.token), new OverlaySocket(server.origin, server.syncedB.token)];
    for (const socket of sockets) await socket.nextOf('snapshot');
    const response = await post({ token: server.syncedA.token, event: { type: 'message', login: 'Alice', text: '<i>hi</i> Kappa', emotes: '25:10-14', badges: ['vip/1'] } });
    expect(response.status).toBe(202);
    expect(response.body.data).toMatchObject({ type: 'message', login: 'alice', userId: 'alice', displayName: 'Alice', badges: [{ set: 'vip', version: '1' }] });
    for (const socket of sockets) {
      const frame = await socket.nextOf('chat');
      expect(frame.event).toEqual(response.body.data);
      socket.close();
    }
  });

  it('passes moderation events through', async () => {
    const socket = new OverlaySocket(server.origin, server.main.token);
    await socket.nextOf('snapshot');
    for (const event of [{ type: 'message-deleted', messageId: 'abc' }, { type: 'user-cleared', userId: '42' }, { type: 'chat-cleared' }]) {
      expect((await post({ token: server.main.token, event })).status).toBe(202);
      expect((await socket.nextOf('chat')).event).toEqual(event);
    }
    socket.close();
  });

  it('answers 404 for an unknown token and 422 with keyed errors for a bad event', async () => {
    expect(await post({ token: 'y'.repeat(32), event: { type: 'chat-cleared' } })).toEqual({ status: 404, body: { message: 'No overlay has this token.' } });
    const bad = await post({ token: server.main.token, event: { type: 'message', login: 'bad login!', text: 'x' } });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors)).toEqual(['event.login']);
    const malformed = await post('{"token":', {});
    expect(malformed.status).toBe(422);
    expect(Object.keys(malformed.body.errors)).toEqual(['body']);
  });

  it('answers 413 for a body over 16 KiB', async () => {
    const response = await post({ token: server.main.token, event: { type: 'message', login: 'a', text: 'x'.repeat(20_000) } });
    expect(response.status).toBe(413);
  });

  it('refuses proxied requests even from loopback', async () => {
    for (const header of ['x-forwarded-for', 'forwarded', 'x-real-ip']) {
      const response = await post({ token: server.main.token, event: { type: 'chat-cleared' } }, { [header]: '203.0.113.9' });
      expect(response.status).toBe(403);
      expect(response.body.message).toMatch(/only answers requests from this machine/);
    }
  });

  /** A POST from loopback with the Host and Origin headers given as is (fetch will not set Host). */
  const postAs = (headers: Record<string, string>) => new Promise<number>((resolve, reject) => {
    const body = JSON.stringify({ token: server.main.token, event: { type: 'chat-cleared' } });
    const sent = request({ host: '127.0.0.1', port: server.port, path: '/local/chat', method: 'POST', headers: { 'content-type': 'application/json', ...headers } }, (response) => {
      response.resume();
      resolve(response.statusCode!);
    });
    sent.on('error', reject);
    sent.end(body);
  });

  it('refuses a request that names another host or comes from a page of another origin (DNS rebinding)', async () => {
    expect(await postAs({ host: `evil.example:${server.port}` })).toBe(403);
    expect(await postAs({ host: `127.0.0.1:${server.port}`, origin: `http://evil.example:${server.port}` })).toBe(403);
    expect(await postAs({ host: `127.0.0.1:${server.port}`, origin: 'null' })).toBe(403);
    // This machine's own names and pages are served.
    expect(await postAs({ host: `localhost:${server.port}`, origin: `http://localhost:${server.port}` })).toBe(202);
    expect(await postAs({ host: `127.0.0.1:${server.port}`, origin: `http://127.0.0.1:${server.port}` })).toBe(202);
    expect(await postAs({ host: `[::1]:${server.port}` })).toBe(202);
  });

  it.skipIf(externalAddress === undefined)('refuses a request from a non-loopback address', async () => {
    const response = await post({ token: server.main.token, event: { type: 'chat-cleared' } }, {}, `http://${externalAddress}:${server.port}`);
    expect(response.status).toBe(403);
  });
});

describe('isLoopbackAddress', () => {
  it.each([['127.0.0.1', true], ['127.8.9.10', true], ['::1', true], ['::ffff:127.0.0.1', true],
    ['192.0.2.2', false], ['::ffff:10.0.0.1', false], ['fd00::2', false], ['1127.0.0.1', false], [undefined, false]] as const)('%s -> %s', (address, expected) => {
    expect(isLoopbackAddress(address)).toBe(expected);
  });
});

describe('isLoopbackHostName', () => {
  it.each([['localhost', true], ['LOCALHOST', true], ['127.0.0.1', true], ['[::1]', true], ['::1', true],
    ['evil.example', false], ['localhost.evil.example', false], ['192.0.2.2', false], ['[fd00::2]', false]] as const)('%s -> %s', (name, expected) => {
    expect(isLoopbackHostName(name)).toBe(expected);
  });
});
