import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { ConfigError } from '../../src/config/config-error.ts';
import { CONFIG_DEFAULT_PATH } from '../../src/config/config-path.ts';
import { MAX_CONFIG_BYTES } from '../../src/config/config-text.ts';
import { loadConfig, parseConfig } from '../../src/config/load-config.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'chatskin-config-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function write(text: string | Uint8Array, name = 'config.yaml'): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

function errorOf(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig: defaults', () => {
  it('an empty file gives the embedded defaults', () => {
    const config = loadConfig(write(''), {});
    expect(config.http).toEqual({ host: '127.0.0.1', port: 4477, trustProxy: false, maxConnections: 16_384, maxConnectionsPerAddress: 256 });
    expect(config.store).toEqual({ path: './data/chatskin.db', synchronous: 'FULL' });
    expect(config.api.rateLimit).toEqual({ perMinute: 30, failedAuthPerMinute: 30 });
    expect(config.api.edgeFilter.blockedAgents).toContain('curl/');
    expect(config.service).toEqual({ mode: 'bundled' });
    expect(config.twitch).toEqual({ enabled: false });
    expect(config.localChat).toEqual({ enabled: true, stdin: true });
    expect(config.commands.prefix).toBe('!');
    expect(config.pluginDirs).toEqual([]);
    expect(Object.keys(config.plugins)).toEqual(['style', 'skins', 'grants']);
    expect(config.log.level).toBe('info');
  });

  it('a partial section keeps the defaults of the keys it leaves out', () => {
    const config = loadConfig(write('http:\n  port: 8080\napi:\n  rateLimit:\n    perMinute: 60\n'), {});
    expect(config.http).toEqual({ host: '127.0.0.1', port: 8080, trustProxy: false, maxConnections: 16_384, maxConnectionsPerAddress: 256 });
    expect(config.api.rateLimit).toEqual({ perMinute: 60, failedAuthPerMinute: 30 });
    expect(config.api.prefix).toBe('/api/v1');
  });

  it('config/default.yaml loads with no environment variables set and runs without Twitch', () => {
    const config = loadConfig(CONFIG_DEFAULT_PATH, {});
    const embedded = parseConfig({});
    const { plugins, ...rest } = config;
    const { plugins: embeddedPlugins, ...embeddedRest } = embedded;
    expect(rest).toEqual(embeddedRest);
    expect(config.twitch.enabled).toBe(false);
    for (const name of Object.keys(embeddedPlugins)) expect(plugins[name]?.enabled).toBe(true);
    expect(plugins['example-dice']).toEqual({ enabled: false, settings: { maxSides: 100 } });
  });

  it('a copy of config/default.yaml with its channel and Twitch switched on (README.md, step 2) has the twitch defaults: it joins channel.login', () => {
    const copy = parseDocument(readFileSync(CONFIG_DEFAULT_PATH, 'utf8'));
    copy.setIn(['channel', 'login'], 'mychannel');
    copy.setIn(['twitch', 'enabled'], true);
    const env = { TWITCH_CLIENT_ID: 'id', TWITCH_CLIENT_SECRET: 'secret' };
    const config = loadConfig(write(copy.toString()), env);
    expect(config.twitch.enabled && config.twitch.channels).toEqual(['mychannel']);
    // Beside the bot's login and token file, which the copy must be edited for anyway, every twitch key is its default.
    const bot = copy.getIn(['twitch', 'bot']);
    expect(config.twitch).toEqual(parseConfig({
      channel: { login: 'mychannel' },
      twitch: { clientId: 'id', clientSecret: 'secret', bot: (bot as { toJSON(): unknown }).toJSON() },
    }).twitch);
  });
});

describe('loadConfig: plugins entries', () => {
  it('a listed plugin is enabled unless it says enabled: false; its other keys are its settings', () => {
    const config = loadConfig(write([
      'plugins:',
      '  a: { maxSides: 6 }',
      '  b: { enabled: false, x: 1 }',
      '  c:',
      '  d: false',
      '  e: true',
    ].join('\n')), {});
    expect(config.plugins).toEqual({
      a: { enabled: true, settings: { maxSides: 6 } },
      b: { enabled: false, settings: { x: 1 } },
      c: { enabled: true, settings: {} },
      d: { enabled: false, settings: {} },
      e: { enabled: true, settings: {} },
    });
  });

  it('a plugins key replaces the default list', () => {
    expect(Object.keys(loadConfig(write('plugins: { only: {} }\n'), {}).plugins)).toEqual(['only']);
  });
});

