// Property: whatever a config file holds (a valid one, config/default.yaml or the full Twitch +
// remote + every built-in plugin example of the docs, mutated: wrong types at every path,
// out-of-range numbers, unknown and misspelt keys at every level, empty, huge and deeply nested
// values, null/~, anchors, aliases and merge keys, duplicate keys, tabs, a BOM, CRLF, bytes that are
// not UTF-8, a second document, `${ENV}` references unset, empty, malformed or resolving to a
// value its key refuses), loadConfig either returns a config or throws one ConfigError whose message
// names the file, the exact path of the problem in the file's terms and what is allowed there, in a
// few lines, with no stack trace and never an environment variable's value or a value under a
// secret-looking key. A plugin's settings, checked when it loads, are held to the same. Every
// valid mutation (a number in range, a documented choice) is accepted as written. `chatskin start`
// refuses a few generated bad files with exit code 1 and that one message.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { ConfigError, formatConfigPath, MAX_LISTED } from '../../src/config/config-error.ts';
import { CONFIG_DEFAULT_PATH } from '../../src/config/config-path.ts';
import { loadConfig } from '../../src/config/load-config.ts';
import type { Config } from '../../src/config/config-schema.ts';
import { parsePluginSettings, PluginLoadError } from '../../src/host/plugin-loader.ts';
import type { PluginDefinition } from '../../src/sdk.ts';
import dice from '../../plugins/example-dice/index.ts';
import grants from '../../plugins/grants/index.ts';
import skinShop from '../../plugins/skin-shop/index.ts';
import skins from '../../plugins/skins/index.ts';
import style from '../../plugins/style/index.ts';
import { runCli } from '../cli/cli-process.ts';

const RUNS = 150;

const PLUGINS: Record<string, PluginDefinition> = {
  'example-dice': dice as unknown as PluginDefinition,
  grants: grants as unknown as PluginDefinition,
  'skin-shop': skinShop as unknown as PluginDefinition,
  skins: skins as unknown as PluginDefinition,
  style: style as unknown as PluginDefinition,
};

// Every value the environment holds is treated as a secret: none may appear in a message.
const ENV: Record<string, string> = {
  TWITCH_CLIENT_ID: 'cid0Zq8vJ3mKx7Lw2pR4tY6u',
  TWITCH_CLIENT_SECRET: 'csec9Hf2Kd8Ls1Qp5Wm3Nz7Xb',
  TWITCH_BOT_TOKEN: 'oauth:tok4Ue9Rb2Yc7Vn1Gh6Jk3Lm',
  CHATSKIN_API_KEY: 'csk_key8Pw2Ls5Dx9Fv3Bn7Mq1Zr',
  // Values a key refuses, under names a swapped variable could put anywhere.
  SPACED_SECRET: 'spc Secret 5Tg8 Yh2Uj6 Ik9Ol',
  LONG_SECRET: `lng${'Qx7Wz'.repeat(40)}`,
  NUMBER_SECRET: '8675309123456789',
  CONTROL_SECRET: 'ctl\u001b[2JSecret\nNextLine9Kx',
  EMPTY: '',
};
const SECRET_VALUES = Object.values(ENV).filter((value) => value.length > 0);
const SET_NAMES = Object.keys(ENV).filter((name) => ENV[name] !== '');

// Values written in the file under secret-looking keys; none may appear in a message either.
const FILE_SECRETS = ['hunter2 file secret Zk4', '918273645546372819', 'fs_Qm3Vx8Kp2Ld7'];
const SECRET_KEYS = ['token', 'clientSecret', 'apiKey', 'password', 'authorization', 'botToken', 'webhookSecret'];

