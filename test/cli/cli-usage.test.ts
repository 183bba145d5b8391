// The command line as docs/cli.md states it: each command takes only its own flags (and --config,
// --help), an unknown command or flag is one line naming it (and the command) with exit code 1, and
// the usage in `--help` and docs/cli.md lists exactly the flags the code takes.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMAND_SPECS } from '../../src/cli/command-line.ts';
import { LOCAL_ROLE_WORDS } from '../../src/adapters/local-chat/local-chat-chatter.ts';
import { runCli, tempWorkspace } from './cli-process.ts';
import { ISSUE_SEED_FIXTURE } from '../support/issue-seed-fixture.ts';

const DOCS = readFileSync(join(import.meta.dirname, '../../docs/cli.md'), 'utf8');
const COMMANDS = Object.keys(COMMAND_SPECS) as (keyof typeof COMMAND_SPECS)[];
/** Should a refused `start` run on after all, it is killed rather than left serving. */
const GUARD = { killAfterMs: 10_000 };

/** The --flags named on the usage lines (`chatskin NAME ...`) of a text. */
function usageFlags(text: string, name: string): string[] {
  const lines = text.split('\n').filter((line) => line.replace(/^Usage:/, '').trim().startsWith(`chatskin ${name} `)
    || line.trim() === `chatskin ${name}`);
  return [...new Set(lines.flatMap((line) => line.match(/--[a-z][a-z-]*/g) ?? []))].sort();
}

/** A failure as docs/cli.md gives it: exit code 1, nothing on stdout, exactly one line on stderr. */
function expectOneLineError(result: { code: number | null; stdout: string; stderr: string }, line: string): void {
  expect(result).toEqual({ code: 1, stdout: '', stderr: `chatskin: ${line}\n` });
}

describe('each command takes only its own flags', () => {
  it('--help and docs/cli.md list exactly the flags each command takes', async () => {
    for (const name of COMMANDS) {
      const own = [...Object.keys(COMMAND_SPECS[name].flags).map((flag) => `--${flag}`), '--config'].sort();
      const help = await runCli([name, '--help']);
      expect(help.code).toBe(0);
      expect({ name, flags: usageFlags(help.stdout, name) }).toEqual({ name, flags: own });
      expect({ name, flags: usageFlags(DOCS, name) }).toEqual({ name, flags: own });
    }
  });

  it('a flag of another command is refused, naming the flag, the command and whose flag it is', async () => {
    const { config } = tempWorkspace();
    expectOneLineError(await runCli(['start', '--as', 'bob', '--config', config], GUARD),
      'Unknown option --as for command "start" (--as is an option of "chat say"). Run chatskin start --help for its options.');
    expectOneLineError(await runCli(['overlays', 'list', 'alice', '--bot', '--config', config]),
      'Unknown option --bot for command "overlays" (--bot is an option of "twitch auth"). Run chatskin overlays --help for its options.');
    expectOneLineError(await runCli(['chat', 'say', 'hi', '--bot']),
      'Unknown option --bot for command "chat say" (--bot is an option of "twitch auth"). Run chatskin chat say --help for its options.');
  });

  it('a flag no command has is refused by every command (--channel is gone)', async () => {
    const { config } = tempWorkspace();
    for (const name of COMMANDS) {
      const label = COMMAND_SPECS[name].label;
      expectOneLineError(await runCli([name, '--channel', 'x', '--config', config], GUARD),
        `Unknown option --channel for command "${label}". Run chatskin ${label} --help for its options.`);
    }
    expectOneLineError(await runCli(['--channel', 'x', 'start', '--config', config], GUARD), 'Unknown option --channel. Run chatskin --help for the options.');
  });

  it('a misspelt flag gets the one it may mean; a flag missing its value is one line', async () => {
    expectOneLineError(await runCli(['chat', 'say', '-5', 'points']),
      'Unknown option -5 for command "chat say". A text that starts with - goes after --: chatskin chat say -- \'-5 points\'. Run chatskin chat say --help for its options.');
    expectOneLineError(await runCli(['chat', 'say', 'hi', '--rol', 'mod']),
      'Unknown option --rol for command "chat say". Did you mean --role? Run chatskin chat say --help for its options.');
    const ambiguous = await runCli(['chat', 'say', 'hi', '--as', '--role', 'mod']);
    expect(ambiguous.code).toBe(1);
    expect(ambiguous.stderr).toMatch(/^chatskin: Option '--as' argument is ambiguous\. .*, for command "chat say"\. Run chatskin chat say --help for its options\.\n$/);
  });
});

