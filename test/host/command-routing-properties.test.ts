// Property-based test of command routing as docs/plugins.md ("Commands") and docs/commands.md
// state it, on a manual clock so that cooldowns and the 30 s usage window cost no real time.
// fast-check draws a few commands (names and aliases, arguments of each documented type,
// required, optional and rest, integers with and without bounds, a least role, global and
// per-user cooldowns and who bypasses them), chatters whose IRC tags are those Twitch sends
// (broadcaster, moderator, lead moderator, VIP, subscriber, founder, a moderator or VIP who
// subscribes, nobody), and chat lines at random times: a command's name or alias in random case,
// with or without the prefix, extra spaces, missing, wrong and extra words, invisible characters
// anywhere (the ones chat clients add to a repeated line among them), a leading @mention (of the
// chatter a reply answers, or not), /me lines and lines a Shared Chat session brings from another
// channel, in the account's channel or another one the bot joined. A model written from the docs
// checks, line by line:
// - at most one handler runs, the one the name or alias names, with the arguments as documented
//   (integers as numbers, logins lowercase without @, the rest as typed), and `call.text` is the
//   line as sent; lines that are no command (no prefix, `! name`, an unknown name, a mention that
//   is not the reply's, /me, Shared Chat from another channel) run nothing and get no reply;
// - a chatter below the command's role runs nothing and gets no reply; in another channel than
//   the account's everyone is a viewer; answers go to the channel the line came from;
// - cooldowns: after a use, nobody waits less than the global cooldown and the same chatter no
//   less than the per-user one; moderators and the broadcaster (or whoever `bypass` names) neither
//   wait nor start them; cooldowns count across channels; a use refused for its arguments
//   starts none; a blocked line, whatever its arguments, gets the "is cooling down, try again in
//   N s." notice once per window (per chatter for a per-user window, once in all for a global
//   one; of the later window, the chatter's own on a tie), further blocked lines nothing;
// - a use whose handler gives its cooldown back starts none, once per chatter and command in
//   the longer cooldown's length (a second give back in that time is ignored: the use counts);
// - wrong arguments get "<reason>. Usage: <usage line>" (the usage line as documented), at most
//   once per 30 s per chatter and command, every time for moderators and the broadcaster;
// - nothing else is ever said.
// ROUTING_PROPERTY_RUNS and ROUTING_PROPERTY_SEED run more (or one seed again);
// ROUTING_PROPERTY_STATS=1 prints how many lines ended which way.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatTags } from '../../src/host/chat-transport.ts';
import { startTestHost } from './host-fixture.ts';
import { chatTags, ROOM_ID } from './irc-tags.ts';
import { settle } from './manual-clock.ts';
import { createPluginFolders } from './plugin-folders.ts';
import type { PluginFolders } from './plugin-folders.ts';

// The documented rules, written out rather than read from the code under test.
type Role = 'broadcaster' | 'moderator' | 'vip' | 'subscriber' | 'everyone';
const RANK: Record<Role, number> = { broadcaster: 4, moderator: 3, vip: 2, subscriber: 1, everyone: 0 };
const USAGE_WINDOW_MS = 30_000;
/** `commands.prefix`, drawn per run. */
let PREFIX = '!';

interface ArgDef { name: string; type: 'string' | 'integer' | 'user' | 'rest'; optional?: boolean; min?: number; max?: number }
interface CmdDef {
  name: string;
  aliases: string[];
  args: ArgDef[];
  role: Role;
  cooldown: { global?: number; user?: number; bypass?: Role | 'nobody' };
  /** The handler calls `call.giveBackCooldown()` (a use that only showed something). Not a field of the definition. */
  giveBack: boolean;
}

