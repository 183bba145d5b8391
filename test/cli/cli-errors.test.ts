// How the real CLI fails: one clear line on stderr and exit code 1, never a raw stack trace
// unless CHATSKIN_DEBUG asks for it.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, startHost, tempWorkspace } from './cli-process.ts';
import type { RunningHost } from './cli-process.ts';

const NO_DEBUG = { CHATSKIN_DEBUG: '' };

/** The user some cases run chatskin as when the tests run as root, for whom file modes count. */
const NOBODY = { uid: 65534, gid: 65534 };
const NOBODY_CANNOT_RUN = 'the user nobody cannot run chatskin from this checkout (a private folder such as /root holds it)';

/** Whether nobody can run chatskin from this checkout: not so under a private home folder. */
async function nobodyCanRun(): Promise<boolean> {
  return (await runCli(['--version'], NOBODY)).code === 0;
}

describe('chatskin start on an address it cannot listen on', () => {
  let first: RunningHost | undefined;
  afterAll(async () => { await first?.stop(); });

  it('a busy port: names the address, http.port and the config file, exit code 1', async () => {
    first = await startHost(tempWorkspace().config);
    const port = Number(new URL(first.baseUrl).port);
    const { dir, config } = tempWorkspace('', `{ host: 127.0.0.1, port: ${port} }`);
    const second = await runCli(['start', '--config', config], { cwd: dir, env: NO_DEBUG });
    expect(second.code).toBe(1);
    const last = second.stderr.trimEnd().split('\n').at(-1);
    expect(last).toBe(`chatskin: cannot listen on 127.0.0.1:${port} (EADDRINUSE): another program, perhaps another chatskin,`
      + ` is using that port. Stop the other program, or change http.port in ${config}.`);
    expect(second.stderr).not.toContain('    at ');
    expect(second.stdout).toBe('');
    // The first host is unharmed.
    expect((await fetch(`${first.baseUrl}/healthz`)).status).toBe(200);
  });

  it('an address of no interface of this machine: names it, http.host and the config file', async () => {
    // 203.0.113.0/24 is TEST-NET-3, reserved for documentation: never a local address.
    const { dir, config } = tempWorkspace('', '{ host: 203.0.113.7, port: 4477 }');
    const result = await runCli(['start', '--config', config], { cwd: dir, env: NO_DEBUG });
    expect(result.code).toBe(1);
    const last = result.stderr.trimEnd().split('\n').at(-1);
    expect(last).toMatch(/^chatskin: cannot listen on 203\.0\.113\.7:4477 \(EADDRNOTAVAIL\): no network interface of this machine has the address 203\.0\.113\.7\./);
    expect(last).toContain(`Change http.host in ${config}: 127.0.0.1 (this machine only), 0.0.0.0 (every interface)`);
    expect(result.stderr).not.toContain('    at ');
  });
});