describe('a flag is given once, with a value', () => {
  it('an empty value is refused, not taken for no flag (--config "$UNSET" would fall back to another config)', async () => {
    const { dir, config } = tempWorkspace();
    const env = { CHATSKIN_CONFIG: config };
    expectOneLineError(await runCli(['overlays', 'list', 'alice', '--config', ''], { cwd: dir, env }),
      'Option --config has an empty value, for command "overlays". Run chatskin overlays --help for its options.');
    expectOneLineError(await runCli(['chat', 'say', 'hi', '--url=', '--config', config], { cwd: dir }),
      'Option --url has an empty value, for command "chat say". Run chatskin chat say --help for its options.');
    expectOneLineError(await runCli(['start', '-c', ''], { cwd: dir, ...GUARD }),
      'Option --config has an empty value, for command "start". Run chatskin start --help for its options.');
  });

  it('a flag given twice is refused, not resolved by keeping the last', async () => {
    const first = tempWorkspace();
    const second = tempWorkspace();
    expectOneLineError(await runCli(['overlays', 'list', 'alice', '-c', first.config, '--config', second.config], { cwd: first.dir }),
      'Option --config is given more than once, for command "overlays": give it once. Run chatskin overlays --help for its options.');
    expectOneLineError(await runCli(['chat', 'say', 'hi', '--as', 'bob', '--as', 'eve', '--config', first.config]),
      'Option --as is given more than once, for command "chat say": give it once. Run chatskin chat say --help for its options.');
  });
});

describe('an unknown command', () => {
  it('is one line with exit code 1, without the help text', async () => {
    expectOneLineError(await runCli(['frobnicate']), 'Unknown command "frobnicate". Run chatskin --help for the commands.');
  });

  it('names the command it may have meant', async () => {
    expectOneLineError(await runCli(['strat']), 'Unknown command "strat". Did you mean "start"? Run chatskin --help for the commands.');
    expectOneLineError(await runCli(['overlay', 'list', 'alice']),
      'Unknown command "overlay". Did you mean "overlays"? Run chatskin --help for the commands.');
  });

  it('after help too; help for a known command is its help, exit code 0', async () => {
    expectOneLineError(await runCli(['help', 'nosuch']), 'Unknown command "nosuch". Run chatskin --help for the commands.');
    expectOneLineError(await runCli(['help', 'sed']), 'Unknown command "sed". Did you mean "seed"? Run chatskin --help for the commands.');
    const help = await runCli(['help', 'seed']);
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout).toMatch(/^Usage: chatskin seed FILE/);
  });
});