// One plugin that registers the commands a run draws (from globalThis) and records each call.
const PLUGIN = `import { definePlugin } from SDK;
export default definePlugin({
  name: 'props',
  setup(ctx) {
    const world = globalThis.__routingProps;
    for (const { giveBack, ...def } of world.defs) {
      ctx.command({ ...def, run: (call) => {
        if (giveBack) call.giveBackCooldown();
        world.calls.push({ command: call.command, args: { ...call.args }, login: call.user.login, role: call.user.role, text: call.text }); } });
    }
  },
});`;

interface World { defs: CmdDef[]; calls: { command: string; args: Record<string, unknown>; login: string; role: string; text: string }[] }
const world = globalThis as unknown as { __routingProps: World };

// ---- chatters, with tags as Twitch sends them ----

type Kind = 'moderator' | 'lead_moderator' | 'vip' | 'subscriber' | 'founder' | 'mod+sub' | 'vip+sub' | 'gifter' | 'none';
const KIND_ROLE: Record<Kind | 'broadcaster', Role> = {
  broadcaster: 'broadcaster', moderator: 'moderator', lead_moderator: 'moderator', 'mod+sub': 'moderator',
  vip: 'vip', 'vip+sub': 'vip', subscriber: 'subscriber', founder: 'subscriber', gifter: 'everyone', none: 'everyone',
};

function badges(set: Record<string, string>): Partial<ChatTags> {
  return { badges: set, 'badges-raw': Object.entries(set).map(([name, version]) => `${name}/${version}`).join(',') };
}

function kindTags(kind: Kind | 'broadcaster'): Partial<ChatTags> {
  switch (kind) {
    case 'broadcaster': return { ...badges({ broadcaster: '1', 'sub-gifter': '5' }), 'user-id': ROOM_ID };
    case 'moderator': return { ...badges({ moderator: '1' }), mod: true, 'user-type': 'mod' };
    case 'lead_moderator': return { ...badges({ lead_moderator: '1' }), mod: true, 'user-type': 'mod' };
    case 'mod+sub': return { ...badges({ moderator: '1', subscriber: '24' }), mod: true, 'user-type': 'mod', subscriber: true };
    case 'vip': return { ...badges({ vip: '1' }), vip: true };
    case 'vip+sub': return { ...badges({ vip: '1', subscriber: '3' }), vip: true, subscriber: true };
    case 'subscriber': return { ...badges({ subscriber: '12' }), 'badge-info': { subscriber: '14' }, 'badge-info-raw': 'subscriber/14', subscriber: true };
    case 'founder': return { ...badges({ founder: '0' }), 'badge-info': { founder: '3' }, 'badge-info-raw': 'founder/3', subscriber: true };
    // Badges that are no role: a viewer who gifts subscriptions and cheers, without subscribing.
    case 'gifter': return { ...badges({ 'sub-gifter': '50', bits: '1000', premium: '1' }), turbo: false };
    case 'none': return {};
  }
}

interface Chatter { login: string; display: string; kind: Kind | 'broadcaster' }
const OTHER_ROOM_ID = '777000';
const LOGINS = ['streamer', 'ann', 'bob_2', 'cleo'];
const DISPLAY: Record<string, string> = { streamer: 'Streamer', ann: 'Ann', bob_2: 'Bob_2', cleo: 'クレオ' };

// ---- what a run draws ----

const WORDS = ['roll', 'dice', 'give', 'set', 'hug', 'a-b', 'q_q', '9lives', 'skin'];
// As the docs name them: Unicode's default-ignorable characters, less the variation selectors and
// the zero-width joiner, which emoji need (those two are kept: part of the word they are in).
const KEPT = ['\u200D', '\uFE0F', '\uFE0E', '\u{E0100}'];
const INVISIBLES = ['\u200B', '\u034F', '\u2060', '\uFEFF', '\u{E0000}', '\u200E', '\u00AD'];
const ALL_INVISIBLES: string[] = [];
for (const [from, to] of [[0, 0x3200], [0xFE00, 0xFFFF], [0x1BC00, 0x1D200], [0xE0000, 0xE0FFF]] as const) {
  for (let code = from; code <= to; code++) {
    const char = String.fromCodePoint(code);
    if (/\p{Default_Ignorable_Code_Point}/u.test(char) && /\p{Assigned}/u.test(char) && !/\p{Variation_Selector}/u.test(char) && char !== '\u200D') ALL_INVISIBLES.push(char);
  }
}
const TOKENS = ['7', '-3', '+2', '0', '42', '12a', 'hello', 'Neon', '@Ann', 'bob_2', '@CLEO', 'b!d', '@', '"q"', 'ÿes', 'x-y', '0042', '99999999999999999999', 'abcdefghijklmnopqrstuvwxyz', '@@ann'];

