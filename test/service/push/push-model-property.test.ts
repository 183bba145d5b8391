// Model-based property of the server side of the live push (docs/push.md, the spec's "Events"):
// the real server (node:sqlite on a temp file, the style service, the HTTP API and the overlay
// server on one Fastify instance on 127.0.0.1:0) and real `ws` clients that act as the page does.
// fast-check generates schedules of API writes over real HTTP (PUT /template in every scope,
// PUT /skins, unlock and revoke), the host's own changes (viewers' skin picks, role skins, sync
// sources), local chat, API key revocation, a new overlay URL, an overlay deleted underneath
// (another connection to the database), and sockets connecting, closing and asking to resync, over
// several overlays of one account (some synced to others, one on another template) and a second
// account. After each step has settled:
//   - every open socket's style, built only from the frames it received (snapshot, then each
//     update's whole style), equals GET /template's settings (and template) of its overlay and a
//     fresh read of the overlay;
//   - each socket got exactly the frames the docs' cause table names for the step: one `update` on
//     every overlay the change affects (a sync source's change on all its followers), one `chat`
//     on each overlay of the channel, a snapshot for a new socket or a resync, and nothing else;
//     never a frame of another account's overlay;
//   - versions go up by one per frame (a snapshot: at least as high as what the socket holds);
//     a gap would be answered with a resync, as the page does, but no documented cause of one
//     (a dropped frame, a failed read) happens here, so a gap fails the property;
//   - a refused write (4xx) pushes nothing and changes nothing stored;
//   - only documented close codes: 4004 for a socket whose token no longer names its overlay,
//     nothing else closes a socket here.
// PUSH_MODEL_RUNS raises the run count; PUSH_MODEL_SEED replays a seed (printed on failure).
import fc from 'fast-check';
import Fastify from 'fastify';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { registerOverlayServer } from '../../../src/overlay/overlay-server.ts';
import { apiServerOptions, registerApi } from '../../../src/service/http/index.ts';
import type { ServerFrame } from '../../../src/service/push/protocol.ts';
import { splitFrames } from '../../../src/service/push/protocol.ts';
import type { PushGateway } from '../../../src/service/push/push-gateway.ts';
import { overlayStyleOf, servicePushSource } from '../../../src/service/push/service-push-source.ts';
import { DEFAULT_TEMPLATES_DIR, loadTemplates } from '../../../src/service/settings/templates.ts';
import { openSqliteStore } from '../../../src/service/store/sqlite-store.ts';
import type { SqliteStore } from '../../../src/service/store/sqlite-store.ts';
import { createStyleService } from '../../../src/service/style-service.ts';
import type { StyleService } from '../../../src/service/style-service.ts';

const RUNS = Number(process.env.PUSH_MODEL_RUNS ?? 16);
// Short, for the 4004 and `external` steps, but not so short that a busy moment of this one process
// (server and pages share its event loop) misses a pong and is terminated (1006, docs/push.md).
const HEARTBEAT_MS = 250;
/** How long a step waits for frames it expects, and for a 4004 close. */
const SETTLE_TIMEOUT_MS = 4_000;
/** How long a settled step waits for frames it does not expect. */
const QUIET_MS = 40;
/** Close codes docs/push.md lists (1000/1005: our own close). */
const DOCUMENTED_CLOSE_CODES = new Set([1001, 1008, 1009, 1013, 4004, 4008, 1006]);

type AccountKey = 'A' | 'B';
type OverlayKey = 'A.main' | 'A.src' | 'A.f1' | 'A.f2' | 'A.solo' | 'A.tick' | 'B.main' | 'B.f';
type SkinKey = 'A.mods' | 'A.gold' | 'A.excl' | 'A.shop' | 'A.tk' | 'B.bsk' | 'glob';
type ViewerKey = 'v1' | 'v2' | 'ghost';
type Role = 'broadcaster' | 'moderator' | 'vip' | 'subscriber';
type Scope = 'source' | 'override' | 'independent';
type Values = Record<string, unknown>;

const OVERLAY_KEYS: OverlayKey[] = ['A.main', 'A.src', 'A.f1', 'A.f2', 'A.solo', 'A.tick', 'B.main', 'B.f'];
const SKIN_KEYS: SkinKey[] = ['A.mods', 'A.gold', 'A.excl', 'A.shop', 'A.tk', 'B.bsk', 'glob'];
const ROLES: Role[] = ['broadcaster', 'moderator', 'vip', 'subscriber'];

interface ModelOverlay {
  key: OverlayKey; id: number; account: AccountKey; template: string; token: string;
  syncSource: OverlayKey | null; values: Values; deleted: boolean; isDefault: boolean;
}
interface ModelSkin { key: SkinKey; id: number; account: AccountKey | null; template: string; availability: string; overrides: Values; active: boolean }
interface ModelAccount { key: AccountKey; id: number; login: string; apiKey: string }

// ---- operations -------------------------------------------------------------------------------

type Op =
  | { kind: 'connect'; o: OverlayKey }
  | { kind: 'close'; s: number }
  | { kind: 'resync'; s: number }
  | { kind: 'putTemplate'; acct: AccountKey; o: OverlayKey | 'default' | { own: number }; scope: Scope | { fitting: number }; values: Values; presetInQuery: boolean }
  | { kind: 'putSkin'; acct: AccountKey; skin: SkinKey | { own: number }; values: Values }
  | { kind: 'unlock'; acct: AccountKey; viewer: ViewerKey; skin: SkinKey }
  | { kind: 'revoke'; acct: AccountKey; viewer: ViewerKey; skin: SkinKey }
  | { kind: 'pick'; acct: AccountKey; viewer: 'v1' | 'v2'; skin: SkinKey | null }
  | { kind: 'assignRole'; acct: AccountKey; role: Role; skin: SkinKey | null }
  | { kind: 'setSync'; o: OverlayKey; src: OverlayKey | null }
  | { kind: 'chat'; o: OverlayKey }
  | { kind: 'revokeKey'; acct: AccountKey }
  | { kind: 'renewToken'; o: OverlayKey }
  | { kind: 'deleteOverlay'; o: OverlayKey }
  | { kind: 'skinActive'; skin: SkinKey; active: boolean }
  | { kind: 'externalWrite'; acct: AccountKey; o: { own: number }; fitting: number; values: Values }
  | { kind: 'badFrame'; s: number; big: boolean }
  | { kind: 'refusedWrite'; acct: AccountKey; why: 'premium' | 'too-large' | 'no-key' | 'not-json' }
  | { kind: 'burst'; items: BurstItem[] };

type BurstItem =
  | Extract<Op, { kind: 'putTemplate' }>
  | Extract<Op, { kind: 'putSkin' }>
  | { kind: 'chat'; o: OverlayKey }
  | { kind: 'connect'; o: OverlayKey }
  | { kind: 'resync'; s: number }
  | { kind: 'close'; s: number };

const VALUE_CHOICES: Record<string, unknown[]> = {
  'bubble.width': [300, 400, 420, 10_000],
  'bubble.background-color': ['#112233', '#ff00ff', 'transparent', '#18181bcc'],
  'message.font-size': [14, 16, 20],
  'message.font-color': ['#ffffff', '#000000', '#ffd700'],
  'avatar.show': [true, false],
  'bubble.alignment': ['left', 'center', 'right'],
};
/** Values every template refuses. */
const BAD_VALUES: Values[] = [{ 'bubble.width': 10_001 }, { 'bubble.colour': '#fff' }, { 'message.font-size': '14' }, { 'avatar.show': 1 }];