describe('chatskin seed: a bad fixture', () => {
  it('with one problem is one line', async () => {
    const { dir, config } = tempWorkspace();
    const fixture = join(dir, 'bad.yaml');
    writeFileSync(fixture, 'accounts: [ { login: "a b" } ]\n');
    expectOneLineError(await runCli(['seed', fixture, '--config', config]),
      `Invalid seed fixture ${fixture}: accounts[0].login must be a Twitch login: 1 to 25 letters, digits or underscores`);
  });

  it('that does not exist says so, with the full path a relative one took', async () => {
    const { dir, config } = tempWorkspace();
    expectOneLineError(await runCli(['seed', 'missing.yaml', '--config', config], { cwd: dir }),
      `Invalid seed fixture missing.yaml: does not exist (no file at ${join(dir, 'missing.yaml')})`);
  });

  it('with several problems lists each on a line of its own under a headline, as docs/cli.md says', async () => {
    const { dir, config } = tempWorkspace();
    const fixture = join(dir, 'bad.yaml');
    writeFileSync(fixture, 'accounts: [ { login: "a b" } ]\nviewers: [ { twitch_user_id: 7, twitch_username: v } ]\n');
    const result = await runCli(['seed', fixture, '--config', config]);
    expect(result).toMatchObject({ code: 1, stdout: '' });
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines[0]).toBe(`chatskin: Invalid seed fixture ${fixture}:`);
    expect(lines.slice(1)).toEqual([
      '  accounts[0].login must be a Twitch login: 1 to 25 letters, digits or underscores',
      expect.stringMatching(/^ {2}viewers\[0\]\.twitch_user_id /),
    ]);
    expect(DOCS).toMatch(/several are listed one per line/);
  });

  it('that is not YAML is one line naming where, with nothing promised after it', async () => {
    const { dir, config } = tempWorkspace();
    writeFileSync(join(dir, 'bad.yaml'), 'accounts: [ { login: alice }\n');
    expectOneLineError(await runCli(['seed', 'bad.yaml', '--config', config], { cwd: dir }),
      'Invalid seed fixture bad.yaml: not valid YAML: Flow sequence in block collection must be sufficiently indented and end with a ] at line 2, column 1');
    rmSync(dir, { recursive: true, force: true });
  });

  it('is refused before the database is opened: no store.path file or folder is made for it', async () => {
    const { dir } = tempWorkspace();
    const store = join(dir, 'data', 'chatskin.db');
    const config = join(dir, 'own.yaml');
    writeFileSync(config, `store: { path: ${JSON.stringify(store)} }\n`);
    writeFileSync(join(dir, 'bad-yaml.yaml'), 'accounts: [ { login: alice }\n');
    writeFileSync(join(dir, 'bad-shape.yaml'), 'accounts: [ { login: "a b" } ]\n');
    writeFileSync(join(dir, 'bad-template.yaml'), 'accounts: [ { login: alice, overlays: [ { name: Main, template: nope } ] } ]\n');
    for (const fixture of ['missing.yaml', 'bad-yaml.yaml', 'bad-shape.yaml', 'bad-template.yaml']) {
      const result = await runCli(['seed', fixture, '--config', config], { cwd: dir });
      expect(result).toMatchObject({ code: 1, stdout: '', stderr: expect.stringMatching(new RegExp(`^chatskin: Invalid seed fixture ${fixture}: `)) });
      expect({ fixture, made: existsSync(join(dir, 'data')) }).toEqual({ fixture, made: false });
    }
    rmSync(dir, { recursive: true, force: true });
  });
});

describe('the help says what the code takes', () => {
  it('seed: every section of the documented fixture, which the code accepts', async () => {
    const fixture = /Fixture format:\n\n```yaml\n([\s\S]*?)```/.exec(DOCS)?.[1];
    expect(fixture).toBeDefined();
    const sections = [...fixture!.matchAll(/^([a-z_]+):/gm)].map((match) => match[1]!);
    expect(sections).toEqual(['accounts', 'global_skins', 'viewers', 'purchases', 'grants', 'picks']);
    const help = (await runCli(['seed', '--help'])).stdout.replace(/\s+/g, ' ');
    for (const section of sections) expect(help).toContain(section.replace('_', ' '));

    const { dir, config } = tempWorkspace();
    writeFileSync(join(dir, 'fixture.yaml'), fixture!);
    const seeded = await runCli(['seed', join(dir, 'fixture.yaml'), '--config', config]);
    expect(seeded).toMatchObject({ code: 0, stderr: '' });
  });

  it('keys: the SHA-256 and a short prefix are stored, as docs/cli.md says', async () => {
    const help = (await runCli(['keys', '--help'])).stdout.replace(/\s+/g, ' ');
    expect(help).toContain('only its SHA-256 and a short prefix are stored');
    expect(DOCS.replace(/\s+/g, ' ')).toContain('only its SHA-256 and a short prefix are stored');
  });

  it('chat: every role word the local chat accepts; another word is refused before anything is sent', async () => {
    const help = (await runCli(['chat', '--help'])).stdout;
    const section = DOCS.slice(DOCS.indexOf('## chat'), DOCS.indexOf('## twitch auth'));
    for (const word of Object.keys(LOCAL_ROLE_WORDS)) {
      expect(help).toMatch(new RegExp(`\\b${word}\\b`));
      expect(section).toContain(`\`${word}\``);
    }
    expectOneLineError(await runCli(['chat', 'say', 'hi', '--role', 'boss', '--url', 'http://127.0.0.1:9']),
      `--role "boss" is not a role: use one of ${Object.keys(LOCAL_ROLE_WORDS).join(', ')}.`);
  });

  it('chat: a --url that is no http(s) address is refused as such, not taken for a host that does not answer', async () => {
    expectOneLineError(await runCli(['chat', 'say', 'hi', '--url', '127.0.0.1:4477']),
      '--url "127.0.0.1:4477" is not an http:// address: give the address chatskin start printed, e.g. --url http://127.0.0.1:4477.');
    expectOneLineError(await runCli(['chat', 'say', 'hi', '--url', 'localhost:4477']),
      '--url "localhost:4477" is not an http:// address: give the address chatskin start printed, e.g. --url http://localhost:4477.');
    expectOneLineError(await runCli(['chat', 'say', 'hi', '--url', 'ws://127.0.0.1:4477']),
      '--url "ws://127.0.0.1:4477" is not an http:// address: give the address chatskin start printed, e.g. --url http://127.0.0.1:PORT.');
  });
});