const argSpec = (type: ArgDef['type'], optional: boolean): fc.Arbitrary<Omit<ArgDef, 'name'>> => {
  if (type !== 'integer') return fc.constant({ type, ...(optional ? { optional } : {}) });
  return fc.record({ min: fc.option(fc.integer({ min: -5, max: 5 }), { nil: undefined }), span: fc.option(fc.integer({ min: 0, max: 50 }), { nil: undefined }) })
    .map(({ min, span }) => ({
      type, ...(optional ? { optional } : {}),
      ...(min === undefined ? {} : { min }),
      ...(span === undefined ? {} : { max: (min ?? 0) + span }),
    }));
};

const argsArb: fc.Arbitrary<ArgDef[]> = fc.record({
  required: fc.array(fc.constantFrom<ArgDef['type']>('string', 'integer', 'user'), { maxLength: 2 }),
  optional: fc.array(fc.constantFrom<ArgDef['type']>('string', 'integer', 'user'), { maxLength: 1 }),
  rest: fc.constantFrom<'none' | 'required' | 'optional'>('none', 'none', 'required', 'optional'),
}).chain(({ required, optional, rest }) => {
  const parts = [
    ...required.map((type) => argSpec(type, false)),
    ...optional.map((type) => argSpec(type, true)),
    ...(rest === 'none' ? [] : [argSpec('rest', rest === 'optional' || optional.length > 0)]),
  ];
  return fc.tuple(...parts).map((specs) => specs.map((spec, index) => ({ name: `a${index + 1}`, ...spec }) as ArgDef));
});

const roleArb = fc.constantFrom<Role>('everyone', 'everyone', 'subscriber', 'vip', 'moderator', 'broadcaster');
const cooldownArb = fc.record({
  global: fc.constantFrom(undefined, undefined, 0, 3, 2.5, 10, 30),
  user: fc.constantFrom(undefined, undefined, 10, 60),
  bypass: fc.constantFrom<Role | 'nobody' | undefined>(undefined, undefined, 'nobody', 'subscriber', 'vip', 'moderator', 'broadcaster', 'everyone'),
}).map((cooldown) => Object.fromEntries(Object.entries(cooldown).filter(([, value]) => value !== undefined)) as CmdDef['cooldown']);

const commandsArb: fc.Arbitrary<CmdDef[]> = fc.integer({ min: 1, max: 3 }).chain((count) => fc.tuple(
  fc.uniqueArray(fc.constantFrom(...WORDS), { minLength: count, maxLength: count + 3 }).filter((words) => words.length >= count),
  fc.array(fc.record({ args: argsArb, role: roleArb, cooldown: cooldownArb, giveBack: fc.nat({ max: 3 }).map((draw) => draw === 0) }), { minLength: count, maxLength: count }),
).map(([words, bodies]) => bodies.map((body, index) => ({
  name: words[index]!,
  aliases: words.slice(count).filter((_, extra) => extra % count === index),
  ...body,
}))));