/** The full example of docs/config.md and docs/plugins.md: Twitch with rewards, a remote service, every built-in plugin. */
const FULL = {
  http: { host: '127.0.0.1', port: 4477, trustProxy: ['127.0.0.1', '10.0.0.0/8'], maxConnections: 16384, maxConnectionsPerAddress: 256 },
  store: { path: './data/chatskin.db', synchronous: 'full' },
  api: {
    prefix: '/api/v1', rateLimit: { perMinute: 30, failedAuthPerMinute: 30 }, bodyLimitBytes: 65536, redirectErrors: true,
    edgeFilter: { blockedAgents: ['curl/', 'Wget/'] },
  },
  overlay: {
    publicUrl: 'https://overlay.example.com', maxMessages: 50,
    googleFontsCss: 'https://fonts.googleapis.com/css2', emoteCdn: 'https://static-cdn.jtvnw.net/emoticons/v2',
  },
  channel: { login: 'mychannel' },
  service: {
    mode: 'remote', baseUrl: 'https://styles.example/api/v1', apiKey: '${CHATSKIN_API_KEY}', userAgent: 'MyBot/1.0',
    timeoutMs: 10000, maxRetries: 2, maxRetryAfterMs: 60000, maxResponseBytes: 1048576,
  },
  twitch: {
    enabled: true,
    clientId: '${TWITCH_CLIENT_ID}',
    clientSecret: '${TWITCH_CLIENT_SECRET}',
    bot: { login: 'mybot', token: '${TWITCH_BOT_TOKEN}' },
    channels: ['mychannel', 'otherchannel'],
    chat: { server: 'irc-ws.chat.twitch.tv', port: 443, secure: true },
    eventsub: { url: null },
    helix: { mockServerPort: null },
    httpTimeoutSeconds: 30,
    broadcaster: { tokenFile: './data/twitch-broadcaster-token.json' },
    oauth: { url: null },
    redemptions: { enabled: true, reconcileIntervalSeconds: 60, ledgerRetentionDays: 30, tokenFileCheckSeconds: 5 },
    rewards: {
      'unlock-neon': {
        title: 'Unlock the Neon skin', cost: 500, prompt: 'Your chat messages in neon', backgroundColor: '#9147FF',
        userInputRequired: false, enabled: true, paused: false, globalCooldownSeconds: 60, maxPerStream: 100, maxPerUserPerStream: 1,
      },
    },
  },
  localChat: { enabled: true, stdin: true },
  commands: { prefix: '!' },
  pluginDirs: [],
  plugins: {
    style: { enabled: true, presetId: 1, themes: { neon: { 'bubble.background-color': '#ff00ff' } } },
    skins: { enabled: true },
    grants: { presetId: 1, skinIds: { gold: 3 } },
    'skin-shop': {
      rewards: { 'unlock-neon': 'neon', 'unlock-classic': { skinId: 7 } },
      attempts: 3, retryDelayMs: 500, messages: {
        unlocked: 'the {skin} skin is yours!', refunded: '{reason} Your points were refunded.',
        notRefunded: '{reason} Twitch did not refund your points; a moderator can make it up to you.',
      },
    },
    'example-dice': { maxSides: 100, defaultSides: 6 },
  },
  log: { level: 'info' },
};

const BASES: Record<string, unknown> = {
  default: parse(readFileSync(CONFIG_DEFAULT_PATH, 'utf8')) as unknown,
  full: FULL,
};

type Path = (string | number)[];

/** Every path in `value`: each mapping, list and leaf, the root included. */
function pathsOf(value: unknown, at: Path = []): { path: Path; value: unknown }[] {
  const here = [{ path: at, value }];
  if (Array.isArray(value)) return [...here, ...value.flatMap((item, index) => pathsOf(item, [...at, index]))];
  if (typeof value === 'object' && value !== null) {
    return [...here, ...Object.entries(value).flatMap(([key, item]) => pathsOf(item, [...at, key]))];
  }
  return here;
}

function clone<T>(value: T): T {
  return structuredClone(value);
}

function getAt(root: unknown, path: Path): unknown {
  return path.reduce<unknown>((node, key) => (node as Record<string | number, unknown>)[key], root);
}

/** `root` with the value at `path` replaced (`undefined`: removed). */
function setAt(root: unknown, path: Path, value: unknown): unknown {
  if (path.length === 0) return value;
  const copy = clone(root);
  const parent = getAt(copy, path.slice(0, -1)) as Record<string | number, unknown>;
  const last = path.at(-1)!;
  if (value === undefined) {
    if (Array.isArray(parent)) parent.splice(last as number, 1);
    else delete parent[last];
  } else {
    // defineProperty: a `__proto__` key is a plain key, as YAML reads it, not the prototype.
    Object.defineProperty(parent, last, { value, enumerable: true, writable: true, configurable: true });
  }
  return copy;
}

/** Whether the value at `path` is one a plugin checks (its settings), not the host's schema. */
function pluginSetting(path: Path): string | undefined {
  return path[0] === 'plugins' && path.length >= 3 && path[2] !== 'enabled' ? String(path[1]) : undefined;
}

