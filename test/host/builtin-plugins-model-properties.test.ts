// Model-based property test of the built-in plugins' SEMANTICS (style, skins, grants) against the
// real bundled service (temp SQLite, seeded), in a real host over a memory chat and a manual clock.
// (command-routing-properties checks routing, chat-transport-parity the two chat paths; this one
// checks what the commands do.) The model is written from docs/commands.md and the spec
// (/work/shared/spec/overlay-style-api.md: scopes, sync sources, overrides, skins, entitlements):
// - a channel with five overlays: Main (default, independent), Synced (synced to Main, overriding
//   avatar.size), Mirror (synced to Main, no overrides), Solo (independent) and Ticker (another
//   template); the style plugin targets one of them per run (presetId, or the default overlay);
// - moderators, the broadcaster, a VIP and viewers type !style (valid and invalid values of each
//   setting type), reset, show, !theme (themes with null resets), !grant / !revoke (by login,
//   display name, @, odd case, unknown and renamed viewers, a login of digits only that is another
//   viewer's user id), !skins, !skin <name|number|none> (free, exclusive, bought, granted, inactive,
//   global and another template's skins);
// - after every step: the reply is the documented one (or its documented pattern), every
//   overlay's effective values and overrides are the model's (a write lands in the target's
//   scope only: an override on a synced overlay, its own values on an independent one, which its
//   synced overlays follow unless they override the key), and each viewer's login, grants and pick
//   are the model's (nothing changed for the others).
// The runtime signs every chatter in on their chat line (docs/commands.md "a viewer becomes known
// when they chat"; src/runtime/chat-transports.ts) and a command waits for it (beforeCommand): the
// test host does the same with the service's registerViewer. The clock moves 31 s before each
// line, so cooldowns (command-routing-properties' business) never hold one.
// PLUGIN_MODEL_RUNS runs more (default 20), PLUGIN_MODEL_SEED replays one seed; PLUGIN_MODEL_STATS=1
// prints how often each kind of reply came (names and numbers taken out), to see what a run reached.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createInProcessClient } from '../../src/client/in-process-client.ts';
import type { OverlayStyleClient } from '../../src/client/overlay-style-client.ts';
import { parseConfig } from '../../src/config/load-config.ts';
import type { ChatTags } from '../../src/host/chat-transport.ts';
import { createHost } from '../../src/host/host.ts';
import { createMemoryChatTransport } from '../../src/host/memory-chat-transport.ts';
import { BUILT_IN_PLUGIN_DIR } from '../../src/host/plugin-loader.ts';
import { applySeed } from '../../src/service/seed.ts';
import { openHarness } from '../service/core/service-harness.ts';
import type { Harness } from '../service/core/service-harness.ts';
import { broadcasterTags, chatTags, moderatorTags, vipTags } from './irc-tags.ts';
import { captureLogs } from './log-capture.ts';
import { ManualClock, settle } from './manual-clock.ts';

