// The command line's argument handling as docs/cli.md states it, on generated argv: known and
// misspelt commands and flags in any order, `--flag=value` and `--flag value`, missing, extra and
// repeated arguments, empty values, `--`, unicode, control characters and terminal escapes, long
// values, numbers out of range, --help/-h anywhere, flags of another command. Run in-process through
// the CLI's own entry (src/cli/cli-main.ts, what src/main.ts runs), on a database seeded by the CLI
// itself; a small sample runs as real child processes too. CHATSKIN_ARGV_RUNS raises the run count.
//
// Promised: exit code 0 or 1, never a stack trace, an unexpected error or an unhandled rejection; a
// refusal is one line on stderr starting `chatskin: `, nothing on stdout, and the database as it
// was; a refusal of the command line itself points at --help; a command one typo away is suggested;
// nothing that acts on a terminal is printed raw; no API key is printed but by `keys create`.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMAND_SPECS, parseCommandLine } from '../../src/cli/command-line.ts';
import { commandHelp, HELP } from '../../src/cli/help.ts';
import { reportFailure, runCommandLine } from '../../src/cli/cli-main.ts';
import { runCli, tempWorkspace } from './cli-process.ts';
import { ISSUE_SEED_FIXTURE } from '../support/issue-seed-fixture.ts';

const RUNS = Number(process.env.CHATSKIN_ARGV_RUNS ?? 300);
const COMMANDS = Object.keys(COMMAND_SPECS) as (keyof typeof COMMAND_SPECS)[];

let workspace: { dir: string; config: string };
let database: string;
let fixture: string;
const savedCwd = process.cwd();
const savedConfigEnv = process.env.CHATSKIN_CONFIG;
const savedDebug = process.env.CHATSKIN_DEBUG;
const rejections: unknown[] = [];
const onRejection = (reason: unknown): void => { rejections.push(reason); };

beforeAll(async () => {
  workspace = tempWorkspace();
  database = join(workspace.dir, 'db.sqlite');
  fixture = join(workspace.dir, 'fixture.yaml');
  writeFileSync(fixture, ISSUE_SEED_FIXTURE);
  mkdirSync(join(workspace.dir, 'folder'));
  // A fixture with one problem and one with several: docs/cli.md gives the latter a line each under a headline.
  writeFileSync(join(workspace.dir, 'bad.yaml'), 'accounts:\n  - login: "not a login!"\n');
  writeFileSync(join(workspace.dir, 'wrong.yaml'), 'accounts:\n  - login: "not a login!"\n  - login: alice\n    premium: maybe\nviewers: 5\n');
  // A config that does not load: its problems are listed under a headline too.
  writeFileSync(join(workspace.dir, 'bad-config.yaml'), 'http: { port: -1 }\ncommands: { prefix: "two words" }\n');
  Object.assign(PLACES, {
    CONFIG: workspace.config, FIXTURE: fixture, BAD: join(workspace.dir, 'bad.yaml'), WRONG: join(workspace.dir, 'wrong.yaml'),
    'BAD-CONFIG': join(workspace.dir, 'bad-config.yaml'),
  });
  // Seeded by the CLI itself, as a person would.
  const seeded = await runCli(['seed', fixture, '--config', workspace.config], { cwd: workspace.dir });
  expect(seeded.code, seeded.stderr).toBe(0);
  // A relative path or a missing --config lands in the workspace, never in the checkout.
  process.chdir(workspace.dir);
  process.env.CHATSKIN_CONFIG = workspace.config;
  process.env.CHATSKIN_DEBUG = '';
  process.on('unhandledRejection', onRejection);
});

afterAll(() => {
  process.chdir(savedCwd);
  if (savedConfigEnv === undefined) delete process.env.CHATSKIN_CONFIG;
  else process.env.CHATSKIN_CONFIG = savedConfigEnv;
  if (savedDebug === undefined) delete process.env.CHATSKIN_DEBUG;
  else process.env.CHATSKIN_DEBUG = savedDebug;
  process.off('unhandledRejection', onRejection);
});

interface Result { code: number; stdout: string; stderr: string; parseError: boolean }

/** Every row of every table, as text: what a refused command must leave as it was. */
function dump(): string {
  const db = new DatabaseSync(database, { readOnly: true });
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[];
    return JSON.stringify(tables.map(({ name }) => [name, db.prepare(`SELECT * FROM "${name}"`).all()]),
      (_key, value: unknown) => (value instanceof Uint8Array ? Buffer.from(value).toString('hex') : typeof value === 'bigint' ? String(value) : value));
  } finally {
    db.close();
  }
}

