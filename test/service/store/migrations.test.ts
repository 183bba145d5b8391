import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { LATEST_SCHEMA_VERSION, MIGRATIONS, SchemaTooNewError, migrate } from '../../../src/service/store/migrations.ts';
import { StoreOpenError } from '../../../src/service/store/store-open-error.ts';
import { JOURNAL_SIZE_LIMIT_BYTES, openSqliteStore } from '../../../src/service/store/sqlite-store.ts';
import { tempDir } from '../core/service-harness.ts';

const dirs: string[] = [];
function dbFile(): string {
  const dir = tempDir();
  dirs.push(dir);
  return path.join(dir, 'nested', 'chatskin.db');
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('migrations', () => {
  it('creates every table on a fresh database (and its folder) and records the version', async () => {
    const file = dbFile();
    const store = openSqliteStore({ path: file });
    await store.close();
    const db = new DatabaseSync(file, { readOnly: true });
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all().map((r) => r.name);
    expect(tables).toEqual(expect.arrayContaining([
      'accounts', 'api_keys', 'templates', 'overlays', 'skins', 'skin_roles', 'viewers', 'entitlements',
      'viewer_skin_picks', 'processed_redemptions', 'schema_migrations',
    ]));
    const recorded = db.prepare('SELECT version, name FROM schema_migrations ORDER BY version').all();
    expect(recorded.map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
    db.close();
  });

  it('re-opening applies nothing and keeps the data', async () => {
    const file = dbFile();
    const first = openSqliteStore({ path: file });
    await first.transaction(async (tx) => {
      await tx.insertAccount({ login: 'alice', premium: false, twitchUserId: null });
    });
    await first.close();

    const db = new DatabaseSync(file);
    expect(migrate(db, file).applied).toEqual([]);
    expect(db.prepare('SELECT count(*) AS n FROM schema_migrations').get()!.n).toBe(MIGRATIONS.length);
    db.close();

    const second = openSqliteStore({ path: file });
    expect((await second.findAccountByLogin('alice'))?.login).toBe('alice');
    await second.close();
  });

  // A database each older chatskin made, with a ledger row in it, is brought to the latest version
  // on open, each pending step applied and recorded, its rows kept and given the new columns' defaults.
  it.each(MIGRATIONS.slice(0, -1).map((migration) => migration.version))('upgrades a database at schema version %i, keeping its rows', async (version) => {
    const file = dbFile();
    mkdirSync(path.dirname(file), { recursive: true });
    const old = new DatabaseSync(file);
    old.exec('PRAGMA journal_mode = WAL');
    expect(migrate(old, file, MIGRATIONS.filter((migration) => migration.version <= version)).applied).toHaveLength(version);
    old.exec("INSERT INTO accounts (login, premium) VALUES ('alice', 1)");
    old.exec("INSERT INTO processed_redemptions (id, account_id, reward_id, status) VALUES ('r1', 1, 'reward', 'status-sent')");
    old.close();

    const store = openSqliteStore({ path: file });
    expect((await store.findAccountByLogin('alice'))?.premium).toBe(true);
    await store.close();
    const db = new DatabaseSync(file, { readOnly: true });
    expect(db.prepare('SELECT version FROM schema_migrations ORDER BY version').all().map((row) => row.version))
      .toEqual(MIGRATIONS.map((migration) => migration.version));
    expect({ ...db.prepare('SELECT id, status, outcome, attempts, reply_texts, reply_target FROM processed_redemptions').get() })
      .toEqual({ id: 'r1', status: 'status-sent', outcome: null, attempts: 0, reply_texts: null, reply_target: null });
    expect(db.prepare('PRAGMA integrity_check').get()!.integrity_check).toBe('ok');
    expect(db.prepare('PRAGMA foreign_key_check').all()).toEqual([]);
    db.close();
  });

  it('refuses to open a database with a newer schema, naming both versions', async () => {
    const file = dbFile();
    await openSqliteStore({ path: file }).close();
    const db = new DatabaseSync(file);
    db.prepare('INSERT INTO schema_migrations (version, name) VALUES (?, ?)').run(LATEST_SCHEMA_VERSION + 1, 'from the future');
    db.close();

    expect(() => openSqliteStore({ path: file })).toThrow(SchemaTooNewError);
    expect(() => openSqliteStore({ path: file })).toThrow(
      new RegExp(`schema version ${LATEST_SCHEMA_VERSION + 1}.*up to ${LATEST_SCHEMA_VERSION}.*upgrade chatskin`),
    );
  });

  it('refuses another program\'s database before writing anything to it (no WAL, no schema_migrations)', () => {
    const file = dbFile();
    mkdirSync(path.dirname(file), { recursive: true });
    const other = new DatabaseSync(file);
    other.exec('CREATE TABLE accounts (x); CREATE TABLE orders (y); CREATE TABLE items (z); CREATE TABLE users (w)');
    other.close();
    const before = readFileSync(file);
    expect(() => openSqliteStore({ path: file })).toThrow(StoreOpenError);
    expect(() => openSqliteStore({ path: file })).toThrow(`The database ${file} holds another program's tables (accounts, items, orders, and 1 more), not chatskin's`);
    expect(readFileSync(file).equals(before)).toBe(true);
    const reopened = new DatabaseSync(file);
    expect(reopened.prepare('PRAGMA journal_mode').get()!.journal_mode).toBe('delete');
    reopened.close();
  });

  it.each([
    ['a file that is not a database', 'not a database, just text\n'.repeat(100), 'is not a SQLite database: is store.path the right file?'],
    ['a damaged database', null, 'is damaged'],
  ])('refuses %s with a StoreOpenError naming the file and why', async (_label, content, reason) => {
    const file = dbFile();
    if (content !== null) {
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, content);
    } else {
      await openSqliteStore({ path: file }).close();
      // The header survives, the pages after it do not.
      const bytes = readFileSync(file);
      writeFileSync(file, Buffer.concat([bytes.subarray(0, 100), Buffer.alloc(bytes.length - 100, 0xff)]));
    }
    expect(() => openSqliteStore({ path: file })).toThrow(StoreOpenError);
    expect(() => openSqliteStore({ path: file })).toThrow(`The database ${file} ${reason}`);
  });

  it('rolls a failing migration back completely', () => {
    const db = new DatabaseSync(':memory:');
    const broken = [...MIGRATIONS, { version: LATEST_SCHEMA_VERSION + 1, name: 'broken', sql: 'CREATE TABLE half (id INTEGER); SELECT * FROM missing_table;' }];
    expect(() => migrate(db, ':memory:', broken)).toThrow(new RegExp(`Migration ${LATEST_SCHEMA_VERSION + 1} \\(broken\\)`));
    expect(db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'half'").get()!.n).toBe(0);
    expect(db.prepare('SELECT max(version) AS v FROM schema_migrations').get()!.v).toBe(LATEST_SCHEMA_VERSION);
    db.close();
  });
});

describe('connection settings', () => {
  it('uses WAL, synchronous FULL by default, foreign keys, a 5 s busy timeout, a 32 MiB WAL size limit and temporary files in memory', async () => {
    const store = openSqliteStore({ path: dbFile() });
    expect(store.connectionSettings()).toEqual({
      journalMode: 'wal', synchronous: 'FULL', foreignKeys: true, busyTimeoutMs: 5000, journalSizeLimitBytes: 32 * 1024 * 1024, tempStore: 'memory',
    });
    expect(JOURNAL_SIZE_LIMIT_BYTES).toBe(32 * 1024 * 1024);
    await store.close();
  });

  it('applies the configured synchronous level and busy timeout', async () => {
    const store = openSqliteStore({ path: dbFile(), synchronous: 'NORMAL', busyTimeoutMs: 1234 });
    expect(store.connectionSettings()).toMatchObject({ synchronous: 'NORMAL', busyTimeoutMs: 1234 });
    await store.close();
  });

  it('refuses settings it does not know', () => {
    expect(() => openSqliteStore({ path: dbFile(), synchronous: 'SOMETIMES' as never })).toThrow(/synchronous must be one of OFF, NORMAL, FULL, EXTRA/);
    expect(() => openSqliteStore({ path: dbFile(), busyTimeoutMs: -1 })).toThrow(/busyTimeoutMs must be a non-negative integer/);
    expect(() => openSqliteStore({ path: dbFile(), journalSizeLimitBytes: 1.5 })).toThrow(/journalSizeLimitBytes must be a non-negative integer/);
  });

  // Without journal_size_limit the WAL kept the size of the largest transaction (a big seed) until
  // the host stopped. With it, once the store's auto-checkpoint has copied that transaction into the
  // database, the next write cuts the file back to the limit. (A small limit keeps the data small:
  // the transaction still has to pass the ~4 MB auto-checkpoint threshold.)
  it('cuts the WAL back to its size limit after a large transaction and the checkpoint after it', async () => {
    const file = dbFile();
    const limit = 64 * 1024;
    const store = openSqliteStore({ path: file, journalSizeLimitBytes: limit });
    expect(store.connectionSettings().journalSizeLimitBytes).toBe(limit);
    const pad = 'x'.repeat(200);
    await store.transaction(async (tx) => {
      for (let i = 0; i < 30_000; i += 1) {
        await tx.insertViewer({ twitchUserId: String(i + 1), twitchUsername: `v${i}`, displayName: `${pad}${i}` });
      }
    });
    const wal = `${file}-wal`;
    const afterLarge = statSync(wal).size;
    expect(afterLarge).toBeGreaterThan(4 * 1024 * 1024);
    // The next write starts the WAL over (its frames were all checkpointed) and trims the file.
    await store.transaction(async (tx) => {
      await tx.insertAccount({ login: 'alice', premium: false, twitchUserId: null });
    });
    expect(statSync(wal).size).toBeLessThanOrEqual(limit);
    expect((await store.findAccountByLogin('alice'))?.login).toBe('alice');
    await store.close();
  });
});