const STATS = process.env.PLUGIN_MODEL_STATS === '1';
const stats = new Map<string, number>();
/** A reply with its mention, names and numbers taken out, for PLUGIN_MODEL_STATS. */
const replyKind = (replies: string[]): string => (replies.length === 0 ? '(no reply)' : replies[0]!.replace(/^@\S+ /, '').replace(/"[^"]*"|[0-9#]\S*|[A-Z][a-z]+( [A-Z][a-z]+)?/g, '_').slice(0, 60));
const RUNS = Number(process.env.PLUGIN_MODEL_RUNS ?? 20);
const SEED = process.env.PLUGIN_MODEL_SEED === undefined ? undefined : Number(process.env.PLUGIN_MODEL_SEED);

const FIXTURE = {
  accounts: [
    {
      login: 'streamer',
      premium: true,
      overlays: [
        { name: 'Main', template: 'bubbles', default: true, values: { 'bubble.width': 420, 'message.font-color': '#ffcc00' } },
        { name: 'Synced', template: 'bubbles', sync_source: 'Main', overrides: { 'avatar.size': 80 } },
        { name: 'Mirror', template: 'bubbles', sync_source: 'Main' },
        { name: 'Solo', template: 'bubbles', values: { 'message.font-size': 20 } },
        { name: 'Ticker', template: 'ticker', values: {} },
      ],
      skins: [
        { slug: 'neon', name: 'Neon', template: 'bubbles', availability: 'purchase', values: {} },
        { slug: 'vault', name: 'Vault', template: 'bubbles', availability: 'exclusive', values: {} },
        { slug: 'retired', name: 'Retired', template: 'bubbles', availability: 'purchase', active: false, values: {} },
        { slug: 'night-owl', name: 'Night Owl', template: 'bubbles', availability: 'free', values: {} },
        // Another template's: GET /skins (the default overlay's template) does not list it.
        { slug: 'tape', name: 'Tape Deck', template: 'ticker', availability: 'purchase', values: {} },
      ],
    },
    { login: 'other', premium: true, skins: [{ slug: 'foreign', name: 'Foreign', template: 'bubbles', availability: 'purchase', values: {} }] },
  ],
  global_skins: [
    { slug: 'classic', name: 'Classic', template: 'bubbles', availability: 'free', values: {} },
    { slug: 'gold', name: 'Gold', template: 'bubbles', availability: 'purchase', values: {} },
  ],
  viewers: [
    { twitch_user_id: '1001', twitch_username: 'viewer_one', display_name: 'Viewer_One' },
    { twitch_user_id: '1002', twitch_username: 'ann', display_name: 'Ann' },
  ],
  purchases: [{ account: 'streamer', viewer: 'viewer_one', skin: 'neon' }],
};
const OVERLAYS = ['Main', 'Synced', 'Mirror', 'Solo', 'Ticker'] as const;
type OverlayName = (typeof OVERLAYS)[number];
const SOURCE: Partial<Record<OverlayName, OverlayName>> = { Synced: 'Main', Mirror: 'Main' };

// ---- settings, from the spec's tables ----
type Value = string | number | boolean;
interface KeyDef { type: 'integer' | 'color' | 'select' | 'toggle' | 'font' | 'gradient'; def: Value; min?: number; options?: string[] }
const BORDER_STYLES = ['none', 'solid', 'dashed', 'dotted', 'double'];
const WEIGHTS = ['300', '400', '500', '600', '700', '800', '900'];
const KEYS: Record<string, KeyDef> = {
  'bubble.width': { type: 'integer', def: 400 },
  'avatar.size': { type: 'integer', def: 60 },
  'message.font-size': { type: 'integer', def: 14 },
  'bubble.box-shadow-offset-x': { type: 'integer', def: 0, min: -10000 },
  'bubble.background-color': { type: 'color', def: 'transparent' },
  'message.font-color': { type: 'color', def: '#ffffff' },
  'bubble.border-color': { type: 'color', def: 'transparent' },
  'bubble.border-style': { type: 'select', def: 'solid', options: BORDER_STYLES },
  'message.font-weight': { type: 'select', def: '400', options: WEIGHTS },
  'avatar.show': { type: 'toggle', def: true },
  'message.font-family': { type: 'font', def: 'Inter' },
  'bubble.background-gradient': { type: 'gradient', def: '' },
  'bubble.border-width': { type: 'integer', def: 0 },
};
const KEY_NAMES = Object.keys(KEYS);

/** A value as typed in chat and what the docs say is stored; `null`: refused. */
interface Typed { text: string; stored: Value | null }
function valuesFor(key: string): fc.Arbitrary<Typed> {
  const def = KEYS[key]!;
  switch (def.type) {
    case 'integer': {
      const min = def.min ?? 0;
      return fc.oneof(
        // Mostly values some overlay has already (a default, a seeded value or override), so that equal writes come up.
        fc.oneof(fc.constantFrom(0, 14, 20, 60, 80, 400, 420), fc.integer({ min, max: 10000 })).chain((n) => fc.constantFrom<Typed>(
          { text: String(n), stored: n }, { text: `${n}px`, stored: n }, { text: `${n}ms`, stored: n },
          ...(n >= 0 ? [{ text: `+${n}`, stored: n }] : []),
        )),
        fc.constantFrom<Typed>({ text: '20000', stored: null }, { text: String(min - 1), stored: null }, { text: 'abc', stored: null }, { text: '12a', stored: null }),
      );
    }
    case 'color':
      return fc.constantFrom<Typed>(
        { text: '#FF0000', stored: '#ff0000' }, { text: '#f0f', stored: '#ff00ff' }, { text: 'red', stored: '#ff0000' },
        { text: 'RebeccaPurple', stored: '#663399' }, { text: 'transparent', stored: 'transparent' }, { text: '#ff00ff80', stored: '#ff00ff80' },
        { text: '#12345600', stored: 'transparent' }, { text: 'cyan', stored: '#00ffff' }, { text: '"#00ff00"', stored: '#00ff00' },
        { text: 'nope', stored: null }, { text: '#12', stored: null },
      );
    case 'select':
      return fc.oneof(
        fc.constantFrom(...def.options!).chain((option) => fc.constantFrom<Typed>({ text: option, stored: option }, { text: option.toUpperCase(), stored: option })),
        fc.constantFrom<Typed>({ text: 'wavy', stored: null }, { text: '350', stored: null }),
      );
    case 'toggle':
      return fc.constantFrom<Typed>(
        { text: 'on', stored: true }, { text: 'YES', stored: true }, { text: '1', stored: true }, { text: 'True', stored: true },
        { text: 'off', stored: false }, { text: 'no', stored: false }, { text: '0', stored: false }, { text: 'FALSE', stored: false },
        { text: 'maybe', stored: null },
      );
    case 'font':
      return fc.constantFrom<Typed>(
        { text: 'open sans', stored: 'Open Sans' }, { text: '"Comic Sans MS"', stored: 'Comic Sans MS' },
        { text: '\u201Ccomic sans ms\u201D', stored: 'Comic Sans MS' }, { text: 'inter', stored: 'Inter' }, { text: 'Wingdings Fancy', stored: null },
      );
    case 'gradient':
      return fc.constantFrom<Typed>({ text: 'none', stored: '' }, { text: 'wobbly(red)', stored: null });
  }
}

const THEMES = {
  neon: { 'bubble.background-color': '#FF00FF', 'bubble.border-width': 2, 'bubble.border-color': 'cyan', 'message.font-size': '18px', 'message.font-weight': 700 },
  plain: { 'bubble.background-color': null, 'bubble.border-width': null },
  sunny: { 'message.font-color': 'yellow', 'avatar.size': 90 },
};
/** The themes as the service stores them (null: back to inherited). */
const THEMES_STORED: Record<string, Record<string, Value | null>> = {
  neon: { 'bubble.background-color': '#ff00ff', 'bubble.border-width': 2, 'bubble.border-color': '#00ffff', 'message.font-size': 18, 'message.font-weight': '700' },
  plain: { 'bubble.background-color': null, 'bubble.border-width': null },
  sunny: { 'message.font-color': '#ffff00', 'avatar.size': 90 },
};

// ---- chatters ----
interface Chatter { id: string; login: string; display: string; role: 'broadcaster' | 'moderator' | 'vip' | 'viewer' }
const CHATTERS: Chatter[] = [
  { id: '40286300', login: 'streamer', display: 'Streamer', role: 'broadcaster' },
  { id: '3001', login: 'mod_mia', display: 'Mod_mia', role: 'moderator' },
  { id: '3002', login: 'vip_vic', display: 'Vip_vic', role: 'vip' },
  { id: '1001', login: 'viewer_one', display: 'Viewer_One', role: 'viewer' },
  { id: '1002', login: 'ann', display: 'Ann', role: 'viewer' },
  { id: '2001', login: 'newbie', display: 'Newbie', role: 'viewer' },
  { id: '2002', login: 'kenji', display: '\u5065\u4E8C', role: 'viewer' },
  // A login of digits only, the same as ann's user id (docs/commands.md, !revoke).
  { id: '4001', login: '1002', display: '1002', role: 'viewer' },
];
// New logins; the seeded ones too, which a renamed viewer leaves on a stale row for another to take.
const RENAMES = ['ann_b', 'newbie_2', 'kenji_x', 'viewer_uno', 'ann', 'viewer_one', 'mia_mod', '1001', 'mod_mia'];

function tagsOf(c: Chatter, login: string, display: string): ChatTags {
  const base = c.role === 'broadcaster' ? broadcasterTags(login) : c.role === 'moderator' ? moderatorTags(login) : c.role === 'vip' ? vipTags(login) : chatTags(login);
  return { ...base, 'user-id': c.id, 'display-name': display };
}

// ---- skins ----
interface SkinDef {
  id: number; slug: string; name: string; availability: string; active: boolean;
  /** The channel's own; `listed`: in GET /skins (the default overlay's template). */
  channel: boolean; listed?: boolean;
}

// ---- steps ----
type Step =
  | { kind: 'set'; who: number; key: string; keyForm: number; value: Typed }
  | { kind: 'show' | 'reset'; who: number; key: string; keyForm: number; bare: boolean }
  | { kind: 'unknown-key'; who: number }
  | { kind: 'theme'; who: number; name: string | null; alias: boolean }
  | { kind: 'grant' | 'revoke'; who: number; target: number; targetForm: number; skin: string; again?: boolean }
  | { kind: 'skins'; who: number }
  | { kind: 'skin'; who: number; skin: string | null }
  | { kind: 'rename'; who: number; to: string }
  | { kind: 'chat'; who: number };

const STAFF = [0, 1];
const ANYONE = CHATTERS.map((_, i) => i);
const VIEWERS = [3, 4, 5, 6, 7];
const whoArb = fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...STAFF) }, { weight: 1, arbitrary: fc.constantFrom(2, 3) });
const keyArb = fc.constantFrom(...KEY_NAMES);
const SKIN_WORDS = ['neon', 'Neon', 'NEON', '"Neon"', 'vault', 'Vault', 'night owl', 'Night Owl', 'night-owl', 'retired', 'sparkles', 'classic', 'gold', 'foreign',
  '#neon', '#vault', '#gold', '#foreign', '#classic', '#night-owl', '\uFF2E\uFF45\uFF4F\uFF4E', 'tape', 'Tape', 'tape deck', 'Tape Deck', '#tape'];