/** Whether `path` is inside a section switched off with `enabled: false`, which nothing checks. */
function switchedOff(root: unknown, path: Path): boolean {
  for (let length = 0; length < path.length; length++) {
    const node = getAt(root, path.slice(0, length));
    if (typeof node === 'object' && node !== null && (node as Record<string, unknown>).enabled === false) return true;
  }
  return false;
}

let dir: string;
let counter = 0;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'chatskin-config-props-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function write(text: string | Uint8Array): string {
  const file = join(dir, `config-${counter++}.yaml`);
  writeFileSync(file, text);
  return file;
}

function outcome(file: string, env: Record<string, string> = ENV): { config: Config } | { error: ConfigError } {
  try {
    return { config: loadConfig(file, env) };
  } catch (error) {
    if (error instanceof ConfigError) return { error };
    throw error;
  }
}

const ZOD_WORDING = /invalid (input|string|number|key|element|discriminator)|expected|received|too (big|small)|<=|>=|\b(record|object|tuple|bigint|nonoptional|nan|never|undefined|void|union|iso|boolean)\b/i;
const SAYS_WHAT_IS_ALLOWED = /must|allowed|is missing|not set|set but empty|not an environment reference|needs|keep one|give each|applies to/;

/** Whether `text` shows any part of `secret` a message could quote (its start, as `got "..."` would, or it whole). */
function shows(text: string, secret: string): boolean {
  const escaped = JSON.stringify(secret).slice(1, -1);
  return [secret, escaped, secret.slice(0, 12), escaped.slice(0, 12)].some((part) => text.includes(part));
}

/** The checks every ConfigError passes: the file, each issue on one line of its own, no stack, no secret. */
function checkMessage(error: ConfigError, file: string, secrets: readonly string[]): void {
  const { message } = error;
  expect(message).toMatch(new RegExp(`^(Invalid config|Bad YAML|Cannot read config) in ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\n`));
  const lines = message.split('\n');
  // The first MAX_LISTED problems, then how many more.
  expect(lines.length).toBe(Math.min(error.issues.length, MAX_LISTED) + 1 + (error.issues.length > MAX_LISTED ? 1 : 0));
  expect(lines.length).toBeLessThanOrEqual(MAX_LISTED + 2);
  for (const line of lines.slice(1)) expect(line).toMatch(/^ {2}- \S/);
  expect(message).not.toMatch(/\n\s+at |\.ts:\d+|node:internal|Error:/);
  expect(message).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
  for (const secret of secrets) expect(shows(message, secret), `shows ${JSON.stringify(secret)}:\n${message}`).toBe(false);
  if (message.startsWith('Invalid config')) {
    for (const issue of error.issues) {
      expect(issue.message, issue.message).toMatch(SAYS_WHAT_IS_ALLOWED);
      expect(issue.message.replace(/ \(got .*\)$/, '').replace(/unknown keys? .*?;|"[^"]*"/g, ''), issue.message).not.toMatch(ZOD_WORDING);
    }
  }
}

/** Whether a problem reported at `reported` is the one made at `made`: there, inside it, or (naming it) at its parent. */
function isAbout(reported: string, message: string, made: Path): boolean {
  const at = formatConfigPath(made);
  if (reported === at || reported.startsWith(`${at}.`) || reported.startsWith(`${at}[`)) return true;
  const last = made.at(-1);
  const parent = formatConfigPath(made.slice(0, -1));
  // An unknown key, or a check of the mapping's keys together (twitch.bot's token or tokenFile), names the key.
  return reported === parent && typeof last === 'string' && message.includes(last);
}

/** The plugins' own checks of their settings: accepted, or one line naming `plugins.<name>.<path>` and what is allowed. */
function checkPlugins(config: Config, made: Path | undefined, secrets: readonly string[]): string[] {
  const refusals: string[] = [];
  for (const [name, entry] of Object.entries(config.plugins)) {
    const definition = PLUGINS[name];
    if (definition === undefined || !entry.enabled) continue;
    try {
      parsePluginSettings(name, definition, entry);
    } catch (error) {
      if (!(error instanceof PluginLoadError)) throw error;
      const { message } = error;
      expect(message).toMatch(new RegExp(`^(invalid settings: |takes no settings, but the config gives )plugins\\.${name}\\b`));
      expect(message.split('\n')).toHaveLength(1);
      // At most MAX_LISTED problems (each at most a few hundred characters, a quoted value cut at 60), then how many more.
      expect(message.split(/; (?=plugins\.|\(and \d+ more\)$)/).length).toBeLessThanOrEqual(MAX_LISTED + 1);
      expect(message.length).toBeLessThan((MAX_LISTED + 1) * 400);
      expect(message).not.toMatch(/\n\s+at |\.ts:\d+|node:internal/);
      for (const secret of secrets) expect(shows(message, secret), `shows ${JSON.stringify(secret)}: ${message}`).toBe(false);
      expect(message.replace(/^invalid settings: /, '')).toMatch(SAYS_WHAT_IS_ALLOWED);
      if (made !== undefined) {
        const at = formatConfigPath(made);
        const parent = formatConfigPath(made.slice(0, -1));
        const last = String(made.at(-1));
        expect(message.includes(`${at}:`) || message.includes(`${at}.`) || message.includes(`${at}[`)
          || (message.includes(`${parent}:`) && message.includes(last))
          // A rule between two settings (defaultSides not above maxSides) is reported at one and names the other.
          || (message.includes(`${parent}.`) && message.includes(last)), `${at}: ${message}`).toBe(true);
      }
      refusals.push(message);
    }
  }
  return refusals;
}

// ---- generators ----------------------------------------------------------------------------

const base = fc.constantFrom(...Object.keys(BASES));

const deep = fc.integer({ min: 20, max: 300 }).map((depth) => {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
});

/** A value of some kind: nearly always the wrong type or range for a given key. */
const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(true, false, 0, -1, 1.5, 1e308, -0.5, 65536, 2 ** 31, 'text', '', ' ', '~', 'null', 'yes', [], [1, 2], {}, { a: 1 }, null),
  fc.integer(),
  fc.double({ noNaN: false }),
  fc.string({ maxLength: 20 }),
  fc.integer({ min: 1000, max: 100_000 }).map((length) => 'x'.repeat(length)),
  fc.integer({ min: 100, max: 3000 }).map((length) => Array.from({ length }, () => '')),
  fc.integer({ min: 100, max: 3000 }).map((length) => Array.from({ length }, (_, i) => i)),
  deep,
  fc.jsonValue({ maxDepth: 2 }),
);