type Write = (chunk: unknown, encoding?: unknown, callback?: unknown) => boolean;

/** The CLI in this process, as src/main.ts runs it, with stdout and stderr captured. */
async function inProcess(argv: string[]): Promise<Result> {
  let stdout = '';
  let stderr = '';
  const capture = (add: (text: string) => void): Write => (chunk, encoding, callback) => {
    add(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString());
    const done = typeof encoding === 'function' ? encoding : callback;
    if (typeof done === 'function') queueMicrotask(() => (done as (error?: Error | null) => void)(null));
    return true;
  };
  const realOut = process.stdout.write;
  const realErr = process.stderr.write;
  process.stdout.write = capture((text) => { stdout += text; }) as typeof process.stdout.write;
  process.stderr.write = capture((text) => { stderr += text; }) as typeof process.stderr.write;
  let code = 0;
  let parseError = false;
  try {
    try {
      parseCommandLine(argv);
    } catch {
      parseError = true;
    }
    await runCommandLine(argv).catch(async (error: unknown) => {
      code = 1;
      await reportFailure(error, argv);
    });
  } finally {
    process.stdout.write = realOut;
    process.stderr.write = realErr;
  }
  return { code, stdout, stderr, parseError };
}

/** Would run the host in this process: left to the child-process sample, killed there. */
function startsHost(argv: string[]): boolean {
  try {
    const line = parseCommandLine(argv);
    return line.kind === 'run' && line.command === 'start';
  } catch {
    return false;
  }
}

// ---- generators -----------------------------------------------------------------------------

const nasty = fc.constantFrom(
  '', ' ', '\t', '\x1b[31mred\x1b[0m', '\x1b]0;title\x07', '\x1b[2J', '\x9b31m', '\x07', '\x7f', 'a\nb', 'a\rb', '\u202eevil',
  'ünïcødé', '😀', '日本語', '--', '-', '-x', '---', '=', '--=', '0', '-1', '1e3', '1.5', '9007199254740993', '99999999999999999999999',
  'NaN', 'Infinity', '0x10', '00001', 'null', 'undefined', '__proto__', 'constructor', '%s%n', '../../etc/passwd', '/dev/null', 'folder',
);
const longValue = fc.integer({ min: 200, max: 20_000 }).chain((n) => fc.constantFrom('a', '\x1b', 'é', '-').map((c) => c.repeat(n)));
const word = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('alice', 'bob', 'streamer', 'create', 'revoke', 'list', 'new-url', 'on', 'off', 'ON', 'Off',
    'compact', 'auth', 'say', 'hello', '/me waves', '/mod hi', '//x', '1', '2', '3', 'help', 'start', 'seed', 'keys', 'premium') },
  { weight: 3, arbitrary: nasty },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }) },
  { weight: 1, arbitrary: longValue },
);

/** A name one typo away: a letter changed, dropped, added or two swapped. */
function typo(name: string): fc.Arbitrary<string> {
  return fc.tuple(fc.nat({ max: name.length - 1 }), fc.constantFrom('sub', 'drop', 'add', 'swap'), fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz'))
    .map(([at, kind, letter]) => {
      if (kind === 'sub') return name.slice(0, at) + letter + name.slice(at + 1);
      if (kind === 'drop') return name.slice(0, at) + name.slice(at + 1);
      if (kind === 'add') return name.slice(0, at) + letter + name.slice(at);
      return at + 1 < name.length ? name.slice(0, at) + name[at + 1] + name[at] + name.slice(at + 2) : name.slice(0, -1);
    });
}

const FLAG_NAMES = ['config', 'help', 'version', 'as', 'role', 'url', 'bot'];
const flagName = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...FLAG_NAMES) },
  { weight: 2, arbitrary: fc.constantFrom(...FLAG_NAMES).chain(typo) },
  { weight: 1, arbitrary: fc.constantFrom('channel', 'port', 'verbose', 'debug', 'configs', 'x') },
  { weight: 1, arbitrary: word },
);
const configValue = fc.oneof(
  { weight: 6, arbitrary: fc.constant('CONFIG') },
  { weight: 2, arbitrary: fc.constantFrom('', 'missing.yaml', 'folder', '/dev/null', 'FIXTURE') },
  { weight: 1, arbitrary: word },
);
const urlValue = fc.oneof(fc.constantFrom('http://127.0.0.1:1', '127.0.0.1:4477', 'ftp://x', 'http://[::1]:1/local/chat/say', 'https://127.0.0.1:1'), word);
const roleValue = fc.oneof(fc.constantFrom('mod', 'MOD', 'broadcaster', 'streamer', 'vip', 'sub', 'everyone', 'viewer', 'king'), word);

