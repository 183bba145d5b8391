// The push protocol over real sockets against a real service (docs/push.md).
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { ChatMessageEvent } from '../../../src/service/push/protocol.ts';
import { chatFrameLowerBound } from '../../../src/service/push/chat-frames.ts';
import { OverlaySocket, startPushTestServer } from './push-test-server.ts';
import type { PushTestServer } from './push-test-server.ts';

const message = (id: string, text = 'hello'): ChatMessageEvent => ({
  type: 'message', id, userId: '42', login: 'alice', displayName: 'Alice', color: '#1e90ff', text, emotes: '', badges: [], avatarUrl: null,
});

describe('push gateway', () => {
  let server: PushTestServer;
  beforeAll(async () => { server = await startPushTestServer(); });
  afterAll(async () => { await server.close(); });

  async function connect(token: string): Promise<{ socket: OverlaySocket; version: number }> {
    const socket = new OverlaySocket(server.origin, token);
    const snapshot = await socket.nextOf('snapshot');
    return { socket, version: snapshot.version };
  }

  /** Proves no frame reached `socket` since `version`: the next chat frame is exactly version + 1. */
  async function expectNothingSince(socket: OverlaySocket, version: number, accountId = server.accountId): Promise<number> {
    server.gateway.pushChatEvent(accountId, { type: 'chat-cleared' });
    const frame = await socket.nextOf('chat');
    expect(frame.version).toBe(version + 1);
    return frame.version;
  }

  it('sends a snapshot on connect with template, effective settings, skins in use, role and viewer skins, and options', async () => {
    const { socket } = await connect(server.main.token);
    const frame = await (async () => { socket.send({ type: 'resync' }); return socket.nextOf('snapshot'); })();
    const view = await server.api('GET', `/template?preset_id=${server.main.id}`);
    expect(frame.overlay).toEqual({ id: server.main.id, name: 'Main' });
    expect(frame.style.template).toEqual({ id: view.body.data.template_id, slug: view.body.data.template_slug, name: view.body.data.template_name });
    expect(frame.style.settings).toEqual(view.body.data.settings_values);
    expect(frame.style.skins.map((s) => s.id).sort()).toEqual([server.roleSkinId, server.pickedSkinId].sort());
    const roleSkin = frame.style.skins.find((s) => s.id === server.roleSkinId)!;
    expect(roleSkin.overrides).toEqual({ 'bubble.background-color': '#00ff00' });
    expect(roleSkin.settings['bubble.background-color']).toBe('#00ff00');
    expect(frame.style.roleSkins).toEqual({ moderator: server.roleSkinId });
    expect(frame.style.viewerSkins).toEqual({ '1001': server.pickedSkinId });
    expect(frame.style.fonts).toEqual({ Inter: 'google' });
    expect(frame.options).toEqual({
      maxMessages: 50, emoteBaseUrl: 'https://static-cdn.jtvnw.net/emoticons/v2', fontStylesheetBaseUrl: null, heartbeatMs: 30_000,
    });
    expect(Number.isInteger(frame.version)).toBe(true);
    socket.close();
  });

  it('sends an update with the next version after PUT /template (independent)', async () => {
    const { socket, version } = await connect(server.main.token);
    const put = await server.api('PUT', '/template', { scope: 'independent', preset_id: server.main.id, values: { 'message.font-size': 21 } });
    expect(put.status).toBe(200);
    const update = await socket.nextOf('update');
    expect(update.version).toBe(version + 1);
    expect(update.causes).toEqual(['template']);
    expect(update.style.settings['message.font-size']).toBe(21);
    socket.close();
  });

  it('fans PUT /template scope source out to the sync source and every overlay synced to it, and no other', async () => {
    const sockets = await Promise.all([server.source, server.syncedA, server.syncedB, server.main].map((o) => connect(o.token)));
    const put = await server.api('PUT', '/template', { scope: 'source', preset_id: server.syncedA.id, values: { 'bubble.gap': 33 } });
    expect(put.status).toBe(200);
    for (const { socket, version } of sockets.slice(0, 3)) {
      const update = await socket.nextOf('update');
      expect(update.version).toBe(version + 1);
      expect(update.style.settings['bubble.gap']).toBe(33);
    }
    const [unrelated] = sockets.slice(3);
    await expectNothingSince(unrelated!.socket, unrelated!.version);
    for (const { socket } of sockets) socket.close();
  });

  it('updates only the overlay written with scope override', async () => {
    const [a, b] = await Promise.all([connect(server.syncedA.token), connect(server.syncedB.token)]);
    await server.api('PUT', '/template', { scope: 'override', preset_id: server.syncedB.id, values: { 'bubble.width': 321 } });
    const update = await b!.socket.nextOf('update');
    expect(update.style.settings['bubble.width']).toBe(321);
    await expectNothingSince(a!.socket, a!.version);
    a!.socket.close();
    b!.socket.close();
  });

  it('sends an update after PUT /skins of a role-assigned skin, and none for a skin nobody uses', async () => {
    const { socket, version } = await connect(server.main.token);
    const unused = await server.api('PUT', `/skins/${server.unusedSkinId}`, { values: { 'message.font-size': 31 } });
    expect(unused.status).toBe(200);
    const put = await server.api('PUT', `/skins/${server.roleSkinId}`, { values: { 'bubble.border-width': 4 } });
    expect(put.status).toBe(200);
    const update = await socket.nextOf('update');
    expect(update.version).toBe(version + 1); // nothing came for the unused skin
    expect(update.causes).toEqual(['skin']);
    expect(update.style.skins.find((s) => s.id === server.roleSkinId)!.overrides['bubble.border-width']).toBe(4);
    socket.close();
  });

  it('sends an update after PUT /skins of a skin a viewer picked, and when a viewer picks another', async () => {
    const { socket, version } = await connect(server.main.token);
    await server.api('PUT', `/skins/${server.pickedSkinId}`, { values: { 'message.font-weight': 700 } });
    const update = await socket.nextOf('update');
    expect(update.version).toBe(version + 1);
    expect(update.style.skins.find((s) => s.id === server.pickedSkinId)!.overrides['message.font-weight']).toBe('700');

    const viewer = await server.service.registerViewer({ twitchUserId: '2002', login: 'picker' });
    await server.service.pickSkin(server.accountId, viewer.id, server.unusedSkinId);
    const picked = await socket.nextOf('update');
    expect(picked.version).toBe(version + 2);
    expect(picked.causes).toEqual(['viewer-skin']);
    expect(picked.style.viewerSkins['2002']).toBe(server.unusedSkinId);
    expect(picked.style.skins.map((s) => s.id)).toContain(server.unusedSkinId);
    await server.service.pickSkin(server.accountId, viewer.id, null);
    await socket.nextOf('update');
    socket.close();
  });

  it('folds changes committed together into one update listing every cause', async () => {
    const { socket, version } = await connect(server.main.token);
    await server.service.runInTransaction(async () => {
      await server.service.updateTemplate(server.accountId, { scope: 'independent', preset_id: server.main.id, values: { 'bubble.gap': 12 } });
      await server.service.updateSkin(server.accountId, server.roleSkinId, { values: { 'bubble.border-width': 6 } });
    });
    const update = await socket.nextOf('update');
    expect(update.version).toBe(version + 1);
    expect(update.causes.sort()).toEqual(['skin', 'template']);
    expect(update.style.settings['bubble.gap']).toBe(12);
    await expectNothingSince(socket, update.version);
    socket.close();
  });

  it("sends every kind of chat event to all of the channel's overlays with consecutive versions", async () => {
    const [main, synced] = await Promise.all([connect(server.main.token), connect(server.syncedA.token)]);
    const other = await connect(server.otherChannel.token);
    const events = [
      message('m1', '<b>hi</b>'),
      { type: 'message-deleted' as const, messageId: 'm1' },
      { type: 'user-cleared' as const, userId: '42' },
      { type: 'chat-cleared' as const },
    ];
    for (const event of events) server.gateway.pushChatEvent(server.accountId, event);
    for (const { socket, version } of [main!, synced!]) {
      for (const [i, event] of events.entries()) {
        const frame = await socket.nextOf('chat');
        expect(frame.version).toBe(version + i + 1);
        expect(frame.event).toEqual(event);
      }
    }
    await expectNothingSince(other.socket, other.version, server.otherChannel.accountId);
    for (const { socket } of [main!, synced!, other]) socket.close();
  });

  it('sends the frames of one event-loop turn as one message, one frame per line in version order', async () => {
    const raw = new WebSocket(`${server.origin.replace(/^http/, 'ws')}/overlay/${server.main.token}/ws`);
    const messages: string[] = [];
    raw.on('message', (data) => messages.push(String(data)));
    await once(raw, 'open');
    await expect.poll(() => messages.length).toBe(1);
    const snapshotVersion = (JSON.parse(messages[0]!) as { version: number }).version;
    for (let i = 0; i < 5; i++) server.gateway.pushChatEvent(server.accountId, message(`burst-${i}`));
    await expect.poll(() => messages.length).toBe(2);
    const lines = messages[1]!.split('\n');
    expect(lines).toHaveLength(5);
    expect(lines.map((line) => JSON.parse(line) as { version: number; event: { id: string } })
      .map((frame) => [frame.version, frame.event.id]))
      .toEqual([0, 1, 2, 3, 4].map((i) => [snapshotVersion + i + 1, `burst-${i}`]));
    // A later turn is a message of its own.
    server.gateway.pushChatEvent(server.accountId, { type: 'chat-cleared' });
    await expect.poll(() => messages.length).toBe(3);
    expect(JSON.parse(messages[2]!)).toEqual({ type: 'chat', version: snapshotVersion + 6, event: { type: 'chat-cleared' } });
    raw.close();
  });

  it('gives a reconnecting client a snapshot with what changed while it was away, and a fresh snapshot on resync', async () => {
    const first = await connect(server.main.token);
    first.socket.close();
    await first.socket.closed;
    await server.api('PUT', '/template', { scope: 'independent', preset_id: server.main.id, values: { 'message.font-size': 23 } });
    server.gateway.pushChatEvent(server.accountId, message('missed'));
    const again = await connect(server.main.token);
    expect(again.version).toBeGreaterThanOrEqual(first.version); // versions never go back
    const snapshot = await (async () => { again.socket.send({ type: 'resync' }); return again.socket.nextOf('snapshot'); })();
    expect(snapshot.style.settings['message.font-size']).toBe(23);
    expect(snapshot.version).toBe(again.version);
    again.socket.close();
  });

  it("keeps sending chat, removals included, to a socket while its resync's snapshot is read", async () => {
    const { socket, version } = await connect(server.main.token);
    // The store is busy (another transaction holds it), so the snapshot read waits.
    let releaseStore!: () => void;
    const storeHeld = server.store.read(() => new Promise<void>((resolve) => { releaseStore = resolve; }));
    const reads = server.gateway.stats().styleReads;
    socket.send({ type: 'resync' });
    await expect.poll(() => server.gateway.stats().styleReads).toBe(reads + 1);
    server.gateway.pushChatEvent(server.accountId, { type: 'message-deleted', messageId: 'shown-before' });
    const next = socket.next();
    const removal = await Promise.race([next, new Promise((resolve) => setTimeout(resolve, 2_000, 'nothing while the read waits'))]);
    releaseStore();
    await storeHeld;
    expect(removal).toMatchObject({ type: 'chat', version: version + 1, event: { type: 'message-deleted' } });
    expect((await socket.nextOf('snapshot')).version).toBeGreaterThanOrEqual(version + 1);
    socket.close();
  });

  it('sends chat, removals included, to a socket that just joined while its first snapshot is read', async () => {
    // A server of its own: no socket of the overlay open, so the newcomer's snapshot is a read.
    const fresh = await startPushTestServer();
    try {
      // The store is busy (another transaction holds it) once the socket is let in, so its snapshot read waits.
      const hold = fresh.holdStoreOnNextUpgrade(fresh.main.token);
      const socket = new OverlaySocket(fresh.origin, fresh.main.token);
      await expect.poll(() => fresh.gateway.stats().styleReads).toBe(1);
      fresh.gateway.pushChatEvent(fresh.accountId, message('typed-meanwhile'));
      fresh.gateway.pushChatEvent(fresh.accountId, { type: 'user-cleared', userId: 'someone' });
      const timeout = new Promise((resolve) => setTimeout(resolve, 2_000, 'nothing while the read waits'));
      const line = await Promise.race([socket.next(), timeout]);
      const removal = await Promise.race([socket.next(), timeout]);
      await hold.release();
      expect(line).toMatchObject({ type: 'chat', event: { type: 'message', id: 'typed-meanwhile' } });
      const lineVersion = (line as { version: number }).version;
      expect(removal).toMatchObject({ type: 'chat', version: lineVersion + 1, event: { type: 'user-cleared' } });
      // The snapshot's version is at least theirs, and what follows it is the next one.
      const snapshot = await socket.nextOf('snapshot');
      expect(snapshot.version).toBe(lineVersion + 1);
      fresh.gateway.pushChatEvent(fresh.accountId, message('after'));
      expect(await socket.nextOf('chat')).toMatchObject({ version: snapshot.version + 1, event: { id: 'after' } });
      expect(fresh.gateway.stats().styleReads).toBe(1);
      socket.close();
    } finally {
      await fresh.close();
    }
  });

  it('closes a socket whose snapshot could not be read with 1013 (try again), instead of leaving it waiting for ever', async () => {
    const broken = await startPushTestServer();
    try {
      const socket = new OverlaySocket(broken.origin, broken.main.token);
      await socket.nextOf('snapshot');
      // The database goes away under the running server: the resync's read fails.
      await broken.store.close();
      socket.send({ type: 'resync' });
      const closed = await socket.closed;
      expect(closed).toMatchObject({ code: 1013 });
    } finally {
      await broken.close().catch(() => { /* its store is closed already */ });
    }
  });

  it('an update whose style read failed moves the version on and says so at once, so open pages resync instead of keeping the old style', async () => {
    const broken = await startPushTestServer();
    try {
      const socket = new OverlaySocket(broken.origin, broken.main.token);
      const { version } = await socket.nextOf('snapshot');
      await broken.service.updateTemplate(broken.accountId, { scope: 'independent', preset_id: broken.main.id, values: { 'message.font-size': 31 } });
      // Committed and announced; the update's read runs a turn later, on a database now gone.
      await broken.store.close();
      const beat = await socket.nextOf('heartbeat');
      expect(beat.version).toBe(version + 1);
      // The page's answer to the gap: a resync, whose read fails too, so the socket is told to reconnect.
      socket.send({ type: 'resync' });
      expect(await socket.closed).toMatchObject({ code: 1013 });
    } finally {
      await broken.close().catch(() => { /* its store is closed already */ });
    }
  });

  it("serves a newcomer's snapshot from the last read while the stored version is unchanged", async () => {
    const first = await connect(server.syncedB.token);
    const reads = server.gateway.stats().styleReads;
    const second = await connect(server.syncedB.token);
    expect(server.gateway.stats().styleReads).toBe(reads);
    first.socket.close();
    second.socket.close();
  });

  it('gives a newcomer the style after a change, announced or not (another process writing the same database)', async () => {
    const watcher = await connect(server.main.token);
    await server.api('PUT', '/template', { scope: 'independent', preset_id: server.main.id, values: { 'message.font-size': 25 } });
    await watcher.socket.nextOf('update');
    const afterAnnounced = await connect(server.main.token);
    expect((await (async () => { afterAnnounced.socket.send({ type: 'resync' }); return afterAnnounced.socket.nextOf('snapshot'); })()).style.settings['message.font-size']).toBe(25);
    // Like the CLI in another process: a committed change and a version bump, but no event here.
    await server.store.transaction(async (tx) => {
      const overlay = (await tx.findOverlay(server.main.id))!;
      await tx.updateOverlay(server.main.id, { values: { ...overlay.values, 'message.font-size': 26 } });
      await tx.bumpOverlayVersions([server.main.id]);
    });
    const newcomer = new OverlaySocket(server.origin, server.main.token);
    expect((await newcomer.nextOf('snapshot')).style.settings['message.font-size']).toBe(26);
    for (const socket of [watcher.socket, afterAnnounced.socket, newcomer]) socket.close();
  });

  it('refuses the socket of an unknown token with 404, before any handshake', async () => {
    for (const token of ['x'.repeat(32), 'nope', '%E0%A4%A']) {
      const socket = new WebSocket(`${server.origin.replace('http', 'ws')}/overlay/${token}/ws`);
      socket.on('error', () => { /* the refused handshake */ });
      const [, response] = await once(socket, 'unexpected-response') as [unknown, { statusCode: number }];
      expect(response.statusCode).toBe(404);
      socket.terminate();
    }
  });

  it('refuses WebSocket upgrades on any other path', async () => {
    const socket = new WebSocket(`${server.origin.replace('http', 'ws')}/api/v1/template`);
    socket.on('error', () => { /* the refused handshake */ });
    const [, response] = await once(socket, 'unexpected-response') as [unknown, { statusCode: number }];
    expect(response.statusCode).toBe(404);
    socket.terminate();
  });

  it('closes a socket that sends anything but resync with 1008', async () => {
    const { socket } = await connect(server.main.token);
    socket.send({ type: 'hello' });
    expect((await socket.closed).code).toBe(1008);
  });
});