interface LineSpec {
  chatter: number;
  waitMs: number;
  /** index into the commands' words (name or alias), or -1: an unknown word */
  word: number;
  caseFlips: boolean[];
  /** the prefix typed in upper case (`BOT:` for `bot:`) */
  prefixUpper: boolean;
  prefix: 'prefix' | 'none' | 'spaced' | 'mid-line';
  tokens: string[];
  /** the words: `tokens`, or ones that fit the command's arguments (then one left off, or one more) */
  fit: 'random' | 'fit' | 'fit-short' | 'fit-long';
  picks: number[];
  gaps: number[];
  trailing: '' | ' ' | ' \u034F' | '  ';
  mention: 'none' | 'reply' | 'reply-other' | 'not-a-reply';
  mentionCase: boolean;
  mentionGap: number;
  invisibles: { at: number; char: string }[];
  kept: { at: number; char: string }[];
  action: boolean;
  shared: 'none' | 'own' | 'other';
  /** typed in #other, a channel the bot joined besides the account's own */
  elsewhere: boolean;
  /** the previous line typed again, as a chat client repeats it (with or without its invisible character) */
  again: boolean;
}

const lineArb: fc.Arbitrary<LineSpec> = fc.record({
  chatter: fc.integer({ min: 0, max: LOGINS.length - 1 }),
  waitMs: fc.constantFrom(0, 0, 0, 1, 999, 1000, 2500, 2999, 3000, 9999, 10_000, 29_999, 30_000, 30_001, 60_000),
  word: fc.oneof({ weight: 12, arbitrary: fc.nat({ max: 8 }) }, { weight: 1, arbitrary: fc.constant(-1) }),
  caseFlips: fc.array(fc.boolean(), { maxLength: 10 }),
  prefixUpper: fc.boolean(),
  prefix: fc.constantFrom<LineSpec['prefix']>(...Array<'prefix'>(12).fill('prefix'), 'none', 'spaced', 'mid-line'),
  tokens: fc.array(fc.constantFrom(...TOKENS), { maxLength: 4 }),
  fit: fc.constantFrom<LineSpec['fit']>('random', 'fit', 'fit', 'fit', 'fit-short', 'fit-long'),
  picks: fc.array(fc.nat({ max: 99 }), { minLength: 5, maxLength: 5 }),
  gaps: fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 5, maxLength: 5 }),
  trailing: fc.constantFrom<LineSpec['trailing']>('', '', ' ', ' \u034F', '  '),
  mention: fc.constantFrom<LineSpec['mention']>(...Array<'none'>(8).fill('none'), 'reply', 'reply', 'reply-other', 'not-a-reply'),
  mentionCase: fc.boolean(),
  mentionGap: fc.integer({ min: 1, max: 2 }),
  invisibles: fc.array(fc.record({ at: fc.nat(), char: fc.oneof(fc.constantFrom(...INVISIBLES), fc.constantFrom(...ALL_INVISIBLES)) }), { maxLength: 2 }),
  kept: fc.array(fc.record({ at: fc.nat(), char: fc.constantFrom(...KEPT) }), { maxLength: 1 }).map((kept) => kept.filter(({ at }) => at % 8 === 0)),
  action: fc.nat({ max: 14 }).map((draw) => draw === 0),
  shared: fc.constantFrom<LineSpec['shared']>(...Array<'none'>(10).fill('none'), 'own', 'own', 'other'),
  again: fc.nat({ max: 3 }).map((draw) => draw === 0),
  elsewhere: fc.nat({ max: 5 }).map((draw) => draw === 0),
});

// ---- the model ----

function allWords(defs: CmdDef[]): { word: string; command: CmdDef }[] {
  return defs.flatMap((command) => [command.name, ...command.aliases].map((word) => ({ word, command })));
}