/** One flag token or two: `--name=value`, `--name value`, `-c value`, `--name`. */
const flagTokens: fc.Arbitrary<string[]> = fc.tuple(flagName, fc.constantFrom('=', ' ', 'short', 'bare'), fc.oneof(configValue, urlValue, roleValue, word))
  .map(([name, form, value]) => {
    if (form === 'bare') return [`--${name}`];
    if (form === 'short') return [`-${name.slice(0, 1)}`, value];
    return form === '=' ? [`--${name}=${value}`] : [`--${name}`, value];
  });

const commandWord = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...COMMANDS) },
  { weight: 2, arbitrary: fc.constantFrom(...COMMANDS).chain(typo) },
  { weight: 1, arbitrary: fc.constantFrom('help', 'frobnicate', '') },
  { weight: 1, arbitrary: word },
);

/** The positionals a command takes, right or nearly so. */
const positionals = fc.oneof(
  fc.constant([] as string[]),
  fc.array(word, { maxLength: 4 }),
  fc.constantFrom(['create', 'alice'], ['revoke', 'alice'], ['create', 'bob'], ['alice', 'on'], ['alice', 'OFF'], ['bob', 'on'],
    ['list', 'alice'], ['new-url', 'alice', '1'], ['new-url', 'alice', '999'], ['new-url', 'alice', '99999999999999999999'],
    ['compact'], ['auth'], ['say', 'hello'], ['FIXTURE'], ['missing.yaml'], ['folder']),
);

const login = fc.oneof({ weight: 3, arbitrary: fc.constantFrom('alice', 'bob') }, { weight: 2, arbitrary: word });
const ownFlags = (name: keyof typeof COMMAND_SPECS): fc.Arbitrary<string[][]> => {
  const own = Object.keys(COMMAND_SPECS[name].flags);
  const flag = own.length === 0 ? fc.constant([] as string[]) : fc.constantFrom(...own).chain((f): fc.Arbitrary<string[]> => f === 'bot' ? fc.constant([`--${f}`])
    : fc.tuple(f === 'url' ? urlValue : f === 'role' ? roleValue : login, fc.boolean()).map(([v, eq]) => (eq ? [`--${f}=${v}`] : [`--${f}`, v])));
  const config = fc.constantFrom<string[]>([], [], [], ['--config', 'CONFIG'], ['--config=CONFIG'], ['-c', 'CONFIG'], ['--config', 'missing.yaml'], ['-c', 'BAD-CONFIG']);
  return fc.tuple(fc.array(flag, { maxLength: 3 }), config).map(([flags, c]) => [...flags, ...(c.length > 0 ? [c] : [])]);
};
/** A command as its usage shows it, its words generated: what reaches the command itself. */
const shaped: fc.Arbitrary<string[]> = fc.oneof(
  fc.tuple(fc.constant('seed'), fc.oneof(fc.constantFrom('FIXTURE', 'BAD', 'WRONG', 'folder', '/dev/null', 'missing.yaml'), word)),
  fc.tuple(fc.constant('keys'), fc.oneof(fc.constantFrom('create', 'revoke'), word), login),
  fc.tuple(fc.constant('premium'), login, fc.oneof(fc.constantFrom('on', 'off', 'ON', 'oFf'), word)),
  fc.tuple(fc.constant('overlays'), fc.constant('list'), login),
  fc.tuple(fc.constant('overlays'), fc.constant('new-url'), login, fc.oneof(fc.constantFrom('1', '2', '3', '999', '0', '99999999999999999999'), word)),
  fc.tuple(fc.constant('store'), fc.oneof(fc.constant('compact'), word)),
  fc.tuple(fc.constant('chat'), fc.constant('say'), word, fc.constantFrom('--url', '--url=http://127.0.0.1:1'), fc.constant('http://127.0.0.1:1')).map(([c, s, t, u, v]) => u === '--url' ? [c, s, t, u, v] : [c, s, t, u]),
  fc.tuple(fc.constant('chat'), fc.constant('say'), word),
  fc.tuple(fc.constant('twitch'), fc.oneof(fc.constant('auth'), word)),
).chain((words) => {
  const [name] = words as [keyof typeof COMMAND_SPECS];
  return fc.tuple(ownFlags(name), fc.constantFrom('as is', 'missing', 'extra'), word, fc.boolean()).chain(([flags, change, extra, dashDash]) => {
    const args = change === 'missing' ? words.slice(0, -1) : change === 'extra' ? [...words, extra] : [...words];
    const items: string[][] = [...args.slice(1).map((a) => [a]), ...flags];
    return fc.shuffledSubarray(items, { minLength: items.length, maxLength: items.length }).map((shuffled) => {
      // A word that starts with - is the text of `chat say`, given after `--` as docs/cli.md says.
      const line = dashDash ? [name, ...shuffled.filter((i) => i.length > 1 || !(args.includes(i[0]!))).flat(), '--', ...args.slice(1)]
        : [name, ...shuffled.flat()];
      return line;
    });
  });
});

