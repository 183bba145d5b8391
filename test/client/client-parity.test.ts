// Parity property of the two OverlayStyleClient implementations (docs/client.md: "two
// implementations that behave the same on them"): fast-check generates random sequences of
// client calls and runs each against two fresh, identically seeded services, one through the
// in-process client and one through the HTTP client against the bundled server on a real socket.
// - every call of the seven operations, with valid, refused and invalid input: template reads and
//   writes under every scope (and a scope that does not fit or does not exist), values valid,
//   invalid, null, NaN/Infinity, outside the template, of the wrong type, over 64 KiB; skins
//   listed and updated (own, inactive, global, another account's, unknown, ids that are not
//   positive integers); grants made, revoked and listed for known, unknown and renamed viewers by
//   login (any case), id, both, mismatched, neither, and odd identifiers (path-like, long,
//   percent signs, a lone surrogate, empty);
// - after each call both give the same result (deep-equal: both answer exactly the spec's fields,
//   and nothing here loses an answer, so the HTTP client's `afterLostAnswer` never appears), or
//   both throw an OverlayStyleError with the same kind, status, message, field errors,
//   retryAfter and afterLostAnswer;
// - the bundled-only methods (registerViewer, listPickableSkins, pickSkin) are the one documented
//   difference (docs/client.md, "Bundled-only methods": the HTTP client "rejects each at once with
//   an OverlayStyleError { kind: 'unsupported', status: 0 }, sending nothing"): the HTTP client
//   must refuse them so, and the same call is made on the HTTP side's service through an
//   in-process client of its own, so both services keep the same state (new viewers, renames);
// - after each call, the state read back through each client is the same: every overlay's
//   template view, the skins per template, every viewer's grants by login and by id (and, in
//   process on each service, every viewer's pickable skins and pick).
// CLIENT_PARITY_RUNS sets the number of sequences (40 by default, a few seconds).
import fc from 'fast-check';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { expect, it } from 'vitest';
import { createHttpClient } from '../../src/client/http-client.ts';
import { createInProcessClient } from '../../src/client/in-process-client.ts';
import type { OverlayStyleClient } from '../../src/client/overlay-style-client.ts';
import { OverlayStyleError } from '../../src/client/overlay-style-error.ts';
import { buildApiApp } from '../../src/service/http/index.ts';
import { seededService } from './contract-world.ts';

type Ids = Awaited<ReturnType<typeof seededService>>['ids'];

interface Side {
  client: OverlayStyleClient;
  /** An in-process client on the same service (the HTTP side's stand-in for bundled-only calls). */
  local: OverlayStyleClient;
  ids: Ids;
  close(): Promise<void>;
}

async function inProcessSide(): Promise<Side> {
  const { service, ids, close } = await seededService();
  const client = createInProcessClient(service, ids.accountId);
  return { client, local: client, ids, close };
}

