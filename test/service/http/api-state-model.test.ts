// Model-based property: random sequences of API operations against the real server (the style
// service, the HTTP API and the overlay push on one listening socket) agree, step by step, with a
// small reference model written from the spec and docs/api.md, docs/settings.md and docs/push.md:
// - PUT /template under each scope (`independent` only without a sync source, `source` and
//   `override` only with one, a mismatch is 422 on `errors.scope`), values merged into that scope,
//   `null` taking a key back to the inherited value, values normalised as the settings page says;
//   the overlay named in the body, in the query, or left out (the default overlay);
// - GET /template's settings_values, source_values, override_values, overridden_keys and
//   sync_source_preset_id for every overlay after every step, and PUT /template's answer;
// - PUT /skins/{id} merging into the skin's stored overrides, a value equal to the default of the
//   skin's template (or null) dropping the key; a global skin 403, another account's skin 404;
//   GET /skins per template;
// - unlock (201 new grant, 200 already held by grant or purchase, 422 for an inactive skin or two
//   identifiers naming different viewers), revoke (404 without an API grant, purchases
//   untouched), GET /viewers/{identifier}/skins by login in any case and by id, unknown viewers 404;
// - any invalid value refuses the whole request (422, `values.<key>` named) and changes nothing;
// - after every step, what each overlay's WebSocket last received (snapshot then updates) equals
//   GET /template's settings_values, and the skins in use carry the model's stored overrides,
//   also after several writes sent at once (which may share one commit and one update).
import fc from 'fast-check';
import Fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';
import { expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { registerOverlayServer } from '../../../src/overlay/overlay-server.ts';
import { apiServerOptions, registerApi } from '../../../src/service/http/index.ts';
import type { ServerFrame } from '../../../src/service/push/protocol.ts';
import { splitFrames } from '../../../src/service/push/protocol.ts';
import { servicePushSource } from '../../../src/service/push/service-push-source.ts';
import { applySeed } from '../../../src/service/seed.ts';
import { DEFAULT_TEMPLATES_DIR, loadTemplates } from '../../../src/service/settings/templates.ts';
import { openSqliteStore } from '../../../src/service/store/sqlite-store.ts';
import { createStyleService } from '../../../src/service/style-service.ts';
import { apiCaller } from '../../support/api-caller.ts';

const TEMPLATES = loadTemplates(DEFAULT_TEMPLATES_DIR);
const DEFAULTS: Record<string, Record<string, unknown>> = Object.fromEntries(TEMPLATES.map((t) => [t.slug, { ...t.defaults }]));

const FIXTURE = {
  accounts: [
    {
      login: 'streamer',
      premium: true,
      overlays: [
        { name: 'Main', template: 'bubbles', default: true, values: { 'bubble.width': 420 } },
        { name: 'Synced', template: 'bubbles', sync_source: 'Main', overrides: { 'avatar.show': false } },
        { name: 'Solo', template: 'bubbles', values: {} },
        { name: 'Ticker', template: 'ticker', values: {} },
      ],
      skins: [
        { slug: 'rolled', name: 'Rolled', template: 'bubbles', availability: 'exclusive', values: { 'bubble.width': 300 }, roles: ['moderator'] },
        { slug: 'picked', name: 'Picked', template: 'bubbles', availability: 'free', values: {} },
        { slug: 'spare', name: 'Spare', template: 'bubbles', availability: 'purchase', values: { 'avatar.show': false } },
        { slug: 'retired', name: 'Retired', template: 'bubbles', availability: 'purchase', active: false, values: {} },
        { slug: 'tape', name: 'Tape', template: 'ticker', availability: 'free', values: { 'message.font-size': 20 }, roles: ['vip'] },
      ],
    },
    { login: 'other', premium: true, skins: [{ slug: 'othersk', name: 'Other', template: 'bubbles', availability: 'purchase', values: {} }] },
  ],
  global_skins: [{ slug: 'classic', name: 'Classic', template: 'bubbles', availability: 'free', values: {} }],
  viewers: [
    { twitch_user_id: '1001', twitch_username: 'viewer_one' },
    { twitch_user_id: '1002', twitch_username: 'viewer_two' },
  ],
  purchases: [{ account: 'streamer', viewer: 'viewer_one', skin: 'spare' }],
  grants: [],
  picks: [{ account: 'streamer', viewer: 'viewer_two', skin: 'picked' }],
};

type OverlayName = 'Main' | 'Synced' | 'Solo' | 'Ticker';
const OVERLAYS: OverlayName[] = ['Main', 'Synced', 'Solo', 'Ticker'];
const TEMPLATE_OF: Record<OverlayName, string> = { Main: 'bubbles', Synced: 'bubbles', Solo: 'bubbles', Ticker: 'ticker' };
const SOURCE_OF: Partial<Record<OverlayName, OverlayName>> = { Synced: 'Main' };
type OwnSkin = 'rolled' | 'picked' | 'spare' | 'retired' | 'tape';
const OWN_SKINS: OwnSkin[] = ['rolled', 'picked', 'spare', 'retired', 'tape'];
const SKIN_TEMPLATE: Record<OwnSkin, string> = { rolled: 'bubbles', picked: 'bubbles', spare: 'bubbles', retired: 'bubbles', tape: 'ticker' };
/** Skins an overlay's push carries: of its template, assigned to a role or picked by a viewer. */
const SKINS_IN_USE: Record<string, OwnSkin[]> = { bubbles: ['rolled', 'picked'], ticker: ['tape'] };
type AnySkin = OwnSkin | 'classic' | 'othersk';
type ViewerName = 'viewer_one' | 'viewer_two' | 'nobody';
const VIEWER_ID: Record<ViewerName, string> = { viewer_one: '1001', viewer_two: '1002', nobody: '9999' };

// ---- the pool of values: what is sent, and what the docs say is stored (undefined: refused) ----

interface Sent { key: string; value: unknown; stored: unknown; valid: boolean }
const ok = (key: string, value: unknown, stored: unknown = value): Sent => ({ key, value, stored, valid: true });
const bad = (key: string, value: unknown): Sent => ({ key, value, stored: undefined, valid: false });

const VALID: Sent[] = [
  ok('bubble.width', 400), ok('bubble.width', 420), ok('bubble.width', 0), ok('bubble.width', 10000),
  ok('bubble.background-color', '#FFF', '#ffffff'), ok('bubble.background-color', '#ffffff'),
  ok('bubble.background-color', 'transparent'), ok('bubble.background-color', '#12345600', 'transparent'),
  ok('bubble.background-color', '#0f08', '#00ff0088'),
  ok('avatar.show', true), ok('avatar.show', false),
  ok('message.font-weight', 700, '700'), ok('message.font-weight', '400'), ok('message.font-weight', 400, '400'),
  ok('message.font-family', 'inter', 'Inter'), ok('message.font-family', 'open sans', 'Open Sans'),
  ok('bubble.box-shadow-offset-x', -10000), ok('bubble.box-shadow-offset-x', 0),
  ok('bubble.background-gradient', ''),
  ok('bubble.background-gradient', 'linear-gradient(red, blue)', 'linear-gradient(180deg, #ff0000 0%, #0000ff 100%)'),
  ok('message.font-size', 16), ok('message.font-size', 14), ok('message.font-size', 20),
  ok('message.font-color', '#FFF', '#ffffff'), ok('message.font-color', '#FFFFFF00', 'transparent'),
  ok('bubble.background-gradient', 'LINEAR-GRADIENT(to bottom, #F00, #00F)', 'linear-gradient(180deg, #ff0000 0%, #0000ff 100%)'),
  ok('username.position', 'inline'), ok('username.position', 'above-message'),
];
const KEYS = [...new Set(VALID.map((s) => s.key))];
const NULLS: Sent[] = KEYS.map((key) => ({ key, value: null, stored: null, valid: true }));
const INVALID: Sent[] = [
  bad('bubble.width', 10001), bad('bubble.width', '12'), bad('bubble.width', 1.5), bad('bubble.background-color', 'red'),
  bad('avatar.show', 'yes'), bad('message.font-weight', 450), bad('message.font-family', 'Not A Font'),
  bad('bubble.box-shadow-offset-x', -10001), bad('bubble.colour', '#fff'), bad('bubble.background-gradient', 'conic-gradient(red, blue)'),
];

const sentValues = (withInvalid: boolean) => fc.uniqueArray(
  withInvalid
    ? fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...VALID) }, { weight: 2, arbitrary: fc.constantFrom(...NULLS) }, { weight: 1, arbitrary: fc.constantFrom(...INVALID) })
    : fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...VALID) }, { weight: 1, arbitrary: fc.constantFrom(...NULLS) }),
  { minLength: 1, maxLength: 4, selector: (s) => s.key },
);

