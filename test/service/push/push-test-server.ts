// A real chatskin server for the push tests: node:sqlite in memory, the style service, the
// HTTP API and the overlay server on one Fastify instance listening on 127.0.0.1, seeded with
// a channel whose overlays cover every push case.
import Fastify from 'fastify';
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocket } from 'ws';
import { apiServerOptions, registerApi } from '../../../src/service/http/index.ts';
import { registerOverlayServer } from '../../../src/overlay/overlay-server.ts';
import type { OverlayServerOptions } from '../../../src/overlay/overlay-server.ts';
import type { ServerFrame } from '../../../src/service/push/protocol.ts';
import { splitFrames } from '../../../src/service/push/protocol.ts';
import type { PushGateway } from '../../../src/service/push/push-gateway.ts';
import { servicePushSource } from '../../../src/service/push/service-push-source.ts';
import { DEFAULT_TEMPLATES_DIR, loadTemplates } from '../../../src/service/settings/templates.ts';
import { openSqliteStore } from '../../../src/service/store/sqlite-store.ts';
import type { SqliteStore } from '../../../src/service/store/sqlite-store.ts';
import { createStyleService } from '../../../src/service/style-service.ts';
import type { StyleService } from '../../../src/service/style-service.ts';
import { apiCaller } from '../../support/api-caller.ts';

