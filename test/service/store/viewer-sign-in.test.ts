// signInViewers, the store's batch sign-in (the service's registerViewer(s)): checked against
// what it replaced, one find, update, find, insert or update call at a time, on the same random
// sign-ins, row by row, updated_at (moved or not) and the viewers answered included.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SqliteStore } from '../../../src/service/store/sqlite-store.ts';
import { openSqliteStore } from '../../../src/service/store/sqlite-store.ts';
import type { StoreTransaction, ViewerSignInRecord } from '../../../src/service/store/store.ts';
import type { Viewer } from '../../../src/service/types.ts';

const STALE = '2000-01-01T00:00:00.000Z';

interface Opened { store: SqliteStore; raw: DatabaseSync }

let dir: string;
const opened: Opened[] = [];
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'chatskin-sign-in-'));
});
afterEach(async () => {
  for (const { store, raw } of opened.splice(0)) {
    raw.close();
    await store.close();
  }
  rmSync(dir, { recursive: true, force: true });
});

function open(name: string): Opened {
  const file = path.join(dir, `${name}.sqlite`);
  const store = openSqliteStore({ path: file, synchronous: 'OFF' });
  const raw = new DatabaseSync(file);
  const result = { store, raw };
  opened.push(result);
  return result;
}

/** Every viewer row; `touched` when its updated_at is no longer the stale mark (set by markStale). */
function rows(raw: DatabaseSync): Array<{ id: number; twitch_user_id: string; twitch_username: string | null; display_name: string | null; touched: boolean }> {
  return raw.prepare('SELECT id, twitch_user_id, twitch_username, display_name, updated_at FROM viewers ORDER BY id').all()
    .map(({ updated_at: updatedAt, ...row }) => ({ ...row, touched: updatedAt !== STALE }) as ReturnType<typeof rows>[number]);
}

function markStale(raw: DatabaseSync): void {
  raw.exec(`UPDATE viewers SET updated_at = '${STALE}'`);
}

/** The sign-in as the service did it before signInViewers, one awaited handle call at a time. */
async function signInOneByOne(tx: StoreTransaction, { twitchUserId, twitchUsername: login, displayName }: ViewerSignInRecord): Promise<Viewer> {
  const holder = await tx.findViewerByLogin(login);
  if (holder !== null && holder.twitchUserId !== twitchUserId) await tx.updateViewer(holder.id, { twitchUsername: null });
  const existing = await tx.findViewerByTwitchUserId(twitchUserId);
  if (existing === null) return tx.insertViewer({ twitchUserId, twitchUsername: login, displayName: displayName ?? null });
  const patch: { twitchUsername?: string; displayName?: string | null } = {};
  if (existing.twitchUsername !== login) patch.twitchUsername = login;
  if (displayName !== undefined && existing.displayName !== displayName) patch.displayName = displayName;
  if (Object.keys(patch).length > 0) await tx.updateViewer(existing.id, patch);
  return { ...existing, ...patch };
}

/** A small deterministic generator, so a failure can be replayed. */
function random(seed: number): (n: number) => number {
  let state = seed >>> 0;
  return (n) => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state % n;
  };
}