/** Mostly skins a grant or pick can succeed with, so that revokes and picks of held skins come up. */
const skinWordArb = fc.oneof({ weight: 3, arbitrary: fc.constantFrom('vault', 'Vault', '#gold', 'night owl', '#vault', 'gold') }, { weight: 2, arbitrary: fc.constantFrom(...SKIN_WORDS) });
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ who: whoArb, key: keyArb, keyForm: fc.nat(3) }).chain((s) => valuesFor(s.key).map((value) => ({ kind: 'set' as const, ...s, value }))) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constantFrom<'show' | 'reset'>('show', 'reset'), who: whoArb, key: keyArb, keyForm: fc.nat(3), bare: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant<'unknown-key'>('unknown-key'), who: whoArb }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant<'theme'>('theme'), who: whoArb, name: fc.constantFrom('neon', 'plain', 'sunny', 'NEON', 'sunset', null), alias: fc.boolean() }) },
  { weight: 7, arbitrary: fc.record({ kind: fc.constantFrom<'grant' | 'revoke'>('grant', 'revoke'), who: whoArb, target: fc.oneof({ weight: 3, arbitrary: fc.constantFrom(3, 4) }, { weight: 2, arbitrary: fc.constantFrom(...VIEWERS, 1, 0, -1) }), targetForm: fc.nat(4), skin: skinWordArb }) },
  // A revoke of what the last !grant named (its viewer and skin, typed afresh).
  { weight: 3, arbitrary: fc.record({ kind: fc.constant<'revoke'>('revoke'), who: whoArb, target: fc.constant(-1), targetForm: fc.nat(4), skin: fc.constant(''), again: fc.constant(true) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant<'skins'>('skins'), who: fc.constantFrom(...ANYONE) }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant<'skin'>('skin'), who: fc.constantFrom(...VIEWERS, 1), skin: fc.option(fc.oneof(skinWordArb, fc.constantFrom('none', 'OFF')), { nil: null, freq: 6 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant<'rename'>('rename'), who: fc.constantFrom(4, 5, 6, 3, 1, 7), to: fc.constantFrom(...RENAMES) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant<'chat'>('chat'), who: fc.constantFrom(...ANYONE) }) },
);
const TARGETS = ['default', 'Main', 'Synced', 'Mirror', 'Solo', 'Ticker'] as const;