/** A key that is not allowed: a typo of a known one or a stranger. */
function strangerKey(known: readonly string[]): fc.Arbitrary<string> {
  const typo = known.length === 0
    ? fc.constant('hots')
    : fc.tuple(fc.constantFrom(...known), fc.nat(), fc.constantFrom('drop', 'swap', 'double', 'case')).map(([key, at, how]) => {
      const i = at % Math.max(key.length - 1, 1);
      if (how === 'drop') return key.slice(0, i) + key.slice(i + 1);
      if (how === 'swap') return key.slice(0, i) + (key[i + 1] ?? '') + key[i] + key.slice(i + 2);
      if (how === 'double') return key.slice(0, i) + key[i] + key.slice(i);
      return key.toUpperCase();
    });
  return fc.oneof(typo, fc.constantFrom('hots', 'enable', 'extra', '__proto__', 'constructor', 'x.y', 'a b', '<<<', '0'))
    .filter((key) => !known.includes(key) && key !== '');
}

interface Mutation {
  base: string;
  root: unknown;
  path: Path;
  what: string;
}

/** A counterexample is shown by what was changed, not the whole config. */
function shown<T extends { what: string }>(mutation: T): T {
  return Object.assign(mutation, { [fc.toStringMethod]: () => `${mutation.what} (${'base' in mutation ? String(mutation.base) : ''})` });
}

/** A base config with one value replaced by another of any kind. */
const replaced: fc.Arbitrary<Mutation> = base.chain((name) => {
  const root = BASES[name];
  const paths = pathsOf(root).filter(({ path }) => path.length > 0 && !switchedOff(root, path));
  return fc.tuple(fc.constantFrom(...paths), anyValue).map(([{ path }, value]) =>
    ({ base: name, root: setAt(root, path, value), path, what: `replace ${formatConfigPath(path)} with ${JSON.stringify(value)?.slice(0, 80)}` }));
}).map(shown);

