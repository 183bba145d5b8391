// One `chatskin start` per store. Two hosts on one database would both answer the channel's chat
// and redemptions, and a write through one would never reach the overlays the other serves. The
// admin commands (seed, keys, ...) still share the database with the running host.
//
// The lock is an OS file lock, held by a small SQLite file beside the store (`<store>.lock`) in
// exclusive locking mode: SQLite takes the lock on the first write and keeps it until the
// connection closes, and the OS drops it when the process ends in any way (kill -9 included),
// so there is no stale lock to clean up after a crash. The file itself stays (removing it while
// another process waits on it would let a third one in).
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { StoreOpenError, storeOpenError } from '../service/store/store-open-error.ts';
import { errorText } from '../host/error-text.ts';

export interface HostLock {
  release(): void;
}

/** Takes the store's host lock, or throws a StoreOpenError when another host holds it. None for `:memory:`. */
export function lockStoreForHost(storePath: string): HostLock {
  if (storePath === ':memory:' || storePath === '') return { release: () => {} };
  const file = `${storePath}.lock`;
  let db: DatabaseSync;
  try {
    mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    // No busy wait: a held lock is an answer, not something to wait out.
    db = new DatabaseSync(file, { timeout: 0 });
  } catch (error) {
    throw storeOpenError(file, error);
  }
  try {
    db.exec('PRAGMA locking_mode = EXCLUSIVE');
    db.exec('CREATE TABLE IF NOT EXISTS host (pid INTEGER NOT NULL, started_at TEXT NOT NULL)');
    db.exec('BEGIN EXCLUSIVE');
    db.prepare('DELETE FROM host').run();
    db.prepare('INSERT INTO host (pid, started_at) VALUES (?, ?)').run(process.pid, new Date().toISOString());
    db.exec('COMMIT');
  } catch (error) {
    db.close();
    if (/locked|busy/i.test(errorText(error))) {
      throw new StoreOpenError(storePath, 'is already served by another `chatskin start`: stop that one first, or give this one its own store.path.', { cause: error });
    }
    throw storeOpenError(file, error);
  }
  return { release: () => db.close() };
}
