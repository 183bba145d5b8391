// One `chatskin start` per store: a second host on the same database is refused, naming the file,
// while the admin commands still share it; the lock goes with the process however it ends.
import { existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/index.ts';
import type { Config } from '../../src/config/index.ts';
import { isStoreCompacting, isStoreHostRunning, lockStoreForCompaction, lockStoreForHost } from '../../src/runtime/host-lock.ts';
import { openService } from '../../src/runtime/open-service.ts';
import { LATEST_SCHEMA_VERSION, MIGRATIONS, migrate } from '../../src/service/store/migrations.ts';
import { startChatskin } from '../../src/runtime/start-chatskin.ts';
import type { RunningChatskin } from '../../src/runtime/start-chatskin.ts';
import { StoreOpenError } from '../../src/service/store/store-open-error.ts';
import { runCli, startHost } from '../cli/cli-process.ts';
import type { RunningHost } from '../cli/cli-process.ts';

const running: RunningChatskin[] = [];
let child: RunningHost | undefined;
afterEach(async () => {
  for (const host of running.splice(0)) await host.close();
  if (child?.child.exitCode === null) await child.stop('SIGKILL');
  child = undefined;
});

function configOn(store: string): Config {
  return parseConfig({
    http: { host: '127.0.0.1', port: 0 }, store: { path: store }, channel: { login: 'alice' },
    localChat: { enabled: false }, log: { level: 'silent' },
  });
}

const start = async (config: Config) => {
  const host = await startChatskin(config, { logger: pino({ level: 'silent' }), stdin: null });
  running.push(host);
  return host;
};

describe('one host per store', () => {
  it('refuses a second host on the same database, naming it; the admin commands still open it; a later host starts once the first stopped', async () => {
    const store = join(mkdtempSync(join(tmpdir(), 'chatskin-lock-')), 'db.sqlite');
    const first = await start(configOn(store));
    const refusal = await startChatskin(configOn(store), { logger: pino({ level: 'silent' }), stdin: null }).then(() => undefined, (error: unknown) => error);
    expect(refusal).toBeInstanceOf(StoreOpenError);
    expect((refusal as Error).message).toBe(`The database ${store} is already served by another \`chatskin start\`: stop that one first, or give this one its own store.path.`);
    // What `chatskin keys`, `seed` and the rest open: the database, not the host lock.
    const admin = await openService(configOn(store));
    expect((await admin.service.listOverlays(first.account.id)).length).toBeGreaterThan(0);
    await admin.close();

    await running.splice(0)[0]!.close();
    await start(configOn(store));
  });

  it('meets the same database under another spelling (a linked folder, a link to the file): refused too', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chatskin-lock-'));
    mkdirSync(join(dir, 'real'));
    const store = join(dir, 'real', 'db.sqlite');
    symlinkSync(join(dir, 'real'), join(dir, 'linked'));
    await start(configOn(store));
    symlinkSync(store, join(dir, 'real', 'link.sqlite'));
    for (const other of [join(dir, 'linked', 'db.sqlite'), join(dir, 'real', 'link.sqlite')]) {
      const refusal = await startChatskin(configOn(other), { logger: pino({ level: 'silent' }), stdin: null }).then(() => undefined, (error: unknown) => error);
      expect((refusal as Error | undefined)?.message, other).toBe(`The database ${other} is already served by another \`chatskin start\`: stop that one first, or give this one its own store.path.`);
    }
    // The lock sits beside the real file, none beside the links.
    expect(existsSync(`${store}.lock`)).toBe(true);
    expect(existsSync(join(dir, 'real', 'link.sqlite.lock'))).toBe(false);
  });

  it('names a compaction under way as what holds the database, not another host; once it is done, a host starts', async () => {
    const store = join(mkdtempSync(join(tmpdir(), 'chatskin-lock-')), 'db.sqlite');
    // Held as `chatskin store compact` holds it while it rewrites the file.
    const compaction = lockStoreForCompaction(store);
    expect(isStoreCompacting(store)).toBe(true);
    expect(isStoreHostRunning(store)).toBe(true);
    const refusal = await startChatskin(configOn(store), { logger: pino({ level: 'silent' }), stdin: null }).then(() => undefined, (error: unknown) => error);
    expect(refusal).toBeInstanceOf(StoreOpenError);
    expect((refusal as Error).message).toBe(`The database ${store} is being compacted by a \`chatskin store compact\` under way: start again when it has finished.`);
    compaction.release();
    expect(isStoreCompacting(store)).toBe(false);
    expect(existsSync(`${store}.lock-compact`)).toBe(false);
    // A host's lock is not a compaction's.
    await start(configOn(store));
    expect(isStoreCompacting(store)).toBe(false);
    expect(isStoreHostRunning(store)).toBe(true);
  });

  it('refuses a database file with a second hard link, by either name, for a host and an admin command alike; one name again, it starts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chatskin-lock-'));
    mkdirSync(join(dir, 'other'));
    const store = join(dir, 'db.sqlite');
    const linked = join(dir, 'other', 'db.sqlite');
    await start(configOn(store));
    // Made while the first host runs: a second host by the other name would have its own lock
    // file (and its own -wal), beside that name.
    linkSync(store, linked);
    const refusedLine = (name: string) => `The database ${name} has 2 names (hard links): SQLite keeps its -wal file beside each name, so programs opening it by different names `
      + 'miss each other\'s writes and damage it, and two `chatskin start` could serve it at once. Keep one name: delete the other links '
      + `(\`find / -samefile ${name} 2>/dev/null\` lists them), or make a second name a symbolic link (ln -s).`;
    const refusal = await startChatskin(configOn(linked), { logger: pino({ level: 'silent' }), stdin: null }).then(() => undefined, (error: unknown) => error);
    expect(refusal).toBeInstanceOf(StoreOpenError);
    expect((refusal as Error).message).toBe(refusedLine(linked));
    for (const name of [linked, store]) {
      await expect(openService(configOn(name), { adminCommand: true }), name).rejects.toThrow(refusedLine(name));
    }
    expect(existsSync(`${linked}-wal`)).toBe(false);
    // The real command line says so in one line.
    const config = join(dir, 'linked.yaml');
    writeFileSync(config, [
      'http: { host: 127.0.0.1, port: 0 }', `store: { path: ${JSON.stringify(linked)} }`,
      'channel: { login: alice }', 'localChat: { enabled: false }', 'log: { level: warn }',
    ].join('\n'));
    const cli = await runCli(['start', '--config', config], { cwd: dir, killAfterMs: 20_000 });
    expect(cli.code).toBe(1);
    expect(cli.stderr.trim().split('\n')).toEqual([expect.stringContaining(refusedLine(linked))]);

    await running.splice(0)[0]!.close();
    unlinkSync(store);
    await start(configOn(linked));
  });

  it('a host killed outright leaves no lock behind: the next start takes the store', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chatskin-lock-'));
    const config = join(dir, 'config.yaml');
    writeFileSync(config, [
      'http: { host: 127.0.0.1, port: 0 }', `store: { path: ${JSON.stringify(join(dir, 'db.sqlite'))} }`,
      'channel: { login: alice }', 'localChat: { enabled: true, stdin: false }', 'log: { level: warn }',
    ].join('\n'));
    child = await startHost(config, { cwd: dir });
    // While it runs, a second start is refused at once, in one line.
    const second = await runCli(['start', '--config', config], { cwd: dir, killAfterMs: 20_000 });
    expect(second.code).toBe(1);
    expect(second.stderr).toContain('is already served by another `chatskin start`');
    expect(await child.stop('SIGKILL')).toBeNull();
    expect(existsSync(join(dir, 'db.sqlite.lock'))).toBe(true);
    child = await startHost(config, { cwd: dir });
    expect((await fetch(`${child.baseUrl}/healthz`)).status).toBe(200);
  });
});