describe('loadConfig: twitch', () => {
  const twitch = [
    'channel: { login: Streamer }',
    'twitch:',
    '  enabled: true',
    '  clientId: abc123',
    '  clientSecret: ${TWITCH_CLIENT_SECRET}',
    '  bot:',
    '    login: MyBot',
    '    token: ${TWITCH_BOT_TOKEN}',
  ].join('\n');

  it('enabled: fills endpoint defaults, lowercases logins and defaults channels to channel.login', () => {
    const config = loadConfig(write(twitch), { TWITCH_CLIENT_SECRET: 's3cret', TWITCH_BOT_TOKEN: 'oauth:tok' });
    expect(config.twitch).toEqual({
      enabled: true,
      clientId: 'abc123',
      clientSecret: 's3cret',
      bot: { login: 'mybot', token: 'oauth:tok' },
      channels: ['streamer'],
      chat: { server: 'irc-ws.chat.twitch.tv', port: 443, secure: true },
      eventsub: { url: null },
      helix: { mockServerPort: null },
      httpTimeoutSeconds: 30,
    });
  });

  it('every endpoint can point at local fakes', () => {
    const config = loadConfig(write(`${twitch}\n  channels: [one, Two]\n  chat: { server: 127.0.0.1, port: 6667, secure: false }\n  eventsub: { url: "ws://127.0.0.1:8080/ws" }\n  helix: { mockServerPort: 8081 }\n`),
      { TWITCH_CLIENT_SECRET: 's', TWITCH_BOT_TOKEN: 't' });
    if (!config.twitch.enabled) throw new Error('expected twitch enabled');
    expect(config.twitch.channels).toEqual(['one', 'two']);
    expect(config.twitch.chat).toEqual({ server: '127.0.0.1', port: 6667, secure: false });
    expect(config.twitch.eventsub.url).toBe('ws://127.0.0.1:8080/ws');
    expect(config.twitch.helix.mockServerPort).toBe(8081);
  });

  it('a section present without `enabled` is enabled, so its credentials are required', () => {
    const error = errorOf(() => loadConfig(write('twitch:\n  clientId: x\n'), {}));
    expect(error.issues.map((issue) => issue.path)).toEqual(expect.arrayContaining(['twitch.clientSecret', 'twitch.bot']));
    expect(error.issues.find((issue) => issue.path === 'twitch.bot')!.message).toMatch(/^is missing/);
  });

  const botSection = (lines: string[]) => [
    'twitch:', '  clientId: abc123', '  clientSecret: s3cret', '  bot:', '    login: MyBot', ...lines.map((line) => `    ${line}`),
  ].join('\n');
  const TOKEN_CHOICE = 'token is a fixed user access token, tokenFile a file `chatskin twitch auth --bot` saves a token to, '
    + 'which chatskin refreshes (docs/chat.md)';

  it('bot.tokenFile instead of bot.token: the token file, looked at every 5 s by default', () => {
    const config = loadConfig(write(botSection(['tokenFile: ./data/bot-token.json'])), {});
    if (!config.twitch.enabled) throw new Error('expected twitch enabled');
    expect(config.twitch.bot).toEqual({ login: 'mybot', tokenFile: './data/bot-token.json', tokenFileCheckSeconds: 5 });
    const checked = loadConfig(write(botSection(['tokenFile: ./data/bot-token.json', 'tokenFileCheckSeconds: 1'])), {});
    expect(checked.twitch.enabled && checked.twitch.bot).toMatchObject({ tokenFileCheckSeconds: 1 });
  });

  it('bot needs exactly one of token and tokenFile, and says why either', () => {
    expect(errorOf(() => loadConfig(write(botSection([])), {})).issues)
      .toEqual([{ path: 'twitch.bot', line: 5, message: `needs token or tokenFile: ${TOKEN_CHOICE}` }]);
    const both = errorOf(() => loadConfig(write(botSection(['token: oauth:thebottoken', 'tokenFile: ./data/bot-token.json'])), {}));
    expect(both.issues).toEqual([{ path: 'twitch.bot', line: 5, message: `has both token and tokenFile; keep one: ${TOKEN_CHOICE}` }]);
    expect(both.message).not.toContain('thebottoken');
  });

  it('bot.tokenFile is not the broadcaster\'s token file: two tokens, each refreshed and saved on its own', () => {
    const same = 'is the broadcaster\'s token file too (twitch.broadcaster.tokenFile): the bot\'s chat token and the broadcaster\'s '
      + 'are two authorizations with other scopes, each refreshed and saved on its own: in one file each would overwrite the other; '
      + 'give each its own file';
    const explicit = botSection(['tokenFile: ./data/token.json']) + '\n  broadcaster:\n    tokenFile: data/../data/token.json';
    expect(errorOf(() => loadConfig(write(explicit), {})).issues).toEqual([{ path: 'twitch.bot.tokenFile', line: 6, message: same }]);
    // The broadcaster's default file.
    expect(errorOf(() => loadConfig(write(botSection(['tokenFile: ./data/twitch-broadcaster-token.json'])), {})).issues)
      .toEqual([{ path: 'twitch.bot.tokenFile', line: 6, message: same }]);
    expect(loadConfig(write(botSection(['tokenFile: ./data/twitch-bot-token.json'])), {}).twitch.enabled).toBe(true);
  });

  it('bot.tokenFileCheckSeconds only with a token file, and from 1 to 3600', () => {
    expect(errorOf(() => loadConfig(write(botSection(['token: oauth:tok', 'tokenFileCheckSeconds: 2'])), {})).issues)
      .toEqual([{ path: 'twitch.bot', line: 5, message: 'has tokenFileCheckSeconds without tokenFile: it applies to a token file only' }]);
    expect(errorOf(() => loadConfig(write(botSection(['tokenFile: bot.json', 'tokenFileCheckSeconds: 0'])), {})).issues)
      .toEqual([{ path: 'twitch.bot.tokenFileCheckSeconds', line: 7, message: 'must be a whole number from 1 to 3600' }]);
  });

  it('enabled: false ignores the rest of the section, unset ${VARS} included', () => {
    const config = loadConfig(write('twitch:\n  enabled: false\n  clientSecret: ${NOT_SET_ANYWHERE}\n  chat: { port: nonsense }\n'), {});
    expect(config.twitch).toEqual({ enabled: false });
  });
});