/** A base config with a key added to one of its mappings that the mapping does not allow. */
const unknownKey: fc.Arbitrary<Mutation> = base.chain((name) => {
  const root = BASES[name];
  const mappings = pathsOf(root).filter(({ path, value }) => typeof value === 'object' && value !== null && !Array.isArray(value)
    && !switchedOff(root, [...path, 'x'])
    // Mappings whose keys are names the user picks: a new name is allowed there.
    && !['rewards', 'themes', 'skinIds', 'plugins', 'neon'].includes(String(path.at(-1)))
    && !(path[0] === 'plugins' && path.length === 2 && name === 'default' && path[1] === 'skins'));
  return fc.tuple(fc.constantFrom(...mappings), anyValue).chain(([{ path, value }, inner]) =>
    strangerKey(Object.keys(value as object)).map((key) => ({
      base: name, root: setAt(root, [...path, key], inner), path: [...path, key], what: `add ${JSON.stringify(key)}: ${JSON.stringify(inner)?.slice(0, 80)} to ${formatConfigPath(path)}`,
    })));
}).map(shown);

/** The env reference forms of docs/config.md, and broken ones. */
const reference = fc.oneof(
  fc.constantFrom(...Object.keys(ENV)).map((name) => `\${${name}}`),
  fc.constantFrom('${NOT_SET_ANYWHERE}', '${', '${A', '$${A}', '${A${B}}', '${}', '${1A}', '${A-B}', '${ A }', '$${TWITCH_BOT_TOKEN}'),
  fc.tuple(fc.constantFrom(...SET_NAMES), fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }))
    .map(([name, before, after]) => `${before.replace(/\$/g, '')}\${${name}}${after.replace(/\$/g, '')}`),
);

/** A string value of a base config replaced by a ${ENV} reference of some form. */
const envReference: fc.Arbitrary<Mutation> = base.chain((name) => {
  const root = BASES[name];
  const leaves = pathsOf(root).filter(({ path, value }) => path.length > 0 && typeof value !== 'object' && !switchedOff(root, path));
  return fc.tuple(fc.constantFrom(...leaves), reference).map(([{ path }, text]) =>
    ({ base: name, root: setAt(root, path, text), path, what: `${formatConfigPath(path)}: ${text}` }));
}).map(shown);

/** A value written in the file under a secret-looking key, where the key is allowed or not. */
const secretInFile: fc.Arbitrary<Mutation> = fc.oneof(
  fc.tuple(fc.constantFrom<Path>(['twitch', 'clientSecret'], ['twitch', 'bot', 'token'], ['service', 'apiKey']), fc.constantFrom<unknown>(...FILE_SECRETS, 918273645546372819, [FILE_SECRETS[2]]))
    .map(([path, value]) => ({ base: 'full', root: setAt(FULL, path, value), path, what: `${path.join('.')}: ${String(value)}` })),
  fc.tuple(fc.constantFrom<Path>([], ['twitch'], ['twitch', 'bot'], ['service'], ['http'], ['plugins', 'style'], ['plugins', 'skin-shop', 'messages'], ['plugins', 'example-dice']),
    fc.constantFrom(...SECRET_KEYS), fc.constantFrom(...FILE_SECRETS))
    .map(([at, key, value]) => ({ base: 'full', root: setAt(FULL, [...at, key], value), path: [...at, key], what: `${[...at, key].join('.')}: ${value}` })),
).map(shown);

// ---- properties ----------------------------------------------------------------------------

/** Loads `mutation` written as YAML; checks the outcome and returns it. */
function loadMutation(mutation: Mutation, secrets: readonly string[] = [...SECRET_VALUES, ...FILE_SECRETS]) {
  const file = write(stringify(mutation.root, { aliasDuplicateObjects: false }));
  const result = outcome(file);
  if ('error' in result) {
    checkMessage(result.error, file, secrets);
    const reported = result.error.issues;
    expect(reported.some((issue) => isAbout(issue.path, issue.message, mutation.path)),
      `${mutation.what}\n${result.error.message}`).toBe(true);
    // Lines are counted from 1, within the file.
    for (const issue of reported) if (issue.line !== undefined) expect(issue.line).toBeGreaterThanOrEqual(1);
  } else {
    checkPlugins(result.config, pluginSetting(mutation.path) === undefined ? undefined : mutation.path, secrets);
  }
  return result;
}