// ---- the model ----

type Values = Record<string, unknown>;
interface Model {
  /** Stored values of overlays without a sync source; stored overrides of the others. */
  stored: Record<OverlayName, Values>;
  skins: Record<OwnSkin, Values>;
  /** API grants, `${viewer}/${skin}`. */
  grants: Set<string>;
  purchases: Set<string>;
}

function initialModel(): Model {
  return {
    stored: { Main: { 'bubble.width': 420 }, Synced: { 'avatar.show': false }, Solo: {}, Ticker: {} },
    skins: { rolled: { 'bubble.width': 300 }, picked: {}, spare: { 'avatar.show': false }, retired: {}, tape: { 'message.font-size': 20 } },
    grants: new Set(),
    purchases: new Set(['viewer_one/spare']),
  };
}

function restrict(template: string, values: Values): Values {
  const defaults = DEFAULTS[template]!;
  return Object.fromEntries(Object.entries(values).filter(([key]) => key in defaults));
}

interface View {
  settings_values: Values;
  source_values: Values;
  override_values: Values;
  overridden_keys: string[];
  sync_source_preset_id: number | null;
}

function expectedView(model: Model, overlay: OverlayName, ids: Record<string, number>): View {
  const template = TEMPLATE_OF[overlay];
  const source = SOURCE_OF[overlay];
  if (source === undefined) {
    const settings = { ...DEFAULTS[template], ...restrict(template, model.stored[overlay]) };
    return { settings_values: settings, source_values: settings, override_values: {}, overridden_keys: [], sync_source_preset_id: null };
  }
  const sourceValues = { ...DEFAULTS[template], ...restrict(template, model.stored[source]) };
  const overrides = model.stored[overlay];
  return {
    settings_values: { ...sourceValues, ...restrict(template, overrides) },
    source_values: sourceValues,
    override_values: { ...overrides },
    overridden_keys: Object.keys(overrides).sort(),
    sync_source_preset_id: ids[source]!,
  };
}