describe('loadConfig: errors name the file, the path, the line and what is allowed', () => {
  it('a wrong type at a nested path', () => {
    const file = write('http:\n  host: 0.0.0.0\n  port: "eighty"\n');
    const error = errorOf(() => loadConfig(file, {}));
    expect(error.file).toBe(file);
    expect(error.issues).toEqual([{ path: 'http.port', line: 3, message: 'must be a whole number from 0 to 65535 (got "eighty")' }]);
    expect(error.message).toContain(file);
    expect(error.message).toContain('http.port (line 3): must be a whole number from 0 to 65535');
  });

  it('a deeper path, an out-of-range number and a bad choice, all reported at once', () => {
    const error = errorOf(() => loadConfig(write([
      'api:',
      '  rateLimit:',
      '    perMinute: 0',
      'store:',
      '  synchronous: sometimes',
      'overlay:',
      '  emoteCdn: ftp://cdn',
    ].join('\n')), {}));
    expect(error.issues).toEqual([
      { path: 'store.synchronous', line: 5, message: 'must be one of off, normal, full, extra (got "sometimes")' },
      { path: 'api.rateLimit.perMinute', line: 3, message: 'must be a whole number from 1 to 100000 (got 0)' },
      { path: 'overlay.emoteCdn', line: 7, message: 'must be a http or https URL such as https://static-cdn.jtvnw.net/emoticons/v2 (got "ftp://cdn")' },
    ]);
  });

  it('the documented ranges: each end is taken, one past it is refused with what is allowed', () => {
    const issues = (value: unknown) => errorOf(() => parseConfig(value)).issues.map(({ path, message }) => `${path}: ${message}`);
    expect(parseConfig({ overlay: { maxMessages: 1 } }).overlay.maxMessages).toBe(1);
    expect(parseConfig({ overlay: { maxMessages: 500 } }).overlay.maxMessages).toBe(500);
    expect(issues({ overlay: { maxMessages: 501 } })).toEqual(['overlay.maxMessages: must be a whole number from 1 to 500 (got 501)']);
    expect(issues({ overlay: { maxMessages: 0 } })).toEqual(['overlay.maxMessages: must be a whole number from 1 to 500 (got 0)']);

    expect(parseConfig({ http: { maxConnections: 1 } }).http.maxConnections).toBe(1);
    expect(parseConfig({ http: { maxConnections: 1_000_000 } }).http.maxConnections).toBe(1_000_000);
    expect(issues({ http: { maxConnections: 0 } })).toEqual(['http.maxConnections: must be a whole number from 1 to 1000000 (got 0)']);
    expect(issues({ http: { maxConnections: 1_000_001 } })).toEqual(['http.maxConnections: must be a whole number from 1 to 1000000 (got 1000001)']);
    expect(parseConfig({ http: { maxConnectionsPerAddress: 1 } }).http.maxConnectionsPerAddress).toBe(1);
    expect(issues({ http: { maxConnectionsPerAddress: 0 } })).toEqual(['http.maxConnectionsPerAddress: must be a whole number from 1 to 1000000 (got 0)']);

    expect(parseConfig({ commands: { prefix: 'abcdefgh' } }).commands.prefix).toBe('abcdefgh');
    const prefixRule = 'commands.prefix: must be 1 to 8 characters with no spaces, such as "!"';
    expect(issues({ commands: { prefix: 'abcdefghi' } })).toEqual([`${prefixRule} (got "abcdefghi")`]);
    expect(issues({ commands: { prefix: '' } })).toEqual([`${prefixRule} (got "")`]);
    expect(issues({ commands: { prefix: 'a b' } })).toEqual([`${prefixRule} (got "a b")`]);

    expect(parseConfig({ api: { prefix: '' } }).api.prefix).toBe('');
    expect(parseConfig({ api: { prefix: '/styles/v2' } }).api.prefix).toBe('/styles/v2');
    const apiRule = 'api.prefix: must be "" or a path such as /api/v1: starting with "/", not ending with one';
    expect(issues({ api: { prefix: '/api/v1/' } })).toEqual([`${apiRule} (got "/api/v1/")`]);
    expect(issues({ api: { prefix: '/' } })).toEqual([`${apiRule} (got "/")`]);
    expect(issues({ api: { prefix: 'api/v1' } })).toEqual([`${apiRule} (got "api/v1")`]);
  });

  it('http.trustProxy: false, true or proxy addresses; anything else says what is allowed', () => {
    expect(parseConfig({ http: { trustProxy: true } }).http.trustProxy).toBe(true);
    expect(parseConfig({ http: { trustProxy: ['127.0.0.1', '10.0.0.0/8', '::1', 'fd00::/8'] } }).http.trustProxy)
      .toEqual(['127.0.0.1', '10.0.0.0/8', '::1', 'fd00::/8']);
    const allowed = 'must be false, true, or a list of proxy addresses (IPs or CIDR ranges such as 10.0.0.0/8)';
    for (const bad of ['yes', 2]) {
      const error = errorOf(() => loadConfig(write(`http:\n  trustProxy: ${JSON.stringify(bad)}\n`), {}));
      expect(error.issues).toEqual([{ path: 'http.trustProxy', line: 2, message: expect.stringContaining(allowed) }]);
    }
    // An entry that is not text at all is named too, not the whole list ("must be false, true, or a list ... (got a list)").
    for (const bad of [true, 8, null, ['10.0.0.1']]) {
      const error = errorOf(() => loadConfig(write(`http:\n  trustProxy: [127.0.0.1, ${JSON.stringify(bad)}]\n`), {}));
      expect(error.issues).toEqual([{
        path: 'http.trustProxy[1]', line: 2, message: expect.stringMatching(/^must be an IP address or a CIDR range such as 10\.0\.0\.0\/8/),
      }]);
    }
    for (const bad of ['proxy.local', '10.0.0.300', '10.0.0.0/33', '::1/129', '10.0.0.0/x']) {
      const error = errorOf(() => loadConfig(write(`http:\n  trustProxy: [127.0.0.1, ${JSON.stringify(bad)}]\n`), {}));
      expect(error.issues).toEqual([{
        path: 'http.trustProxy[1]', line: 2, message: `must be an IP address or a CIDR range such as 10.0.0.0/8 (got ${JSON.stringify(bad)})`,
      }]);
    }
  });

  it('twitch.chat: wss only on port 443 and port 443 only with wss, as tmi.js connects', () => {
    const twitch = (chat: string) => write(`twitch:\n  clientId: a\n  clientSecret: b\n  bot: { login: bot, token: "oauth:x" }\n  chat: ${chat}\n`);
    expect(errorOf(() => loadConfig(twitch('{ port: 6667 }'), {})).issues).toEqual([{
      path: 'twitch.chat.port', line: 5,
      message: 'must be 443 while twitch.chat.secure is true (tmi.js always uses port 443 for wss); set secure: false for another port (got 6667)',
    }]);
    expect(errorOf(() => loadConfig(twitch('{ secure: false }'), {})).issues).toEqual([{
      path: 'twitch.chat.secure', line: 5,
      message: 'must be true with port 443 (tmi.js always uses wss there); or set another twitch.chat.port (got false)',
    }]);
    expect(loadConfig(twitch('{ server: 127.0.0.1, port: 6667, secure: false }'), {}).twitch).toMatchObject({ chat: { port: 6667, secure: false } });
  });

  it('an unknown key (a typo) names the key it may have meant and the keys that are allowed there', () => {
    const error = errorOf(() => loadConfig(write('http:\n  port: 80\n  hots: 0.0.0.0\n'), {}));
    expect(error.issues).toEqual([{ path: 'http', line: 3, message: 'unknown key "hots" (did you mean "host"?); allowed keys: host, port, trustProxy, maxConnections, maxConnectionsPerAddress' }]);
    const far = errorOf(() => loadConfig(write('http:\n  port: 80\n  listen: 0.0.0.0\n'), {}));
    expect(far.issues[0]!.message).toBe('unknown key "listen"; allowed keys: host, port, trustProxy, maxConnections, maxConnectionsPerAddress');
  });

  it('an unknown top-level key', () => {
    const error = errorOf(() => loadConfig(write('htpp:\n  port: 80\n'), {}));
    expect(error.issues[0]!.path).toBe('(top level)');
    expect(error.issues[0]!.message).toMatch(/^unknown key "htpp" \(did you mean "http"\?\); allowed keys: http, store, api, overlay/);
  });

  it('a section that is not a mapping', () => {
    const error = errorOf(() => loadConfig(write('commands: "!"\n'), {}));
    expect(error.issues).toEqual([{ path: 'commands', line: 1, message: 'must be a mapping (indented "key: value" lines) (got "!")' }]);
  });

  it('a bad plugin name', () => {
    const error = errorOf(() => loadConfig(write('plugins:\n  My Plugin: {}\n'), {}));
    expect(error.issues[0]).toMatchObject({ path: 'plugins["My Plugin"]', line: 2 });
    expect(error.issues[0]!.message).toMatch(/lowercase letters, digits, - or _/);
  });

  it('a secret value is never echoed in the error', () => {
    const error = errorOf(() => loadConfig(write('service:\n  mode: remote\n  baseUrl: https://x.example/api/v1\n  apiKey: "has spaces in it"\n'), {}));
    expect(error.issues[0]!.path).toBe('service.apiKey');
    expect(error.message).not.toContain('has spaces');
  });

  it('a Twitch client secret or bot token that YAML reads as a number is not echoed either', () => {
    const error = errorOf(() => loadConfig(write('twitch:\n  clientId: abc\n  clientSecret: 918273645546372819\n  bot:\n    login: bot\n    token: 5647382910\n'), {}));
    expect(error.issues.map((issue) => issue.path)).toEqual(['twitch.clientSecret', 'twitch.bot.token']);
    expect(error.message).not.toMatch(/9182736455|5647382910/);
  });

  it.each([
    ['credentials', 'https://bot:hunter2pass@x.example/api/v1', /must not carry credentials/],
    ['a query', 'https://x.example/api/v1?key=hunter2pass', /must not have a query/],
  ])('a service.baseUrl with %s is a config error naming the key and line, without echoing the URL', (_label, url, message) => {
    const error = errorOf(() => loadConfig(write(`service:\n  mode: remote\n  baseUrl: ${url}\n  apiKey: k\n`), {}));
    expect(error.issues).toHaveLength(1);
    expect(error.issues[0]).toMatchObject({ path: 'service.baseUrl', line: 3 });
    expect(error.issues[0]!.message).toMatch(message);
    expect(error.message).not.toContain('hunter2pass');
  });

  it('bad YAML names the line and keeps the file name', () => {
    const file = write('http:\n  port: 80\n  port: 81\n');
    const error = errorOf(() => loadConfig(file, {}));
    expect(error.message).toMatch(/^Bad YAML in .*config\.yaml:/);
    expect(error.issues[0]).toMatchObject({ path: '(yaml)', line: 3 });
    expect(error.issues[0]!.message).toMatch(/unique/);
  });

  it('bad YAML is its first syntax error alone, not what the parser reports after it', () => {
    // A tab and an unclosed [ once gave five lines each, at lines the user had not touched.
    const tab = errorOf(() => loadConfig(write('http:\n  host: 127.0.0.1\n\tport: 4477\n  trustProxy: false\n  maxConnections: 10\nstore: {}\n'), {}));
    expect(tab.issues).toEqual([{ path: '(yaml)', line: 3, message: 'Tabs are not allowed as indentation' }]);
    const unclosed = errorOf(() => loadConfig(write('api:\n  prefix: /api/v1\n  rateLimit: [1, 2\n    perMinute: 30\n    failedAuthPerMinute: 30\n  bodyLimitBytes: 65536\n'), {}));
    expect(unclosed.issues).toHaveLength(1);
    expect(unclosed.issues[0]).toMatchObject({ path: '(yaml)', line: 3 });
    expect(unclosed.message.split('\n')).toHaveLength(2);
  });

  it('bad YAML from an unquoted ${VAR} in a flow mapping says to quote it', () => {
    const error = errorOf(() => loadConfig(write('twitch:\n  bot: { login: x, token: ${TOKEN} }\n'), {}));
    expect(error.issues[0]!.line).toBe(2);
    expect(error.issues[0]!.message).toContain('must be quoted');
  });

  it('a missing file says how to pick another', () => {
    const error = errorOf(() => loadConfig(join(dir, 'nope.yaml'), {}));
    expect(error.message).toContain('nope.yaml');
    expect(error.issues[0]!.message).toMatch(/does not exist; pass another with --config FILE or set CHATSKIN_CONFIG/);
  });

  it('a top level that is not a mapping', () => {
    const error = errorOf(() => loadConfig(write('- a\n- b\n'), {}));
    expect(error.issues[0]).toMatchObject({ path: '(top level)', message: 'must be a mapping (indented "key: value" lines) (got a list)' });
  });
});