/** The words after the name: drawn at random, or fitting the command's arguments (less one, or one more). */
function tokensOf(spec: LineSpec, command: CmdDef | undefined): string[] {
  if (spec.fit === 'random' || command === undefined) return spec.tokens;
  const pick = <T>(index: number, options: readonly T[]): T => options[spec.picks[index % spec.picks.length]! % options.length]!;
  const words = command.args.flatMap((arg, index): string[] => {
    if (arg.optional && pick(index + 1, [true, false])) return [];
    switch (arg.type) {
      case 'string': return [pick(index, ['hello', 'Neon', '+2', '"q"'])];
      case 'user': return [pick(index, ['@Ann', 'bob_2', '@CLEO', 'Dana'])];
      case 'rest': return pick(index, [['two', 'words'], ['@Ann'], ['x-y', '7', 'ÿes']]);
      case 'integer': {
        const low = arg.min ?? -1000;
        const high = arg.max ?? 1000;
        return [String(pick(index, [low, high, Math.trunc((low + high) / 2), low + 1 <= high ? low + 1 : low]))];
      }
    }
  });
  if (spec.fit === 'fit-short') return words.slice(0, -1);
  if (spec.fit === 'fit-long') return [...words, pick(0, TOKENS)];
  return words;
}

interface Built { text: string; clean: string; tags: ChatTags; isReply: boolean; answered: string[] }

function buildLine(defs: CmdDef[], chatters: Chatter[], spec: LineSpec): Built {
  const chatter = chatters[spec.chatter]!;
  const words = allWords(defs);
  const named = spec.word < 0 ? undefined : words[spec.word % words.length]!;
  const base = named?.word ?? 'nosuch';
  const cased = [...base].map((char, index) => (spec.caseFlips[index] ? char.toUpperCase() : char)).join('');
  const typedPrefix = spec.prefixUpper ? PREFIX.toUpperCase() : PREFIX;
  let command = `${spec.prefix === 'none' ? '' : spec.prefix === 'spaced' ? `${typedPrefix} ` : typedPrefix}${cased}`;
  tokensOf(spec, named?.command).forEach((token, index) => { command += ' '.repeat(spec.gaps[index] ?? 1) + token; });
  command += spec.trailing;
  if (spec.prefix === 'mid-line') command = `gg ${command}`;
  const other = chatters[(spec.chatter + 1) % chatters.length]!;
  const answered = spec.mention === 'reply-other' ? chatters[(spec.chatter + 2) % chatters.length]! : other;
  const mentioned = spec.mentionCase ? other.display : other.login;
  const typedChars = [...(spec.mention === 'none' ? command : `@${mentioned}${' '.repeat(spec.mentionGap)}${command}`)];
  for (const { at, char } of spec.kept) typedChars.splice(Math.floor(at / 8) % (typedChars.length + 1), 0, char);
  const typed = typedChars.join('');
  // Invisible characters anywhere in the line, besides the one a client adds to a repeated line.
  const clean = [...typed].filter((char) => !ALL_INVISIBLES.includes(char)).join('');
  const chars = [...typed];
  for (const { at, char } of spec.invisibles) chars.splice(at % (chars.length + 1), 0, char);
  const text = chars.join('');
  const isReply = spec.mention === 'reply' || spec.mention === 'reply-other';
  // In #other, a chatter has the badges of the same role there, as if they held it in both channels;
  // the account's broadcaster is nobody special there.
  const room = spec.elsewhere ? OTHER_ROOM_ID : ROOM_ID;
  const tags = chatTags(chatter.login, {
    ...(spec.elsewhere && chatter.kind === 'broadcaster' ? { 'user-id': ROOM_ID } : kindTags(chatter.kind)),
    'room-id': room,
    'display-name': chatter.display,
    ...(isReply ? {
      'reply-parent-display-name': answered.display, 'reply-parent-user-login': answered.login,
      'reply-parent-msg-id': 'b34ccfc7-4977-403a-8a94-33c6bac34fb8', 'reply-parent-msg-body': 'hi', 'reply-parent-user-id': '12345',
    } : {}),
    ...(spec.action ? { 'message-type': 'action' } : {}),
    ...(spec.shared === 'none' ? {} : { 'source-room-id': spec.shared === 'own' ? room : '99999999' }),
  });
  return { text, clean, tags, isReply, answered: isReply ? [answered.display, answered.login] : [] };
}