const valuesArb: fc.Arbitrary<Values> = fc.tuple(
  fc.dictionary(
    fc.constantFrom(...Object.keys(VALUE_CHOICES)),
    fc.constant(null),
    { minKeys: 0, maxKeys: 3 },
  ).chain((keys) => fc.tuple(...Object.keys(keys).map((key) => fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...VALUE_CHOICES[key]!) },
    { weight: 1, arbitrary: fc.constant(null) },
  ).map((value) => [key, value] as const)))),
  fc.oneof({ weight: 7, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.constantFrom(...BAD_VALUES) }),
).map(([pairs, bad]) => {
  const values: Values = Object.fromEntries(pairs);
  if (bad !== null) Object.assign(values, bad);
  if (Object.keys(values).length === 0) values['bubble.width'] = 420;
  return values;
});

const acctArb = fc.constantFrom<AccountKey>('A', 'A', 'A', 'B');
const overlayArb = fc.constantFrom(...OVERLAY_KEYS);
const skinArb = fc.constantFrom(...SKIN_KEYS);

const putTemplateArb = fc.record({
  kind: fc.constant('putTemplate' as const), acct: acctArb,
  // Mostly one of the caller's own overlays in a scope that fits it (picked when the step runs).
  o: fc.oneof(
    { weight: 6, arbitrary: fc.nat(20).map((own) => ({ own })) },
    { weight: 2, arbitrary: overlayArb },
    { weight: 1, arbitrary: fc.constant('default' as const) },
  ),
  scope: fc.oneof(
    { weight: 4, arbitrary: fc.nat(1).map((fitting) => ({ fitting })) },
    { weight: 1, arbitrary: fc.constantFrom<Scope>('source', 'override', 'independent') },
  ),
  values: valuesArb, presetInQuery: fc.boolean(),
});

const putSkinArb = fc.record({ kind: fc.constant('putSkin' as const), acct: acctArb, skin: fc.oneof({ weight: 3, arbitrary: fc.nat(20).map((own) => ({ own })) }, { weight: 1, arbitrary: skinArb }), values: valuesArb });

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: overlayArb.map((o) => ({ kind: 'connect' as const, o })) },
  { weight: 2, arbitrary: fc.nat(50).map((s) => ({ kind: 'close' as const, s })) },
  { weight: 2, arbitrary: fc.nat(50).map((s) => ({ kind: 'resync' as const, s })) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('badFrame' as const), s: fc.nat(50), big: fc.boolean() }) },
  { weight: 8, arbitrary: putTemplateArb },
  { weight: 4, arbitrary: putSkinArb },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('unlock' as const), acct: acctArb, viewer: fc.constantFrom<ViewerKey>('v1', 'v2', 'ghost'), skin: skinArb }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('revoke' as const), acct: acctArb, viewer: fc.constantFrom<ViewerKey>('v1', 'v2', 'ghost'), skin: skinArb }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('pick' as const), acct: acctArb, viewer: fc.constantFrom<'v1' | 'v2'>('v1', 'v2'), skin: fc.oneof({ weight: 4, arbitrary: skinArb }, { weight: 1, arbitrary: fc.constant(null) }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('assignRole' as const), acct: acctArb, role: fc.constantFrom(...ROLES), skin: fc.oneof({ weight: 4, arbitrary: skinArb }, { weight: 1, arbitrary: fc.constant(null) }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('setSync' as const), o: overlayArb, src: fc.oneof({ weight: 3, arbitrary: overlayArb }, { weight: 1, arbitrary: fc.constant(null) }) }) },
  { weight: 2, arbitrary: overlayArb.map((o) => ({ kind: 'chat' as const, o })) },
  { weight: 1, arbitrary: acctArb.map((acct) => ({ kind: 'revokeKey' as const, acct })) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('externalWrite' as const), acct: acctArb, o: fc.nat(20).map((own) => ({ own })), fitting: fc.nat(1), values: valuesArb }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('refusedWrite' as const), acct: acctArb, why: fc.constantFrom('premium' as const, 'too-large' as const, 'no-key' as const, 'not-json' as const) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('skinActive' as const), skin: skinArb, active: fc.boolean() }) },
  { weight: 1, arbitrary: overlayArb.map((o) => ({ kind: 'renewToken' as const, o })) },
  {
    weight: 2,
    arbitrary: fc.array(fc.oneof(
      { weight: 4, arbitrary: putTemplateArb },
      { weight: 2, arbitrary: putSkinArb },
      { weight: 2, arbitrary: overlayArb.map((o) => ({ kind: 'chat' as const, o })) },
      { weight: 2, arbitrary: overlayArb.map((o) => ({ kind: 'connect' as const, o })) },
      { weight: 1, arbitrary: fc.nat(50).map((s) => ({ kind: 'resync' as const, s })) },
      { weight: 1, arbitrary: fc.nat(50).map((s) => ({ kind: 'close' as const, s })) },
    ), { minLength: 2, maxLength: 8 }).map((items) => ({ kind: 'burst' as const, items })),
  },
  { weight: 1, arbitrary: fc.constantFrom<OverlayKey>('A.f2', 'A.solo', 'A.tick', 'B.f').map((o) => ({ kind: 'deleteOverlay' as const, o })) },
);

// ---- the page side of one socket -----------------------------------------------------------------

interface Counts { snapshot: number; update: number; chat: number }

class PageSocket {
  readonly ws: WebSocket;
  version: number | null = null;
  style: any = null;
  counts: Counts = { snapshot: 0, update: 0, chat: 0 };
  closeCode: number | null = null;
  closedByUs = false;
  readonly problems: string[] = [];
  readonly opened: Promise<void>;
  readonly overlay: ModelOverlay;
  readonly label: string;

  constructor(origin: string, overlay: ModelOverlay, token: string, label: string) {
    this.overlay = overlay;
    this.label = label;
    this.ws = new WebSocket(`${origin.replace(/^http/, 'ws')}/overlay/${token}/ws`);
    this.opened = new Promise((resolve, reject) => {
      this.ws.once('open', () => resolve());
      this.ws.once('unexpected-response', (_request, response) => reject(Object.assign(new Error(`upgrade refused ${response.statusCode}`), { status: response.statusCode })));
      this.ws.once('error', reject);
    });
    this.opened.catch(() => { /* awaited by the step */ });
    this.ws.on('message', (data) => {
      for (const text of splitFrames(String(data))) this.#onFrame(JSON.parse(text) as ServerFrame);
    });
    this.ws.on('close', (code) => { this.closeCode = code; });
  }