// ---- the model ----
interface ViewerState { login: string; display: string; known: boolean; grants: Set<number>; purchases: Set<number>; pick: number | null }
interface Model {
  /** Per overlay: what it stores (independent: its values; synced: its overrides), as changed by the run; undefined = removed. */
  stored: Record<OverlayName, Map<string, Value | undefined>>;
  viewers: ViewerState[];
}

interface World {
  harness: Harness;
  client: OverlayStyleClient;
  chat: ReturnType<typeof createMemoryChatTransport>;
  clock: ManualClock;
  stop(): Promise<void>;
  presets: Record<OverlayName, number>;
  accountId: number;
  skins: SkinDef[];
  initial: Record<OverlayName, { settings: Record<string, Value>; overrides: Record<string, Value> }>;
  templateName: Record<OverlayName, string>;
}

async function startWorld(target: (typeof TARGETS)[number]): Promise<World> {
  const harness = await openHarness();
  const ids = await applySeed(harness.service, structuredClone(FIXTURE));
  const streamer = ids.accounts['streamer']!;
  const accountId = streamer.id;
  const presets = Object.fromEntries(OVERLAYS.map((name) => [name, streamer.overlays[name]!])) as Record<OverlayName, number>;
  const client = createInProcessClient(harness.service, accountId);
  const chat = createMemoryChatTransport({ channels: ['streamer'], limits: null });
  const clock = new ManualClock();
  // As the runtime: every chatter's line signs them in; their command waits for it.
  const registered = new Map<string, Promise<void>>();
  chat.subscribe((event) => {
    if (event.type !== 'message' || event.self) return;
    const id = event.tags['user-id'];
    const login = event.tags.username;
    if (typeof id !== 'string' || typeof login !== 'string') return;
    const display = typeof event.tags['display-name'] === 'string' ? event.tags['display-name'] : undefined;
    registered.set(id, harness.service.registerViewer({ twitchUserId: id, login, displayName: display }).then(() => undefined));
  });
  const { logger } = captureLogs();
  const style: Record<string, unknown> = { themes: THEMES };
  if (target !== 'default') style['presetId'] = presets[target];
  const host = await createHost({
    config: parseConfig({ channel: { login: 'streamer' }, plugins: { style, skins: {}, grants: {} } }),
    logger, overlayClient: client, chatTransports: [chat], clock, builtInPluginDir: BUILT_IN_PLUGIN_DIR,
    beforeCommand: (user) => registered.get(user.id),
  });
  expect(host.plugins.map((p) => `${p.name}:${p.state}`)).toEqual(['style:running', 'skins:running', 'grants:running']);
  const skins: SkinDef[] = [];
  for (const [slug, id] of Object.entries(streamer.skins)) {
    const def = FIXTURE.accounts[0]!.skins!.find((s) => s.slug === slug)! as { name: string; template: string; availability: string; active?: boolean };
    skins.push({ id: id as number, slug, name: def.name, availability: def.availability, active: def.active ?? true, channel: true, listed: def.template === 'bubbles' });
  }
  for (const [slug, id] of Object.entries(ids.global_skins)) {
    const def = FIXTURE.global_skins.find((s) => s.slug === slug)!;
    skins.push({ id: id as number, slug, name: def.name, availability: def.availability, active: true, channel: false });
  }
  skins.push({ id: ids.accounts['other']!.skins['foreign'] as number, slug: 'foreign', name: 'Foreign', availability: 'purchase', active: true, channel: false });
  const initial = {} as World['initial'];
  const templateName = {} as World['templateName'];
  for (const name of OVERLAYS) {
    const view = await client.getTemplate(presets[name]);
    initial[name] = { settings: view.settings_values as Record<string, Value>, overrides: view.override_values as Record<string, Value> };
    templateName[name] = view.template_name;
  }
  return {
    harness, client, chat, clock, presets, accountId, skins, initial, templateName,
    async stop() { await host.stop(); await harness.close(); },
  };
}

function newModel(): Model {
  return {
    stored: Object.fromEntries(OVERLAYS.map((name) => [name, new Map()])) as Model['stored'],
    viewers: CHATTERS.map((c) => ({
      login: c.login, display: c.display, known: c.id === '1001' || c.id === '1002', grants: new Set(), purchases: new Set(), pick: null,
    })),
  };
}

