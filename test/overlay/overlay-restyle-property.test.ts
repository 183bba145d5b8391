// Property-based test of live restyling in real headless Chromium (Debian's /usr/bin/chromium,
// through playwright-core) against a real server: one overlay page (an overlay synced to a
// source, reached through a proxy that can drop its socket) shows chat from an unskinned viewer,
// a viewer who picked a skin and a moderator (the moderators' role skin), while fast-check's
// sequences of PUT /template writes (random catalog keys and valid values, null resets included,
// on the overlay's override scope and on its sync source), PUT /skins writes, new chat lines,
// deletions and a dropped socket run against it. After each step, once the page has applied the
// version a fresh page's snapshot carries (no sleeping), the computed styles of representative
// elements of each kind of message on the long-open page must equal those of a page loaded
// fresh at that state, and neither page may report a page error or a console error.
import type { Browser, Page } from 'playwright-core';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SETTINGS } from '../../src/service/settings/catalog.ts';
import type { SettingSpec } from '../../src/service/settings/catalog.ts';
import { haveChromium, launchChromium, NO_CHROMIUM_NOTE } from '../support/chromium.ts';
import { startPushTestServer } from '../service/push/push-test-server.ts';
import type { PushTestServer } from '../service/push/push-test-server.ts';
import { startPrefixProxy } from './prefix-proxy.ts';

/** Sequences per run: some 20 s in all. */
const RUNS = 10;
/** The three kinds of message compared: the skins come from the push test server's seed. */
const KINDS = {
  plain: { userId: '4004', login: 'plain', color: null, badges: [] as string[] },
  picked: { userId: '1001', login: 'viewer', color: '#ff4500', badges: [] as string[] },
  mod: { userId: '3003', login: 'amod', color: '#1e90ff', badges: ['moderator/1'] },
} as const;
type Kind = keyof typeof KINDS;
const KIND_NAMES = Object.keys(KINDS) as Kind[];

/** Per element of a message, the computed properties compared. */
const COMPARED: Readonly<Record<string, readonly string[]>> = {
  '': ['background-color', 'background-image', 'border-top-width', 'border-top-style', 'border-top-color',
    'border-left-width', 'border-top-left-radius', 'padding-top', 'padding-left', 'box-shadow', 'direction',
    'flex-direction', 'align-self', 'width'],
  '.cs-head': ['display', 'flex-direction'],
  '.cs-avatar': ['display', 'background-color', 'background-image', 'border-top-width', 'border-top-style', 'border-top-color', 'width'],
  '.cs-badges': ['display', 'order'],
  '.cs-username': ['color', 'font-size', 'font-family', 'font-weight', 'font-style', 'background-color', 'background-image',
    'border-top-width', 'border-top-style', 'border-top-color', 'padding-top', 'text-shadow', 'display'],
  '.cs-message': ['color', 'font-size', 'font-family', 'font-weight', 'background-color', 'background-image',
    'border-top-width', 'border-top-style', 'border-top-color', 'padding-top', 'text-transform', 'display'],
};

const BUBBLE_KEYS = SETTINGS.filter((spec) => ['bubble', 'avatar', 'username', 'message', 'badges', 'chat'].includes(spec.element));
const COLORS = ['#ff0000', '#00ff0080', 'transparent', '#123456', '#ffffff'];
const GRADIENTS = ['', 'linear-gradient(90deg, #ff0000 0%, #0000ff 100%)', 'radial-gradient(circle farthest-corner at 0% 0%, #ffff00 0%, transparent 100%)'];
const FAMILIES = ['serif', 'monospace', 'Arial', 'Inter'];

function valueOf(spec: SettingSpec): fc.Arbitrary<unknown> {
  switch (spec.type) {
    case 'integer': return fc.integer({ min: Math.max(spec.min ?? 0, -8), max: Math.min(spec.max ?? 10_000, 40) });
    case 'color': return fc.constantFrom(...COLORS);
    case 'select': return fc.constantFrom(...spec.options!);
    case 'toggle': return fc.boolean();
    case 'string': return fc.constantFrom(...FAMILIES);
    case 'gradient': return fc.constantFrom(...GRADIENTS);
  }
}