  #onFrame(frame: ServerFrame): void {
    const where = `${this.label} (overlay ${this.overlay.key})`;
    switch (frame.type) {
      case 'snapshot':
        if (frame.overlay.id !== this.overlay.id) this.problems.push(`${where}: snapshot of overlay ${frame.overlay.id}`);
        if (this.version !== null && frame.version < this.version) this.problems.push(`${where}: snapshot version ${frame.version} below ${this.version}`);
        this.version = frame.version;
        this.style = frame.style;
        this.counts.snapshot++;
        return;
      case 'update':
      case 'chat':
        if (frame.type === 'update') this.counts.update++;
        else this.counts.chat++;
        if (this.version === null) {
          if (frame.type === 'update') this.problems.push(`${where}: update before the first snapshot`);
          return;
        }
        this.#advance(frame.version, frame.type);
        if (frame.type === 'update') this.style = frame.style;
        return;
      case 'heartbeat':
        // docs/push.md, snapshot: update and heartbeat frames are not sent before the first snapshot.
        if (this.version === null) {
          this.problems.push(`${where}: heartbeat before the first snapshot`);
          return;
        }
        if (frame.version < this.version) this.problems.push(`${where}: heartbeat version ${frame.version} below ${this.version}`);
        else if (frame.version > this.version) this.#gap(frame.version, 'heartbeat');
        return;
    }
  }

  #advance(version: number, type: string): void {
    const held = this.version!;
    if (version <= held) this.problems.push(`${this.label}: ${type} version ${version} not above ${held}`);
    else if (version > held + 1) this.#gap(version, type);
    this.version = Math.max(held, version);
  }

  /** docs/push.md: apply, then ask for a snapshot. No documented cause of a gap occurs here. */
  #gap(version: number, type: string): void {
    this.problems.push(`${this.label}: ${type} version ${version} after ${this.version} (gap)`);
    this.ws.send('{"type":"resync"}');
  }

  get open(): boolean {
    return this.ws.readyState === WebSocket.OPEN;
  }
}

// ---- the world ---------------------------------------------------------------------------------

interface World {
  origin: string;
  service: StyleService;
  store: SqliteStore;
  gateway: PushGateway;
  accounts: Record<AccountKey, ModelAccount>;
  overlays: Record<OverlayKey, ModelOverlay>;
  skins: Record<SkinKey, ModelSkin>;
  viewers: Record<'v1' | 'v2', { id: number; twitchUserId: string; login: string }>;
  /** account -> "viewer|skin" -> grant source */
  grants: Record<AccountKey, Map<string, 'api' | 'purchase'>>;
  picks: Record<AccountKey, Map<'v1' | 'v2', SkinKey>>;
  roles: Record<AccountKey, Map<Role, SkinKey>>;
  defaults: Record<string, Values>;
  sockets: PageSocket[];
  /** Old tokens (renewed or deleted overlays) whose upgrades must be refused with 404. */
  deadTokens: string[];
  log: string[];
  /** The style service of another process on the same database file (made on first use). */
  otherProcess(): Promise<StyleService>;
  close(): Promise<void>;
}