function skinSettings(model: Model, skin: OwnSkin): Values {
  return { ...DEFAULTS[SKIN_TEMPLATE[skin]], ...model.skins[skin] };
}

// ---- the real thing ----

interface OverlayWatch {
  version: number;
  settings: Values | undefined;
  skins: Array<{ id: number; overrides: Values; settings: Values }> | undefined;
  socket: WebSocket;
}

interface Real {
  app: FastifyInstance;
  origin: string;
  apiKey: string;
  overlayIds: Record<OverlayName, number>;
  skinIds: Record<AnySkin, number>;
  watches: Record<OverlayName, OverlayWatch>;
  api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

function watch(origin: string, token: string): Promise<OverlayWatch> {
  const socket = new WebSocket(`${origin.replace(/^http/, 'ws')}/overlay/${token}/ws`);
  const state: OverlayWatch = { version: -1, settings: undefined, skins: undefined, socket };
  return new Promise((resolve, reject) => {
    socket.on('error', reject);
    socket.on('message', (data) => {
      for (const text of splitFrames(String(data))) {
        const frame = JSON.parse(text) as ServerFrame;
        if (frame.type === 'snapshot' || frame.type === 'update') {
          if (frame.type === 'update' && frame.version <= state.version) continue;
          if (frame.type === 'update' && frame.version > state.version + 1) socket.send(JSON.stringify({ type: 'resync' }));
          state.version = frame.version;
          state.settings = frame.style.settings as Values;
          state.skins = frame.style.skins.map((s) => ({ id: s.id, overrides: s.overrides as Values, settings: s.settings as Values }));
          if (frame.type === 'snapshot') resolve(state);
        } else if ('version' in frame && frame.version > state.version + 1 && state.version >= 0) {
          socket.send(JSON.stringify({ type: 'resync' }));
        }
      }
    });
  });
}

async function startReal(): Promise<Real> {
  const store = openSqliteStore({ path: ':memory:', synchronous: 'OFF' });
  const service = await createStyleService({ store, templates: TEMPLATES });
  const ids = await applySeed(service, structuredClone(FIXTURE));
  const streamer = ids.accounts.streamer!;
  const { token: apiKey } = await service.createKey('streamer');
  const app = Fastify(apiServerOptions({ redirectErrors: false }));
  registerApi(app, {
    operations: service,
    authenticate: (token) => service.authenticate(token),
    rateLimit: { perMinute: 1_000_000 },
    redirectErrors: false,
  });
  registerOverlayServer(app, servicePushSource(service), { page: { fontStylesheetBaseUrl: null } });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const overlays = await service.listOverlays(streamer.id);
  const overlayIds = Object.fromEntries(OVERLAYS.map((name) => [name, streamer.overlays[name]!])) as Record<OverlayName, number>;
  const watches = Object.fromEntries(await Promise.all(OVERLAYS.map(async (name) => {
    const token = overlays.find((o) => o.id === overlayIds[name])!.token;
    return [name, await watch(origin, token)] as const;
  }))) as Record<OverlayName, OverlayWatch>;
  return {
    app, origin, apiKey, overlayIds, watches,
    skinIds: { ...streamer.skins, othersk: ids.accounts.other!.skins.othersk!, classic: ids.global_skins.classic! } as Record<AnySkin, number>,
    api: apiCaller(origin, apiKey, 'chatskin-model-tests/1.0'),
    async close() {
      for (const w of Object.values(watches)) w.socket.terminate();
      await app.close();
      await store.close();
    },
  };
}

/** Every overlay's GET /template, every skin's GET /skins, and the pushed state, against the model. */
async function checkAll(model: Model, real: Real, step: string): Promise<void> {
  for (const overlay of OVERLAYS) {
    const answer = await real.api('GET', `/template?preset_id=${real.overlayIds[overlay]}`);
    expect(answer.status, `${step}: GET /template ${overlay}`).toBe(200);
    const { settings_values, source_values, override_values, overridden_keys, sync_source_preset_id } = answer.body.data;
    expect({ settings_values, source_values, override_values, overridden_keys: [...overridden_keys].sort(), sync_source_preset_id },
      `${step}: GET /template ${overlay}`).toEqual(expectedView(model, overlay, real.overlayIds));
  }
  // GET /skins lists the caller's own skins of an overlay's template (the default overlay's: bubbles).
  for (const [query, template] of [['', 'bubbles'], [`?preset_id=${real.overlayIds.Ticker}`, 'ticker']] as const) {
    const skins = await real.api('GET', `/skins${query}`);
    expect(skins.status).toBe(200);
    const listed = Object.fromEntries(skins.body.data.map((s: { id: number; settings_values: Values }) => [s.id, s.settings_values]));
    const want = Object.fromEntries(OWN_SKINS.filter((skin) => SKIN_TEMPLATE[skin] === template)
      .map((skin) => [real.skinIds[skin], skinSettings(model, skin)]));
    expect(listed, `${step}: GET /skins${query}`).toEqual(want);
  }
  // The push: each socket's latest style must come to equal the model (an update may be on its way).
  const expectedPush = (overlay: OverlayName) => ({
    settings: expectedView(model, overlay, real.overlayIds).settings_values,
    skins: SKINS_IN_USE[TEMPLATE_OF[overlay]]!
      .map((skin) => ({ id: real.skinIds[skin], overrides: model.skins[skin], settings: skinSettings(model, skin) })),
  });
  const pushed = (overlay: OverlayName) => {
    const w = real.watches[overlay];
    return { settings: w.settings, skins: [...(w.skins ?? [])].sort((a, b) => a.id - b.id) };
  };
  const sortSkins = (e: ReturnType<typeof expectedPush>) => ({ ...e, skins: [...e.skins].sort((a, b) => a.id - b.id) });
  const deadline = Date.now() + 2000;
  for (const overlay of OVERLAYS) {
    const want = sortSkins(expectedPush(overlay));
    while (Date.now() < deadline && JSON.stringify(canon(pushed(overlay))) !== JSON.stringify(canon(want))) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(pushed(overlay), `${step}: pushed state of ${overlay}`).toEqual(want);
  }
}

/** Key order does not matter to toEqual; make the quick comparison agree. */
function canon(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canon);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.keys(value).sort().map((k) => [k, canon((value as Values)[k])]));
  }
  return value;
}