export interface PushTestServer {
  origin: string;
  /** The listening port (the origin's host is 127.0.0.1 either way). */
  port: number;
  service: StyleService;
  store: SqliteStore;
  gateway: PushGateway;
  apiKey: string;
  accountId: number;
  /** Independent default overlay "Main". */
  main: { id: number; token: string };
  /** Sync source and two overlays synced to it. */
  source: { id: number; token: string };
  syncedA: { id: number; token: string };
  syncedB: { id: number; token: string };
  /** An overlay of another channel. */
  otherChannel: { id: number; token: string; accountId: number };
  /** Assigned to the moderator role. */
  roleSkinId: number;
  /** Picked by viewer 1001. */
  pickedSkinId: number;
  /** Neither assigned nor picked. */
  unusedSkinId: number;
  /**
   * Holds the store, as another transaction does while it runs, from the moment the gateway has
   * looked up the next socket upgrade for `token`: that socket is let in, and the read of its
   * first snapshot waits behind the hold until `release` (which resolves once the hold has ended).
   */
  holdStoreOnNextUpgrade(token: string): { release(): Promise<void> };
  /** PUT/GET on the API with the channel's key. */
  api(method: 'GET' | 'PUT', path: string, body?: unknown): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

export async function startPushTestServer(options: OverlayServerOptions & { host?: string; /** A database file instead of memory (another connection can then change it underneath). */ storePath?: string } = {}): Promise<PushTestServer> {
  const store = openSqliteStore({ path: options.storePath ?? ':memory:', synchronous: 'OFF' });
  const service = await createStyleService({ store, templates: loadTemplates(DEFAULT_TEMPLATES_DIR) });
  const account = await service.ensureAccount('streamer', { premium: true });
  const { token: apiKey } = await service.createKey('streamer');
  const [main] = await service.listOverlays(account.id);
  const source = await service.createOverlay(account.id, { name: 'Source', template: 'bubbles' });
  const syncedA = await service.createOverlay(account.id, { name: 'Synced A', template: 'bubbles', syncSourceId: source.id });
  const syncedB = await service.createOverlay(account.id, { name: 'Synced B', template: 'bubbles', syncSourceId: source.id });
  const other = await service.ensureAccount('otherstreamer', { premium: true });
  const [otherMain] = await service.listOverlays(other.id);
  const roleSkin = await service.createSkin(account.id, {
    slug: 'mods', name: 'Mods', template: 'bubbles', availability: 'exclusive', values: { 'bubble.background-color': '#00ff00' },
  });
  const pickedSkin = await service.createSkin(account.id, {
    slug: 'golden', name: 'Golden', template: 'bubbles', availability: 'free', values: { 'message.font-color': '#ffd700' },
  });
  const unusedSkin = await service.createSkin(account.id, {
    slug: 'unused', name: 'Unused', template: 'bubbles', availability: 'free', values: { 'message.font-size': 30 },
  });
  await service.assignSkinRole(account.id, 'moderator', roleSkin.id);
  const viewer = await service.registerViewer({ twitchUserId: '1001', login: 'viewer' });
  await service.pickSkin(account.id, viewer.id, pickedSkin.id);

  const app = Fastify(apiServerOptions({ redirectErrors: false }));
  registerApi(app, {
    operations: service,
    authenticate: (token) => service.authenticate(token),
    rateLimit: { perMinute: 10_000 },
    redirectErrors: false,
  });
  const { host, storePath: _storePath, ...overlayOptions } = options;
  const gateway = registerOverlayServer(app, servicePushSource(service), { page: { fontStylesheetBaseUrl: null }, ...overlayOptions });
  await app.listen({ port: 0, host: host ?? '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;

  return {
    origin, port, service, store, gateway, apiKey, accountId: account.id,
    main: { id: main!.id, token: main!.token },
    source: { id: source.id, token: source.token },
    syncedA: { id: syncedA.id, token: syncedA.token },
    syncedB: { id: syncedB.id, token: syncedB.token },
    otherChannel: { id: otherMain!.id, token: otherMain!.token, accountId: other.id },
    roleSkinId: roleSkin.id,
    pickedSkinId: pickedSkin.id,
    unusedSkinId: unusedSkin.id,
    holdStoreOnNextUpgrade(token) {
      const held = new Promise<{ ended: Promise<void>; end(): void }>((resolveHeld) => {
        const onUpgrade = (request: IncomingMessage): void => {
          if (request.url !== `/overlay/${token}/ws`) return;
          app.server.off('upgrade', onUpgrade);
          // The gateway's listener ran first: its token lookup is done or queued on the store's
          // lock, and the snapshot read, a turn after the socket is let in, queues behind this.
          let end!: () => void;
          const gate = new Promise<void>((resolve) => { end = resolve; });
          resolveHeld({ ended: store.read(() => gate), end });
        };
        app.server.on('upgrade', onUpgrade);
      });
      return {
        async release() {
          const { ended, end } = await held;
          end();
          await ended;
        },
      };
    },
    api: apiCaller(origin, apiKey, 'chatskin-push-tests/1.0'),
    async close() {
      await app.close();
      await store.close();
    },
  };
}

/** A WebSocket client of an overlay that queues frames so tests can await them in order. */
export class OverlaySocket {
  readonly socket: WebSocket;
  readonly #frames: ServerFrame[] = [];
  readonly #waiters: Array<(frame: ServerFrame) => void> = [];
  readonly closed: Promise<{ code: number; reason: string }>;

  constructor(origin: string, token: string, options: { autoPong?: boolean } = {}) {
    this.socket = new WebSocket(`${origin.replace(/^http/, 'ws')}/overlay/${token}/ws`, { autoPong: options.autoPong ?? true });
    this.socket.on('message', (data) => {
      for (const text of splitFrames(String(data))) {
        const frame = JSON.parse(text) as ServerFrame;
        const waiter = this.#waiters.shift();
        if (waiter !== undefined) waiter(frame);
        else this.#frames.push(frame);
      }
    });
    this.closed = new Promise((resolve) => {
      this.socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() }));
    });
    this.socket.on('error', () => { /* surfaced through `closed` */ });
  }

  /** The next frame, skipping heartbeats unless asked for. */
  async next(options: { heartbeats?: boolean } = {}): Promise<ServerFrame> {
    for (;;) {
      const frame = this.#frames.shift() ?? await new Promise<ServerFrame>((resolve) => this.#waiters.push(resolve));
      if (frame.type !== 'heartbeat' || options.heartbeats === true) return frame;
    }
  }

  async nextOf<T extends ServerFrame['type']>(type: T): Promise<Extract<ServerFrame, { type: T }>> {
    const frame = await this.next({ heartbeats: type === 'heartbeat' });
    if (frame.type !== type) throw new Error(`expected a ${type} frame, got ${JSON.stringify(frame).slice(0, 300)}`);
    return frame as Extract<ServerFrame, { type: T }>;
  }

  send(value: unknown): void {
    this.socket.send(JSON.stringify(value));
  }

  close(): void {
    this.socket.close();
  }
}