/** The effective value of `key` on `name`, per the model. */
function effective(w: World, m: Model, name: OverlayName, key: string): Value | undefined {
  if (!Object.hasOwn(w.initial[name].settings, key)) return undefined;
  const source = SOURCE[name];
  const own = m.stored[name];
  if (source === undefined) {
    if (own.has(key)) return own.get(key) ?? defaultOf(w, name, key);
    return w.initial[name].settings[key];
  }
  if (own.has(key)) return own.get(key) ?? effective(w, m, source, key);
  if (Object.hasOwn(w.initial[name].overrides, key)) return w.initial[name].overrides[key];
  return effective(w, m, source, key);
}
/** The template's default: the spec's table for bubbles; the Ticker overlay is seeded with none of its own, so its first read. */
function defaultOf(w: World, name: OverlayName, key: string): Value | undefined {
  return name === 'Ticker' ? w.initial.Ticker.settings[key] : KEYS[key]!.def;
}
function overridden(w: World, m: Model, name: OverlayName, key: string): boolean {
  const own = m.stored[name];
  return own.has(key) ? own.get(key) !== undefined : Object.hasOwn(w.initial[name].overrides, key);
}

const shown = (value: Value | undefined): string => (value === '' || value === undefined ? 'none' : String(value));

function typedKey(key: string, form: number): string {
  return form === 1 ? key.toUpperCase() : form === 2 ? `"${key}"` : form === 3 ? key.replace(/^./, (c) => c.toUpperCase()) : key;
}

function skinOf(w: World, word: string): SkinDef | undefined {
  return word.startsWith('#') ? w.skins.find((s) => s.slug === word.slice(1)) : undefined;
}
/** The word as typed: `#slug` stands for the skin's id. */
function skinText(w: World, word: string): string {
  const skin = skinOf(w, word);
  return skin === undefined ? word : String(skin.id);
}
/** typedName: quotes off; full-width letters count as plain ones for matching. */
const unquoted = (text: string): string => text.replace(/^["\u201C](.*)["\u201D]$/u, '$1');
function matches(skin: SkinDef, typed: string): boolean {
  const t = unquoted(typed).normalize('NFKC');
  return skin.slug === t.toLowerCase() || skin.name.toLowerCase() === t.toLowerCase() || String(skin.id) === t;
}