describe('signInViewers', () => {
  it('stores and answers exactly what one call per find, update and insert did, on random sign-ins', async () => {
    const batched = open('batched');
    const oneByOne = open('one-by-one');
    const pick = random(20261124);
    const names = [undefined, null, 'Ana', 'ana', 'Bo', ''];
    for (let round = 0; round < 200; round++) {
      const batch: ViewerSignInRecord[] = Array.from({ length: 1 + pick(5) }, () => ({
        twitchUserId: String(1 + pick(6)),
        twitchUsername: `login_${pick(6)}`,
        displayName: names[pick(names.length)],
      }));
      markStale(batched.raw);
      markStale(oneByOne.raw);
      const got = await batched.store.transaction((tx) => tx.signInViewers(batch));
      const expected = await oneByOne.store.transaction(async (tx) => {
        const viewers: Viewer[] = [];
        for (const signIn of batch) viewers.push(await signInOneByOne(tx, signIn));
        return viewers;
      });
      expect(got, `round ${round}: ${JSON.stringify(batch)}`).toEqual(expected);
      // Same keys in the same order, not only equal values.
      expect(JSON.stringify(got)).toBe(JSON.stringify(expected));
      expect(rows(batched.raw), `round ${round}: ${JSON.stringify(batch)}`).toEqual(rows(oneByOne.raw));
    }
    // The rounds went through every case: new viewers, renames, logins taken from stale rows.
    const final = rows(batched.raw);
    expect(final.length).toBe(6);
    expect(final.some((row) => row.twitch_username === null)).toBe(true);
  });

  it('inserts, renames, takes a login from a stale row, and keeps what the sign-in leaves out', async () => {
    const { store, raw } = open('cases');
    const signIn = (...batch: ViewerSignInRecord[]) => store.transaction((tx) => tx.signInViewers(batch));

    expect(await signIn({ twitchUserId: '1001', twitchUsername: 'old_name', displayName: undefined }))
      .toEqual([{ id: 1, twitchUserId: '1001', twitchUsername: 'old_name', displayName: null }]);
    expect(await signIn({ twitchUserId: '1001', twitchUsername: 'old_name', displayName: 'Old_Name' }))
      .toEqual([{ id: 1, twitchUserId: '1001', twitchUsername: 'old_name', displayName: 'Old_Name' }]);

    // Unchanged (or no display name given): the row is answered as stored and not touched.
    markStale(raw);
    expect(await signIn(
      { twitchUserId: '1001', twitchUsername: 'old_name', displayName: 'Old_Name' },
      { twitchUserId: '1001', twitchUsername: 'old_name', displayName: undefined },
    )).toEqual(Array(2).fill({ id: 1, twitchUserId: '1001', twitchUsername: 'old_name', displayName: 'Old_Name' }));
    expect(rows(raw)).toEqual([{ id: 1, twitch_user_id: '1001', twitch_username: 'old_name', display_name: 'Old_Name', touched: false }]);

    // A rename without a display name keeps the stored one.
    expect(await signIn({ twitchUserId: '1001', twitchUsername: 'new_name', displayName: undefined }))
      .toEqual([{ id: 1, twitchUserId: '1001', twitchUsername: 'new_name', displayName: 'Old_Name' }]);
    expect(rows(raw)[0]).toMatchObject({ twitch_username: 'new_name', touched: true });

    // Another user now has 1001's login: the stale row gives it up, in the same batch as a third viewer.
    markStale(raw);
    expect(await signIn(
      { twitchUserId: '2002', twitchUsername: 'new_name', displayName: null },
      { twitchUserId: '3003', twitchUsername: 'third', displayName: 'Third' },
    )).toEqual([
      { id: 2, twitchUserId: '2002', twitchUsername: 'new_name', displayName: null },
      { id: 3, twitchUserId: '3003', twitchUsername: 'third', displayName: 'Third' },
    ]);
    expect(rows(raw)).toEqual([
      { id: 1, twitch_user_id: '1001', twitch_username: null, display_name: 'Old_Name', touched: true },
      { id: 2, twitch_user_id: '2002', twitch_username: 'new_name', display_name: null, touched: true },
      { id: 3, twitch_user_id: '3003', twitch_username: 'third', display_name: 'Third', touched: true },
    ]);

    // A display name set to null clears it; the row keeps its login.
    expect(await signIn({ twitchUserId: '3003', twitchUsername: 'third', displayName: null }))
      .toEqual([{ id: 3, twitchUserId: '3003', twitchUsername: 'third', displayName: null }]);
  });

  it('fails as a whole: a refused row rolls back every sign-in of the transaction', async () => {
    const { store, raw } = open('refused');
    await store.transaction((tx) => tx.signInViewers([{ twitchUserId: '1', twitchUsername: 'one', displayName: 'One' }]));
    // Not digits: the schema's CHECK refuses it (the service validates before it gets here).
    await expect(store.transaction((tx) => tx.signInViewers([
      { twitchUserId: '2', twitchUsername: 'one', displayName: null },
      { twitchUserId: '12a', twitchUsername: 'bad', displayName: null },
    ]))).rejects.toThrow(/CHECK/);
    expect(rows(raw)).toEqual([{ id: 1, twitch_user_id: '1', twitch_username: 'one', display_name: 'One', touched: true }]);
  });

  it('is a write: a read-only view refuses it', async () => {
    const { store } = open('read-only');
    await expect(store.read((reader) => (reader as unknown as StoreTransaction).signInViewers([
      { twitchUserId: '1', twitchUsername: 'one', displayName: null },
    ]))).rejects.toThrow(/writes|not a function/);
  });
});
