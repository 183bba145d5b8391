// The store's part of the ledger retention (docs/redemptions.md#retention), on a real SQLite file:
// deleteSettledRedemptions removes only `status-sent` rows, of every account, last changed before
// the cutoff, at most `limit` of them, each account's oldest first; the migration that adds its index keeps the data.
import { rmSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { MIGRATIONS, migrate } from '../../../src/service/store/migrations.ts';
import { openSqliteStore } from '../../../src/service/store/sqlite-store.ts';
import type { SqliteStore } from '../../../src/service/store/sqlite-store.ts';
import { tempDir } from '../core/service-harness.ts';

const DAY = 86_400_000;
const NOW = Date.parse('2030-06-01T12:00:00.000Z');
const iso = (daysAgo: number): string => new Date(NOW - daysAgo * DAY).toISOString();

const dirs: string[] = [];
const stores: SqliteStore[] = [];
function dbFile(): string {
  const dir = tempDir();
  dirs.push(dir);
  return path.join(dir, 'chatskin.db');
}
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

interface Row {
  id: string;
  status: string;
  /** updated_at, in days before NOW. */
  settledDaysAgo: number;
  account?: 'a' | 'b';
}

async function openWith(rows: readonly Row[]): Promise<{ store: SqliteStore; file: string; a: number; b: number }> {
  const file = dbFile();
  const store = openSqliteStore({ path: file });
  stores.push(store);
  const { a, b } = await store.transaction(async (tx) => {
    const first = await tx.insertAccount({ login: 'streamer', premium: false, twitchUserId: null });
    const second = await tx.insertAccount({ login: 'otherchannel', premium: false, twitchUserId: null });
    for (const row of rows) {
      await tx.insertRedemption({ id: row.id, accountId: row.account === 'b' ? second.id : first.id, rewardId: 'w1', status: row.status });
    }
    return { a: first.id, b: second.id };
  });
  // Back-date through a second connection: when each row last changed.
  const db = new DatabaseSync(file, { timeout: 5000 });
  const update = db.prepare('UPDATE processed_redemptions SET updated_at = ?, created_at = ? WHERE id = ?');
  for (const row of rows) update.run(iso(row.settledDaysAgo), iso(row.settledDaysAgo + 1), row.id);
  db.close();
  return { store, file, a, b };
}

function ids(file: string): string[] {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    return db.prepare('SELECT id FROM processed_redemptions ORDER BY id').all().map((row) => String(row.id));
  } finally {
    db.close();
  }
}