describe('push gateway socket limit per overlay', () => {
  it("refuses an overlay's sockets past maxSocketsPerOverlay with 429 before the handshake, and only that overlay's", async () => {
    const warnings: Array<{ obj: { overlayId?: number }; msg: string }> = [];
    const logger = { error() {}, warn(obj: object, msg: string) { warnings.push({ obj, msg }); } };
    const server = await startPushTestServer({ maxSocketsPerOverlay: 2, logger });
    const url = (token: string) => `${server.origin.replace('http', 'ws')}/overlay/${token}/ws`;
    const first = new OverlaySocket(server.origin, server.main.token);
    const second = new OverlaySocket(server.origin, server.main.token);
    await first.nextOf('snapshot');
    await second.nextOf('snapshot');
    // Several at once: none slips in between its token lookup and its handshake.
    const refused = await Promise.all([1, 2, 3].map(async () => {
      const socket = new WebSocket(url(server.main.token));
      socket.on('error', () => { /* the refused handshake */ });
      const status = await new Promise<number>((resolve) => {
        socket.once('open', () => resolve(101));
        socket.once('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
      });
      socket.terminate();
      return status;
    }));
    expect(refused).toEqual([429, 429, 429]);
    expect(server.gateway.stats().sockets).toBe(2);
    // One warning for the three refusals, naming the overlay by id, never its token.
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.obj.overlayId).toBe(server.main.id);
    expect(warnings[0]!.msg).toContain(`overlay ${server.main.id} refused a page (429): it has 2 sockets open already`);
    expect(JSON.stringify(warnings)).not.toContain(server.main.token);
    // Other overlays, of this channel or another, are not affected.
    const other = new OverlaySocket(server.origin, server.otherChannel.token);
    await other.nextOf('snapshot');
    const sibling = new OverlaySocket(server.origin, server.source.token);
    await sibling.nextOf('snapshot');
    // A closed socket frees its place.
    first.close();
    await first.closed;
    await expect.poll(() => server.gateway.stats().sockets).toBe(3);
    const again = new OverlaySocket(server.origin, server.main.token);
    await again.nextOf('snapshot');
    // Full again after a socket was let in: the next refusal is warned about again.
    const refusedAgain = new WebSocket(url(server.main.token));
    refusedAgain.on('error', () => { /* the refused handshake */ });
    await once(refusedAgain, 'unexpected-response');
    refusedAgain.terminate();
    expect(warnings).toHaveLength(2);
    for (const socket of [second, other, sibling, again]) socket.close();
    await server.close();
  });
});