/** The usage line as documented: `!give <who> <amount> [note...]`. */
function usageOf(command: CmdDef): string {
  return [`${PREFIX}${command.name}`, ...command.args.map((arg) => {
    const label = arg.type === 'rest' ? `${arg.name}...` : arg.name;
    return arg.optional ? `[${label}]` : `<${label}>`;
  })].join(' ');
}

type Parsed = { ok: true; args: Record<string, unknown> } | { ok: false; reason: string | null };

function parseModel(args: ArgDef[], input: string): Parsed {
  const values: Record<string, unknown> = {};
  let rest = input.replace(/^\s+/, '').replace(/\s+$/, '');
  for (const arg of args) {
    if (rest === '') {
      if (arg.optional) { values[arg.name] = undefined; continue; }
      return { ok: false, reason: `${arg.name} is missing` };
    }
    if (arg.type === 'rest') { values[arg.name] = rest; rest = ''; continue; }
    const space = rest.search(/\s/);
    const word = space < 0 ? rest : rest.slice(0, space);
    rest = space < 0 ? '' : rest.slice(space).replace(/^\s+/, '');
    if (arg.type === 'string') values[arg.name] = word;
    else if (arg.type === 'integer') {
      const value = /^[+-]?\d+$/.test(word) ? Number(word) : Number.NaN;
      const fits = Number.isSafeInteger(value) && (arg.min === undefined || value >= arg.min) && (arg.max === undefined || value <= arg.max);
      if (!fits) {
        return { ok: false, reason: arg.min !== undefined && arg.max !== undefined ? `${arg.name} must be a whole number from ${arg.min} to ${arg.max}` : null };
      }
      values[arg.name] = value;
    } else {
      const login = /^@?([A-Za-z0-9_]{1,25})$/.exec(word)?.[1];
      if (login === undefined) return { ok: false, reason: null };
      values[arg.name] = login.toLowerCase();
    }
  }
  if (rest !== '') return { ok: false, reason: null };
  return { ok: true, args: values };
}

interface Expected { call: { command: string; args: Record<string, unknown> } | null; replies: (string | RegExp)[] }

class Model {
  readonly #globalUntil = new Map<string, number>();
  readonly #globalNoticed = new Map<string, number>();
  readonly #userUntil = new Map<string, number>();
  readonly #userNoticed = new Map<string, number>();
  readonly #usageUntil = new Map<string, number>();
  readonly #givenBackUntil = new Map<string, number>();
  /** Why the last line got what it got (for ROUTING_PROPERTY_STATS). */
  why = '';

  readonly defs: CmdDef[];

  constructor(defs: CmdDef[]) {
    this.defs = defs;
  }