/** A whole command line: a command, its arguments and flags shuffled, perhaps a `--` and more after it. */
const wild: fc.Arbitrary<string[]> = fc.tuple(
  commandWord, positionals, fc.array(flagTokens, { maxLength: 4 }), fc.boolean(), fc.array(word, { maxLength: 2 }),
  fc.constantFrom<string[]>([], [], ['--help'], ['-h']), fc.nat(), fc.boolean(),
).chain(([command, args, flags, dashDash, after, help, seed, dropCommand]) => {
  const items: string[][] = [...args.map((a) => [a]), ...flags, ...(help.length > 0 ? [help] : [])];
  return fc.shuffledSubarray(items, { minLength: items.length, maxLength: items.length }).map((shuffled) => {
    void seed;
    return [...(dropCommand && command === '' ? [] : [command]), ...shuffled.flat(), ...(dashDash ? ['--', ...after] : [])];
  });
});

const argvArb: fc.Arbitrary<string[]> = fc.oneof({ weight: 1, arbitrary: wild }, { weight: 2, arbitrary: shaped })
  .map((line) => line.map((token) => token.replace(/^(--config=)?(CONFIG|FIXTURE|BAD-CONFIG|BAD|WRONG)$/, (_m, eq: string | undefined, key: string) => `${eq ?? ''}${PLACES[key]}`)));

/** Files the generated lines name, in the workspace. */
const PLACES: Record<string, string> = {};

// ---- what every run must hold ---------------------------------------------------------------

/** A C0 control (but \n and \t), DEL or a C1 control: what a terminal may act on. */
const TERMINAL_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;
/** A whole API key (`keys revoke` shows `csk_` and six more). */
const WHOLE_KEY = /csk_[A-Za-z0-9_-]{12,}/;

/** Generated values run to 20,000 characters: a failure shows them cut short. */
function clip(text: string): string {
  return text.length > 400 ? `${text.slice(0, 400)}… (${text.length} characters)` : text;
}

function check(argv: string[], result: Result, before: string, after: string): void {
  const where = clip(JSON.stringify(argv));
  expect([0, 1], where).toContain(result.code);
  const both = result.stdout + result.stderr;
  expect(both, where).not.toMatch(/^\s+at /m);
  expect(result.stderr, where).not.toContain('unexpected error');
  expect(TERMINAL_CONTROL.test(both), `${where} printed a control character raw: ${clip(JSON.stringify(both))}`).toBe(false);
  const keysCreate = result.code === 0 && argv.includes('keys') && argv.includes('create');
  if (!keysCreate) expect(WHOLE_KEY.test(both), `${where} printed an API key`).toBe(false);
  if (result.code === 1) {
    expect(result.stdout, where).toBe('');
    // One line, or docs/cli.md's list under a headline (an invalid config, a fixture with several problems).
    const listed = /^chatskin: (Cannot read config|Invalid config|Invalid seed fixture)[^\n]*:\n(  [^\n]+\n)+$/.test(result.stderr);
    expect(listed || /^chatskin: [^\n]+\n$/.test(result.stderr), `${where}: not one line: ${clip(JSON.stringify(result.stderr))}`).toBe(true);
    expect(after, `${where} was refused but changed the database`).toBe(before);
    if (result.parseError) expect(result.stderr, where).toMatch(/Run chatskin (.+ )?--help for/);
  }
  expect(rejections, where).toEqual([]);
}