describe('push gateway resync pacing', () => {
  it("answers a socket's resyncs at most once per resyncIntervalMs, chat going on meanwhile", async () => {
    const server = await startPushTestServer({ resyncIntervalMs: 1_000 });
    const socket = new WebSocket(`${server.origin.replace('http', 'ws')}/overlay/${server.main.token}/ws`);
    // When each snapshot and chat frame arrived, and when each resync was sent (performance.now(), the server's clock too).
    const snapshotAt: number[] = [];
    const chatAt: number[] = [];
    const resyncSentAt: number[] = [];
    // A client that asks for a fresh snapshot as soon as each one arrives.
    socket.on('message', (data) => {
      for (const line of String(data).split('\n')) {
        const type = (JSON.parse(line) as { type: string }).type;
        if (type === 'snapshot') {
          snapshotAt.push(performance.now());
          resyncSentAt.push(performance.now());
          socket.send('{"type":"resync"}');
        } else if (type === 'chat') chatAt.push(performance.now());
      }
    });
    await expect.poll(() => snapshotAt.length, { timeout: 10_000 }).toBe(2); // the connect's, and the first resync's
    server.gateway.pushChatEvent(server.accountId, { type: 'chat-cleared' });
    await expect.poll(() => chatAt.length, { timeout: 10_000 }).toBe(1);
    // The second resync waits its turn, then is answered.
    await expect.poll(() => snapshotAt.length, { timeout: 10_000 }).toBe(3);
    const [, secondAt, thirdAt] = snapshotAt as [number, number, number];
    const [firstResyncAt] = resyncSentAt as [number];
    // The first resync is answered at once (no earlier one to wait for)…
    expect(secondAt - firstResyncAt).toBeLessThan(1_000);
    // …the second only once resyncIntervalMs has passed since the first was answered (which was after
    // it was sent). 50 ms of slack: a Node timer counts from the event loop's cached clock, which can
    // lag performance.now() by the work done in that turn, so it may fire that much early by this clock.
    expect(thirdAt - firstResyncAt).toBeGreaterThanOrEqual(1_000 - 50);
    expect(snapshotAt).toHaveLength(3);
    // Chat went on meanwhile: it came while the second resync waited.
    expect(chatAt[0]).toBeGreaterThan(secondAt);
    expect(chatAt[0]).toBeLessThan(thirdAt);
    socket.terminate();
    await server.close();
  });
});

