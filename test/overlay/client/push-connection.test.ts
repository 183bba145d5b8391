// The page's side of the protocol, run in Node (which has the browser's WebSocket API) against
// a scripted peer that plays the server's part frame by frame.
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import type { WebSocket as PeerSocket } from 'ws';
import { PushConnection } from '../../../src/overlay/client/push-connection.ts';
import type { PushHandlers, RetryScheduler } from '../../../src/overlay/client/push-connection.ts';
import { CATALOG_DEFAULTS } from '../../../src/service/settings/catalog.ts';
import type { ServerFrame, SnapshotFrame } from '../../../src/service/push/protocol.ts';

const snapshot = (version: number, heartbeatMs = 30_000): SnapshotFrame => ({
  type: 'snapshot', version, overlay: { id: 1, name: 'Main' },
  style: { template: { id: 1, slug: 'bubbles', name: 'Bubbles' }, settings: { ...CATALOG_DEFAULTS }, skins: [], roleSkins: {}, viewerSkins: {}, fonts: {} },
  options: { maxMessages: 50, emoteBaseUrl: 'x', fontStylesheetBaseUrl: null, heartbeatMs },
});
const chat = (version: number, id: string): ServerFrame => ({ type: 'chat', version, event: { type: 'message-deleted', messageId: id } });