describe('deleteSettledRedemptions', () => {
  it('deletes only status-sent rows last changed before the cutoff, of every account', async () => {
    const { store, file } = await openWith([
      { id: 'old-settled', status: 'status-sent', settledDaysAgo: 31 },
      { id: 'ancient-settled', status: 'status-sent', settledDaysAgo: 900 },
      { id: 'young-settled', status: 'status-sent', settledDaysAgo: 29 },
      { id: 'old-received', status: 'received', settledDaysAgo: 900 },
      { id: 'old-effect-done', status: 'effect-done', settledDaysAgo: 900 },
      // A state this code does not know (written by something else): not known to be final, so kept.
      { id: 'old-unknown-state', status: 'processed', settledDaysAgo: 900 },
      // A former channel's (another account): settled ones go as well, owed or young ones stay.
      { id: 'other-account-old', status: 'status-sent', settledDaysAgo: 900, account: 'b' },
      { id: 'other-account-young', status: 'status-sent', settledDaysAgo: 29, account: 'b' },
      { id: 'other-account-owed', status: 'received', settledDaysAgo: 900, account: 'b' },
      { id: 'other-account-owed-status', status: 'effect-done', settledDaysAgo: 900, account: 'b' },
    ]);
    const deleted = await store.transaction((tx) => tx.deleteSettledRedemptions(iso(30), 100));
    expect(deleted).toBe(3);
    expect(ids(file)).toEqual([
      'old-effect-done', 'old-received', 'old-unknown-state', 'other-account-owed', 'other-account-owed-status', 'other-account-young', 'young-settled',
    ]);
  });

  it('deletes at most `limit` rows, oldest first, and answers how many', async () => {
    const { store, file } = await openWith([
      { id: 's40', status: 'status-sent', settledDaysAgo: 40 },
      { id: 's50', status: 'status-sent', settledDaysAgo: 50 },
      { id: 's60', status: 'status-sent', settledDaysAgo: 60 },
      { id: 's70', status: 'status-sent', settledDaysAgo: 70 },
      { id: 's80', status: 'status-sent', settledDaysAgo: 80 },
    ]);
    expect(await store.transaction((tx) => tx.deleteSettledRedemptions(iso(30), 2))).toBe(2);
    expect(ids(file)).toEqual(['s40', 's50', 's60']);
    expect(await store.transaction((tx) => tx.deleteSettledRedemptions(iso(30), 2))).toBe(2);
    expect(ids(file)).toEqual(['s40']);
    expect(await store.transaction((tx) => tx.deleteSettledRedemptions(iso(30), 2))).toBe(1);
    expect(await store.transaction((tx) => tx.deleteSettledRedemptions(iso(30), 2))).toBe(0);
    expect(ids(file)).toEqual([]);
  });

  it('is a write: only on a transaction, not on the store or a read-only view', async () => {
    const { store } = await openWith([]);
    expect((store as unknown as Record<string, unknown>)['deleteSettledRedemptions']).toBeUndefined();
    await expect(store.read(async (reader) => (reader as unknown as { deleteSettledRedemptions(): Promise<number> }).deleteSettledRedemptions()))
      .rejects.toThrow(TypeError);
  });

  it('finds its rows through the settled index, not a scan of the ledger', async () => {
    const { file } = await openWith([]);
    const db = new DatabaseSync(file, { readOnly: true });
    const plan = db.prepare(`EXPLAIN QUERY PLAN SELECT rowid FROM processed_redemptions
      WHERE account_id IN (SELECT id FROM accounts) AND status = 'status-sent' AND updated_at < ?
      ORDER BY account_id, updated_at LIMIT ?`).all(iso(30), 10)
      .map((row) => String(row.detail)).join('\n');
    db.close();
    expect(plan).toMatch(/USING (COVERING )?INDEX processed_redemptions_settled \(account_id=\? AND updated_at<\?\)/);
    expect(plan).not.toMatch(/TEMP B-TREE/);
  });
});

describe('the retention migration', () => {
  it('adds the settled index to a database of the previous version and keeps its ledger', async () => {
    const file = dbFile();
    const db = new DatabaseSync(file);
    // Every migration before it (later ones are applied after it, on open).
    const before = MIGRATIONS.slice(0, MIGRATIONS.findIndex((migration) => migration.name === 'redemption ledger retention'));
    expect(before.map((migration) => migration.version)).toEqual([1, 2]);
    migrate(db, file, before);
    db.exec(`INSERT INTO accounts (login) VALUES ('streamer');
      INSERT INTO processed_redemptions (id, account_id, reward_id, status, outcome, attempts) VALUES ('r1', 1, 'w1', 'status-sent', 'fulfill', 1)`);
    db.close();

    const store = openSqliteStore({ path: file });
    stores.push(store);
    expect(await store.findRedemption('r1')).toMatchObject({ id: 'r1', status: 'status-sent', outcome: 'fulfill', attempts: 1 });
    const check = new DatabaseSync(file, { readOnly: true });
    const index = check.prepare("SELECT sql FROM sqlite_master WHERE type = 'index' AND name = 'processed_redemptions_settled'").get();
    check.close();
    expect(String(index?.sql)).toMatch(/ON processed_redemptions\(account_id, updated_at\) WHERE status = 'status-sent'/);
  });
});