async function httpSide(): Promise<Side> {
  const { service, ids, close } = await seededService();
  const { token } = await service.createKey('streamer');
  const app = buildApiApp({ operations: service, authenticate: service.authenticate, rateLimit: { perMinute: 1_000_000 } });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/v1`;
  const agent = new Agent();
  return {
    client: createHttpClient({ baseUrl, apiKey: token, dispatcher: agent, maxRetries: 0 }),
    local: createInProcessClient(service, ids.accountId),
    ids,
    async close() {
      await agent.close();
      await app.close();
      await close();
    },
  };
}

// ---- what a call's outcome is, normalised for comparison ----

type Outcome =
  | { ok: true; value: unknown }
  | { ok: false; kind: string; status: number; message: string; errors: unknown; retryAfter: unknown; afterLostAnswer: boolean };

async function outcomeOf(promise: Promise<unknown>): Promise<Outcome> {
  try {
    return { ok: true, value: await promise };
  } catch (error) {
    if (!(error instanceof OverlayStyleError)) throw error;
    return {
      ok: false, kind: error.kind, status: error.status, message: error.message, errors: error.errors,
      retryAfter: error.retryAfter, afterLostAnswer: error.afterLostAnswer,
    };
  }
}

// ---- the pools the calls draw from (symbolic: resolved against each side's seeded ids) ----

type PresetRef = 'default' | 'synced' | 'ticker' | 'foreign' | 'unknown' | number | undefined;
type SkinRef = 'own' | 'inactive' | 'global' | 'foreign' | 'unknown' | number;

const presetArb = fc.constantFrom<PresetRef>(
  undefined, 'default', 'synced', 'ticker', 'foreign', 'unknown', 0, -1, 1.5, NaN, Infinity, 1e21, 2 ** 53, '1' as never,
);
const skinArb = fc.constantFrom<SkinRef>('own', 'own', 'inactive', 'global', 'foreign', 'unknown', 0, -2, 2.5, NaN, 1e21, '1' as never);

function preset(ids: Ids, ref: PresetRef): number | undefined {
  switch (ref) {
    case 'default': return ids.defaultPresetId;
    case 'synced': return ids.syncedPresetId;
    case 'ticker': return ids.tickerPresetId;
    case 'foreign': return ids.foreignPresetId;
    case 'unknown': return 987_654;
    default: return ref;
  }
}

function skin(ids: Ids, ref: SkinRef): number {
  switch (ref) {
    case 'own': return ids.ownSkin.id;
    case 'inactive': return ids.inactiveSkinId;
    case 'global': return ids.globalSkin.id;
    case 'foreign': return ids.foreignSkinId;
    case 'unknown': return 987_654;
    default: return ref;
  }
}

const VALID: Array<[string, unknown]> = [
  ['bubble.width', 300], ['bubble.width', 0], ['bubble.width', 10000], ['bubble.gap', 4],
  ['bubble.background-color', '#ABC'], ['bubble.background-color', 'transparent'], ['bubble.background-color', '#0f08'],
  ['avatar.show', false], ['avatar.size', 80], ['message.font-weight', 700], ['message.font-weight', '400'],
  ['message.font-family', 'open sans'], ['message.font-size', 20], ['message.font-color', '#FFFFFF00'],
  ['bubble.background-gradient', 'linear-gradient(red, blue)'], ['username.position', 'inline'],
  ['bubble.box-shadow-offset-x', -10000],
];
const INVALID: Array<[string, unknown]> = [
  ['bubble.width', 10001], ['bubble.width', '12'], ['bubble.width', 1.5], ['bubble.width', NaN], ['bubble.width', Infinity],
  ['bubble.width', -Infinity], ['bubble.width', { nested: 1 }], ['bubble.width', [1]], ['bubble.background-color', 'red'],
  ['avatar.show', 'yes'], ['message.font-weight', 450], ['message.font-family', 'Not A Font'], ['bubble.colour', '#fff'],
  ['bubble.border-style', 'wavy'], ['', 1], ['bubble.background-gradient', 'conic-gradient(red, blue)'],
  ['bubble.background-gradient', `linear-gradient(${'red, '.repeat(14_000)}blue)`],
  ['__proto__', { 'bubble.width': 1 }], ['constructor', { prototype: {} }], ['constructor', 1],
];
const KEYS = [...new Set(VALID.map(([key]) => key))];

const valuesArb: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 12,
    arbitrary: fc.uniqueArray(
      fc.oneof(
        { weight: 6, arbitrary: fc.constantFrom(...VALID) },
        { weight: 2, arbitrary: fc.constantFrom(...KEYS).map((key): [string, unknown] => [key, null]) },
        { weight: 2, arbitrary: fc.constantFrom(...INVALID) },
      ),
      { minLength: 0, maxLength: 4, selector: ([key]) => key },
    ).map((entries) => Object.fromEntries(entries)),
  },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(undefined, null, 'bubble.width=3', [], [['bubble.width', 3]], 5) },
);

const scopeArb = fc.constantFrom<unknown>('independent', 'independent', 'source', 'override', 'Independent', 'global', undefined);

type IdentRef = 'login' | 'LOGIN' | 'id' | 'both' | 'mismatch' | 'none' | 'unknown_login' | 'unknown_id' | 'numeric_login' | 'empty';
const identArb = fc.constantFrom<IdentRef>(
  'login', 'login', 'LOGIN', 'id', 'id', 'both', 'mismatch', 'none', 'unknown_login', 'unknown_id', 'numeric_login', 'empty',
);
/** Viewers the calls name: the two seeded ones and one the sequence may sign in (registerViewer). */
const VIEWERS = [
  { login: 'viewer_one', userId: '1001' },
  { login: 'viewer_two', userId: '1002' },
  { login: 'new_viewer', userId: '2001' },
];
const viewerArb = fc.constantFrom(0, 0, 1, 2);

function identifierBody(ref: IdentRef, viewer: number): Record<string, unknown> {
  const { login, userId } = VIEWERS[viewer]!;
  switch (ref) {
    case 'login': return { twitch_username: login };
    case 'LOGIN': return { twitch_username: login.toUpperCase() };
    case 'id': return { twitch_user_id: userId };
    case 'both': return { twitch_username: login, twitch_user_id: userId };
    case 'mismatch': return { twitch_username: login, twitch_user_id: VIEWERS[(viewer + 1) % VIEWERS.length]!.userId };
    case 'none': return {};
    case 'unknown_login': return { twitch_username: 'never_signed_in' };
    case 'unknown_id': return { twitch_user_id: '999999' };
    case 'numeric_login': return { twitch_username: userId };
    case 'empty': return { twitch_username: '' };
  }
}

const pathIdentifierArb = fc.oneof(
  { weight: 6, arbitrary: fc.tuple(viewerArb, fc.constantFrom('login', 'LOGIN', 'id')).map(([v, how]) => {
    const { login, userId } = VIEWERS[v]!;
    return how === 'login' ? login : how === 'LOGIN' ? login.toUpperCase() : userId;
  }) },
  { weight: 3, arbitrary: fc.constantFrom(
    'never_signed_in', '999999', '', ' ', ' viewer_one ', '..', '.', 'a/b', '%2E%2E', '%', '100%', 'viewer_one/../x', '?x=1', '#frag',
    '\uD800', 'viewer\uDC00', 'ÄÖÜ', 'x'.repeat(100), 'x'.repeat(101), 'v'.repeat(600), 'Ä'.repeat(60), '😀'.repeat(50), '😀'.repeat(51), 'İ'.repeat(3), 'VIEWER_ONE\u212A', '01001', '+1001', '1001.0', 'viewer_one\u0000',
  ) },
);

// ---- the calls ----

interface Step {
  label: string;
  /** Bundled-only: the HTTP client must refuse it as unsupported; its effect is made on the HTTP side's service directly. */
  bundledOnly?: boolean;
  run(client: OverlayStyleClient, ids: Ids): Promise<unknown>;
}

const show = (value: unknown): string => {
  const text = JSON.stringify(value, (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? String(v) : v));
  return text === undefined ? String(value) : text.length > 120 ? `${text.slice(0, 120)}…` : text;
};

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 2, arbitrary: presetArb.map((p): Step => ({ label: `getTemplate(${show(p)})`, run: (c, ids) => c.getTemplate(preset(ids, p)) })) },
  { weight: 6, arbitrary: fc.tuple(scopeArb, valuesArb, presetArb, fc.boolean()).map(([scope, values, p, extra]): Step => ({
    label: `updateTemplate(${show(scope)}, ${show(values)}, ${show(p)}${extra ? ', +extra' : ''})`,
    run: (c, ids) => c.updateTemplate({ scope, values, preset_id: preset(ids, p), ...(extra ? { extra: true } : {}) } as never),
  })) },
  { weight: 2, arbitrary: presetArb.map((p): Step => ({ label: `listSkins(${show(p)})`, run: (c, ids) => c.listSkins(preset(ids, p)) })) },
  { weight: 4, arbitrary: fc.tuple(skinArb, valuesArb).map(([k, values]): Step => ({
    label: `updateSkin(${show(k)}, ${show(values)})`, run: (c, ids) => c.updateSkin(skin(ids, k), values as never),
  })) },
  { weight: 4, arbitrary: fc.tuple(identArb, viewerArb, skinArb).map(([how, v, k]): Step => ({
    label: `unlockSkin(${how} of ${VIEWERS[v]!.login}, ${show(k)})`,
    run: (c, ids) => c.unlockSkin({ ...identifierBody(how, v), skin_id: skin(ids, k) } as never),
  })) },
  { weight: 3, arbitrary: fc.tuple(identArb, viewerArb, skinArb).map(([how, v, k]): Step => ({
    label: `revokeSkin(${how} of ${VIEWERS[v]!.login}, ${show(k)})`,
    run: (c, ids) => c.revokeSkin({ ...identifierBody(how, v), skin_id: skin(ids, k) } as never),
  })) },
  { weight: 3, arbitrary: pathIdentifierArb.map((identifier): Step => ({
    label: `listViewerSkins(${show(identifier)})`, run: (c) => c.listViewerSkins(identifier),
  })) },
  // Bundled-only: sign the third viewer in (or rename a viewer onto another's login), list and pick.
  { weight: 1, arbitrary: fc.tuple(viewerArb, fc.constantFrom(0, 1, 2)).map(([v, as]): Step => ({
    label: `registerViewer(${VIEWERS[v]!.userId} as ${VIEWERS[as]!.login})`, bundledOnly: true,
    run: (c) => c.registerViewer({ twitchUserId: VIEWERS[v]!.userId, login: VIEWERS[as]!.login.toUpperCase() }),
  })) },
  { weight: 1, arbitrary: viewerArb.map((v): Step => ({
    label: `listPickableSkins(${VIEWERS[v]!.userId})`, bundledOnly: true,
    run: (c) => c.listPickableSkins({ twitchUserId: VIEWERS[v]!.userId }),
  })) },
  { weight: 1, arbitrary: fc.tuple(viewerArb, fc.oneof(skinArb, fc.constantFrom<string | null>('neon', 'classic', 'NEON', null))).map(([v, k]): Step => ({
    label: `pickSkin(${VIEWERS[v]!.userId}, ${show(k)})`, bundledOnly: true,
    run: (c, ids) => c.pickSkin({ twitchUserId: VIEWERS[v]!.userId }, typeof k === 'string' && !['own', 'inactive', 'global', 'foreign', 'unknown'].includes(k) || k === null ? k : skin(ids, k as SkinRef)),
  })) },
);

/** Steps print as their label in a counterexample. */
const labelledStepArb = stepArb.map((step) => Object.assign(step, { [fc.toStringMethod]: () => step.label }));

/** Everything the seven operations can read back, through the given client. */
async function readBack(client: OverlayStyleClient, ids: Ids): Promise<unknown> {
  const state: Record<string, unknown> = {};
  for (const p of [ids.defaultPresetId, ids.syncedPresetId, ids.tickerPresetId]) {
    state[`template ${p}`] = await outcomeOf(client.getTemplate(p));
    state[`skins ${p}`] = await outcomeOf(client.listSkins(p));
  }
  for (const { login, userId } of VIEWERS) {
    state[`grants ${login}`] = await outcomeOf(client.listViewerSkins(login));
    state[`grants ${userId}`] = await outcomeOf(client.listViewerSkins(userId));
  }
  return state;
}

/** The bundled-only state (picks, pickable skins), read in process on each side's service. */
async function readBundled(local: OverlayStyleClient): Promise<unknown> {
  const state: Record<string, unknown> = {};
  for (const { userId } of VIEWERS) state[userId] = await outcomeOf(local.listPickableSkins({ twitchUserId: userId }));
  return state;
}

it('the in-process and the HTTP client answer every call alike and leave the same state', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(labelledStepArb, { minLength: 1, maxLength: 14 }), async (steps) => {
      const [a, b] = await Promise.all([inProcessSide(), httpSide()]);
      try {
        expect({ ...b.ids, dbPath: '' }, 'both services seeded alike').toEqual({ ...a.ids, dbPath: '' });
        const done: string[] = [];
        for (const step of steps) {
          done.push(step.label);
          const where = done.join('\n  ');
          const inProcess = await outcomeOf(step.run(a.client, a.ids));
          if (step.bundledOnly) {
            const remote = await outcomeOf(step.run(b.client, b.ids));
            expect(remote, `the HTTP client refuses a bundled-only call:\n  ${where}`).toMatchObject({ ok: false, kind: 'unsupported', status: 0 });
            expect(await outcomeOf(step.run(b.local, b.ids)), `bundled-only call on the HTTP side's service:\n  ${where}`).toEqual(inProcess);
          } else {
            expect(await outcomeOf(step.run(b.client, b.ids)), `after:\n  ${where}`).toEqual(inProcess);
          }
          expect(await readBack(b.client, b.ids), `state read back after:\n  ${where}`).toEqual(await readBack(a.client, a.ids));
          expect(await readBundled(b.local), `bundled-only state after:\n  ${where}`).toEqual(await readBundled(a.local));
        }
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    }),
    { numRuns: Number(process.env.CLIENT_PARITY_RUNS ?? 40) },
  );
}, 60_000);