describe('premium', () => {
  it('takes on and off in any case, as chat say takes its role words', async () => {
    const { dir, config } = tempWorkspace();
    const fixture = join(dir, 'fixture.yaml');
    writeFileSync(fixture, ISSUE_SEED_FIXTURE);
    expect((await runCli(['seed', fixture, '--config', config])).code).toBe(0);
    expect(await runCli(['premium', 'alice', 'OFF', '--config', config])).toEqual({ code: 0, stdout: 'Premium is off for alice.\n', stderr: '' });
    expect(await runCli(['premium', 'alice', 'On', '--config', config])).toEqual({ code: 0, stdout: 'Premium is on for alice.\n', stderr: '' });
  });
});

describe('a command with wrong arguments', () => {
  it('is refused with its usage, one line, exit code 1, and changes nothing', async () => {
    const { dir, config } = tempWorkspace();
    const fixture = join(dir, 'fixture.yaml');
    writeFileSync(fixture, ISSUE_SEED_FIXTURE);
    expect((await runCli(['seed', fixture, '--config', config])).code).toBe(0);
    expect((await runCli(['keys', 'create', 'alice', '--config', config])).code).toBe(0);
    const cases: Array<[string[], string]> = [
      [['premium', 'alice', 'maybe'], 'chatskin premium LOGIN on|off [--config FILE]'],
      [['premium', 'alice', 'on', 'extra'], 'chatskin premium LOGIN on|off [--config FILE]'],
      [['premium', 'alice'], 'chatskin premium LOGIN on|off [--config FILE]'],
      [['keys', 'rotate', 'alice'], 'chatskin keys create|revoke LOGIN [--config FILE]'],
      [['keys', 'revoke', 'alice', 'bob'], 'chatskin keys create|revoke LOGIN [--config FILE]'],
      [['keys', 'revoke', ' '], 'chatskin keys create|revoke LOGIN [--config FILE]'],
      [['overlays', 'show', 'alice'], 'chatskin overlays (list LOGIN | new-url LOGIN ID) [--config FILE]'],
      [['overlays', 'list', ''], 'chatskin overlays (list LOGIN | new-url LOGIN ID) [--config FILE]'],
      [['overlays', 'new-url', 'alice'], 'chatskin overlays (list LOGIN | new-url LOGIN ID) [--config FILE]'],
      [['overlays', 'new-url', 'alice', '1', '2'], 'chatskin overlays (list LOGIN | new-url LOGIN ID) [--config FILE]'],
      [['seed', fixture, fixture], 'chatskin seed FILE [--config FILE]'],
      [['chat', 'say', '  '], 'chatskin chat say TEXT [--as LOGIN] [--role ROLE] [--url URL] [--config FILE]'],
      [['chat', 'shout', 'hi'], 'chatskin chat say TEXT [--as LOGIN] [--role ROLE] [--url URL] [--config FILE]'],
      [['twitch', 'login'], 'chatskin twitch auth [--bot] [--config FILE]'],
      [['twitch', 'auth', 'now'], 'chatskin twitch auth [--bot] [--config FILE]'],
      [['start', 'now'], 'chatskin start [--config FILE]'],
    ];
    for (const [args, usage] of cases) {
      expectOneLineError(await runCli([...args, '--config', config], { cwd: dir, ...GUARD }), `Usage: ${usage}`);
    }
    // Nothing was changed: the key is still active.
    const again = await runCli(['keys', 'create', 'alice', '--config', config], { cwd: dir });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/active/i);
  });
});
