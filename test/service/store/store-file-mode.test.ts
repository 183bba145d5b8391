// The store's files are its owner's: a new database (and the -wal and -shm files SQLite makes
// beside it) is readable by the owner only, as are the folder made for it and the token files;
// an existing database keeps the mode its owner gave it.
import { mkdtempSync, rmSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../../src/service/store/sqlite-store.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const modeOf = (file: string): number => statSync(file).mode & 0o777;

describe('the store\'s file modes', () => {
  it('a new database, its -wal and -shm files and the folder made for it are the owner\'s only', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'chatskin-mode-'));
    dirs.push(dir);
    const file = path.join(dir, 'data', 'chatskin.db');
    const store = openSqliteStore({ path: file });
    try {
      await store.transaction((tx) => tx.insertAccount({ login: 'alice', premium: false, twitchUserId: null }));
      expect(modeOf(path.dirname(file))).toBe(0o700);
      for (const name of [file, `${file}-wal`, `${file}-shm`]) expect(modeOf(name), name).toBe(0o600);
    } finally {
      await store.close();
    }
  });

  it('an existing database keeps its mode', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'chatskin-mode-'));
    dirs.push(dir);
    const file = path.join(dir, 'chatskin.db');
    writeFileSync(file, '');
    chmodSync(file, 0o640);
    const store = openSqliteStore({ path: file });
    await store.close();
    expect(modeOf(file)).toBe(0o640);
  });
});