describe('a database that cannot be the store', () => {
  // A database path that is a folder: SQLite cannot open it.
  function folderAsDatabase(): { dir: string; config: string } {
    const workspace = tempWorkspace();
    const text = readFileSync(workspace.config, 'utf8').replace(/store: \{[^\n]*\}/, `store: { path: ${JSON.stringify(workspace.dir)} }`);
    writeFileSync(workspace.config, text);
    return workspace;
  }

  it('is one line naming the file, why, and the config key to change; exit code 1, with or without CHATSKIN_DEBUG', async () => {
    const { dir, config } = folderAsDatabase();
    const expected = `chatskin: The database ${dir} cannot be opened: its folder may be missing or read-only, or the path names a folder. (store.path in ${config})\n`;
    for (const env of [NO_DEBUG, { CHATSKIN_DEBUG: '1' }]) {
      const result = await runCli(['keys', 'create', 'alice', '--config', config], { cwd: dir, env });
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(expected);
    }
  });

  it('in a folder chatskin may not write to, the shipped relative store.path names that folder, not its lock file', async (context) => {
    // Root writes anywhere: the commands then run as nobody, for whom the mode counts.
    const asRoot = process.getuid?.() === 0;
    const asUser = asRoot ? NOBODY : {};
    if (asRoot && !(await nobodyCanRun())) context.skip(NOBODY_CANNOT_RUN);
    const { dir, config } = tempWorkspace();
    writeFileSync(config, readFileSync(config, 'utf8').replace(/store: \{[^\n]*\}\n/, ''));
    const readOnly = join(dir, 'read-only');
    mkdirSync(readOnly);
    chmodSync(readOnly, 0o555);
    chmodSync(dir, 0o755);
    chmodSync(config, 0o644);
    const expected = `chatskin: The database ./data/chatskin.db (${readOnly}/data/chatskin.db) cannot be created: its folder ${readOnly}/data`
      + ' cannot be made (EACCES: permission denied); store.path is relative to the folder chatskin was started in: start it in a folder'
      + ` it may write to, or set store.path to one. (store.path in ${config})\n`;
    const fixture = join(dir, 'fixture.yaml');
    writeFileSync(fixture, 'accounts: []\n', { mode: 0o644 });
    for (const args of [['start'], ['seed', fixture]]) {
      const result = await runCli([...args, '--config', config], { cwd: readOnly, env: NO_DEBUG, killAfterMs: 20_000, ...asUser });
      expect(result, args.join(' ')).toMatchObject({ code: 1, stdout: '', stderr: expected });
    }
  });

  it('another program\'s database is refused and left exactly as it was', async () => {
    const { dir, config } = tempWorkspace();
    const file = join(dir, 'other.sqlite');
    const other = new DatabaseSync(file);
    other.exec("CREATE TABLE accounts (x); INSERT INTO accounts VALUES ('theirs')");
    other.close();
    const before = readFileSync(file);
    writeFileSync(config, readFileSync(config, 'utf8').replace(/store: \{[^\n]*\}/, `store: { path: ${JSON.stringify(file)} }`));
    const result = await runCli(['keys', 'create', 'alice', '--config', config], { cwd: dir, env: NO_DEBUG });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`chatskin: The database ${file} holds another program's tables (accounts), not chatskin's: point store.path at a new file; this one was left unchanged. (store.path in ${config})\n`);
    expect(readFileSync(file).equals(before)).toBe(true);
    expect(existsSync(`${file}-wal`)).toBe(false);
  });
});

describe('a database file chatskin may not read, or not write', () => {
  // SQLite opens such a file read-only without a word; the first write (the template sync at
  // start, an admin command's change) then failed as 'unexpected error: attempt to write a
  // readonly database'. Made here as it happens: the store seeded by one user (root) and run as
  // another, whose folder it is; or, without root, a file made read-only.
  it('start and the admin commands say so in one line naming the file and store.path', async (context) => {
    const { dir, config } = tempWorkspace();
    const file = join(dir, 'db.sqlite');
    writeFileSync(join(dir, 'fixture.yaml'), 'accounts:\n  - { login: alice }\n');
    expect((await runCli(['seed', join(dir, 'fixture.yaml'), '--config', config], { cwd: dir })).code).toBe(0);
    const asRoot = process.getuid?.() === 0;
    const user = asRoot ? NOBODY : undefined;
    if (asRoot) {
      chownSync(dir, user!.uid, user!.gid);
      chmodSync(dir, 0o755);
      if (!(await nobodyCanRun())) context.skip(NOBODY_CANNOT_RUN);
    }
    // As made, the database is its owner's only: the other user may not even read it.
    if (!asRoot) chmodSync(file, 0o000);
    const unreadable = await runCli(['keys', 'create', 'alice', '--config', config], { cwd: dir, env: NO_DEBUG, killAfterMs: 25_000, ...user });
    expect(unreadable).toMatchObject({ code: 1, stderr: `chatskin: The database ${file} cannot be opened: the user running chatskin may not read it `
      + `(see its owner and mode; chatskin makes a new database its owner's only). (store.path in ${config})\n` });
    // Readable, not writable (a mode given by hand, or a file another tool made).
    chmodSync(file, asRoot ? 0o644 : 0o444);
    const expected = `chatskin: The database ${file} cannot be written: its file or folder is read-only. (store.path in ${config})\n`;
    for (const args of [['start'], ['premium', 'alice', 'on'], ['keys', 'create', 'alice']]) {
      const result = await runCli([...args, '--config', config], { cwd: dir, env: NO_DEBUG, killAfterMs: 25_000, ...user });
      expect(result.stderr).toBe(expected);
      expect(result.code).toBe(1);
    }
  });
});