/** One to three keys, each a valid value or null (removed from the scope). */
const values = fc.uniqueArray(fc.constantFrom(...BUBBLE_KEYS), { minLength: 1, maxLength: 3, selector: (spec) => spec.key })
  .chain((specs) => fc.tuple(...specs.map((spec) => fc.option(valueOf(spec), { nil: null, freq: 4 }).map((value) => [spec.key, value] as const))))
  .map((pairs) => Object.fromEntries(pairs) as Record<string, unknown>);

type Step =
  | { type: 'template'; scope: 'source' | 'override'; values: Record<string, unknown> }
  | { type: 'skin'; skin: 'role' | 'picked'; values: Record<string, unknown> }
  | { type: 'chat'; kind: Kind }
  | { type: 'delete'; kind: Kind }
  | { type: 'reconnect' };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ type: fc.constant('template' as const), scope: fc.constantFrom('source' as const, 'override' as const), values }) },
  { weight: 3, arbitrary: fc.record({ type: fc.constant('skin' as const), skin: fc.constantFrom('role' as const, 'picked' as const), values }) },
  { weight: 2, arbitrary: fc.record({ type: fc.constant('chat' as const), kind: fc.constantFrom(...KIND_NAMES) }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('delete' as const), kind: fc.constantFrom(...KIND_NAMES) }) },
  { weight: 1, arbitrary: fc.constant({ type: 'reconnect' as const }) },
);