function valuesObject(sent: Sent[]): Values {
  return Object.fromEntries(sent.map((s) => [s.key, s.value]));
}

/** The error fields a 422 must name: `values.<key>` for every refused value (docs/api.md, Errors). */
function refusedKeys(sent: Sent[], template: string): string[] {
  return sent.filter((s) => !s.valid || !(s.key in DEFAULTS[template]!)).map((s) => `values.${s.key}`);
}

function describeSent(sent: Sent[]): string {
  return JSON.stringify(valuesObject(sent));
}

// ---- commands ----

type Scope = 'source' | 'override' | 'independent';

class PutTemplate implements fc.AsyncCommand<Model, Real> {
  /** `Default` sends no preset_id: the default overlay, Main. */
  readonly target: OverlayName | 'Default';
  readonly scope: Scope;
  readonly sent: Sent[];
  /** Send preset_id as `?preset_id=` rather than in the body. */
  readonly viaQuery: boolean;
  constructor(target: OverlayName | 'Default', scope: Scope, sent: Sent[], viaQuery = false) { this.target = target; this.scope = scope; this.sent = sent; this.viaQuery = viaQuery; }
  get overlay(): OverlayName { return this.target === 'Default' ? 'Main' : this.target; }
  check(): boolean { return true; }
  async run(model: Model, real: Real): Promise<void> {
    const step = `PUT /template ${this.target} ${this.scope} ${describeSent(this.sent)}`;
    const inBody = this.target !== 'Default' && !this.viaQuery;
    const body = { scope: this.scope, values: valuesObject(this.sent), ...(inBody ? { preset_id: real.overlayIds[this.overlay] } : {}) };
    const query = this.target !== 'Default' && this.viaQuery ? `?preset_id=${real.overlayIds[this.overlay]}` : '';
    const answer = await real.api('PUT', `/template${query}`, body);
    const template = TEMPLATE_OF[this.overlay];
    const invalid = this.sent.some((s) => !s.valid || !(s.key in DEFAULTS[template]!));
    const hasSource = SOURCE_OF[this.overlay] !== undefined;
    const scopeFits = this.scope === 'independent' ? !hasSource : hasSource;
    if (!scopeFits) {
      expect(answer.status, step).toBe(422);
      expect(Object.keys(answer.body.errors), step).toContain('scope');
    } else if (invalid) {
      expect(answer.status, step).toBe(422);
      expect(Object.keys(answer.body.errors), step).toEqual(expect.arrayContaining(refusedKeys(this.sent, template)));
    } else {
      expect(answer.status, `${step}: ${JSON.stringify(answer.body)}`).toBe(200);
      const target: OverlayName = this.scope === 'source' ? SOURCE_OF[this.overlay]! : this.overlay;
      const stored = model.stored[target];
      for (const s of this.sent) {
        if (s.stored === null) delete stored[s.key];
        else stored[s.key] = s.stored;
      }
      const view = expectedView(model, this.overlay, real.overlayIds);
      expect(answer.body.data, step).toEqual({
        settings_values: view.settings_values, source_values: view.source_values, override_values: view.override_values,
        scope: this.scope, preset_id: real.overlayIds[this.overlay],
      });
    }
    await checkAll(model, real, step);
  }
  toString(): string { return `PutTemplate(${this.target}${this.viaQuery ? ' by query' : ''}, ${this.scope}, ${describeSent(this.sent)})`; }
}

