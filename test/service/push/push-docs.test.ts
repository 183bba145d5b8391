// What docs/push.md quotes of the socket's refusals and defaults is what the gateway does: the
// status lines of a refused upgrade (read off the wire, before any handshake), the default
// number of sockets per overlay, and the snapshot's default options.
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_PAGE_OPTIONS } from '../../../src/service/push/push-gateway.ts';
import { OverlaySocket, startPushTestServer } from './push-test-server.ts';
import type { PushTestServer } from './push-test-server.ts';

const DOCS = readFileSync(new URL('../../../docs/push.md', import.meta.url), 'utf8');
/** The doc with its line breaks as spaces, so a quote may span lines. */
const FLAT = DOCS.replace(/\s+/g, ' ');

function expectQuoted(text: string): void {
  expect(FLAT.includes(text), `docs/push.md says: ${text}`).toBe(true);
}

/** The first line the server answers a WebSocket upgrade of `path` with. */
async function upgradeStatusLine(port: number, path: string): Promise<string> {
  const socket = connect(port, '127.0.0.1');
  socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n`
    + 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n');
  let text = '';
  for await (const chunk of socket) {
    text += String(chunk);
    if (text.includes('\r\n')) break;
  }
  socket.destroy();
  return text.slice(0, text.indexOf('\r\n'));
}

let server: PushTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('docs/push.md', () => {
  it('an unknown token\'s upgrade gets the status line the doc quotes', async () => {
    server = await startPushTestServer();
    const line = await upgradeStatusLine(server.port, '/overlay/nope/ws');
    expect(line).toMatch(/^HTTP\/1\.1 404 /);
    expectQuoted(`\`${line}\` before any WebSocket handshake`);
  });

  it('while the host shuts down an upgrade gets the status line the doc quotes', async () => {
    server = await startPushTestServer();
    await server.gateway.close();
    const line = await upgradeStatusLine(server.port, `/overlay/${server.main.token}/ws`);
    expect(line).toMatch(/^HTTP\/1\.1 503 /);
    expectQuoted(`every upgrade gets \`${line}\``);
  });

  it('an upgrade whose token lookup ends after the shutdown began gets the same 503', async () => {
    server = await startPushTestServer();
    // The store is held, as another transaction would hold it: the token lookup waits behind it.
    let release!: () => void;
    const held = server.store.read(() => new Promise<void>((resolve) => { release = resolve; }));
    const line = upgradeStatusLine(server.port, `/overlay/${server.main.token}/ws`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const closing = server.gateway.close();
    release();
    await held;
    await closing;
    expect(await line).toBe('HTTP/1.1 503 Service Unavailable');
  });

  it('one overlay takes as many sockets as the doc says by default, then the status line it quotes', async () => {
    server = await startPushTestServer();
    const documented = Number(/One overlay may have \*\*(\d+) sockets\*\*/.exec(DOCS)![1]);
    const sockets = Array.from({ length: documented }, () => new OverlaySocket(server!.origin, server!.main.token));
    await Promise.all(sockets.map((socket) => socket.nextOf('snapshot')));
    const line = await upgradeStatusLine(server.port, `/overlay/${server.main.token}/ws`);
    expect(line).toMatch(/^HTTP\/1\.1 429 /);
    expectQuoted(`a further upgrade for it gets \`${line}\` before any handshake`);
    for (const socket of sockets) socket.close();
  });

  it('a page frame over 1 KiB closes the socket with 1009, one of 1 KiB that is not resync with 1008', async () => {
    server = await startPushTestServer();
    const documented = /a frame over (\d+) KiB with (\d+)/.exec(FLAT)!;
    const limit = Number(documented[1]) * 1024;
    const over = new OverlaySocket(server.origin, server.main.token);
    await over.nextOf('snapshot');
    over.socket.send(JSON.stringify({ type: 'resync', pad: 'x'.repeat(limit) }).slice(0, limit + 1));
    expect((await over.closed).code).toBe(Number(documented[2]));
    const atLimit = new OverlaySocket(server.origin, server.main.token);
    await atLimit.nextOf('snapshot');
    atLimit.socket.send('x'.repeat(limit));
    expect((await atLimit.closed).code).toBe(1008);
    expectQuoted('Anything else closes the socket with 1008');
  });

  it('the snapshot example\'s options are the defaults', async () => {
    server = await startPushTestServer({ page: {} });
    const socket = new OverlaySocket(server.origin, server.main.token);
    const snapshot = await socket.nextOf('snapshot');
    const example = JSON.parse(/```json\n(\{\n {2}"type": "snapshot"[\s\S]*?)```/.exec(DOCS)![1]!) as { options: unknown };
    expect(snapshot.options).toEqual(example.options);
    expect({ ...DEFAULT_PAGE_OPTIONS, heartbeatMs: snapshot.options.heartbeatMs }).toEqual(example.options);
    socket.close();
  });
});