describe('a database whose write lock another program holds', () => {
  // Each refused command waits out the store's 5 s busy timeout first, hence the longer test timeouts.
  /** Another program (a sqlite3 shell, a backup) with a write transaction open on `file`, until killed. */
  async function holdWriteLock(file: string) {
    const script = `const { DatabaseSync } = require('node:sqlite');
const db = new DatabaseSync(${JSON.stringify(file)});
db.exec('BEGIN EXCLUSIVE');
db.exec('CREATE TABLE IF NOT EXISTS held (x)');
console.log('holding');
setInterval(() => {}, 1000);`;
    const holder = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const [chunk] = (await once(holder.stdout, 'data')) as [Buffer];
    expect(chunk.toString()).toBe('holding\n');
    return { release: async () => { holder.kill('SIGKILL'); await once(holder, 'close'); } };
  }

  it('start and the admin commands say so in one line naming the file, after the busy timeout; once it lets go the store starts as before', async () => {
    const { dir, config } = tempWorkspace();
    const file = join(dir, 'db.sqlite');
    writeFileSync(join(dir, 'fixture.yaml'), 'accounts: []\n');
    expect((await runCli(['seed', join(dir, 'fixture.yaml'), '--config', config], { cwd: dir })).code).toBe(0);
    expect(existsSync(file)).toBe(true);
    const lock = await holdWriteLock(file);
    try {
      const expected = `chatskin: The database ${file} is locked by another program: it held the write lock for longer than chatskin waits (5 s). `
        + `Close what holds it (a sqlite3 shell or a backup with a transaction open) and run the command again. (store.path in ${config})\n`;
      const start = await runCli(['start', '--config', config], { cwd: dir, env: NO_DEBUG, killAfterMs: 25_000 });
      expect(start.code).toBe(1);
      expect(start.stderr).toBe(expected);
      const premium = await runCli(['premium', 'alice', 'on', '--config', config], { cwd: dir, env: NO_DEBUG });
      expect(premium.code).toBe(1);
      expect(premium.stderr).toBe(expected);
    } finally {
      await lock.release();
    }
    // Once the other program lets go, the same store starts as if nothing had happened.
    const host = await startHost(config, { cwd: dir });
    try {
      expect((await fetch(`${host.baseUrl}/healthz`)).status).toBe(200);
    } finally {
      await host.stop();
    }
  }, 60_000);

  it('a new database file locked while chatskin would make it its store: the same line, and the file is not made a store', async () => {
    const { dir, config } = tempWorkspace();
    const file = join(dir, 'db.sqlite');
    const lock = await holdWriteLock(file);
    try {
      const start = await runCli(['start', '--config', config], { cwd: dir, env: NO_DEBUG, killAfterMs: 25_000 });
      expect(start.code).toBe(1);
      expect(start.stderr).toBe(`chatskin: The database ${file} is locked by another program: it held the write lock for longer than chatskin waits (5 s). `
        + `Close what holds it (a sqlite3 shell or a backup with a transaction open) and run the command again. (store.path in ${config})\n`);
    } finally {
      await lock.release();
    }
    const tables = new DatabaseSync(file, { readOnly: true });
    try {
      expect(tables.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all()).toEqual([]);
    } finally {
      tables.close();
    }
  }, 60_000);
});