class PutSkin implements fc.AsyncCommand<Model, Real> {
  readonly skin: AnySkin;
  readonly sent: Sent[];
  constructor(skin: AnySkin, sent: Sent[]) { this.skin = skin; this.sent = sent; }
  check(): boolean { return true; }
  async run(model: Model, real: Real): Promise<void> {
    const step = `PUT /skins ${this.skin} ${describeSent(this.sent)}`;
    const answer = await real.api('PUT', `/skins/${real.skinIds[this.skin]}`, { values: valuesObject(this.sent) });
    const defaults = this.skin === 'classic' || this.skin === 'othersk' ? DEFAULTS.bubbles! : DEFAULTS[SKIN_TEMPLATE[this.skin]]!;
    const invalid = this.sent.some((s) => !s.valid || !(s.key in defaults));
    if (this.skin === 'othersk') expect(answer.status, step).toBe(404);
    else if (this.skin === 'classic') expect(answer.status, step).toBe(403);
    else if (invalid) {
      expect(answer.status, step).toBe(422);
      expect(Object.keys(answer.body.errors), step).toEqual(expect.arrayContaining(refusedKeys(this.sent, SKIN_TEMPLATE[this.skin])));
    } else {
      expect(answer.status, `${step}: ${JSON.stringify(answer.body)}`).toBe(200);
      const overrides = model.skins[this.skin];
      for (const s of this.sent) {
        if (s.stored === null || JSON.stringify(s.stored) === JSON.stringify(defaults[s.key])) delete overrides[s.key];
        else overrides[s.key] = s.stored;
      }
      expect(answer.body.data.id, step).toBe(real.skinIds[this.skin]);
      expect(answer.body.data.settings_values, step).toEqual(skinSettings(model, this.skin));
    }
    await checkAll(model, real, step);
  }
  toString(): string { return `PutSkin(${this.skin}, ${describeSent(this.sent)})`; }
}