describe('loadConfig: a hostile or wrong file is one ConfigError, never a crash', () => {
  it('aliases that expand exponentially ("billion laughs") are refused before they expand', () => {
    const levels = ['a: &a [x, x, x, x, x, x, x, x, x]'];
    for (const name of 'bcdefghi') levels.push(`${name}: &${name} [${Array(9).fill(`*${levels.length === 1 ? 'a' : String.fromCharCode(name.charCodeAt(0) - 1)}`).join(', ')}]`);
    const error = errorOf(() => loadConfig(write(`${levels.join('\n')}\n`), {}));
    expect(error.message).toMatch(/^Bad YAML in .*config\.yaml:/);
    expect(error.issues).toEqual([{ path: '(yaml)', message: 'its aliases (*name) expand to too many values (more than 100); write the values out instead' }]);
  });

  it('merge keys (<<: *base) merge an anchored mapping; keys written beside them win; a merged unknown key is an error', () => {
    const config = loadConfig(write([
      'plugins:',
      '  style:',
      '    themes:',
      '      neon: &neon { bubble.background-color: "#ff00ff", bubble.width: 300 }',
      '      dusk:',
      '        <<: *neon',
      '        bubble.width: 250',
      '',
    ].join('\n')), {});
    expect(config.plugins.style!.settings).toEqual({ themes: {
      neon: { 'bubble.background-color': '#ff00ff', 'bubble.width': 300 },
      dusk: { 'bubble.background-color': '#ff00ff', 'bubble.width': 250 },
    } });
    const error = errorOf(() => loadConfig(write('base: &base { port: 0, hots: x }\nhttp:\n  <<: *base\n'), {}));
    expect(error.issues.map((issue) => issue.path)).toContain('http');
    expect(error.issues.find((issue) => issue.path === 'http')!.message).toContain('unknown key "hots"');
  });

  it('a merge key whose value is not a mapping is one error naming its path and line, not a crash', () => {
    for (const value of ['5', '[1, 2]', '*scalar', '"text"']) {
      const error = errorOf(() => loadConfig(write(`store: &scalar 3\nhttp:\n  port: 0\n  <<: ${value}\n`), {}));
      expect(error.issues, value).toEqual([{ path: 'http', line: 4, message: 'its merge key (<<) must be given a mapping, an alias of one (<<: *name) or a list of those' }]);
    }
  });

  it('an alias with no anchor before it names the alias and its line', () => {
    const error = errorOf(() => loadConfig(write('http:\n  port: 0\nstore: *nowhere\n'), {}));
    expect(error.issues).toEqual([{ path: '(yaml)', line: 3, message: 'the alias *nowhere has no anchor &nowhere before it' }]);
  });

  it('a binary file, UTF-16 text and NUL bytes are named as such, nothing of them echoed', () => {
    const binary = errorOf(() => loadConfig(write(Buffer.from([0x68, 0x3a, 0x20, 0x24, 0x7b, 0xff, 0x1b, 0x5b, 0x32, 0x4a, 0x7d, 0x0a])), {}));
    expect(binary.message).toMatch(/^Cannot read config in .*config\.yaml:\n {2}- \(file\): is not UTF-8 text: a binary file \(is it the right file\?\), or text in another encoding \(save it as UTF-8\)$/);
    const utf16 = errorOf(() => loadConfig(write(Buffer.from('\ufeffhttp: {}\n', 'utf16le')), {}));
    expect(utf16.issues).toEqual([{ path: '(file)', message: 'is UTF-16 text; save it as UTF-8' }]);
    const utf16be = errorOf(() => loadConfig(write(Buffer.from('\ufeffhttp: {}\n', 'utf16le').swap16()), {}));
    expect(utf16be.issues).toEqual([{ path: '(file)', message: 'is UTF-16 text; save it as UTF-8' }]);
    const nul = errorOf(() => loadConfig(write('http: {}\n\0\n'), {}));
    expect(nul.issues[0]!.message).toMatch(/^holds NUL bytes: a binary file/);
  });

  it('a UTF-8 byte order mark is fine', () => {
    expect(loadConfig(write('\ufeffhttp:\n  port: 0\n'), {}).http.port).toBe(0);
  });

  it('a file over 1 MiB, or a device that never ends, is refused after reading 1 MiB', () => {
    const huge = errorOf(() => loadConfig(write(`http: {}\n${'#'.repeat(MAX_CONFIG_BYTES)}\n`), {}));
    expect(huge.issues).toEqual([{ path: '(file)', message: 'is larger than 1 MiB, which no config needs (the shipped one is about 5 KB); is it the right file?' }]);
    expect(errorOf(() => loadConfig('/dev/zero', {})).issues[0]!.message).toMatch(/^is larger than 1 MiB/);
    // Exactly at the limit is still read.
    expect(loadConfig(write(`http: {port: 0}\n${'#'.repeat(MAX_CONFIG_BYTES - 16)}`), {}).http.port).toBe(0);
  });

  it('a folder says it is one', () => {
    expect(errorOf(() => loadConfig(dir, {})).issues).toEqual([{ path: '(file)', message: 'is a folder, not a file; pass the config file with --config FILE' }]);
  });

  it('control characters from the file (an escape sequence in a key) are shown as \\u escapes, never sent to the terminal', () => {
    const error = errorOf(() => loadConfig(write('"\\e]0;owned\\a\\e[2J": 1\n"a\\n  - fake (line 9)": 2\nstore: {path: "${\\e[31mX}"}\n'), {}));
    expect(error.message).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(error.message.split('\n')).toHaveLength(3);
    expect(error.message).toContain('unknown keys "\\u001b]0;owned\\u0007\\u001b[2J", "a\\u000a  - fake (line 9)"');
    expect(error.message).toContain('"${\\u001b[31mX}" is not an environment reference');
  });

  it('past 10 problems the message says how many more, so a long list of bad entries stays a few lines', () => {
    // 100 numbers in place of User-Agent texts once gave a message of 101 lines.
    const error = errorOf(() => loadConfig(write(`api:\n  edgeFilter:\n    blockedAgents: [${Array.from({ length: 100 }, (_, i) => i).join(', ')}]\n`), {}));
    expect(error.issues).toHaveLength(100);
    const lines = error.message.split('\n');
    expect(lines).toHaveLength(12);
    expect(lines[1]).toBe('  - api.edgeFilter.blockedAgents[0] (line 3): must be a User-Agent (prefix when it ends in "/") (got 0)');
    expect(lines[11]).toBe('  - (and 90 more; fix these, then the next run lists the rest)');
  });

  it('a problem two checks word alike is listed once', () => {
    const error = errorOf(() => loadConfig(write('http:\n  port: 99999999999999999999999\n'), {}));
    expect(error.issues).toEqual([{ path: 'http.port', line: 2, message: 'must be a whole number from 0 to 65535 (got 1e+23)' }]);
    expect(error.message.split('\n')).toHaveLength(2);
  });
});