describe.skipIf(!haveChromium)(`overlay live restyling property in Chromium${haveChromium ? '' : ` (skipped: ${NO_CHROMIUM_NOTE})`}`, () => {
  let server: PushTestServer;
  let browser: Browser;
  let proxy: Awaited<ReturnType<typeof startPrefixProxy>>;

  beforeAll(async () => {
    server = await startPushTestServer();
    proxy = await startPrefixProxy('/chatskin', server.port);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await proxy?.close();
    await server?.close();
  });

  let line = 0;
  async function chat(event: Record<string, unknown>): Promise<void> {
    const response = await fetch(`${server.origin}/local/chat`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: server.syncedA.token, event }),
    });
    expect(response.status).toBe(202);
    await response.arrayBuffer();
  }
  async function say(kind: Kind): Promise<string> {
    const id = `m${line++}`;
    const { userId, login, color, badges } = KINDS[kind];
    await chat({ type: 'message', id, userId, login, displayName: login, color, badges, text: `hello from ${login}` });
    return id;
  }

  async function open(url: string, errors: string[]): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 600, height: 900 } });
    page.on('pageerror', (error) => errors.push(`page error: ${String(error)}`));
    page.on('console', (message) => { if (message.type() === 'error') errors.push(`console error: ${message.text()}`); });
    await page.goto(url);
    await page.waitForFunction(() => document.body.dataset.status === 'live', null, { timeout: 10_000 });
    return page;
  }

  /** The compared computed styles of the message `selector` (one of a kind) on `page`. */
  const stylesOf = (page: Page, selector: string) => page.$eval(selector, (msg, compared) => {
    const out: Record<string, string> = {};
    for (const [part, properties] of Object.entries(compared)) {
      const element = part === '' ? msg : msg.querySelector(part);
      if (element === null) { out[part] = 'absent'; continue; }
      const style = getComputedStyle(element);
      for (const property of properties) out[`${part || '.cs-msg'} ${property}`] = style.getPropertyValue(property);
    }
    return out;
  }, COMPARED);

  const SKIN_SEED: Record<'role' | 'picked', Record<string, unknown>> = {
    role: { 'bubble.background-color': '#00ff00' },
    picked: { 'message.font-color': '#ffd700' },
  };

  it('restyles a long-open page to what a fresh page shows, through template and skin writes, chat, deletions and a dropped socket', async () => {
    const written = { source: new Set<string>(), override: new Set<string>(), role: new Set<string>(), picked: new Set<string>() };
    const skinId = (skin: 'role' | 'picked') => (skin === 'role' ? server.roleSkinId : server.pickedSkinId);
    const nulls = (keys: Set<string>) => Object.fromEntries([...keys].map((key) => [key, null]));

    /** Back to the seeded state: every key a run wrote removed again, the skins as seeded. */
    async function reset(): Promise<void> {
      for (const scope of ['source', 'override'] as const) {
        if (written[scope].size > 0) expect((await server.api('PUT', '/template', { scope, preset_id: server.syncedA.id, values: nulls(written[scope]) })).status).toBe(200);
        written[scope].clear();
      }
      for (const skin of ['role', 'picked'] as const) {
        expect((await server.api('PUT', `/skins/${skinId(skin)}`, { values: { ...nulls(written[skin]), ...SKIN_SEED[skin] } })).status).toBe(200);
        written[skin].clear();
      }
    }

    await fc.assert(fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 6 }), async (steps) => {
      await reset();
      const errors: string[] = [];
      const live = await open(`${proxy.origin}/chatskin/overlay/${server.syncedA.token}`, errors);
      /** Loaded again after each step: a page that starts at the state the step left. */
      const fresh = await open(`${server.origin}/overlay/${server.syncedA.token}`, errors);
      /** Ids of the messages of each kind on the long-open page, oldest first. */
      const shown: Record<Kind, string[]> = { plain: [], picked: [], mod: [] };
      try {
        for (const kind of KIND_NAMES) shown[kind].push(await say(kind));
        for (const s of steps) {
          switch (s.type) {
            case 'template':
              expect((await server.api('PUT', '/template', { scope: s.scope, preset_id: server.syncedA.id, values: s.values })).status).toBe(200);
              for (const key of Object.keys(s.values)) written[s.scope].add(key);
              break;
            case 'skin':
              expect((await server.api('PUT', `/skins/${skinId(s.skin)}`, { values: s.values })).status).toBe(200);
              for (const key of Object.keys(s.values)) written[s.skin].add(key);
              break;
            case 'chat':
              shown[s.kind].push(await say(s.kind));
              break;
            case 'delete': {
              const id = shown[s.kind].shift();
              if (id !== undefined) await chat({ type: 'message-deleted', messageId: id });
              break;
            }
            case 'reconnect':
              proxy.cutSockets();
              await live.waitForFunction(() => document.body.dataset.status !== 'live', null, { timeout: 5_000 });
              await live.waitForFunction(() => document.body.dataset.status === 'live', null, { timeout: 10_000 });
              for (const kind of KIND_NAMES) shown[kind] = []; // the page cleared its chat
              break;
          }

          // Settled: the long-open page has applied the version a fresh page's snapshot carries.
          await fresh.reload();
          await fresh.waitForFunction(() => document.body.dataset.status === 'live', null, { timeout: 10_000 });
          {
            const version = Number(await fresh.evaluate(() => document.body.dataset.version));
            await live.waitForFunction((v) => document.body.dataset.status === 'live' && Number(document.body.dataset.version) >= v, version, { timeout: 10_000 });
            // One line of each kind for the fresh page (the long-open page gets them too, after its own).
            const probes = {} as Record<Kind, string>;
            for (const kind of KIND_NAMES) {
              probes[kind] = await say(kind);
              shown[kind].push(probes[kind]);
            }
            const last = `.cs-msg[data-message-id="${probes.mod}"]`;
            await fresh.waitForSelector(last, { timeout: 5_000 });
            await live.waitForSelector(last, { timeout: 5_000 });
            for (const kind of KIND_NAMES) {
              // On the long-open page its oldest message of the kind: shown before the step's restyle when there is one.
              const old = await stylesOf(live, `.cs-msg[data-message-id="${shown[kind][0]}"]`);
              const now = await stylesOf(fresh, `.cs-msg[data-message-id="${probes[kind]}"]`);
              expect({ kind, ...old }).toEqual({ kind, ...now });
            }
          }
        }
        expect(errors).toEqual([]);
      } finally {
        await live.close();
        await fresh.close();
      }
    }), { numRuns: RUNS });
  }, 60_000);
});