/** How the viewer is named in the body; `mismatch` adds the user id of another viewer (422). */
/**
 * Several fitting PUT /template writes sent at once (they may share one commit and one update).
 * Their keys are disjoint, so whatever order they commit in, the end state is the same.
 */
class ConcurrentPuts implements fc.AsyncCommand<Model, Real> {
  readonly writes: Array<{ overlay: OverlayName; scope: Scope; sent: Sent[] }>;
  constructor(writes: Array<{ overlay: OverlayName; scope: Scope; sent: Sent[] }>) { this.writes = writes; }
  check(): boolean { return true; }
  async run(model: Model, real: Real): Promise<void> {
    const step = this.toString();
    const answers = await Promise.all(this.writes.map((w) => real.api('PUT', '/template', {
      scope: w.scope, preset_id: real.overlayIds[w.overlay], values: valuesObject(w.sent),
    })));
    for (const [i, w] of this.writes.entries()) {
      const invalid = w.sent.some((s) => !(s.key in DEFAULTS[TEMPLATE_OF[w.overlay]]!));
      expect(answers[i]!.status, `${step}: write ${i}`).toBe(invalid ? 422 : 200);
      if (invalid) continue;
      const stored = model.stored[w.scope === 'source' ? SOURCE_OF[w.overlay]! : w.overlay];
      for (const s of w.sent) {
        if (s.stored === null) delete stored[s.key];
        else stored[s.key] = s.stored;
      }
    }
    await checkAll(model, real, step);
  }
  toString(): string {
    return `ConcurrentPuts(${this.writes.map((w) => `${w.overlay} ${w.scope} ${describeSent(w.sent)}`).join(' | ')})`;
  }
}