/** Plays one step: the line, the expected reply (a string, a RegExp, or none), and updates the model. */
function expectStep(w: World, m: Model, target: OverlayName, step: Step): { line: string | null; who: number; reply: string | RegExp | null } {
  const chatter = CHATTERS[step.who]!;
  const me = m.viewers[step.who]!;
  const mention = /^[\x20-\x7e]+$/.test(me.display) ? me.display : me.login;
  const at = `@${mention} `;
  const staff = chatter.role === 'broadcaster' || chatter.role === 'moderator';
  const signIn = (): void => { me.known = true; };
  const template = w.templateName[target];
  const inTemplate = (key: string): boolean => Object.hasOwn(w.initial[target].settings, key);
  const synced = SOURCE[target] !== undefined;
  switch (step.kind) {
    case 'chat':
      signIn();
      return { line: 'hello chat', who: step.who, reply: null };
    case 'rename': {
      // The new login must be nobody else's (the model does not follow a login taken over).
      if (m.viewers.some((v) => v.login === step.to)) return { line: null, who: step.who, reply: null };
      me.login = step.to;
      me.display = step.to[0]!.toUpperCase() + step.to.slice(1);
      signIn();
      return { line: 'hi again', who: step.who, reply: null };
    }
    case 'set': {
      const line = `!style ${typedKey(step.key, step.keyForm)} ${step.value.text}`;
      signIn();
      if (!staff) return { line, who: step.who, reply: null };
      if (!inTemplate(step.key)) return { line, who: step.who, reply: `${at}${step.key} is not part of the ${template} template.` };
      const def = KEYS[step.key]!;
      if (step.value.stored === null) {
        const esc = step.key.replace(/\./g, '\\.');
        const pattern = def.type === 'color'
          ? new RegExp(`^${at}${esc} .*, or a colour name such as red\\.$`)
          : def.type === 'select'
            ? `${at}${step.key} must be one of: ${def.options!.join(', ')}.`
            : def.type === 'integer' && /^-?[0-9]+$/.test(step.value.text)
              ? `${at}${step.key} must be an integer between ${def.min ?? 0} and 10000.`
              : new RegExp(`^${at}${esc} \\S.*\\.$`);
        return { line, who: step.who, reply: pattern };
      }
      m.stored[target].set(step.key, step.value.stored);
      return { line, who: step.who, reply: `${at}${step.key} is now ${shown(step.value.stored)}.` };
    }
    case 'show':
    case 'reset': {
      const line = step.kind === 'show' && step.bare ? `!style ${typedKey(step.key, step.keyForm)}` : `!style ${step.kind} ${typedKey(step.key, step.keyForm)}`;
      signIn();
      if (!staff) return { line, who: step.who, reply: null };
      if (!inTemplate(step.key)) return { line, who: step.who, reply: `${at}${step.key} is not part of the ${template} template.` };
      const value = effective(w, m, target, step.key);
      const def = defaultOf(w, target, step.key);
      if (step.kind === 'show') {
        if (synced) {
          return {
            line, who: step.who,
            reply: overridden(w, m, target, step.key)
              ? `${at}${step.key} is ${shown(value)} (overridden on this overlay; the sync source has ${shown(effective(w, m, SOURCE[target]!, step.key))}).`
              : `${at}${step.key} is ${shown(value)} (inherited from the sync source).`,
          };
        }
        return {
          line, who: step.who,
          reply: value === def ? `${at}${step.key} is ${shown(value)} (inherited: the template default).` : `${at}${step.key} is ${shown(value)} (set on this overlay; the template default is ${shown(def)}).`,
        };
      }
      const was = overridden(w, m, target, step.key);
      m.stored[target].set(step.key, undefined);
      const now = shown(effective(w, m, target, step.key));
      if (synced) {
        return { line, who: step.who, reply: was ? `${at}${step.key} reset: now ${now}, inherited from the sync source.` : `${at}${step.key} was not overridden; it is ${now}, inherited from the sync source.` };
      }
      return { line, who: step.who, reply: value === def ? `${at}${step.key} is already the template default: ${now}.` : `${at}${step.key} reset to the template default: ${now}.` };
    }
    case 'unknown-key':
      signIn();
      return { line: '!style bubble.colour #fff', who: step.who, reply: staff ? `${at}bubble.colour is not a setting (keys look like bubble.width).` : null };
    case 'theme': {
      const line = `${step.alias ? '!themes' : '!theme'}${step.name === null ? '' : ` ${step.name}`}`;
      signIn();
      if (!staff) return { line, who: step.who, reply: null };
      const usage = '!theme <name>';
      if (step.name === null) return { line, who: step.who, reply: `${at}themes: neon, plain, sunny. Usage: ${usage}` };
      const name = step.name.toLowerCase();
      const theme = THEMES_STORED[name];
      if (theme === undefined) return { line, who: step.who, reply: `${at}there is no theme "${name}". Themes: neon, plain, sunny.` };
      const keys = Object.keys(theme).filter(inTemplate);
      const left = Object.keys(theme).length - keys.length;
      if (keys.length === 0) return { line, who: step.who, reply: `${at}theme ${name} has no settings for the ${template} template.` };
      for (const key of keys) m.stored[target].set(key, theme[key] ?? undefined);
      const note = left === 0 ? '' : ` (${left} left out: not part of the ${template} template)`;
      return { line, who: step.who, reply: `${at}theme ${name} applied: ${keys.length} setting${keys.length === 1 ? '' : 's'}${note}.` };
    }
    case 'grant':
    case 'revoke': {
      const who = step.target === -1 ? undefined : m.viewers[step.target]!;
      // Nobody's login: a name, or digits that are viewer_one's user id.
      const current = who?.login ?? (step.targetForm % 2 === 0 ? 'nobody_here' : '1001');
      const display = who?.display ?? current;
      // Form 4: the login the chatter had first (no account once they were renamed, unless another took it).
      const first = step.target === -1 ? current : CHATTERS[step.target]!.login;
      const named = [`@${current}`, current, `@${current.toUpperCase()}`, /^[\x20-\x7e]+$/.test(display) ? `@${display}` : `@${current}`, `@${first}`][step.targetForm]!;
      const typed = skinText(w, step.skin);
      const line = `!${step.kind} ${named} ${typed}`;
      signIn();
      if (!staff) return { line, who: step.who, reply: null };
      const login = step.targetForm === 4 ? first : current;
      // The target is known once signed in (a moderator naming themself is, from that very line).
      const target = m.viewers.findIndex((v) => v.login === login);
      const known = target !== -1 && m.viewers[target]!.known;
      const quotedSkin = `"${unquoted(typed)}"`;
      const noAccount = `${at}${login} has no account on the overlay service yet.`;
      if (step.kind === 'grant') {
        // Looked up: a channel skin by slug or name (GET /skins: the default overlay's template), else an id.
        const byName = w.skins.find((s) => s.listed === true && (s.slug === unquoted(typed).toLowerCase() || s.name.toLowerCase() === unquoted(typed).normalize('NFKC').toLowerCase()));
        const byId = skinOf(w, step.skin);
        const skin = byName ?? byId;
        if (skin === undefined) return { line, who: step.who, reply: `${at}there is no skin ${quotedSkin} on this channel.` };
        // A 404 for a skin typed by id: GET /viewers/{identifier} tells which is missing, but it reads a
        // login of digits only as a user id first; then a skin the channel lists exists, else either may be missing.
        const digitsRead = /^[0-9]+$/.test(login) && CHATTERS.some((c, i) => c.id === login && m.viewers[i]!.known);
        const either = `${at}${login} has no account on the overlay service yet, or there is no skin ${quotedSkin} on this channel.`;
        if (!known) return { line, who: step.who, reply: byName === undefined && digitsRead && skin.listed !== true ? either : noAccount };
        if (skin.slug === 'foreign') return { line, who: step.who, reply: /^[0-9]+$/.test(login) ? either : `${at}there is no skin ${quotedSkin} on this channel.` };
        if (!skin.active) return { line, who: step.who, reply: `${at}${skin.name} is not active, so it cannot be granted.` };
        const v = m.viewers[target]!;
        if (v.grants.has(skin.id) || v.purchases.has(skin.id)) return { line, who: step.who, reply: `${at}${login} already has ${skin.name}.` };
        v.grants.add(skin.id);
        return { line, who: step.who, reply: `${at}granted ${skin.name} to ${login}.` };
      }
      if (!known) {
        // docs/commands.md: GET /viewers/{identifier}/skins reads a login of digits only as a user id
        // first; when that is another viewer's, the skin is looked up in its list, else as !grant
        // does, and the revoke, naming the login, says it has no account; a word naming no skin is
        // not sent, so there is no grant of it.
        const byId = CHATTERS.findIndex((c, i) => c.id === login && m.viewers[i]!.known);
        if (byId === -1) return { line, who: step.who, reply: noAccount };
        const theirs = w.skins.filter((s) => m.viewers[byId]!.grants.has(s.id));
        const found = theirs.find((s) => s.slug === unquoted(typed).toLowerCase()) ?? theirs.find((s) => s.name.toLowerCase() === unquoted(typed).normalize('NFKC').toLowerCase())
          ?? theirs.find((s) => String(s.id) === typed)
          ?? w.skins.find((s) => s.listed === true && (s.slug === unquoted(typed).toLowerCase() || s.name.toLowerCase() === unquoted(typed).normalize('NFKC').toLowerCase() || String(s.id) === typed))
          ?? skinOf(w, step.skin);
        return { line, who: step.who, reply: found === undefined ? `${at}${login} has no grant of ${quotedSkin} to revoke (a purchase is never revoked).` : noAccount };
      }
      const v = m.viewers[target]!;
      const idHolder = /^[0-9]+$/.test(login) ? CHATTERS.findIndex((c, i) => c.id === login && m.viewers[i]!.known) : -1;
      if (idHolder !== -1 && idHolder !== target) {
        // The list read is the id holder's; else the skin is looked up as !grant does (a channel skin
        // by slug or name, or an id), and the DELETE, naming the login, tells whether it holds a grant.
        const theirs = w.skins.filter((s) => m.viewers[idHolder]!.grants.has(s.id));
        const listed = theirs.find((s) => s.slug === unquoted(typed).toLowerCase()) ?? theirs.find((s) => s.name.toLowerCase() === unquoted(typed).normalize('NFKC').toLowerCase())
          ?? theirs.find((s) => String(s.id) === typed);
        const channel = w.skins.find((s) => s.listed === true && (s.slug === unquoted(typed).toLowerCase() || s.name.toLowerCase() === unquoted(typed).normalize('NFKC').toLowerCase() || String(s.id) === typed));
        const skin = listed ?? channel ?? skinOf(w, step.skin);
        if (skin === undefined || !v.grants.has(skin.id)) return { line, who: step.who, reply: `${at}${login} has no grant of ${quotedSkin} to revoke (a purchase is never revoked).` };
        v.grants.delete(skin.id);
        if (v.pick === skin.id && skin.availability !== 'free') v.pick = null;
        return { line, who: step.who, reply: `${at}revoked ${listed !== undefined || channel !== undefined ? skin.name : quotedSkin} from ${login}.` };
      }
      const held = w.skins.filter((s) => v.grants.has(s.id));
      const skin = held.find((s) => s.slug === unquoted(typed).toLowerCase()) ?? held.find((s) => s.name.toLowerCase() === unquoted(typed).normalize('NFKC').toLowerCase())
        ?? held.find((s) => String(s.id) === typed);
      if (skin === undefined) return { line, who: step.who, reply: `${at}${login} has no grant of ${quotedSkin} to revoke (a purchase is never revoked).` };
      v.grants.delete(skin.id);
      if (v.pick === skin.id && skin.availability !== 'free') v.pick = null;
      return { line, who: step.who, reply: `${at}revoked ${skin.name} from ${login}.` };
    }
    case 'skins': {
      signIn();
      const pickable = pickableOf(w, me);
      const own = pickable.filter((s) => s.availability !== 'free').map((s) => s.name).sort();
      const free = pickable.filter((s) => s.availability === 'free').map((s) => s.name).sort();
      const using = me.pick === null ? 'none' : w.skins.find((s) => s.id === me.pick)!.name;
      // The names are compared as sets (the docs give no order): the reply is checked with them sorted.
      return { line: '!skins', who: step.who, reply: `${at}your skins: ${own.length === 0 ? 'none yet' : own.join(', ')}. Free for everyone: ${free.join(', ')}. Using: ${using}. Pick with !skin <name>, or !skin none.` };
    }
    case 'skin': {
      signIn();
      if (step.skin === null) {
        const using = me.pick === null ? null : w.skins.find((s) => s.id === me.pick)!.name;
        return { line: '!skin', who: step.who, reply: using === null ? `${at}you have no skin picked. !skins lists yours.` : `${at}you are using ${using}. !skins lists yours.` };
      }
      const typed = skinText(w, step.skin);
      const line = `!skin ${typed}`;
      if (['none', 'off'].includes(typed.toLowerCase())) {
        const had = me.pick !== null;
        me.pick = null;
        return { line, who: step.who, reply: had ? `${at}back to no skin.` : `${at}you had no skin picked.` };
      }
      const pickable = pickableOf(w, me);
      const found = pickable.find((s) => matches(s, typed));
      if (found !== undefined) {
        const already = me.pick === found.id;
        me.pick = found.id;
        return { line, who: step.who, reply: already ? `${at}you already use ${found.name}.` : `${at}your messages now use ${found.name}.` };
      }
      const quotedSkin = `"${unquoted(typed)}"`;
      const exists = w.skins.find((s) => matches(s, typed) && (s.listed === true || /^[0-9]+$/.test(typed) || s.slug === typed.toLowerCase()) && s.slug !== 'foreign');
      if (exists === undefined) return { line, who: step.who, reply: `${at}there is no skin ${quotedSkin}. !skins lists yours.` };
      if (!exists.active) return { line, who: step.who, reply: `${at}the skin ${quotedSkin} is not available right now.` };
      return { line, who: step.who, reply: `${at}you don't have the skin ${quotedSkin} yet.` };
    }
  }
}