// A newer chatskin's admin command on the database of an older running host would migrate the
// schema under it (the host read it once, at start): refused, in one line, with nothing changed.
describe('an admin command needing a schema upgrade while a host runs', () => {
  const OLDER = LATEST_SCHEMA_VERSION - 1;

  /** A database an older chatskin made (schema version OLDER), with alice's account, and its config file. */
  function olderDatabase(): { dir: string; store: string; config: string } {
    const dir = mkdtempSync(join(tmpdir(), 'chatskin-lock-'));
    const store = join(dir, 'db.sqlite');
    const db = new DatabaseSync(store);
    db.exec('PRAGMA journal_mode = WAL');
    migrate(db, store, MIGRATIONS.filter((migration) => migration.version <= OLDER));
    db.exec("INSERT INTO accounts (login, premium) VALUES ('alice', 0)");
    db.close();
    const config = join(dir, 'config.yaml');
    writeFileSync(config, [
      'http: { host: 127.0.0.1, port: 0 }', `store: { path: ${JSON.stringify(store)} }`,
      'channel: { login: alice }', 'log: { level: warn }',
    ].join('\n'));
    return { dir, store, config };
  }

  const schemaVersion = (store: string): number => {
    const db = new DatabaseSync(store, { readOnly: true });
    try {
      return db.prepare('SELECT max(version) AS version FROM schema_migrations').get()!.version as number;
    } finally {
      db.close();
    }
  };
  const premium = (store: string): number => {
    const db = new DatabaseSync(store, { readOnly: true });
    try {
      return db.prepare("SELECT premium FROM accounts WHERE login = 'alice'").get()!.premium as number;
    } finally {
      db.close();
    }
  };

  it('refuses while another process holds the host lock, changing nothing; migrates and works once it is released', async () => {
    const { dir, store, config } = olderDatabase();
    // Held as a running host holds it (the same code, from this process: the command is another process).
    const lock = lockStoreForHost(store);
    const bytes = readFileSync(store);
    const refused = await runCli(['premium', 'alice', 'on', '--config', config], { cwd: dir, killAfterMs: 20_000 });
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr.trim().split('\n')).toEqual([expect.stringContaining(
      `The database ${store} is in use by a running \`chatskin start\`, and this chatskin would upgrade its schema (version ${OLDER} to ${LATEST_SCHEMA_VERSION}) under it: `
      + 'stop that host first, or run this command with the same chatskin version as the host.',
    )]);
    expect(readFileSync(store).equals(bytes)).toBe(true);
    expect(schemaVersion(store)).toBe(OLDER);
    expect(premium(store)).toBe(0);
    // In process, too: a StoreOpenError, and `chatskin start`'s own open (no adminCommand) is not refused.
    await expect(openService(configOn(store), { adminCommand: true })).rejects.toThrow(StoreOpenError);
    expect(schemaVersion(store)).toBe(OLDER);

    lock.release();
    const done = await runCli(['premium', 'alice', 'on', '--config', config], { cwd: dir, killAfterMs: 20_000 });
    expect(done.stderr).toBe('');
    expect(done.code).toBe(0);
    expect(schemaVersion(store)).toBe(LATEST_SCHEMA_VERSION);
    expect(premium(store)).toBe(1);
  });

  it('with no host running, migrates and works as before; with the schema current, a running host does not stop it', async () => {
    const { store } = olderDatabase();
    const admin = await openService(configOn(store), { adminCommand: true });
    expect(schemaVersion(store)).toBe(LATEST_SCHEMA_VERSION);
    await admin.close();

    const lock = lockStoreForHost(store);
    try {
      const shared = await openService(configOn(store), { adminCommand: true });
      expect((await shared.service.listOverlays((await shared.store.findAccountByLogin('alice'))!.id))).toEqual([]);
      await shared.close();
    } finally {
      lock.release();
    }
  });
});