describe('a config that cannot be used', () => {
  function configFile(dir: string, text: string | Uint8Array): string {
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, text);
    return file;
  }

  it('aliases that would expand exponentially are a config error, not an unexpected one; exit code 1', async () => {
    const { dir } = tempWorkspace();
    const levels = ['a: &a [x, x, x, x, x, x, x, x, x]', ...'bcdefghi'.split('').map((name, i) => `${name}: &${name} [${Array(9).fill(`*${'abcdefgh'[i]}`).join(', ')}]`)];
    const file = configFile(dir, `${levels.join('\n')}\n`);
    const result = await runCli(['overlays', 'list', 'alice', '--config', file], { cwd: dir, env: NO_DEBUG });
    expect(result).toEqual({ code: 1, stdout: '', stderr: `chatskin: Bad YAML in ${file}:\n  - (yaml): its aliases (*name) expand to too many values (more than 100); write the values out instead\n` });
  });

  it("stderr holds the error alone: no warning of the YAML library's, no escape sequence from the file", async () => {
    const { dir } = tempWorkspace();
    const file = configFile(dir, '? [a, b]\n: 1\n"\\e]0;owned\\a": 2\n');
    const result = await runCli(['overlays', 'list', 'alice', '--config', file], { cwd: dir, env: NO_DEBUG });
    expect(result).toEqual({ code: 1, stdout: '', stderr: `chatskin: Invalid config in ${file}:\n  - (top level) (line 1): unknown keys "[ a, b ]", "\\u001b]0;owned\\u0007"; allowed keys: http, store, api, overlay, channel, service, twitch, localChat, commands, pluginDirs, plugins, log\n` });
  });

  it('a remote service section the HTTP client cannot take is a config error naming each key, not an unexpected error at start', async () => {
    const { dir, config } = tempWorkspace(
      'service: { mode: remote, baseUrl: "http://127.0.0.1:9/api/v1", apiKey: csk_x, userAgent: "  ", timeoutMs: 9999999999, maxRetryAfterMs: 9999999999 }',
    );
    const result = await runCli(['start', '--config', config], { cwd: dir, env: NO_DEBUG, killAfterMs: 20_000 });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`chatskin: Invalid config in ${config}:\n`
      + '  - service.userAgent (line 6): must be a header value naming the tool, such as "MyBot/1.0": printable ASCII characters, not only spaces (got "  ")\n'
      + '  - service.timeoutMs (line 6): must be at most 2147483647 (got 9999999999)\n'
      + '  - service.maxRetryAfterMs (line 6): must be at most 2147483647 (got 9999999999)\n');
    expect(result.stderr).not.toContain('unexpected error');
  });

  it('a file of two YAML documents says so in the terms of the file, not the YAML library\'s API', async () => {
    const { dir } = tempWorkspace();
    const file = configFile(dir, 'http: { port: 1 }\n---\nlog: { level: warn }\n');
    const result = await runCli(['overlays', 'list', 'alice', '--config', file], { cwd: dir, env: NO_DEBUG });
    expect(result).toEqual({ code: 1, stdout: '', stderr: `chatskin: Bad YAML in ${file}:\n  - (yaml) (line 2): `
      + 'a second document starts here (a "---" line after the first one\'s keys): a config is one document; remove that line\n' });
    const { config } = tempWorkspace();
    writeFileSync(join(dir, 'fixture.yaml'), 'accounts: []\n---\nviewers: []\n');
    const seeded = await runCli(['seed', 'fixture.yaml', '--config', config], { cwd: dir, env: NO_DEBUG });
    expect(seeded).toEqual({ code: 1, stdout: '', stderr: 'chatskin: Invalid seed fixture fixture.yaml: not valid YAML: '
      + 'a second document starts at line 2 (a "---" line after the first one\'s keys): a fixture is one document; remove that line\n' });
  });

  it('a binary file, or one that never ends, is one line saying so', async () => {
    const { dir } = tempWorkspace();
    const file = configFile(dir, Buffer.from([0x24, 0x7b, 0xff, 0x1b, 0x5b, 0x32, 0x4a, 0x7d]));
    const binary = await runCli(['overlays', 'list', 'alice', '--config', file], { cwd: dir, env: NO_DEBUG });
    expect(binary).toEqual({ code: 1, stdout: '', stderr: `chatskin: Cannot read config in ${file}:\n  - (file): is not UTF-8 text: a binary file (is it the right file?), or text in another encoding (save it as UTF-8)\n` });
    const endless = await runCli(['overlays', 'list', 'alice', '--config', '/dev/zero'], { cwd: dir, env: NO_DEBUG, killAfterMs: 20_000 });
    expect(endless).toEqual({ code: 1, stdout: '', stderr: 'chatskin: Cannot read config in /dev/zero:\n  - (file): is larger than 1 MiB, which no config needs (the shipped one is about 5 KB); is it the right file?\n' });
  });
});