async function startWorld(): Promise<World> {
  const dir = mkdtempSync(path.join(tmpdir(), 'push-model-'));
  const storePath = path.join(dir, 'chatskin.db');
  const store = openSqliteStore({ path: storePath, synchronous: 'OFF' });
  const service = await createStyleService({ store, templates: loadTemplates(DEFAULT_TEMPLATES_DIR) });
  const accountA = await service.ensureAccount('streamer', { premium: true });
  const accountB = await service.ensureAccount('otherstreamer', { premium: true });
  const accounts: Record<AccountKey, ModelAccount> = {
    A: { key: 'A', id: accountA.id, login: 'streamer', apiKey: (await service.createKey('streamer')).token },
    B: { key: 'B', id: accountB.id, login: 'otherstreamer', apiKey: (await service.createKey('otherstreamer')).token },
  };
  const [mainA] = await service.listOverlays(accountA.id);
  const [mainB] = await service.listOverlays(accountB.id);
  const overlays = {} as Record<OverlayKey, ModelOverlay>;
  const add = (key: OverlayKey, account: AccountKey, o: { id: number; token: string; template: { slug: string } }, syncSource: OverlayKey | null, isDefault = false): void => {
    overlays[key] = { key, id: o.id, account, template: o.template.slug, token: o.token, syncSource, values: {}, deleted: false, isDefault };
  };
  add('A.main', 'A', mainA!, null, true);
  add('B.main', 'B', mainB!, null, true);
  add('A.src', 'A', await service.createOverlay(accountA.id, { name: 'Source', template: 'bubbles' }), null);
  add('A.f1', 'A', await service.createOverlay(accountA.id, { name: 'F1', template: 'bubbles', syncSourceId: overlays['A.src'].id }), 'A.src');
  add('A.f2', 'A', await service.createOverlay(accountA.id, { name: 'F2', template: 'bubbles', syncSourceId: overlays['A.src'].id }), 'A.src');
  add('A.solo', 'A', await service.createOverlay(accountA.id, { name: 'Solo', template: 'bubbles' }), null);
  add('A.tick', 'A', await service.createOverlay(accountA.id, { name: 'Tick', template: 'ticker' }), null);
  add('B.f', 'B', await service.createOverlay(accountB.id, { name: 'BF', template: 'bubbles', syncSourceId: overlays['B.main'].id }), 'B.main');
  for (const o of Object.values(overlays)) {
    if (o.template !== 'bubbles' && o.key !== 'A.tick') throw new Error('unexpected template');
  }
  const defaults: Record<string, Values> = {};
  for (const slug of ['bubbles', 'ticker']) defaults[slug] = { ...service.templates.findBySlug(slug)!.defaults };

  const skins = {} as Record<SkinKey, ModelSkin>;
  const addSkin = async (key: SkinKey, account: AccountKey | null, template: string, availability: string, values: Values): Promise<void> => {
    const kept = Object.fromEntries(Object.entries(values).filter(([k]) => k in defaults[template]!));
    const skin = await service.createSkin(account === null ? null : accounts[account].id, {
      slug: key.replace(/^.*\./, '').concat('-skin'), name: key, template, availability: availability as 'free', values: kept,
    });
    skins[key] = { key, id: skin.id, account, template, availability, overrides: dropDefaults(defaults[template]!, kept), active: true };
  };
  await addSkin('A.mods', 'A', 'bubbles', 'exclusive', { 'bubble.background-color': '#00ff00' });
  await addSkin('A.gold', 'A', 'bubbles', 'free', { 'message.font-color': '#ffd700' });
  await addSkin('A.excl', 'A', 'bubbles', 'exclusive', { 'bubble.width': 300 });
  await addSkin('A.shop', 'A', 'bubbles', 'purchase', { 'bubble.alignment': 'right' });
  await addSkin('A.tk', 'A', 'ticker', 'free', { 'message.font-size': 30 });
  await addSkin('B.bsk', 'B', 'bubbles', 'exclusive', { 'bubble.width': 500 });
  await addSkin('glob', null, 'bubbles', 'free', { 'avatar.show': false });

  const v1 = await service.registerViewer({ twitchUserId: '1001', login: 'viewer1' });
  const v2 = await service.registerViewer({ twitchUserId: '1002', login: 'viewer2' });
  const viewers = { v1: { id: v1.id, twitchUserId: '1001', login: 'viewer1' }, v2: { id: v2.id, twitchUserId: '1002', login: 'viewer2' } };
  await service.assignSkinRole(accountA.id, 'moderator', skins['A.mods'].id);
  await service.assignSkinRole(accountB.id, 'broadcaster', skins['B.bsk'].id);
  await service.pickSkin(accountA.id, v1.id, skins['A.gold'].id);
  await service.recordPurchase(accountA.id, v2.id, skins['A.shop'].id);
  await service.pickSkin(accountB.id, v2.id, skins.glob.id);

  const app = Fastify(apiServerOptions({ redirectErrors: false }));
  registerApi(app, {
    operations: service,
    authenticate: (token) => service.authenticate(token),
    rateLimit: { perMinute: 1_000_000, failedAuthPerMinute: 1_000_000 },
    redirectErrors: false,
  });
  const gateway = registerOverlayServer(app, servicePushSource(service), {
    page: { fontStylesheetBaseUrl: null }, heartbeatMs: HEARTBEAT_MS, resyncIntervalMs: 10,
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  let other: { store: SqliteStore; service: StyleService } | undefined;
  const world: World = {
    origin: `http://127.0.0.1:${port}`, service, store, gateway, accounts, overlays, skins, viewers, defaults,
    grants: { A: new Map([['v2|A.shop', 'purchase']]), B: new Map() },
    picks: { A: new Map([['v1', 'A.gold']]), B: new Map([['v2', 'glob']]) },
    roles: { A: new Map([['moderator', 'A.mods']]), B: new Map([['broadcaster', 'B.bsk']]) },
    sockets: [], deadTokens: [], log: [],
    async otherProcess() {
      if (other === undefined) {
        const otherStore = openSqliteStore({ path: storePath, synchronous: 'OFF' });
        other = { store: otherStore, service: await createStyleService({ store: otherStore, templates: loadTemplates(DEFAULT_TEMPLATES_DIR) }) };
      }
      return other.service;
    },
    async close() {
      await other?.store.close();
      for (const s of world.sockets) s.ws.terminate();
      await app.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  (world as World & { storePath: string }).storePath = storePath;
  return world;
}

function dropDefaults(defaults: Values, values: Values): Values {
  return Object.fromEntries(Object.entries(values).filter(([k, v]) => !Object.is(defaults[k], v) && v !== null));
}

// ---- HTTP --------------------------------------------------------------------------------------

async function api(world: World, apiKey: string, method: string, pathAndQuery: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${world.origin}/api/v1${pathAndQuery}`, {
    method,
    headers: {
      authorization: `Bearer ${apiKey}`, accept: 'application/json', 'user-agent': 'push-model-property/1.0',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

/** Everything stored that the API and the push can see, for "a refused write changes nothing". */
async function storedState(world: World): Promise<unknown> {
  const state: Record<string, unknown> = {};
  for (const o of Object.values(world.overlays)) {
    if (o.deleted) continue;
    const read = await api(world, world.accounts[o.account].apiKey, 'GET', `/template?preset_id=${o.id}`);
    state[`template ${o.key}`] = read.status === 200 ? read.body.data : read.status;
    const snapshot = await world.service.getOverlaySnapshot(o.id);
    state[`style ${o.key}`] = snapshot === null ? null : overlayStyleOf(snapshot);
  }
  for (const acct of ['A', 'B'] as const) {
    for (const o of ['main', 'tick'] as const) {
      const overlay = world.overlays[`${acct}.${o}` as OverlayKey];
      if (overlay === undefined || overlay.deleted) continue;
      state[`skins ${acct} ${o}`] = (await api(world, world.accounts[acct].apiKey, 'GET', `/skins?preset_id=${overlay.id}`)).body;
    }
    for (const v of ['viewer1', 'viewer2']) {
      state[`grants ${acct} ${v}`] = (await api(world, world.accounts[acct].apiKey, 'GET', `/viewers/${v}/skins`)).body;
    }
  }
  return state;
}

// ---- the model's predictions --------------------------------------------------------------------

interface Expectation {
  /** Expected status of the write (HTTP, or the service error's status for the host's own calls). */
  status?: number;
  /** Overlays that must get exactly one update. */
  updates: Set<OverlayKey>;
  /** Overlays that must get exactly one chat frame. */
  chats: Set<OverlayKey>;
  /** Apply the model change once the write is known to have succeeded. */
  commit?: () => void;
}

const nothing = (status: number): Expectation => ({ status, updates: new Set(), chats: new Set() });

function liveOverlays(world: World, acct: AccountKey): ModelOverlay[] {
  return Object.values(world.overlays).filter((o) => o.account === acct && !o.deleted);
}
function followers(world: World, key: OverlayKey): OverlayKey[] {
  return Object.values(world.overlays).filter((o) => o.syncSource === key && !o.deleted).map((o) => o.key);
}
function sameValues(a: Values, b: Values): boolean {
  const ka = Object.keys(a).sort();
  const kb = Object.keys(b).sort();
  return ka.length === kb.length && ka.every((k, i) => k === kb[i] && Object.is(a[k], b[k]));
}
function patch(stored: Values, values: Values): Values {
  const next = { ...stored };
  for (const [k, v] of Object.entries(values)) {
    if (v === null) delete next[k];
    else next[k] = v;
  }
  return next;
}
function valuesValid(world: World, template: string, values: Values): boolean {
  return Object.entries(values).every(([k, v]) => k in world.defaults[template]! && (v === null || VALUE_CHOICES[k]!.includes(v)));
}
function usableSkin(world: World, acct: AccountKey, skin: SkinKey): boolean {
  const s = world.skins[skin];
  return s.account === null || s.account === acct;
}
function overlaysUsingSkin(world: World, skin: SkinKey): Set<OverlayKey> {
  const s = world.skins[skin];
  const out = new Set<OverlayKey>();
  for (const acct of ['A', 'B'] as const) {
    const uses = [...world.roles[acct].values(), ...world.picks[acct].values()].includes(skin);
    if (!uses) continue;
    for (const o of liveOverlays(world, acct)) if (o.template === s.template) out.add(o.key);
  }
  return out;
}
const allOf = (world: World, acct: AccountKey): Set<OverlayKey> => new Set(liveOverlays(world, acct).map((o) => o.key));

/** The step's overlay and scope once the generated choices are resolved against the model. */
function resolvePutTemplate(world: World, op: Extract<Op, { kind: 'putTemplate' }>): { o: OverlayKey | 'default'; scope: Scope } {
  let o: OverlayKey | 'default';
  if (typeof op.o === 'object') {
    const own = liveOverlays(world, op.acct);
    o = own[op.o.own % own.length]!.key;
  } else o = op.o;
  let scope: Scope;
  if (typeof op.scope === 'object') {
    const target = o === 'default' ? liveOverlays(world, op.acct).find((x) => x.isDefault) : world.overlays[o];
    scope = target?.syncSource == null ? 'independent' : op.scope.fitting === 0 ? 'source' : 'override';
  } else scope = op.scope;
  return { o, scope };
}

function expectPutTemplate(world: World, op: { acct: AccountKey; o: OverlayKey | 'default'; scope: Scope; values: Values }): Expectation {
  const target = op.o === 'default'
    ? liveOverlays(world, op.acct).find((o) => o.isDefault)
    : world.overlays[op.o];
  if (target === undefined || target.deleted || target.account !== op.acct) return nothing(404);
  const hasSource = target.syncSource !== null;
  const scopeOk = op.scope === 'independent' ? !hasSource : hasSource;
  if (!scopeOk || !valuesValid(world, target.template, op.values)) return nothing(422);
  const written = op.scope === 'source' ? world.overlays[target.syncSource!] : target;
  const next = patch(written.values, op.values);
  if (sameValues(next, written.values)) return nothing(200);
  // docs/push.md, cause `template`: `source` -> the source and every overlay synced to it;
  // `independent` -> the overlay and every overlay synced to it; `override` -> the overlay.
  const updates = new Set<OverlayKey>(op.scope === 'override' ? [target.key] : [written.key, ...followers(world, written.key)]);
  return { status: 200, updates, chats: new Set(), commit: () => { written.values = next; } };
}

function resolveSkin(world: World, acct: AccountKey, skin: SkinKey | { own: number }): SkinKey {
  if (typeof skin === 'string') return skin;
  const own = SKIN_KEYS.filter((k) => world.skins[k].account === acct);
  return own[skin.own % own.length]!;
}

function expectPutSkin(world: World, op: { acct: AccountKey; skin: SkinKey; values: Values }): Expectation {
  const skin = world.skins[op.skin];
  if (skin.account !== null && skin.account !== op.acct) return nothing(404);
  if (skin.account === null) return nothing(403);
  if (!valuesValid(world, skin.template, op.values)) return nothing(422);
  const next = dropDefaults(world.defaults[skin.template]!, patch(skin.overrides, op.values));
  if (sameValues(next, skin.overrides)) return nothing(200);
  // cause `skin`: a skin assigned to a role on the overlay's channel or picked by one of its viewers.
  return { status: 200, updates: overlaysUsingSkin(world, op.skin), chats: new Set(), commit: () => { skin.overrides = next; } };
}

function expectUnlock(world: World, op: Extract<Op, { kind: 'unlock' }>): Expectation {
  if (op.viewer === 'ghost') return nothing(404);
  if (!usableSkin(world, op.acct, op.skin)) return nothing(404);
  if (!world.skins[op.skin].active) return nothing(422);
  const key = `${op.viewer}|${op.skin}`;
  if (world.grants[op.acct].has(key)) return nothing(200);
  // The grant does not select the skin: nothing to push.
  return { status: 201, updates: new Set(), chats: new Set(), commit: () => { world.grants[op.acct].set(key, 'api'); } };
}

function expectRevoke(world: World, op: Extract<Op, { kind: 'revoke' }>): Expectation {
  if (op.viewer === 'ghost') return nothing(404);
  if (!usableSkin(world, op.acct, op.skin)) return nothing(404);
  const key = `${op.viewer}|${op.skin}`;
  if (world.grants[op.acct].get(key) !== 'api') return nothing(404);
  const losesPick = world.picks[op.acct].get(op.viewer) === op.skin && world.skins[op.skin].availability !== 'free';
  return {
    status: 200, chats: new Set(),
    // cause `viewer-skin`: the viewer's pick is dropped with the grant.
    updates: losesPick ? allOf(world, op.acct) : new Set(),
    commit: () => {
      world.grants[op.acct].delete(key);
      if (losesPick) world.picks[op.acct].delete(op.viewer as 'v1' | 'v2');
    },
  };
}

function expectPick(world: World, op: Extract<Op, { kind: 'pick' }>): Expectation {
  if (op.skin !== null) {
    if (!usableSkin(world, op.acct, op.skin)) return nothing(404);
    if (!world.skins[op.skin].active) return nothing(422);
    if (world.skins[op.skin].availability !== 'free' && !world.grants[op.acct].has(`${op.viewer}|${op.skin}`)) return nothing(403);
  }
  if ((world.picks[op.acct].get(op.viewer) ?? null) === op.skin) return nothing(200);
  return {
    status: 200, chats: new Set(), updates: allOf(world, op.acct),
    commit: () => { if (op.skin === null) world.picks[op.acct].delete(op.viewer); else world.picks[op.acct].set(op.viewer, op.skin); },
  };
}

function expectAssignRole(world: World, op: Extract<Op, { kind: 'assignRole' }>): Expectation {
  if (op.skin !== null && !usableSkin(world, op.acct, op.skin)) return nothing(404);
  if ((world.roles[op.acct].get(op.role) ?? null) === op.skin) return nothing(200);
  return {
    status: 200, chats: new Set(), updates: allOf(world, op.acct),
    commit: () => { if (op.skin === null) world.roles[op.acct].delete(op.role); else world.roles[op.acct].set(op.role, op.skin); },
  };
}

function expectSetSync(world: World, op: Extract<Op, { kind: 'setSync' }>): Expectation {
  const o = world.overlays[op.o];
  if (o.deleted) return nothing(404);
  if (o.syncSource === op.src) return nothing(200);
  if (op.src !== null) {
    const src = world.overlays[op.src];
    if (src.deleted || src.account !== o.account || src.key === o.key || src.template !== o.template
      || src.syncSource !== null || followers(world, o.key).length > 0) return nothing(422);
  }
  return {
    status: 200, chats: new Set(), updates: new Set([o.key, ...followers(world, o.key)]),
    commit: () => { o.syncSource = op.src; },
  };
}

// ---- running one step --------------------------------------------------------------------------

async function serviceStatus(call: () => Promise<unknown>): Promise<number> {
  try {
    await call();
    return 200;
  } catch (error) {
    const status = (error as { status?: number }).status;
    if (typeof status !== 'number') throw error;
    return status;
  }
}

function pickSocket(world: World, index: number): PageSocket | undefined {
  const open = world.sockets.filter((s) => s.open && !s.closedByUs);
  return open.length === 0 ? undefined : open[index % open.length];
}

async function runStep(world: World, op: Op, before: unknown): Promise<unknown> {
  if (op.kind === 'burst') return runBurst(world, op, before);
  world.log.push(JSON.stringify(op));
  const baseline = new Map(world.sockets.map((s) => [s, { ...s.counts }]));
  const expected = new Map<PageSocket, Counts>();
  const mustClose = new Map<PageSocket, number>();
  let expectation: Expectation = nothing(0);
  let refused = false;

  const openSocketsOf = (keys: Set<OverlayKey>): PageSocket[] => world.sockets.filter((s) => s.open && !s.closedByUs && keys.has(s.overlay.key));

  switch (op.kind) {
    case 'connect': {
      const o = world.overlays[op.o];
      if (o.deleted) {
        const socket = new PageSocket(world.origin, o, o.token, `socket ${world.sockets.length}`);
        const refusal = await socket.opened.then(() => 0, (error: { status?: number }) => error.status ?? -1);
        expect(refusal, `upgrade for the deleted overlay ${o.key}`).toBe(404);
        break;
      }
      if (world.deadTokens.length > 0) {
        // A token that no longer names an overlay is refused before any handshake (docs/push.md, Address).
        const dead = new PageSocket(world.origin, o, world.deadTokens[world.deadTokens.length - 1]!, 'dead');
        const refusal = await dead.opened.then(() => 0, (error: { status?: number }) => error.status ?? -1);
        expect(refusal, 'upgrade with an old token').toBe(404);
      }
      const socket = new PageSocket(world.origin, o, o.token, `socket ${world.sockets.length}`);
      await socket.opened;
      world.sockets.push(socket);
      baseline.set(socket, { snapshot: 0, update: 0, chat: 0 });
      expected.set(socket, { snapshot: 1, update: 0, chat: 0 });
      break;
    }
    case 'close': {
      const socket = pickSocket(world, op.s);
      if (socket !== undefined) {
        socket.closedByUs = true;
        socket.ws.close();
      }
      break;
    }
    case 'badFrame': {
      // The only page frame is a resync: anything else is 1008, a frame over 1 KiB 1009.
      const socket = pickSocket(world, op.s);
      if (socket !== undefined) {
        socket.ws.send(op.big ? JSON.stringify({ type: 'resync', pad: 'x'.repeat(2_000) }) : '{"type":"hello"}');
        mustClose.set(socket, op.big ? 1009 : 1008);
      }
      break;
    }
    case 'resync': {
      const socket = pickSocket(world, op.s);
      if (socket !== undefined) {
        socket.ws.send('{"type":"resync"}');
        expected.set(socket, { snapshot: 1, update: 0, chat: 0 });
      }
      break;
    }
    case 'putTemplate': {
      const { o, scope } = resolvePutTemplate(world, op);
      world.log.push(`  -> ${o} ${scope} ${JSON.stringify(op.values)}`);
      expectation = expectPutTemplate(world, { ...op, o, scope });
      const body: Values = { scope, values: op.values };
      let query = '';
      if (o !== 'default') {
        const id = world.overlays[o].id;
        if (op.presetInQuery) query = `?preset_id=${id}`;
        else body.preset_id = id;
      }
      const answer = await api(world, world.accounts[op.acct].apiKey, 'PUT', `/template${query}`, body);
      expect(answer.status, `PUT /template ${JSON.stringify(body)} -> ${JSON.stringify(answer.body)}`).toBe(expectation.status);
      break;
    }
    case 'putSkin': {
      const skin = resolveSkin(world, op.acct, op.skin);
      expectation = expectPutSkin(world, { ...op, skin });
      const answer = await api(world, world.accounts[op.acct].apiKey, 'PUT', `/skins/${world.skins[skin].id}`, { values: op.values });
      expect(answer.status, `PUT /skins ${skin} -> ${JSON.stringify(answer.body)}`).toBe(expectation.status);
      break;
    }
    case 'unlock':
    case 'revoke': {
      expectation = op.kind === 'unlock' ? expectUnlock(world, op) : expectRevoke(world, op);
      const viewer = op.viewer === 'ghost' ? { login: 'ghostviewer' } : world.viewers[op.viewer];
      const answer = await api(world, world.accounts[op.acct].apiKey, op.kind === 'unlock' ? 'POST' : 'DELETE', '/viewers/unlock-skin',
        { twitch_username: viewer.login, skin_id: world.skins[op.skin].id });
      expect(answer.status, `${op.kind} ${JSON.stringify(answer.body)}`).toBe(expectation.status);
      break;
    }
    case 'pick': {
      expectation = expectPick(world, op);
      const status = await serviceStatus(() => world.service.pickSkin(world.accounts[op.acct].id, world.viewers[op.viewer].id, op.skin === null ? null : world.skins[op.skin].id));
      expect(status, 'pickSkin').toBe(expectation.status);
      break;
    }
    case 'assignRole': {
      expectation = expectAssignRole(world, op);
      const status = await serviceStatus(() => world.service.assignSkinRole(world.accounts[op.acct].id, op.role, op.skin === null ? null : world.skins[op.skin].id));
      expect(status, 'assignSkinRole').toBe(expectation.status);
      break;
    }
    case 'externalWrite': {
      // Another process on the same database (chatskin seed beside the host): no event reaches the
      // gateway; docs/push.md, cause `external`: the heartbeat finds the overlay's stored version ahead.
      const { o, scope } = resolvePutTemplate(world, { kind: 'putTemplate', acct: op.acct, o: op.o, scope: { fitting: op.fitting }, values: op.values, presetInQuery: false });
      world.log.push(`  -> ${o} ${scope}`);
      expectation = expectPutTemplate(world, { acct: op.acct, o, scope, values: op.values });
      const other = await world.otherProcess();
      const status = await serviceStatus(() => other.updateTemplate(world.accounts[op.acct].id, { scope, values: op.values, preset_id: world.overlays[o as OverlayKey].id }));
      expect(status, 'updateTemplate from another process').toBe(expectation.status);
      break;
    }
    case 'skinActive': {
      const skin = world.skins[op.skin];
      // The host's (CLI's) skin switch: a skin in use is pushed like a PUT /skins (cause `skin`).
      expectation = skin.active === op.active
        ? nothing(200)
        : { status: 200, updates: overlaysUsingSkin(world, op.skin), chats: new Set(), commit: () => { skin.active = op.active; } };
      const status = await serviceStatus(() => world.service.updateSkinDetails(skin.id, { isActive: op.active }));
      expect(status, 'updateSkinDetails isActive').toBe(expectation.status);
      break;
    }
    case 'setSync': {
      expectation = expectSetSync(world, op);
      const o = world.overlays[op.o];
      const status = await serviceStatus(() => world.service.updateOverlay(world.accounts[o.account].id, o.id, { syncSourceId: op.src === null ? null : world.overlays[op.src].id }));
      expect(status, 'updateOverlay syncSourceId').toBe(expectation.status);
      break;
    }
    case 'chat': {
      const o = world.overlays[op.o];
      expectation = o.deleted ? nothing(404) : { status: 202, updates: new Set(), chats: allOf(world, o.account) };
      const response = await fetch(`${world.origin}/local/chat`, {
        method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token: o.token, event: { type: 'message', login: 'alice', text: 'hi' } }),
      });
      await response.arrayBuffer();
      expect(response.status, 'POST /local/chat').toBe(expectation.status);
      break;
    }
    case 'refusedWrite': {
      // Writes refused before the service (spec, Errors and Limits): premium off 403, a body over
      // 64 KiB 413, no key 401, a body that is not JSON 422. They push nothing and store nothing.
      const account = world.accounts[op.acct];
      const target = liveOverlays(world, op.acct).find((o) => o.isDefault)!;
      const body = { scope: 'independent', preset_id: target.id, values: { 'bubble.width': 777 } };
      let status: number;
      if (op.why === 'premium') {
        await world.service.setPremium(account.login, false);
        status = (await api(world, account.apiKey, 'PUT', '/template', body)).status;
        await world.service.setPremium(account.login, true);
        expectation = nothing(403);
      } else if (op.why === 'too-large') {
        status = (await api(world, account.apiKey, 'PUT', '/template', { ...body, pad: 'x'.repeat(70_000) })).status;
        expectation = nothing(413);
      } else {
        const response = await fetch(`${world.origin}/api/v1/template`, {
          method: 'PUT',
          headers: {
            ...(op.why === 'no-key' ? {} : { authorization: `Bearer ${account.apiKey}` }),
            accept: 'application/json', 'user-agent': 'push-model-property/1.0', 'content-type': 'application/json',
          },
          body: op.why === 'no-key' ? JSON.stringify(body) : `${JSON.stringify(body).slice(0, -1)},`,
        });
        await response.arrayBuffer();
        status = response.status;
        expectation = nothing(op.why === 'no-key' ? 401 : 422);
      }
      expect(status, `refused write (${op.why})`).toBe(expectation.status);
      break;
    }
    case 'revokeKey': {
      const account = world.accounts[op.acct];
      const old = account.apiKey;
      await world.service.revokeKey(account.login);
      // A revoked key stops working at once (spec, Authentication); its refused write changes nothing.
      const answer = await api(world, old, 'PUT', '/template', { scope: 'independent', values: { 'bubble.width': 333 } });
      expect(answer.status, 'PUT with a revoked key').toBe(401);
      account.apiKey = (await world.service.createKey(account.login)).token;
      expectation = nothing(401);
      break;
    }
    case 'renewToken':
    case 'deleteOverlay': {
      const o = world.overlays[op.o];
      if (o.deleted || (op.kind === 'deleteOverlay' && followers(world, o.key).length > 0)) break;
      world.deadTokens.push(o.token);
      if (op.kind === 'renewToken') {
        o.token = (await world.service.renewOverlayToken(world.accounts[o.account].id, o.id)).token;
      } else {
        // Another process deletes the overlay underneath (docs/push.md, 4004): no event reaches the gateway.
        const db = new DatabaseSync((world as World & { storePath: string }).storePath);
        db.exec('PRAGMA busy_timeout = 5000');
        db.prepare('DELETE FROM overlays WHERE id = ?').run(o.id);
        db.close();
        o.deleted = true;
      }
      for (const s of world.sockets) if (s.open && !s.closedByUs && s.overlay.key === o.key) mustClose.set(s, 4004);
      break;
    }
  }

  if (expectation.status !== undefined && expectation.status >= 400) refused = true;
  tally(`${op.kind} ${expectation.status} ${op.kind === 'putTemplate' ? world.log.at(-1) : ''} updates=${expectation.updates.size > 0} chats=${expectation.chats.size > 0} mustClose=${mustClose.size}`);
  expectation.commit?.();
  for (const s of openSocketsOf(expectation.updates)) expected.set(s, { ...(expected.get(s) ?? { snapshot: 0, update: 0, chat: 0 }), update: 1 });
  for (const s of openSocketsOf(expectation.chats)) expected.set(s, { ...(expected.get(s) ?? { snapshot: 0, update: 0, chat: 0 }), chat: 1 });

  return settle(world, JSON.stringify(op), baseline, expected, expected, mustClose, refused, before);
}

const NONE: Counts = { snapshot: 0, update: 0, chat: 0 };

/**
 * Waits until every socket has at least `min` frames of each kind since `baseline` (and every
 * socket in `mustClose` is closed), then a little longer for frames that must not come, and
 * checks: at most `max`, versions and tenants, close codes, nothing stored changed by a refused
 * write, and every open socket's page state equals GET /template and a fresh read.
 */
async function settle(
  world: World, what: string, baseline: Map<PageSocket, Counts>, min: Map<PageSocket, Counts>, max: Map<PageSocket, Counts>,
  mustClose: Map<PageSocket, number>, refused: boolean, before: unknown,
): Promise<unknown> {
  const got = (s: PageSocket): Counts => {
    const base = baseline.get(s) ?? NONE;
    return { snapshot: s.counts.snapshot - base.snapshot, update: s.counts.update - base.update, chat: s.counts.chat - base.chat };
  };
  const done = (): boolean => world.sockets.every((s) => {
    if (mustClose.has(s)) return s.closeCode !== null;
    if (s.closedByUs || s.closeCode !== null) return true;
    const g = got(s);
    const w = min.get(s) ?? NONE;
    return g.snapshot >= w.snapshot && g.update >= w.update && g.chat >= w.chat;
  });
  const deadline = Date.now() + SETTLE_TIMEOUT_MS;
  while (!done() && Date.now() < deadline) await sleep(5);
  await sleep(QUIET_MS);

  for (const s of world.sockets) {
    expect(s.problems, `${s.label}: version or tenant problems`).toEqual([]);
    if (s.closeCode !== null && !s.closedByUs) {
      expect(DOCUMENTED_CLOSE_CODES.has(s.closeCode), `${s.label} closed with an undocumented code ${s.closeCode}`).toBe(true);
      expect(mustClose.has(s), `${s.label} (${s.overlay.key}) closed with ${s.closeCode} unexpectedly`).toBe(true);
    }
    if (mustClose.has(s)) expect(s.closeCode, `${s.label} on ${s.overlay.key}: close code`).toBe(mustClose.get(s));
    if (s.closedByUs || mustClose.has(s)) continue;
    const g = got(s);
    const lo = min.get(s) ?? NONE;
    const hi = max.get(s) ?? NONE;
    const within = (['snapshot', 'update', 'chat'] as const).every((k) => g[k] >= lo[k] && g[k] <= hi[k]);
    expect(within, `${s.label} on ${s.overlay.key} after ${what}: got ${JSON.stringify(g)}, expected from ${JSON.stringify(lo)} to ${JSON.stringify(hi)}`).toBe(true);
  }
  world.sockets = world.sockets.filter((s) => s.open && !s.closedByUs);

  // Every open socket's page state is what GET /template and a fresh read say.
  const after = await storedState(world);
  if (refused) expect(after, `refused ${what} changed what is stored`).toEqual(before);
  const states = after as Record<string, any>;
  for (const s of world.sockets) {
    const view = states[`template ${s.overlay.key}`];
    expect(s.style?.settings, `${s.label}: settings of ${s.overlay.key} vs GET /template`).toEqual(view.settings_values);
    expect(s.style?.template, `${s.label}: template of ${s.overlay.key}`).toEqual({ id: view.template_id, slug: view.template_slug, name: view.template_name });
    expect(s.style, `${s.label}: style of ${s.overlay.key} vs a fresh read`).toEqual(states[`style ${s.overlay.key}`]);
    expectStyleAsDocumented(world, s, states);
  }
  return after;
}

/**
 * docs/push.md, `style` fields, against the model: `skins` are the skins of the overlay's template
 * assigned to a role on the channel or picked by one of its viewers (`overrides` the keys they
 * change, `settings` as GET /skins has them), `roleSkins` and `viewerSkins` name only those,
 * `fonts` every font family of the settings and the skins.
 */
function expectStyleAsDocumented(world: World, s: PageSocket, states: Record<string, any>): void {
  const o = s.overlay;
  const acct = o.account;
  // A skin of another template, or switched off, is left out, and so are the roles and picks that name it.
  const fits = (skin: SkinKey): boolean => world.skins[skin].template === o.template && world.skins[skin].active;
  const roleSkins = Object.fromEntries([...world.roles[acct]].filter(([, k]) => fits(k)).map(([role, k]) => [role, world.skins[k].id]));
  const viewerSkins = Object.fromEntries([...world.picks[acct]].filter(([, k]) => fits(k)).map(([v, k]) => [world.viewers[v].twitchUserId, world.skins[k].id]));
  const inUse = new Set([...world.roles[acct].values(), ...world.picks[acct].values()].filter(fits));
  const where = `${s.label} on ${o.key}`;
  expect(s.style.roleSkins, `${where}: roleSkins`).toEqual(roleSkins);
  expect(s.style.viewerSkins, `${where}: viewerSkins`).toEqual(viewerSkins);
  expect(new Set(s.style.skins.map((skin: { id: number }) => skin.id)), `${where}: skins`).toEqual(new Set([...inUse].map((k) => world.skins[k].id)));
  const listed = states[`skins ${acct} ${o.template === 'ticker' ? 'tick' : 'main'}`]?.data as Array<{ id: number; settings_values: Values }> | undefined;
  for (const skin of s.style.skins as Array<{ id: number; settings: Values; overrides: Values }>) {
    const key = [...inUse].find((k) => world.skins[k].id === skin.id)!;
    expect(skin.overrides, `${where}: overrides of ${key}`).toEqual(world.skins[key].overrides);
    const own = listed?.find((l) => l.id === skin.id);
    if (own !== undefined) expect(skin.settings, `${where}: settings of ${key} vs GET /skins`).toEqual(own.settings_values);
  }
  const families = new Set<string>();
  for (const values of [s.style.settings, ...s.style.skins.map((skin: { settings: Values }) => skin.settings)]) {
    for (const [k, v] of Object.entries(values as Values)) if (k.endsWith('.font-family') && typeof v === 'string') families.add(v);
  }
  expect(new Set(Object.keys(s.style.fonts)), `${where}: fonts`).toEqual(families);
}

/**
 * Several things at once, not awaited one by one: writes (PUT /template in fitting scopes, PUT
 * /skins; no two touch the same key of the same overlay or skin, so their outcome does not depend
 * on the order the server takes them in), chat, sockets connecting and resyncs. Several changes
 * may arrive as one update (docs/push.md, `update`), so an affected socket gets from one update to
 * one per change; a socket let in meanwhile gets its snapshot and may or may not see the rest.
 */
async function runBurst(world: World, op: Extract<Op, { kind: 'burst' }>, before: unknown): Promise<unknown> {
  world.log.push(JSON.stringify(op));
  const baseline = new Map(world.sockets.map((s) => [s, { ...s.counts }]));
  const min = new Map<PageSocket, Counts>();
  const max = new Map<PageSocket, Counts>();
  const bump = (map: Map<PageSocket, Counts>, s: PageSocket, kind: keyof Counts, by = 1): void => {
    const c = { ...(map.get(s) ?? NONE) };
    c[kind] += by;
    map.set(s, c);
  };
  const atLeastOne = (s: PageSocket, kind: keyof Counts): void => {
    if ((min.get(s) ?? NONE)[kind] === 0) bump(min, s, kind);
  };
  const touched = new Set<string>();
  const calls: Array<() => Promise<void>> = [];
  const updatesPerOverlay = new Map<OverlayKey, number>();
  let chats = new Map<AccountKey, number>();
  const newSockets: PageSocket[] = [];
  const existing = world.sockets.filter((s) => s.open && !s.closedByUs);

  for (const item of op.items) {
    if (item.kind === 'putTemplate' || item.kind === 'putSkin') {
      const owner = item.kind === 'putTemplate' ? resolvePutTemplate(world, item) : null;
      const skin = item.kind === 'putSkin' ? resolveSkin(world, item.acct, item.skin) : null;
      const writtenKey = owner !== null
        ? (() => {
            const t = owner.o === 'default' ? liveOverlays(world, item.acct).find((o) => o.isDefault)! : world.overlays[owner.o];
            return owner.scope === 'source' && t.syncSource !== null ? t.syncSource : t.key;
          })()
        : skin!;
      const values = Object.fromEntries(Object.entries(item.values).filter(([k]) => !touched.has(`${writtenKey}|${k}`)));
      if (Object.keys(values).length === 0) continue;
      for (const k of Object.keys(values)) touched.add(`${writtenKey}|${k}`);
      const expectation = owner !== null
        ? expectPutTemplate(world, { acct: item.acct, o: owner.o, scope: owner.scope, values })
        : expectPutSkin(world, { acct: item.acct, skin: skin!, values });
      expectation.commit?.();
      for (const key of expectation.updates) updatesPerOverlay.set(key, (updatesPerOverlay.get(key) ?? 0) + 1);
      const apiKey = world.accounts[item.acct].apiKey;
      calls.push(async () => {
        const answer = owner !== null
          ? await api(world, apiKey, 'PUT', '/template', { scope: owner.scope, values, ...(owner.o === 'default' ? {} : { preset_id: world.overlays[owner.o].id }) })
          : await api(world, apiKey, 'PUT', `/skins/${world.skins[skin!].id}`, { values });
        expect(answer.status, `${item.kind} in a burst ${JSON.stringify(values)} -> ${JSON.stringify(answer.body)}`).toBe(expectation.status);
      });
    } else if (item.kind === 'chat') {
      const o = world.overlays[item.o];
      if (o.deleted) continue;
      chats.set(o.account, (chats.get(o.account) ?? 0) + 1);
      calls.push(async () => {
        const response = await fetch(`${world.origin}/local/chat`, {
          method: 'POST', headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ token: o.token, event: { type: 'message', login: 'bob', text: 'burst' } }),
        });
        await response.arrayBuffer();
        expect(response.status, 'POST /local/chat in a burst').toBe(202);
      });
    } else if (item.kind === 'connect') {
      const o = world.overlays[item.o];
      if (o.deleted) continue;
      calls.push(async () => {
        const socket = new PageSocket(world.origin, o, o.token, `socket ${world.sockets.length + newSockets.length}`);
        newSockets.push(socket);
        await socket.opened;
      });
    } else if (item.kind === 'close') {
      const socket = existing.length === 0 ? undefined : existing[item.s % existing.length];
      if (socket === undefined) continue;
      calls.push(async () => {
        socket.closedByUs = true;
        socket.ws.close();
      });
    } else {
      const socket = existing.length === 0 ? undefined : existing[item.s % existing.length];
      if (socket === undefined) continue;
      atLeastOne(socket, 'snapshot');
      bump(max, socket, 'snapshot');
      calls.push(async () => { socket.ws.send('{"type":"resync"}'); });
    }
  }
  tally(`burst of ${calls.length}: ${[...updatesPerOverlay.values()].some((n) => n > 1) ? 'several' : 'at most one'} update per overlay`);
  await Promise.all(calls.map((call) => call()));
  for (const s of newSockets) {
    world.sockets.push(s);
    baseline.set(s, { ...NONE });
    bump(min, s, 'snapshot');
    bump(max, s, 'snapshot');
    bump(max, s, 'update', updatesPerOverlay.get(s.overlay.key) ?? 0);
    bump(max, s, 'chat', chats.get(s.overlay.account) ?? 0);
  }
  for (const s of existing) {
    const updates = updatesPerOverlay.get(s.overlay.key) ?? 0;
    if (updates > 0) {
      atLeastOne(s, 'update');
      bump(max, s, 'update', updates);
    }
    const n = chats.get(s.overlay.account) ?? 0;
    bump(min, s, 'chat', n);
    bump(max, s, 'chat', n);
  }
  chats = new Map();
  return settle(world, JSON.stringify(op), baseline, min, max, new Map(), false, before);
}

const tallies = new Map<string, number>();
function tally(key: string): void {
  if (process.env.PUSH_MODEL_STATS !== undefined) tallies.set(key, (tallies.get(key) ?? 0) + 1);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function printTallies(): void {
  if (tallies.size > 0) console.log([...tallies].sort().map(([k, n]) => `${n}\t${k}`).join('\n'));
}

describe('live push against a model (real server, real sockets)', () => {
  it('every socket ends with the style GET /template answers, from exactly the documented frames', async () => {
    const seed = process.env.PUSH_MODEL_SEED === undefined ? Date.now() ^ (Math.random() * 0x7fffffff) : Number(process.env.PUSH_MODEL_SEED);
    let lastLog: string[] = [];
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(opArb, { minLength: 4, maxLength: 24 }), async (ops) => {
          const world = await startWorld();
          lastLog = world.log;
          try {
            let state = await storedState(world);
            // A page on every overlay first, so that most steps have sockets to reach (or to spare).
            for (const o of OVERLAY_KEYS) state = await runStep(world, { kind: 'connect', o }, state);
            for (const op of ops) state = await runStep(world, op, state);
          } finally {
            await world.close();
          }
        }),
        { numRuns: RUNS, seed, interruptAfterTimeLimit: 180_000, markInterruptAsFailure: false },
      );
    } catch (error) {
      printTallies();
      console.error(`push model property failed: PUSH_MODEL_SEED=${seed}\nlast schedule run:\n${lastLog.join('\n')}`);
      throw error;
    }
    printTallies();
  }, 600_000);
});