/** A scripted server: hands each new connection to the test and records what pages send. */
async function scriptedPeer() {
  const server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await once(server, 'listening');
  const connections: PeerSocket[] = [];
  const waiting: Array<(socket: PeerSocket) => void> = [];
  server.on('connection', (socket) => {
    const waiter = waiting.shift();
    if (waiter) waiter(socket);
    else connections.push(socket);
  });
  return {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}/overlay/t/ws`,
    next: () => connections.shift() ?? new Promise<PeerSocket>((resolve) => waiting.push(resolve)),
    close: () => new Promise<void>((resolve) => { for (const c of server.clients) c.terminate(); server.close(() => resolve()); }),
  };
}

function recorder() {
  const log: string[] = [];
  const waiters: Array<{ match: string; resolve: () => void }> = [];
  const note = (entry: string) => {
    log.push(entry);
    for (const w of [...waiters]) if (entry === w.match) { waiters.splice(waiters.indexOf(w), 1); w.resolve(); }
  };
  const handlers: PushHandlers = {
    style: (_style, options) => note(options === null ? 'update' : 'snapshot'),
    chat: (event) => note(`chat:${event.type === 'message-deleted' ? event.messageId : event.type}`),
    reconnecting: () => note('reconnecting'),
    openFailed: () => note('open-failed'),
    opened: () => {},
    status: (status) => note(`status:${status}`),
  };
  return { log, handlers, until: (match: string) => log.includes(match) ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ match, resolve })) };
}

describe('PushConnection (page side)', () => {
  let peer: Awaited<ReturnType<typeof scriptedPeer>>;
  let connection: PushConnection | undefined;
  afterEach(async () => {
    connection?.stop();
    await peer?.close();
  });
  const start = (url: string, handlers: PushHandlers) => {
    connection = new PushConnection(url, handlers);
    connection.start();
  };
  /** A page connected to a fresh scripted peer: what it recorded, and the peer's first socket. */
  const connectedToPeer = async () => {
    peer = await scriptedPeer();
    const rec = recorder();
    start(peer.url, rec.handlers);
    return { rec, socket: await peer.next() };
  };
  /** Every frame the page sends on `socket`, parsed, as it comes. */
  const framesFrom = (socket: PeerSocket): unknown[] => {
    const received: unknown[] = [];
    socket.on('message', (data) => received.push(JSON.parse(String(data))));
    return received;
  };

  it('applies frames in version order, ignores old ones, and asks for a snapshot on a gap', async () => {
    const { rec, socket } = await connectedToPeer();
    const received = framesFrom(socket);
    socket.send(JSON.stringify(snapshot(10)));
    socket.send(JSON.stringify(chat(11, 'a')));
    socket.send(JSON.stringify(chat(11, 'duplicate')));
    socket.send(JSON.stringify(chat(13, 'after-gap')));
    const [resync] = await once(socket, 'message');
    expect(JSON.parse(String(resync))).toEqual({ type: 'resync' });
    expect(rec.log.filter((e) => e.startsWith('chat:'))).toEqual(['chat:a', 'chat:after-gap']);
    socket.send(JSON.stringify(snapshot(13)));
    socket.send(JSON.stringify({ type: 'heartbeat', version: 13 }));
    socket.send(JSON.stringify(chat(14, 'b')));
    await rec.until('chat:b');
    // The page's close reaches the peer after anything it sent before: all it sent is in `received`.
    connection!.stop();
    await once(socket, 'close');
    expect(received).toEqual([{ type: 'resync' }]); // one resync, none for the matching heartbeat
  });

  it('applies every frame of a message that carries several, one per line, in order', async () => {
    const { rec, socket } = await connectedToPeer();
    socket.send([snapshot(20), chat(21, 'one'), chat(22, 'two'), chat(23, 'three')].map((frame) => JSON.stringify(frame)).join('\n'));
    await rec.until('chat:three');
    expect(rec.log.filter((e) => e.startsWith('chat:'))).toEqual(['chat:one', 'chat:two', 'chat:three']);
  });

  it('asks for one snapshot while it waits for one, however many gaps it sees meanwhile', async () => {
    const { rec, socket } = await connectedToPeer();
    const received = framesFrom(socket);
    socket.send(JSON.stringify(snapshot(1)));
    socket.send(JSON.stringify(chat(3, 'gap-one')));
    socket.send(JSON.stringify(chat(5, 'gap-two')));
    socket.send(JSON.stringify({ type: 'heartbeat', version: 9 }));
    await rec.until('chat:gap-two');
    connection!.stop();
    await once(socket, 'close');
    expect(received).toEqual([{ type: 'resync' }]);
  });

  it('keeps a socket whose frames keep coming, however long it lives past its heartbeat interval', async () => {
    const { rec, socket } = await connectedToPeer();
    socket.send(JSON.stringify(snapshot(1, 200))); // silence past 500 ms would count as dead
    const beats = setInterval(() => socket.send(JSON.stringify({ type: 'heartbeat', version: 1 })), 50);
    try {
      await new Promise((resolve) => setTimeout(resolve, 1_500));
    } finally {
      clearInterval(beats);
    }
    expect(rec.log).not.toContain('status:reconnecting');
    expect(socket.readyState).toBe(socket.OPEN);
  });

  it('asks for a snapshot when a heartbeat shows a newer version', async () => {
    const { rec, socket } = await connectedToPeer();
    socket.send(JSON.stringify(snapshot(5)));
    socket.send(JSON.stringify({ type: 'heartbeat', version: 6 }));
    const [resync] = await once(socket, 'message');
    expect(JSON.parse(String(resync))).toEqual({ type: 'resync' });
  });

  it('reconnects when the socket closes, telling the page first, and starts again from a snapshot', async () => {
    const { rec, socket: first } = await connectedToPeer();
    first.send(JSON.stringify(snapshot(3)));
    await rec.until('snapshot');
    first.close(4008, 'too slow');
    const second = await peer.next();
    await rec.until('reconnecting');
    second.send(JSON.stringify(snapshot(20)));
    second.send(JSON.stringify(chat(21, 'c')));
    await rec.until('chat:c');
    expect(rec.log.filter((e) => e === 'snapshot')).toHaveLength(2);
    // body[data-status] (docs/overlay.md): `connecting` for the first socket only, `reconnecting` while it gets another.
    expect(rec.log.filter((e) => e.startsWith('status:'))).toEqual(['status:connecting', 'status:live', 'status:reconnecting', 'status:reconnecting', 'status:live', 'status:live']);
  });

  it('keeps the chat sent before the first snapshot and applies it once the snapshot came, once, without a resync', async () => {
    const { rec, socket: first } = await connectedToPeer();
    // A socket that closes before its snapshot: what it brought is not shown on the next one.
    first.send(JSON.stringify(chat(3, 'on-a-closed-socket')));
    await new Promise((resolve) => setTimeout(resolve, 50));
    first.close(1013, 'try again');
    const second = await peer.next();
    const received = framesFrom(second);
    // Sent while the snapshot was read (the server's version moved on meanwhile): not covered by it.
    second.send(JSON.stringify({ type: 'update', version: 18, causes: ['template'], style: snapshot(18).style })); // covered by it: ignored
    second.send(JSON.stringify(chat(19, 'typed-meanwhile')));
    second.send(JSON.stringify(chat(20, 'deleted-meanwhile')));
    second.send(JSON.stringify(snapshot(20)));
    second.send(JSON.stringify(chat(21, 'after')));
    await rec.until('chat:after');
    expect(rec.log.filter((e) => !e.startsWith('status:'))).toEqual(['snapshot', 'chat:typed-meanwhile', 'chat:deleted-meanwhile', 'chat:after']);
    connection!.stop();
    await once(second, 'close');
    expect(received).toEqual([]); // no resync: 21 follows the snapshot's 20
  });

  it('tells the page when a socket never opens or is closed because the overlay is gone (4004), not for other closes', async () => {
    const { rec, socket: first } = await connectedToPeer();
    first.send(JSON.stringify(snapshot(1)));
    await rec.until('snapshot');
    first.close(1001, 'restarting');
    const second = await peer.next();
    await rec.until('reconnecting');
    expect(rec.log).not.toContain('open-failed');
    second.close(4004, 'The overlay no longer exists.');
    await rec.until('open-failed');
    await peer.next(); // and it keeps trying
    expect(rec.log.filter((e) => e === 'open-failed')).toHaveLength(1);
  });

  it('tells the page when the server refuses the socket before the handshake', async () => {
    const server = new WebSocketServer({ port: 0, host: '127.0.0.1', verifyClient: (_info, done) => done(false, 404) });
    await once(server, 'listening');
    const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/overlay/t/ws`;
    peer = { url, next: () => Promise.reject(new Error('unused')), close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
    const rec = recorder();
    start(url, rec.handlers);
    await rec.until('open-failed');
    expect(rec.log).toEqual(['status:connecting', 'status:reconnecting', 'open-failed']);
  });

  it('gives up on a socket that falls silent past its heartbeat and reconnects', async () => {
    const { rec, socket: first } = await connectedToPeer();
    first.send(JSON.stringify(snapshot(1, 20))); // heartbeat every 20 ms promised, then silence
    const second = await peer.next();
    expect(second).not.toBe(first);
    await rec.until('reconnecting');
  });

  it('backs off from 0.5 s, doubling up to 15 s with jitter, and starts again from 0.5 s once a snapshot arrives', async () => {
    // The retry waits are recorded and then cut to 1 ms, so the test does not sit through them;
    // every other timer (the silence timer included) runs as it is.
    const retryWaits: number[] = [];
    const recordingScheduler: RetryScheduler = (reconnect, delayMs) => {
      retryWaits.push(delayMs);
      return setTimeout(reconnect, 1);
    };

    // A server that takes the page's fifth socket only (after four waits): four refusals, a socket, then refusals.
    let accepted = false;
    const server = new WebSocketServer({ port: 0, host: '127.0.0.1', verifyClient: () => {
      if (accepted || retryWaits.length !== 4) return false;
      accepted = true;
      return true;
    } });
    await once(server, 'listening');
    const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/overlay/t/ws`;
    peer = { url, next: () => Promise.reject(new Error('unused')), close: () => new Promise<void>((resolve) => { for (const c of server.clients) c.terminate(); server.close(() => resolve()); }) };
    const waitFor = async (count: number) => { while (retryWaits.length < count) await new Promise((resolve) => setTimeout(resolve, 5)); };
    const rec = recorder();
    connection = new PushConnection(url, rec.handlers, recordingScheduler);
    connection.start();

    const [socket] = await once(server, 'connection') as [PeerSocket];
    socket.send(JSON.stringify(snapshot(1)));
    await rec.until('snapshot');
    socket.close();
    await waitFor(12);
    connection!.stop();

    const expected = [500, 1_000, 2_000, 4_000, /* snapshot */ 500, 1_000, 2_000, 4_000, 8_000, 15_000, 15_000, 15_000];
    retryWaits.slice(0, 12).forEach((wait, index) => {
      expect(wait, `wait ${index + 1} of ${JSON.stringify(retryWaits)}`).toBeGreaterThanOrEqual(expected[index]! * 0.75);
      expect(wait, `wait ${index + 1} of ${JSON.stringify(retryWaits)}`).toBeLessThanOrEqual(expected[index]! * 1.25);
    });
    // Jitter: pages that lost the server together do not all come back at the same moment.
    expect(retryWaits.slice(0, 12).filter((wait, index) => wait !== expected[index])).not.toEqual([]);
  });
});