describe('chatskin on generated command lines (docs/cli.md)', () => {
  it('exit code 0 or 1, one scrubbed line per refusal, no stack trace, nothing raw on the terminal, a refusal changes nothing', async () => {
    await fc.assert(fc.asyncProperty(argvArb, async (argv) => {
      if (startsHost(argv)) return;
      const before = dump();
      const result = await inProcess(argv);
      check(argv, result, before, dump());
    }), { numRuns: RUNS });
  });

  it('a command one typo away is named ("Did you mean"), as is a flag of the command', async () => {
    await fc.assert(fc.asyncProperty(fc.constantFrom(...COMMANDS).chain((name) => typo(name).map((typed) => [name, typed] as const)), async ([name, typed]) => {
      fc.pre(!(COMMANDS as string[]).includes(typed) && typed !== 'help' && typed.length >= 3);
      const result = await inProcess([typed]);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(new RegExp(`^chatskin: Unknown command ".*"\\. Did you mean "[a-z]+"\\? Run chatskin --help for the commands\\.\\n$`));
      void name;
    }), { numRuns: Math.min(RUNS, 100) });
    await fc.assert(fc.asyncProperty(fc.constantFrom('role', 'url'), fc.nat(), async (flag, n) => {
      const typed = fc.sample(typo(flag), { numRuns: 1, seed: n })[0]!;
      fc.pre(typed !== flag && typed !== 'as' && typed.length >= 3);
      const result = await inProcess(['chat', 'say', 'hi', `--${typed}`, 'x']);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`Did you mean --${flag}?`);
    }), { numRuns: Math.min(RUNS, 50) });
  });

  it('--help or -h anywhere among a command\'s own flags and arguments prints its help, exit code 0', async () => {
    await fc.assert(fc.asyncProperty(fc.constantFrom(...COMMANDS), fc.array(fc.constantFrom('alice', 'on', 'list', '1'), { maxLength: 3 }),
      fc.constantFrom('--help', '-h'), fc.nat({ max: 4 }), async (name, args, help, at) => {
        const rest: string[] = [...args];
        rest.splice(Math.min(at, rest.length), 0, help);
        const result = await inProcess([name, ...rest, '--config', workspace.config]);
        expect(result).toEqual({ code: 0, stdout: commandHelp(name), stderr: '', parseError: false });
      }), { numRuns: Math.min(RUNS, 100) });
    expect((await inProcess([])).stdout).toBe(HELP);
  });

  it('each command\'s --help lists exactly the flags it takes (help true to the code)', async () => {
    for (const name of COMMANDS) {
      const own = [...Object.keys(COMMAND_SPECS[name].flags).map((flag) => `--${flag}`), '--config'].sort();
      const help = await inProcess([name, '--help']);
      const listed = [...new Set(help.stdout.split('\n').filter((line) => /^(Usage:)?\s*chatskin /.test(line))
        .flatMap((line) => line.match(/--[a-z][a-z-]*/g) ?? []))].sort();
      expect({ name, listed }).toEqual({ name, listed: own });
      // Every flag it lists is taken (its usage shows it), and one it does not list is refused.
      for (const flag of own.filter((f) => f !== '--config')) {
        const value = COMMAND_SPECS[name].flags[flag.slice(2) as never] as { type: string };
        const result = await inProcess([name, flag, ...(value.type === 'string' ? ['x'] : []), '--help']);
        expect(result.code, `${name} ${flag}`).toBe(0);
      }
    }
  });

  it('a sample as real child processes: the same promises from the outside', async () => {
    const samples = fc.sample(argvArb, { numRuns: 12, seed: 42 });
    for (const argv of samples) {
      const before = dump();
      const result = await runCli(argv, { cwd: workspace.dir, env: { CHATSKIN_CONFIG: workspace.config, CHATSKIN_DEBUG: '' }, killAfterMs: 5_000 });
      // A `start` that runs is killed (null): it was taken, as it should be.
      if (result.code === null && startsHost(argv)) continue;
      check(argv, { code: result.code ?? -1, stdout: result.stdout, stderr: result.stderr, parseError: (() => {
        try { parseCommandLine(argv); return false; } catch { return true; }
      })() }, before, dump());
    }
  }, 120_000);
});