  line(built: Built, spec: LineSpec, chatter: Chatter, userId: string, now: number): Expected {
    const none: Expected = { call: null, replies: [] };
    this.why = 'no command: /me or shared';
    if (spec.action || spec.shared === 'other') return none;
    this.why = 'no command: mention';
    let text = built.clean;
    // A reply's leading "@name " of the chatter it answers is skipped; no other mention.
    const answered = built.answered.find((name) => text.toLowerCase().startsWith(`@${name.toLowerCase()}`) && /^(\s|$)/.test(text.slice(name.length + 1)));
    if (answered !== undefined) text = text.slice(answered.length + 1).replace(/^\s+/, '');
    this.why = 'no command: no prefix';
    if (!text.toLowerCase().startsWith(PREFIX.toLowerCase())) return none;
    this.why = 'no command: unknown';
    const match = /^(\S+)(\s[\s\S]*)?$/.exec(text.slice(PREFIX.length));
    if (!match) return none;
    const command = allWords(this.defs).find(({ word }) => word === match[1]!.toLowerCase())?.command;
    if (!command) return none;
    // Roles are the account's channel's: in another channel everyone is a viewer.
    const role = spec.elsewhere ? 'everyone' : KIND_ROLE[chatter.kind];
    this.why = 'role too low';
    if (RANK[role] < RANK[command.role]) return none;
    // By display name, or by login where the display name is a localized one.
    const mention = `@${chatter.display.toLowerCase() === chatter.login ? chatter.display : chatter.login}`;
    const bypass = command.cooldown.bypass ?? 'moderator';
    const bypasses = bypass !== 'nobody' && RANK[role] >= RANK[bypass];
    this.why = bypasses && (command.cooldown.global || command.cooldown.user) ? 'ran, bypassing' : 'ran';
    const globalMs = (command.cooldown.global ?? 0) * 1000;
    const userMs = (command.cooldown.user ?? 0) * 1000;
    const userKey = `${command.name}\n${userId}`;
    if (!bypasses) {
      const globalUntil = this.#globalUntil.get(command.name) ?? -Infinity;
      const userUntil = this.#userUntil.get(userKey) ?? -Infinity;
      if (globalUntil > now || userUntil > now) {
        // The notice names the wait that is left (the later window); one per window.
        const byUser = userUntil >= globalUntil;
        const until = Math.max(globalUntil, userUntil);
        const noticed = byUser ? this.#userNoticed.get(userKey) === until : this.#globalNoticed.get(command.name) === until;
        this.why = 'cooling, told';
        if (noticed) return (this.why = 'cooling, silent'), none;
        if (byUser) this.#userNoticed.set(userKey, until);
        else this.#globalNoticed.set(command.name, until);
        return { call: null, replies: [`${mention} ${PREFIX}${command.name} is cooling down, try again in ${Math.ceil((until - now) / 1000)} s.`] };
      }
    }
    const parsed = parseModel(command.args, match[2] ?? '');
    if (!parsed.ok) {
      const usageKey = `${command.name}\n${userId}`;
      const told = RANK[role] >= RANK.moderator || (this.#usageUntil.get(usageKey) ?? -Infinity) <= now;
      this.why = 'usage, told';
      if (!told) return (this.why = 'usage, silent'), none;
      if (RANK[role] < RANK.moderator) this.#usageUntil.set(usageKey, now + USAGE_WINDOW_MS);
      const usage = usageOf(command);
      const reply = parsed.reason === null
        ? new RegExp(`^${escape(mention)} \\S.*\\. Usage: ${escape(usage)}$`)
        : `${mention} ${parsed.reason}. Usage: ${usage}`;
      return { call: null, replies: [reply] };
    }
    // A use given back starts no cooldown, once per chatter in the longer cooldown's length;
    // a second give back in that time is ignored and the use counts.
    const cooldowns = globalMs > 0 || userMs > 0;
    if (!bypasses && cooldowns && command.giveBack && (this.#givenBackUntil.get(userKey) ?? -Infinity) <= now) {
      this.#givenBackUntil.set(userKey, now + Math.max(globalMs, userMs));
      this.why = 'ran, given back';
    } else if (!bypasses) {
      if (globalMs > 0) this.#globalUntil.set(command.name, now + globalMs);
      if (userMs > 0) this.#userUntil.set(userKey, now + userMs);
    }
    return { call: { command: command.name, args: parsed.args }, replies: [] };
  }
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

// ---- the property ----

let folders: PluginFolders;
beforeAll(() => {
  folders = createPluginFolders();
  folders.add('props', PLUGIN);
});
afterAll(() => {
  folders.remove();
});

const kindsArb = fc.array(fc.constantFrom<Kind>('moderator', 'lead_moderator', 'vip', 'subscriber', 'founder', 'mod+sub', 'vip+sub', 'gifter', 'none', 'none', 'none'), { minLength: 3, maxLength: 3 });
const streamerArb = fc.constantFrom<Kind | 'broadcaster'>('broadcaster', 'broadcaster', 'none');

async function runSchedule(defs: CmdDef[], kinds: Kind[], streamerKind: Kind | 'broadcaster', prefix: string, lines: LineSpec[]): Promise<void> {
  PREFIX = prefix;
  // The streamer's account is the broadcaster (room-id = user-id); drawn as 'none', it is another login.
  const chatters: Chatter[] = LOGINS.map((login, index) => ({
    login: index === 0 && streamerKind !== 'broadcaster' ? 'dana' : login,
    display: index === 0 && streamerKind !== 'broadcaster' ? 'Dana' : DISPLAY[login]!,
    kind: index === 0 ? streamerKind : kinds[index - 1]!,
  }));
  world.__routingProps = { defs, calls: [] };
  const test = await startTestHost({ config: { pluginDirs: [folders.dir], plugins: { props: {} }, commands: { prefix } }, channels: ['streamer', 'other'] });
  try {
    expect(test.host.plugins[0]).toMatchObject({ state: 'running' });
    const model = new Model(defs);
    let previous: LineSpec | undefined;
    for (const [index, drawn] of lines.entries()) {
      const spec: LineSpec = drawn.again && previous !== undefined
        ? { ...previous, waitMs: drawn.waitMs, trailing: previous.trailing === ' \u034F' ? '' : ' \u034F' }
        : drawn;
      previous = spec;
      await test.clock.advance(spec.waitMs);
      const built = buildLine(defs, chatters, spec);
      const chatter = chatters[spec.chatter]!;
      const expected = model.line(built, spec, chatter, String(built.tags['user-id']), test.clock.now());
      const sentBefore = test.chat.sent.length;
      const callsBefore = world.__routingProps.calls.length;
      const channel = spec.elsewhere ? 'other' : 'streamer';
      test.chat.message(`#${channel}`, built.text, built.tags);
      for (let i = 0; i < 3; i++) await settle();
      const where = `line ${index} ${JSON.stringify(built.text)} from ${chatter.login} (${chatter.kind}) in #${spec.elsewhere ? 'other' : 'streamer'}`;
      const calls = world.__routingProps.calls.slice(callsBefore);
      const sent = test.chat.sent.slice(sentBefore);
      expect(sent.filter((line) => line.channel !== channel), `${where}: answered in another channel`).toEqual([]);
      const replies = sent.map((line) => line.text);
      expect({ where, calls: calls.map(({ command, args }) => ({ command, args })) })
        .toEqual({ where, calls: expected.call === null ? [] : [expected.call] });
      if (expected.call !== null && !built.isReply) expect(calls[0]!.text, where).toBe(built.text);
      expect(replies.length, `${where}: replies ${JSON.stringify(replies)}, expected ${String(expected.replies)}`).toBe(expected.replies.length);
      if (process.env.ROUTING_PROPERTY_STATS) {
        const kind = model.why;
        STATS.set(kind, (STATS.get(kind) ?? 0) + 1);
      }
      expected.replies.forEach((reply, at) => {
        if (typeof reply === 'string') expect(replies[at], where).toBe(reply);
        else expect(replies[at], where).toMatch(reply);
      });
    }
  } finally {
    await test.host.stop();
  }
}

const STATS = new Map<string, number>();
afterAll(() => {
  if (process.env.ROUTING_PROPERTY_STATS) console.log(Object.fromEntries(STATS));
});

describe('command routing: properties', () => {
  it('runs, refuses, cools down and tells usage as the docs say', { timeout: 20_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(commandsArb, kindsArb, streamerArb, fc.constantFrom('!', '!', '!', '?', '!!', '~', 'bot:'), fc.array(lineArb, { minLength: 10, maxLength: 40 }),
        (defs, kinds, streamerKind, prefix, lines) => runSchedule(defs, kinds, streamerKind, prefix, lines)),
      { numRuns: Number(process.env.ROUTING_PROPERTY_RUNS ?? 150), ...(process.env.ROUTING_PROPERTY_SEED ? { seed: Number(process.env.ROUTING_PROPERTY_SEED) } : {}) },
    );
  });
});
