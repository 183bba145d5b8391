// docs/config.md documents every key the schema accepts, and each default as the schema has it.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { redemptionSettings } from '../../src/config/config-schema.ts';
import { parseConfig } from '../../src/config/load-config.ts';

const DOCS = readFileSync(new URL('../../docs/config.md', import.meta.url), 'utf8');

/** Dotted paths of every leaf (lists count as leaves). */
function leafPaths(value: unknown, prefix = ''): string[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [prefix];
  return Object.entries(value).flatMap(([key, item]) => leafPaths(item, prefix === '' ? key : `${prefix}.${key}`));
}

describe('docs/config.md', () => {
  it('documents every key, Twitch and remote-service keys included', () => {
    // Every optional key given, so every key shows up in the parsed result.
    const full = parseConfig({
      twitch: { enabled: true, clientId: 'i', clientSecret: 's', bot: { login: 'b', token: 't' }, channels: ['c'] },
      service: {
        mode: 'remote', baseUrl: 'https://x.example/api/v1', apiKey: 'k', userAgent: 'ua/1', timeoutMs: 1, maxRetries: 1, maxRetryAfterMs: 1,
      },
      plugins: {},
    });
    // twitch.bot has a token or a token file, never both: the other form's keys.
    const withTokenFile = parseConfig({ twitch: { enabled: true, clientId: 'i', clientSecret: 's', bot: { login: 'b', tokenFile: 'f' } } });
    const keys = [
      ...new Set([...leafPaths({ ...full, plugins: undefined }), ...leafPaths({ twitch: withTokenFile.twitch })]),
    ].filter((path) => path !== 'plugins').concat('plugins', 'plugins.<name>.enabled');
    expect(keys.length).toBeGreaterThanOrEqual(40);
    const missing = keys.filter((key) => !DOCS.includes(`\`${key}\``));
    expect(missing).toEqual([]);
  });
});