describe('push gateway when the service fails', () => {
  it('answers the upgrade with 500 when the token lookup throws, and keeps serving', async () => {
    const server = await startPushTestServer();
    await server.store.close(); // every read now throws
    const socket = new WebSocket(`${server.origin.replace('http', 'ws')}/overlay/${server.main.token}/ws`);
    socket.on('error', () => { /* the refused handshake */ });
    const [, response] = await once(socket, 'unexpected-response') as [unknown, { statusCode: number }];
    expect(response.statusCode).toBe(500);
    socket.terminate();
    expect((await fetch(`${server.origin}/overlay-assets/overlay.css`)).status).toBe(200);
    await server.close().catch(() => { /* the store is already closed */ });
  });
});

describe('push gateway heartbeats', () => {
  let server: PushTestServer;
  beforeAll(async () => { server = await startPushTestServer({ heartbeatMs: 40 }); });
  afterAll(async () => { await server.close(); });

  it('terminates a socket that stops answering pings', async () => {
    const dead = new OverlaySocket(server.origin, server.main.token, { autoPong: false });
    await dead.nextOf('snapshot');
    const closed = await dead.closed;
    expect(closed.code).toBe(1006); // no close frame: the server cut it
    expect(server.gateway.stats().deadTerminated).toBeGreaterThanOrEqual(1);
  });

  it('keeps a socket that answers, sending heartbeats with the current version', async () => {
    const live = new OverlaySocket(server.origin, server.main.token);
    const snapshot = await live.nextOf('snapshot');
    for (let i = 0; i < 5; i++) {
      const beat = await live.nextOf('heartbeat');
      expect(beat.version).toBe(snapshot.version);
    }
    expect(live.socket.readyState).toBe(WebSocket.OPEN);
    live.close();
  });
});