/** What a viewer may pick: free active skins (the channel's and global ones) and the active ones they hold. */
function pickableOf(w: World, v: ViewerState): SkinDef[] {
  return w.skins.filter((s) => s.active && s.slug !== 'foreign' && (s.availability === 'free' || v.grants.has(s.id) || v.purchases.has(s.id)));
}

/** A !skins reply with each group's names sorted (the docs give no order). */
function sortedListing(reply: string): string {
  return reply.replace(/(your skins: |Free for everyone: )([^.]*)\./g, (_, head: string, names: string) => `${head}${names.split(', ').sort().join(', ')}.`);
}

async function checkState(w: World, m: Model, context: string): Promise<void> {
  for (const name of OVERLAYS) {
    const view = await w.client.getTemplate(w.presets[name]);
    for (const key of KEY_NAMES) {
      expect(view.settings_values[key], `${context}: ${name} ${key}`).toEqual(effective(w, m, name, key));
      if (SOURCE[name] !== undefined) expect(view.overridden_keys.includes(key), `${context}: ${name} overrides ${key}`).toBe(overridden(w, m, name, key));
    }
    // Keys the run never writes stay as seeded.
    for (const [key, value] of Object.entries(w.initial[name].settings)) {
      if (!Object.hasOwn(KEYS, key)) expect(view.settings_values[key], `${context}: ${name} ${key}`).toEqual(value);
    }
  }
  for (const [i, c] of CHATTERS.entries()) {
    const v = m.viewers[i]!;
    const found = await w.harness.service.findViewer(c.id);
    if (!v.known) { expect(found, `${context}: ${c.login} unknown`).toBeNull(); continue; }
    expect(found?.twitchUsername, `${context}: ${c.id}'s login`).toBe(v.login);
    const grants = (await w.client.listViewerSkins(c.id)).map((s) => s.id).sort();
    expect(grants, `${context}: ${v.login}'s grants`).toEqual([...v.grants].sort());
    const picked = await w.harness.service.getPickedSkin(w.accountId, c.id);
    expect(picked?.id ?? null, `${context}: ${v.login}'s pick`).toBe(v.pick);
  }
}