describe('loadConfig: ${ENV} references', () => {
  const remote = 'service:\n  mode: remote\n  baseUrl: https://styles.example/api/v1\n  apiKey: ${CHATSKIN_API_KEY}\n';

  it('substitutes a variable for a secret', () => {
    const config = loadConfig(write(remote), { CHATSKIN_API_KEY: 'csk_0123456789' });
    expect(config.service).toMatchObject({ mode: 'remote', apiKey: 'csk_0123456789' });
  });

  it('an unset variable is an error naming it, the path and the line', () => {
    const error = errorOf(() => loadConfig(write(remote), {}));
    expect(error.issues).toEqual([{
      path: 'service.apiKey',
      line: 4,
      message: 'environment variable CHATSKIN_API_KEY is not set; set it, or write the value in the file',
    }]);
  });

  it('a variable set to the empty string is an error too', () => {
    const error = errorOf(() => loadConfig(write(remote), { CHATSKIN_API_KEY: '' }));
    expect(error.issues[0]!.message).toContain('CHATSKIN_API_KEY is set but empty');
  });

  it('an unset variable and the rest of the file\'s problems are listed at once, without repeating the variable\'s key', () => {
    const error = errorOf(() => loadConfig(write([
      'http:',
      '  port: eighty',
      '  hots: 0.0.0.0',
      'twitch:',
      '  clientId: abc',
      '  clientSecret: ${TWITCH_CLIENT_SECRET}',
      '  bot: { login: mybot, token: "${BOT_TOKEN}" }',
    ].join('\n')), { BOT_TOKEN: 'oauth:x' }));
    expect(error.issues).toEqual([
      { path: 'http.port', line: 2, message: 'must be a whole number from 0 to 65535 (got "eighty")' },
      { path: 'http', line: 3, message: 'unknown key "hots" (did you mean "host"?); allowed keys: host, port, trustProxy, maxConnections, maxConnectionsPerAddress' },
      { path: 'twitch.clientSecret', line: 6, message: 'environment variable TWITCH_CLIENT_SECRET is not set; set it, or write the value in the file' },
    ]);
  });

  it('every unset variable is listed at once', () => {
    const error = errorOf(() => loadConfig(write('twitch:\n  clientId: ${A_ID}\n  clientSecret: ${A_SECRET}\n'), {}));
    const unset = error.issues.filter((issue) => issue.message.startsWith('environment variable'));
    expect(unset.map((issue) => issue.message.split(' ')[2])).toEqual(['A_ID', 'A_SECRET']);
  });

  it('a value from the environment that its key refuses is not repeated: swapped variables must not print a token', () => {
    const token = 'hof5gwx0su6owfnys0nyan9c87zr6t';
    const file = write('twitch:\n  clientId: abc\n  clientSecret: s\n  bot: { login: "${BOT_TOKEN}", token: "${BOT_LOGIN}" }\nhttp:\n  port: "${PORT}"\n  host: "x-${BOT_TOKEN}"\n');
    const error = errorOf(() => loadConfig(file, { BOT_TOKEN: token, BOT_LOGIN: 'mybot', PORT: '8080' }));
    expect(error.message).not.toContain(token);
    expect(error.issues).toEqual([
      { path: 'http.port', line: 6, message: 'must be a whole number from 0 to 65535 (its value, from the environment, is not repeated here; a ${NAME} reference gives text, so write this value in the file)' },
      { path: 'twitch.bot.login', line: 4, message: 'must be a Twitch login: 1 to 25 letters, digits or _ (its value, from the environment, is not repeated here)' },
    ]);
    // twitch.enabled is checked with the section (it says which form the section takes), and is not repeated either.
    const enabled = errorOf(() => loadConfig(write('twitch:\n  enabled: "${TWITCH_ON}"\n'), { TWITCH_ON: token }));
    expect(enabled.message).not.toContain(token);
    expect(enabled.issues).toEqual([{
      path: 'twitch.enabled', line: 2,
      message: 'must be true or false (its value, from the environment, is not repeated here; a ${NAME} reference gives text, so write this value in the file)',
    }]);
    // A value written in the file is still quoted back.
    expect(errorOf(() => loadConfig(write('http:\n  port: "8080"\n'), {})).issues[0]!.message).toBe('must be a whole number from 0 to 65535 (got "8080")');
  });
});