/** The rows of docs/config.md's key tables: key, and the Default cell as written. */
const ROWS = [...DOCS.matchAll(/^\| `([^`]+)` \| ([^|]*) \|/gm)].map((match) => ({ key: match[1]!, cell: match[2]!.trim() }));

/** A backticked default read as YAML reads it (`4477` a number, `null`, `""`, `[]`), else as text. */
function documentedDefault(cell: string): { value: unknown } | undefined {
  const literal = /^`([^`]*)`/.exec(cell)?.[1];
  if (literal === undefined) return undefined;
  try {
    const value: unknown = parseYaml(literal);
    // Unquoted text stays as written (YAML would read `!` as a tag).
    return { value: typeof value === 'string' && !/^["']/.test(literal) ? literal : value };
  } catch {
    return { value: literal };
  }
}

function at(value: unknown, path: readonly string[]): unknown {
  return path.reduce<unknown>((item, key) => (item as Record<string, unknown> | undefined)?.[key], value);
}

describe('docs/config.md defaults', () => {
  // The parsed config of an empty file, and of the least that switches Twitch on (either form of
  // the bot's token), with one reward given only its required keys.
  const empty = parseConfig({});
  const twitch = parseConfig({ twitch: { clientId: 'i', clientSecret: 's', bot: { login: 'b', token: 't' } } }).twitch;
  const tokenFile = parseConfig({ twitch: { clientId: 'i', clientSecret: 's', bot: { login: 'b', tokenFile: 'f' } } }).twitch;
  const redemptions = redemptionSettings({ rewards: { key: { title: 't', cost: 1 } } });
  const oneRow = parseConfig({ plugins: { some: {} } }).plugins['some'];

  /** What the code makes of each documented key when the file leaves it out. */
  function actual(key: string): unknown {
    const path = key.split('.');
    if (key === 'twitch.enabled') return empty.twitch.enabled;
    if (key === 'twitch.bot.tokenFileCheckSeconds') return at(tokenFile, path.slice(1));
    if (key === 'twitch.rewards') return redemptionSettings({}).rewards;
    if (key.startsWith('twitch.rewards.<key>.')) return at(redemptions.rewards['key'], path.slice(3));
    if (/^twitch\.(broadcaster|oauth|redemptions|rewards)\b/.test(key)) return at(redemptions, path.slice(1));
    if (key.startsWith('twitch.')) return at(twitch, path.slice(1));
    if (key === 'plugins.<name>.enabled') return oneRow?.enabled;
    return at(empty, path);
  }

  // Defaults that are not the config's own: the remote client's, which docs/client.md states.
  const CLIENT_DEFAULTS = ['service.userAgent', 'service.timeoutMs', 'service.maxRetries', 'service.maxRetryAfterMs', 'service.maxResponseBytes'];

  it('every backticked default in the key tables is what an absent key parses to', () => {
    const checked = ROWS.filter(({ key }) => !CLIENT_DEFAULTS.includes(key))
      .map(({ key, cell }) => ({ key, documented: documentedDefault(cell) }))
      .filter((row): row is { key: string; documented: { value: unknown } } => row.documented !== undefined);
    expect(checked.length).toBeGreaterThanOrEqual(40);
    const wrong = checked.flatMap(({ key, documented }) => {
      let expected = documented.value;
      let got = actual(key);
      if (key === 'twitch.channels') expected = [empty.channel.login]; // documented as `[channel.login]`
      if (key === 'plugins') {
        // `style`, `skins`, `grants`: the plugins that run when the key is absent.
        expected = [...ROWS.find((row) => row.key === 'plugins')!.cell.matchAll(/`([^`]+)`/g)].map((match) => match[1]);
        got = Object.keys(empty.plugins);
      }
      if (typeof got === 'string' && typeof expected === 'string' && key === 'store.synchronous') got = got.toLowerCase();
      return JSON.stringify(got) === JSON.stringify(expected) ? [] : [`${key}: documented ${JSON.stringify(expected)}, parsed ${JSON.stringify(got)}`];
    });
    expect(wrong).toEqual([]);
  });
});

describe('docs/config.md ranges', () => {
  /** A config with `key` set to `value` (Twitch switched on for its keys, a reward given its required keys, ws for a chat port). */
  function withValue(key: string, value: number): Record<string, unknown> {
    const path = key.replace('<key>', 'key').split('.');
    const config: Record<string, unknown> = {};
    if (path[0] === 'twitch') {
      config.twitch = { clientId: 'i', clientSecret: 's', bot: { login: 'b', tokenFile: 'f' }, rewards: { key: { title: 't', cost: 1 } } };
    }
    if (path[0] === 'service') config.service = { mode: 'remote', baseUrl: 'https://x.example/api/v1', apiKey: 'k' };
    // Port 443 goes with wss only, any other port with ws (docs/config.md): the ends are other ports.
    if (key === 'twitch.chat.port') (config.twitch as Record<string, unknown>).chat = { secure: false };
    let node = config;
    for (const name of path.slice(0, -1)) node = (node[name] ??= {}) as Record<string, unknown>;
    node[path.at(-1)!] = value;
    return config;
  }
  const accepts = (key: string, value: number) => {
    try {
      parseConfig(withValue(key, value));
      return true;
    } catch {
      return false;
    }
  };

  /** The "N to M" ranges of numbers the key tables state, by key. */
  const ranges = ROWS.flatMap(({ key }) => {
    const allowed = new RegExp(`^\\| \`${key.replace(/[.*+?^${}()|[\]\\<>]/g, '\\$&')}\` \\|[^|]*\\| ([^|]*)\\|`, 'm').exec(DOCS)![1]!;
    const range = /(?<![\w.])(\d[\d,]*) to (\d[\d,]*)\b(?! (?:characters|letters))/.exec(allowed);
    return range === null ? [] : [{ key, min: Number(range[1]!.replaceAll(',', '')), max: Number(range[2]!.replaceAll(',', '')) }];
  });

  it('every key that takes a number states its range', () => {
    // A config giving every key that takes a number one (the optional and nullable ones too).
    const full = parseConfig({
      twitch: {
        clientId: 'i', clientSecret: 's', bot: { login: 'b', tokenFile: 'f', tokenFileCheckSeconds: 5 }, helix: { mockServerPort: 1 },
        rewards: { key: { title: 't', cost: 1, globalCooldownSeconds: 1, maxPerStream: 1, maxPerUserPerStream: 1 } },
      },
      service: {
        mode: 'remote', baseUrl: 'https://x.example/api/v1', apiKey: 'k', timeoutMs: 1, maxRetries: 1, maxRetryAfterMs: 1, maxResponseBytes: 1,
      },
    });
    const numbers = (value: unknown, prefix: string): string[] => (typeof value === 'number' ? [prefix]
      : typeof value === 'object' && value !== null && !Array.isArray(value)
        ? Object.entries(value).flatMap(([key, item]) => numbers(item, `${prefix}.${key}`)) : []);
    const keys = [
      ...numbers({ ...full, twitch: undefined }, '').map((key) => key.slice(1)),
      ...numbers({ ...full.twitch, ...redemptionSettings(full.twitch as Parameters<typeof redemptionSettings>[0]) }, 'twitch'),
    ].map((key) => key.replace('.rewards.key.', '.rewards.<key>.'));
    expect(keys).toEqual(expect.arrayContaining(['http.port', 'service.maxResponseBytes', 'twitch.helix.mockServerPort', 'twitch.rewards.<key>.maxPerStream']));
    expect(keys.filter((key) => !ranges.some((range) => range.key === key))).toEqual([]);
  });

  it('every "N to M" range of a number is taken at both ends and refused one past each', () => {
    expect(ranges.map(({ key }) => key)).toEqual(expect.arrayContaining(['http.port', 'overlay.maxMessages', 'twitch.redemptions.ledgerRetentionDays']));
    const wrong = ranges.filter(({ key, min, max }) => !accepts(key, min) || !accepts(key, max) || accepts(key, min - 1) || accepts(key, max + 1));
    expect(wrong).toEqual([]);
  });
});