async function play(w: World, c: Chatter, login: string, display: string, line: string): Promise<string[]> {
  const before = w.chat.sent.length;
  w.chat.message('#streamer', line, tagsOf(c, login, display));
  // Real SQLite work between awaits: wait a while for the answer (and for none, when none is due).
  for (let i = 0; i < 30 && w.chat.sent.length === before; i++) await settle();
  await new Promise((resolve) => setTimeout(resolve, w.chat.sent.length === before ? 5 : 0));
  await settle();
  return w.chat.sent.slice(before).map((sent) => sent.text);
}

describe('built-in plugins against the bundled service: a model from docs/commands.md and the spec', () => {
  it('replies and state follow the docs, step by step', async () => {
    await fc.assert(fc.asyncProperty(
      fc.constantFrom(...TARGETS), fc.array(stepArb, { minLength: 5, maxLength: 30 }),
      async (targetChoice, steps) => {
        const w = await startWorld(targetChoice);
        try {
          const target: OverlayName = targetChoice === 'default' ? 'Main' : targetChoice;
          const m = newModel();
          m.viewers[3]!.purchases.add(w.skins.find((s) => s.slug === 'neon')!.id);
          await checkState(w, m, 'seeded');
          let lastGrant: Step | undefined;
          for (const [index, drawn] of steps.entries()) {
            let step = drawn;
            if (step.kind === 'grant') lastGrant = step;
            if (step.kind === 'revoke' && step.again === true) {
              if (lastGrant?.kind !== 'grant') continue;
              step = { ...step, target: lastGrant.target, skin: lastGrant.skin };
            }
            await w.clock.advance(31_000);
            const c = CHATTERS[step.who]!;
            const before = { login: m.viewers[step.who]!.login, display: m.viewers[step.who]!.display };
            const expected = expectStep(w, m, target, step);
            if (expected.line === null) continue;
            const sayAs = step.kind === 'rename' ? m.viewers[step.who]! : before;
            const replies = await play(w, c, sayAs.login, sayAs.display, expected.line);
            if (STATS) stats.set(replyKind(replies), (stats.get(replyKind(replies)) ?? 0) + 1);
            const context = `step ${index} (${c.login}: ${expected.line}) on ${target}`;
            if (expected.reply === null) expect(replies, context).toEqual([]);
            else if (typeof expected.reply === 'string') {
              expect(replies.map((r) => (step.kind === 'skins' ? sortedListing(r) : r)), context).toEqual([expected.reply]);
            } else {
              expect(replies, context).toHaveLength(1);
              expect(replies[0], context).toMatch(expected.reply);
            }
            await checkState(w, m, context);
          }
        } finally {
          await w.stop();
        }
      },
    ), { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }) });
    if (STATS) console.log([...stats].sort((a, b) => b[1] - a[1]).map(([kind, n]) => `${n}\t${kind}`).join('\n'));
  }, 120_000);
});