const fittingScope = (overlay: OverlayName, pick: boolean): Scope =>
  SOURCE_OF[overlay] === undefined ? 'independent' : pick ? 'source' : 'override';

type Ident = 'login' | 'id' | 'both' | 'mismatch';
function identBody(viewer: ViewerName, ident: Ident): Values {
  if (ident === 'login') return { twitch_username: viewer };
  if (ident === 'id') return { twitch_user_id: VIEWER_ID[viewer] };
  if (ident === 'mismatch') return { twitch_username: viewer, twitch_user_id: viewer === 'viewer_one' ? '1002' : '1001' };
  return { twitch_username: viewer, twitch_user_id: VIEWER_ID[viewer] };
}

class Unlock implements fc.AsyncCommand<Model, Real> {
  readonly viewer: ViewerName;
  readonly ident: Ident;
  readonly skin: AnySkin;
  constructor(viewer: ViewerName, ident: Ident, skin: AnySkin) { this.viewer = viewer; this.ident = ident; this.skin = skin; }
  check(): boolean { return true; }
  async run(model: Model, real: Real): Promise<void> {
    const step = this.toString();
    const answer = await real.api('POST', '/viewers/unlock-skin', { ...identBody(this.viewer, this.ident), skin_id: real.skinIds[this.skin] });
    const grant = `${this.viewer}/${this.skin}`;
    if (this.ident === 'mismatch') expect(answer.status, step).toBe(422);
    else if (this.viewer === 'nobody' || this.skin === 'othersk') expect(answer.status, step).toBe(404);
    else if (this.skin === 'retired') expect(answer.status, step).toBe(422);
    else if (model.grants.has(grant) || model.purchases.has(grant)) {
      expect(answer.status, step).toBe(200);
    } else {
      expect(answer.status, step).toBe(201);
      model.grants.add(grant);
    }
    if (answer.status < 300) {
      expect(answer.body.data, step).toEqual({ twitch_username: this.viewer, skin: { id: real.skinIds[this.skin], name: expect.any(String) } });
    }
    await checkGrants(model, real, step);
  }
  toString(): string { return `Unlock(${this.viewer} by ${this.ident}, ${this.skin})`; }
}

class Revoke implements fc.AsyncCommand<Model, Real> {
  readonly viewer: ViewerName;
  readonly ident: Ident;
  readonly skin: AnySkin;
  constructor(viewer: ViewerName, ident: Ident, skin: AnySkin) { this.viewer = viewer; this.ident = ident; this.skin = skin; }
  check(): boolean { return true; }
  async run(model: Model, real: Real): Promise<void> {
    const step = this.toString();
    const answer = await real.api('DELETE', '/viewers/unlock-skin', { ...identBody(this.viewer, this.ident), skin_id: real.skinIds[this.skin] });
    const grant = `${this.viewer}/${this.skin}`;
    if (this.ident === 'mismatch') {
      expect(answer.status, step).toBe(422);
    } else if (model.grants.has(grant)) {
      expect(answer.status, step).toBe(200);
      model.grants.delete(grant);
    } else {
      expect(answer.status, step).toBe(404);
    }
    await checkGrants(model, real, step);
  }
  toString(): string { return `Revoke(${this.viewer} by ${this.ident}, ${this.skin})`; }
}