describe('loadConfig properties: a mutated config is accepted, or refused in one message that names the path', () => {
  it('both bases load as they are, and their plugins take their settings', () => {
    for (const root of Object.values(BASES)) {
      const result = outcome(write(stringify(root)));
      expect(result).toHaveProperty('config');
      if ('config' in result) expect(checkPlugins(result.config, undefined, SECRET_VALUES)).toEqual([]);
    }
  });

  it('any value at any path', () => {
    fc.assert(fc.property(replaced, (mutation) => {
      loadMutation(mutation);
    }), { numRuns: RUNS });
  });

  it('an unknown or misspelt key at any level', () => {
    fc.assert(fc.property(unknownKey, (mutation) => {
      const result = loadMutation(mutation);
      // A plugin's settings are the plugin's: the host passes them on, the plugin refuses the key.
      if ('config' in result) {
        const plugin = pluginSetting(mutation.path);
        expect(plugin, mutation.what).toBeDefined();
        expect(checkPlugins(result.config, mutation.path, SECRET_VALUES).length, mutation.what).toBeGreaterThan(0);
      }
    }), { numRuns: RUNS });
  });

  it('a ${ENV} reference of any form, unset, empty or holding a secret the key refuses', () => {
    fc.assert(fc.property(envReference, (mutation) => {
      const text = getAt(mutation.root, mutation.path) as string;
      const result = loadMutation(mutation);
      const name = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(text)?.[1];
      if (name !== undefined && !ENV[name]) {
        expect('error' in result && result.error.issues.some((issue) => issue.path === formatConfigPath(mutation.path)
          && issue.message.includes(name) && /not set|set but empty/.test(issue.message)), mutation.what).toBe(true);
      }
      if (/\$\{(?![A-Za-z_][A-Za-z0-9_]*\})/.test(text.replace(/\$\$\{/g, '')) && 'error' in result) {
        // A malformed reference is named as one (unless the value fails its key's check anyway).
        expect(result.error.issues.some((issue) => issue.path === formatConfigPath(mutation.path)), mutation.what).toBe(true);
      }
    }), { numRuns: RUNS });
  });

  it('a value under a secret-looking key is never repeated', () => {
    fc.assert(fc.property(secretInFile, (mutation) => {
      loadMutation(mutation);
    }), { numRuns: 60 });
  });
});

// ---- valid mutations ---------------------------------------------------------------------------

/** Documented ranges (docs/config.md, the plugins' schemas): [path, min, max]. */
const RANGES: [Path, number, number][] = [
  [['http', 'port'], 0, 65535],
  [['http', 'maxConnections'], 1, 1_000_000],
  [['http', 'maxConnectionsPerAddress'], 1, 1_000_000],
  [['api', 'rateLimit', 'perMinute'], 1, 100_000],
  [['api', 'rateLimit', 'failedAuthPerMinute'], 1, 100_000],
  [['api', 'bodyLimitBytes'], 1, 16_777_216],
  [['overlay', 'maxMessages'], 1, 500],
  [['twitch', 'httpTimeoutSeconds'], 1, 300],
  [['twitch', 'helix', 'mockServerPort'], 1, 65535],
  [['twitch', 'redemptions', 'reconcileIntervalSeconds'], 10, 86_400],
  [['twitch', 'redemptions', 'ledgerRetentionDays'], 1, 3650],
  [['twitch', 'redemptions', 'tokenFileCheckSeconds'], 1, 3600],
  [['twitch', 'rewards', 'unlock-neon', 'cost'], 1, 2_147_483_647],
  [['twitch', 'rewards', 'unlock-neon', 'globalCooldownSeconds'], 1, 604_800],
  [['twitch', 'rewards', 'unlock-neon', 'maxPerStream'], 1, 2_147_483_647],
  [['twitch', 'rewards', 'unlock-neon', 'maxPerUserPerStream'], 1, 2_147_483_647],
  [['service', 'maxRetries'], 0, 10],
  [['service', 'timeoutMs'], 1, 2_147_483_647],
  [['service', 'maxRetryAfterMs'], 0, 2_147_483_647],
  [['plugins', 'skin-shop', 'attempts'], 1, 10],
  [['plugins', 'skin-shop', 'retryDelayMs'], 0, 60_000],
  [['plugins', 'example-dice', 'maxSides'], 6, 1000],
  [['plugins', 'example-dice', 'defaultSides'], 2, 100],
];

/** Documented choices: [path, allowed values]. */
const CHOICES: [Path, fc.Arbitrary<unknown>][] = [
  [['store', 'synchronous'], fc.constantFrom('off', 'normal', 'full', 'extra')],
  [['log', 'level'], fc.constantFrom('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent')],
  [['commands', 'prefix'], fc.string({ minLength: 1, maxLength: 8 }).filter((prefix) => /^\S{1,8}$/.test(prefix))],
  [['channel', 'login'], fc.stringMatching(/^[a-z0-9_]{1,25}$/)],
  [['twitch', 'bot', 'login'], fc.stringMatching(/^[a-z0-9_]{1,25}$/)],
  [['api', 'prefix'], fc.constantFrom('', '/api/v1', '/styles/v2', '/a')],
  [['api', 'redirectErrors'], fc.boolean()],
  [['localChat', 'stdin'], fc.boolean()],
  [['http', 'trustProxy'], fc.oneof(fc.boolean(), fc.array(fc.ipV4(), { minLength: 0, maxLength: 3 }))],
  [['overlay', 'publicUrl'], fc.oneof(fc.constant(null), fc.webUrl())],
  [['overlay', 'googleFontsCss'], fc.oneof(fc.constant(null), fc.webUrl())],
  [['twitch', 'rewards', 'unlock-neon', 'title'], fc.string({ minLength: 1, maxLength: 45 })],
  [['twitch', 'rewards', 'unlock-neon', 'prompt'], fc.string({ maxLength: 200 })],
  [['twitch', 'rewards', 'unlock-neon', 'backgroundColor'], fc.oneof(fc.constant(null), fc.stringMatching(/^#[0-9a-f]{6}$/))],
  [['twitch', 'rewards', 'unlock-neon', 'globalCooldownSeconds'], fc.constant(null)],
  [['twitch', 'helix', 'mockServerPort'], fc.constant(null)],
  [['plugins', 'skin-shop', 'messages', 'unlocked'], fc.string({ minLength: 1, maxLength: 300 })],
];

/** The loaded value at a path of the file, whichever part checked it. */
function loadedAt(config: Config, path: Path): unknown {
  if (path[0] === 'plugins') {
    const name = String(path[1]);
    const parsed = parsePluginSettings(name, PLUGINS[name]!, config.plugins[name]!);
    return getAt(parsed, path.slice(2));
  }
  return getAt(config, path);
}

describe('loadConfig properties: every valid value is accepted as written', () => {
  const valid = fc.oneof(
    fc.constantFrom(...RANGES).chain(([path, min, max]) =>
      fc.oneof(fc.integer({ min, max }), fc.constantFrom(min, max)).map((value) => ({ path, value }))),
    fc.constantFrom(...CHOICES).chain(([path, values]) => values.map((value) => ({ path, value }))),
  );

  it('a number within its documented range, a documented choice', () => {
    fc.assert(fc.property(valid, ({ path, value }) => {
      const file = write(stringify(setAt(FULL, path, value)));
      const result = outcome(file);
      expect(result, `${formatConfigPath(path)}: ${JSON.stringify(value)}\n${'error' in result ? result.error.message : ''}`).toHaveProperty('config');
      if (!('config' in result)) return;
      const loaded = loadedAt(result.config, path);
      const expected = path.at(-1) === 'synchronous' ? String(value).toUpperCase()
        : path.at(-1) === 'backgroundColor' && typeof value === 'string' ? value.toUpperCase()
          : path.at(-1) === 'trustProxy' && Array.isArray(value) && value.length === 0 ? [] : value;
      expect(loaded).toEqual(expected);
    }), { numRuns: RUNS });
  });

  it('one past either end of a documented range is refused, naming the path and the range', () => {
    const outside = fc.constantFrom(...RANGES).chain(([path, min, max]) =>
      fc.constantFrom(min - 1, max + 1, min + 0.5).map((value) => ({ path, min, max, value })));
    fc.assert(fc.property(outside, ({ path, value }) => {
      // example-dice's bounds depend on each other; its own refusals are checked by the generic properties.
      fc.pre(path[1] !== 'example-dice');
      const mutation = { base: 'full', root: setAt(FULL, path, value), path, what: `${formatConfigPath(path)}: ${value}` };
      const result = loadMutation(mutation);
      if ('config' in result) {
        expect(pluginSetting(path), mutation.what).toBeDefined();
        expect(checkPlugins(result.config, path, SECRET_VALUES), mutation.what).toHaveLength(1);
      } else {
        expect(result.error.issues.map((issue) => issue.path), mutation.what).toEqual([formatConfigPath(path)]);
      }
    }), { numRuns: 80 });
  });
});

// ---- the file's text ---------------------------------------------------------------------------

describe('loadConfig properties: the file as text', () => {
  const baseText = fc.constantFrom(readFileSync(CONFIG_DEFAULT_PATH, 'utf8'), stringify(FULL));

  it('a BOM, CRLF line ends and anchors with aliases change nothing', () => {
    fc.assert(fc.property(baseText, fc.boolean(), fc.boolean(), (text, bom, crlf) => {
      const expected = outcome(write(text));
      let changed = crlf ? text.replace(/\n/g, '\r\n') : text;
      if (bom) changed = `\ufeff${changed}`;
      expect(outcome(write(changed))).toEqual(expected);
    }), { numRuns: 8 });
    // The same value twice, written once with an anchor.
    const anchored = 'http: &h {port: 0}\napi:\n  rateLimit: {perMinute: 5, failedAuthPerMinute: 5}\nlocalChat: &off {enabled: false, stdin: false}\n';
    expect(outcome(write(anchored))).toHaveProperty('config');
  });

  /** A textual change that makes the file unusable, and what the error must say. */
  const broken = fc.tuple(baseText, fc.nat(), fc.constantFrom('tab', 'duplicate', 'document', 'byte', 'alias', 'merge', 'nul', 'unclosed', 'deep')).map(([text, at, how]) => {
    const lines = text.split('\n');
    const keyed = lines.map((line, index) => ({ line, index })).filter(({ line }) => /^ {2}\w+:/.test(line));
    const target = keyed[at % keyed.length]!;
    const top = lines.map((line, index) => ({ line, index })).filter(({ line }) => /^\w+:/.test(line));
    const topLine = top[at % top.length]!;
    switch (how) {
      case 'tab': lines[target.index] = `\t${target.line.trimStart()}`; break;
      case 'duplicate': lines.splice(target.index + 1, 0, target.line.replace(/:.*$/, ': 1')); break;
      case 'document': lines.push('---', 'http: {}'); break;
      case 'byte': return { text: Buffer.concat([Buffer.from(lines.slice(0, target.index).join('\n')), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from(lines.slice(target.index).join('\n'))]), how };
      case 'alias': lines[target.index] = target.line.replace(/:.*$/, ': *undefinedAnchor'); break;
      case 'merge': lines.splice(topLine.index + 1, 0, '  <<: {port: 1}'); break;
      case 'nul': lines[target.index] = `${target.line}\0`; break;
      case 'unclosed': lines[target.index] = target.line.replace(/:.*$/, ': [1, 2'); break;
      case 'deep': lines.push(`pluginDirs: ${'['.repeat(2000)}${']'.repeat(2000)}`); break;
    }
    return { text: lines.join('\n'), how };
  }).map(({ text, how }) => ({ text, how, [fc.toStringMethod]: () => `${how}: ${JSON.stringify(String(text).slice(0, 200))}...` }));

  it('tabs, duplicate keys, a second document, bad bytes, a dangling alias, a merge key, unclosed lists: one message, never a crash', () => {
    fc.assert(fc.property(broken, ({ text, how }) => {
      const file = write(text);
      const result = outcome(file);
      if (how === 'merge' && 'config' in result) return;
      expect(result, how).toHaveProperty('error');
      if ('error' in result) checkMessage(result.error, file, SECRET_VALUES);
    }), { numRuns: 60 });
  });
});

// ---- the CLI -----------------------------------------------------------------------------------

describe('chatskin start --config on generated bad files', () => {
  it('exits 1 with the one config message, no stack trace, no secret', async () => {
    const samples = fc.sample(fc.oneof(replaced, unknownKey, envReference, secretInFile)
      .filter((mutation) => pluginSetting(mutation.path) === undefined)
      .filter((mutation) => 'error' in outcome(write(stringify(mutation.root)))), { numRuns: 4, seed: 15 });
    for (const mutation of samples) {
      const file = write(stringify(mutation.root));
      const expected = outcome(file);
      if (!('error' in expected)) continue;
      const { code, stdout, stderr } = await runCli(['start', '--config', file], { env: ENV, killAfterMs: 20_000 });
      expect(code, `${mutation.what}\n${stderr}`).toBe(1);
      expect(stdout).toBe('');
      expect(stderr).toContain(expected.error.message);
      expect(stderr.match(/(Invalid config|Bad YAML|Cannot read config) in /g)).toHaveLength(1);
      expect(stderr).not.toMatch(/\n\s+at |node:internal|\.ts:\d+/);
      for (const secret of [...SECRET_VALUES, ...FILE_SECRETS]) expect(shows(stderr, secret), mutation.what).toBe(false);
    }
  });
});