describe('other failures', () => {
  it('a refusal (CliError) stays one line without the hint, even with CHATSKIN_DEBUG=1', async () => {
    const { dir, config } = tempWorkspace();
    writeFileSync(join(dir, 'fixture.yaml'), 'accounts: []\n');
    expect((await runCli(['seed', join(dir, 'fixture.yaml'), '--config', config], { cwd: dir })).code).toBe(0);
    const result = await runCli(['overlays', 'list', 'nobody', '--config', config], { cwd: dir, env: { CHATSKIN_DEBUG: '1' } });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('chatskin: No account with the login "nobody". chatskin start makes the account of channel.login ("alice" here)'
      + ' when it first runs; chatskin seed makes others.\n');
  });

  it("premium, keys and overlays before the first start say that start makes the database and the channel's account, and make nothing", async () => {
    const { dir, config } = tempWorkspace();
    const file = join(dir, 'db.sqlite');
    const expected = `chatskin: There is no database at ${file} yet (store.path in ${config}): chatskin start makes it, with the account of`
      + ' channel.login ("alice" here), when it first runs. Run this command in the folder chatskin start runs in, with the same config.\n';
    for (const args of [['premium', 'alice', 'on'], ['keys', 'create', 'alice'], ['keys', 'revoke', 'alice'], ['overlays', 'list', 'alice']]) {
      expect(await runCli([...args, '--config', config], { cwd: dir, env: NO_DEBUG })).toEqual({ code: 1, stdout: '', stderr: expected });
    }
    expect(existsSync(file)).toBe(false);
  });

  it('run from another folder, a relative store.path is named with the full path it meant, and no stray database is made there', async () => {
    const { dir, config } = tempWorkspace();
    writeFileSync(config, readFileSync(config, 'utf8').replace(/^store: .*$/m, 'store: { path: ./data/chatskin.db }'));
    const elsewhere = join(dir, 'elsewhere');
    mkdirSync(elsewhere);
    const result = await runCli(['keys', 'create', 'alice', '--config', config], { cwd: elsewhere, env: NO_DEBUG });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(`chatskin: There is no database at ./data/chatskin.db (${elsewhere}/data/chatskin.db) yet (store.path in ${config}):`);
    expect(existsSync(join(elsewhere, 'data'))).toBe(false);
  });

  it('once there is an account-less database, premium and keys say that start makes the channel\'s account', async () => {
    const { dir, config } = tempWorkspace();
    writeFileSync(join(dir, 'fixture.yaml'), 'accounts: []\n');
    expect((await runCli(['seed', join(dir, 'fixture.yaml'), '--config', config], { cwd: dir })).code).toBe(0);
    const expected = 'chatskin: No account with the login "alice". chatskin start makes the account of channel.login ("alice" here)'
      + ' when it first runs; chatskin seed makes others.\n';
    for (const args of [['premium', 'alice', 'on'], ['keys', 'create', 'alice']]) {
      expect(await runCli([...args, '--config', config], { cwd: dir, env: NO_DEBUG })).toEqual({ code: 1, stdout: '', stderr: expected });
    }
  });

  it('help names CHATSKIN_DEBUG, as docs/cli.md does', async () => {
    const help = await runCli(['--help']);
    expect(help.stdout).toContain('CHATSKIN_DEBUG');
    expect(readFileSync(join(import.meta.dirname, '../../docs/cli.md'), 'utf8')).toContain('CHATSKIN_DEBUG');
  });
});