/** GET /viewers/{identifier}/skins under each spelling of each viewer, against the model's grants. */
async function checkGrants(model: Model, real: Real, step: string): Promise<void> {
  for (const viewer of ['viewer_one', 'viewer_two', 'nobody'] as ViewerName[]) {
    for (const identifier of [viewer.toUpperCase(), VIEWER_ID[viewer]]) {
      const answer = await real.api('GET', `/viewers/${identifier}/skins`);
      if (viewer === 'nobody') {
        expect(answer.status, `${step}: GET /viewers/${identifier}/skins`).toBe(404);
        continue;
      }
      expect(answer.status).toBe(200);
      const listed = answer.body.data.map((s: { id: number }) => s.id).sort((a: number, b: number) => a - b);
      const want = [...model.grants].filter((g) => g.startsWith(`${viewer}/`))
        .map((g) => real.skinIds[g.slice(viewer.length + 1) as AnySkin]).sort((a, b) => a - b);
      expect(listed, `${step}: GET /viewers/${identifier}/skins`).toEqual(want);
    }
  }
}

const overlayArb = fc.constantFrom<OverlayName | 'Default'>(...OVERLAYS, 'Default');
const scopeArb = fc.constantFrom<Scope>('source', 'override', 'independent');
const anySkinArb = fc.constantFrom<AnySkin>('rolled', 'picked', 'spare', 'retired', 'tape', 'classic', 'othersk');
const viewerArb = fc.constantFrom<ViewerName>('viewer_one', 'viewer_two', 'nobody');
const identArb = fc.oneof({ weight: 6, arbitrary: fc.constantFrom<Ident>('login', 'id', 'both') }, { weight: 1, arbitrary: fc.constant<Ident>('mismatch') });

const commands = [
  fc.tuple(overlayArb, scopeArb, sentValues(true), fc.boolean()).map(([o, s, v, q]) => new PutTemplate(o, s, v, q)),
  // Mostly scopes that fit, so that writes go through and pile up.
  fc.tuple(overlayArb, sentValues(false)).map(([o, v]) => new PutTemplate(o, o === 'Synced' ? (v.length % 2 === 0 ? 'source' : 'override') : 'independent', v)),
  fc.uniqueArray(fc.oneof(fc.constantFrom(...VALID), fc.constantFrom(...NULLS)), { minLength: 2, maxLength: 6, selector: (s) => s.key })
    .chain((sent) => fc.array(fc.tuple(fc.constantFrom(...OVERLAYS), fc.boolean()), { minLength: sent.length, maxLength: sent.length })
      .map((targets) => new ConcurrentPuts(targets.map(([overlay, pick], i) => ({ overlay, scope: fittingScope(overlay, pick), sent: [sent[i]!] }))))),
  fc.tuple(anySkinArb, sentValues(true)).map(([k, v]) => new PutSkin(k, v)),
  fc.tuple(fc.constantFrom<OwnSkin>(...OWN_SKINS), sentValues(false)).map(([k, v]) => new PutSkin(k, v)),
  fc.tuple(viewerArb, identArb, anySkinArb).map(([v, i, k]) => new Unlock(v, i, k)),
  fc.tuple(viewerArb, identArb, anySkinArb).map(([v, i, k]) => new Revoke(v, i, k)),
];

it('the API and the push agree with the reference model over random sequences of operations', async () => {
  await fc.assert(
    fc.asyncProperty(fc.commands(commands, { maxCommands: 25 }), async (cmds) => {
      const real = await startReal();
      try {
        await checkAll(initialModel(), real, 'start');
        await fc.asyncModelRun(() => ({ model: initialModel(), real }), cmds);
      } finally {
        await real.close();
      }
    }),
    { numRuns: 40 },
  );
}, 120_000);