describe('push gateway flow control', () => {
  const limit = 64 * 1024;
  let server: PushTestServer;
  beforeAll(async () => { server = await startPushTestServer({ maxBufferedBytes: limit, closeGraceMs: 60_000 }); });
  afterAll(async () => { await server.close(); });

  /** A connected overlay socket whose reader has stopped reading (the OS buffers fill, then the gateway's). */
  async function stalledReader(): Promise<{ slow: OverlaySocket; version: number; resume(): void }> {
    const slow = new OverlaySocket(server.origin, server.main.token);
    const { version } = await slow.nextOf('snapshot');
    const raw = (slow.socket as unknown as { _socket: import('node:net').Socket })._socket;
    raw.pause();
    return { slow, version, resume: () => raw.resume() };
  }

  /** Pushes chat messages with `text` until the gateway drops one for the stalled reader. */
  async function fillUntilDropping(text: string): Promise<void> {
    const before = server.gateway.stats().droppedFrames;
    for (let sent = 0; server.gateway.stats().droppedFrames === before;) {
      if (sent > 1_000_000) throw new Error('the gateway never dropped a frame for a stalled reader');
      for (let i = 0; i < 200; i++) server.gateway.pushChatEvent(server.accountId, message(`flood-${sent++}`, text));
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  it('drops chat messages for a stalled reader within the limit; the reader then sees the gap and resyncs', async () => {
    const { slow, version, resume } = await stalledReader();
    await fillUntilDropping('x'.repeat(1000));
    expect(server.gateway.stats().maxBufferedSeen).toBeLessThanOrEqual(limit);
    expect(server.gateway.stats().slowClosed).toBe(0);
    resume();
    // Each frame read lets one more message in; once the buffer has room they are sent again,
    // after the dropped ones, so the reader meets a gap.
    let expected = version + 1;
    for (;;) {
      const frame = await slow.nextOf('chat');
      if (frame.version !== expected) break;
      expected++;
      server.gateway.pushChatEvent(server.accountId, message(`after-${expected}`));
    }
    slow.send({ type: 'resync' });
    let frame = await slow.next();
    while (frame.type !== 'snapshot') frame = await slow.next(); // frames already in flight
    expect(frame.version).toBeGreaterThan(expected);
    slow.close();
  });

  it('closes a stalled reader with 4008 when a removal does not fit, instead of dropping it', async () => {
    const { slow, resume } = await stalledReader();
    await fillUntilDropping('x'); // ~190-byte frames: less room than that is left
    server.gateway.pushChatEvent(server.accountId, { type: 'message-deleted', messageId: 'm'.repeat(150) });
    expect(server.gateway.stats().slowClosed).toBe(1);
    expect(server.gateway.stats().maxBufferedSeen).toBeLessThanOrEqual(limit);
    resume();
    expect((await slow.closed).code).toBe(4008);
  });

  it('does not even build a chat message no socket has room for, and builds it once when one has', async () => {
    /** A message that counts how often it is serialized. */
    const counted = (id: string, text?: string) => {
      const event = message(id, text);
      let serialized = 0;
      Object.defineProperty(event, 'toJSON', { enumerable: false, value: () => (serialized++, { ...event }) });
      return { event, serialized: () => serialized };
    };
    const { slow } = await stalledReader();
    // Until the socket's own buffer (not just this turn's outbox) has no room for such a message
    // at the start of a turn: the OS buffers are full too.
    for (let sent = 0; ; sent++) {
      if (sent > 100_000) throw new Error('the stalled reader never ran out of room');
      const before = server.gateway.stats().droppedFrames;
      server.gateway.pushChatEvent(server.accountId, message(`fill-${sent}`, 'x'.repeat(1000)));
      if (server.gateway.stats().droppedFrames > before) break;
      for (let i = 0; i < 40; i++) server.gateway.pushChatEvent(server.accountId, message(`fill-${sent}-${i}`, 'x'.repeat(1000)));
      await new Promise((resolve) => setImmediate(resolve));
    }
    const dropped = server.gateway.stats().droppedFrames;
    // Longer than the room a dropped 1000-character message left.
    const unread = counted('nobody-has-room', 'x'.repeat(1000));
    server.gateway.pushChatEvent(server.accountId, unread.event);
    expect(unread.serialized()).toBe(0);
    expect(server.gateway.stats().droppedFrames).toBe(dropped + 1);

    const live = new OverlaySocket(server.origin, server.main.token);
    await live.nextOf('snapshot');
    const shown = counted('one-has-room');
    server.gateway.pushChatEvent(server.accountId, shown.event);
    const frame = await live.nextOf('chat');
    expect(frame.event).toMatchObject({ type: 'message', id: 'one-has-room' });
    expect(shown.serialized()).toBe(1);
    live.close();
    slow.close();
  });
});

describe('chat frame lower bound', () => {
  it('is never more than the bytes of the frame the gateway builds, whatever the text holds', () => {
    const texts = ['hello', 'ünïcödé ✓', '🐱🇧🇷🔥', 'quotes " and \\ backslashes', 'control \u0001\u001f\n\t', 'lone \ud800 surrogate', 'x'.repeat(500), ''];
    for (const text of texts) {
      const event = { ...message('7c1a1b7e-1b2c-4c3d-9e8f-0a1b2c3d4e5f', text), displayName: text === '' ? 'Ünï' : 'Alice' };
      const frame = `{"type":"chat","version":123456,"event":${JSON.stringify(event)}}`;
      expect(chatFrameLowerBound(event)).toBeLessThanOrEqual(Buffer.byteLength(frame));
    }
  });
});

describe('push gateway when the store changes underneath', () => {
  // Another process on the same database (a hand edit, an older or newer chatskin): no event
  // reaches this gateway, so only the heartbeat's look at each open overlay's token can tell.
  it('closes the open sockets of an overlay whose token no longer names it (rotated or deleted) with 4004 within two heartbeats', async () => {
    const { mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { DatabaseSync } = await import('node:sqlite');
    const path = join(mkdtempSync(join(tmpdir(), 'push-underneath-')), 'chatskin.db');
    const server = await startPushTestServer({ storePath: path, heartbeatMs: 100 });
    const other = new DatabaseSync(path, { timeout: 5_000 });
    try {
      const rotated = new OverlaySocket(server.origin, server.main.token);
      const deleted = new OverlaySocket(server.origin, server.syncedB.token);
      const kept = new OverlaySocket(server.origin, server.syncedA.token);
      for (const socket of [rotated, deleted, kept]) await socket.nextOf('snapshot');
      other.prepare('UPDATE overlays SET token = ? WHERE id = ?').run('r'.repeat(32), server.main.id);
      other.prepare('DELETE FROM overlays WHERE id = ?').run(server.syncedB.id);
      const timeout = new Promise((resolve) => setTimeout(resolve, 2_000, { code: 'still open' }));
      expect(await Promise.race([rotated.closed, timeout])).toMatchObject({ code: 4004 });
      expect(await Promise.race([deleted.closed, timeout])).toMatchObject({ code: 4004 });
      // The old address is refused from now on; the overlays still there keep their sockets.
      const again = new WebSocket(`${server.origin.replace('http', 'ws')}/overlay/${server.main.token}/ws`);
      again.on('error', () => { /* the refused handshake */ });
      const [, response] = await once(again, 'unexpected-response') as [unknown, { statusCode: number }];
      expect(response.statusCode).toBe(404);
      expect(kept.socket.readyState).toBe(WebSocket.OPEN);
      kept.close();
    } finally {
      other.close();
      await server.close();
    }
  });

  it('sends an update within a heartbeat or two after another process changed what an open overlay shows (chatskin seed beside the host)', async () => {
    const { mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const path = join(mkdtempSync(join(tmpdir(), 'push-underneath-')), 'chatskin.db');
    const server = await startPushTestServer({ storePath: path, heartbeatMs: 100 });
    // The other process: its own store and service on the same file, whose events reach no gateway.
    const { openSqliteStore } = await import('../../../src/service/store/sqlite-store.ts');
    const { createStyleService } = await import('../../../src/service/style-service.ts');
    const { DEFAULT_TEMPLATES_DIR, loadTemplates } = await import('../../../src/service/settings/templates.ts');
    const otherStore = openSqliteStore({ path, synchronous: 'OFF' });
    const other = await createStyleService({ store: otherStore, templates: loadTemplates(DEFAULT_TEMPLATES_DIR) });
    try {
      const main = new OverlaySocket(server.origin, server.main.token);
      const synced = new OverlaySocket(server.origin, server.syncedA.token);
      const first = await main.nextOf('snapshot');
      const syncedFirst = await synced.nextOf('snapshot');
      await other.updateTemplate(server.accountId, { scope: 'independent', preset_id: server.main.id, values: { 'bubble.width': 432 } });
      await other.updateTemplate(server.accountId, { scope: 'source', preset_id: server.syncedA.id, values: { 'bubble.width': 321 } });
      const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no update after the change underneath')), 2_000));
      const update = await Promise.race([main.nextOf('update'), timeout]);
      expect(update).toMatchObject({ version: first.version + 1, causes: ['external'] });
      expect(update.style.settings['bubble.width']).toBe(432);
      const syncedUpdate = await Promise.race([synced.nextOf('update'), timeout]);
      expect(syncedUpdate).toMatchObject({ version: syncedFirst.version + 1, causes: ['external'] });
      expect(syncedUpdate.style.settings['bubble.width']).toBe(321);
      // Once read, nothing more: the next heartbeats carry the same version, and no update follows.
      const beat = await main.nextOf('heartbeat');
      expect(beat.version).toBe(update.version);
      main.close();
      synced.close();
    } finally {
      await otherStore.close();
      await server.close();
    }
  });
});
