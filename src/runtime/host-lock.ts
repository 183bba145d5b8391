// One `chatskin start` per store. Two hosts on one database would both answer the channel's chat
// and redemptions, and a write through one would never reach the overlays the other serves. The
// admin commands (seed, keys, ...) still share the database with the running host, unless they
// would migrate its schema under it (isStoreHostRunning, open-service.ts).
//
// The lock is an OS file lock, held by a small SQLite file beside the store (`<store>.lock`) in
// exclusive locking mode: SQLite takes the lock on the first write and keeps it until the
// connection closes, and the OS drops it when the process ends in any way (kill -9 included),
// so there is no stale lock to clean up after a crash. The file itself stays (removing it while
// another process waits on it would let a third one in). It sits beside the database's real path,
// symbolic links resolved, so that two spellings of one file (a linked folder, a link to the file)
// meet at one lock. A hard link would escape it (a lock file beside each name), but no command
// opens a database file with more than one name (refuseHardLinkedFile, sqlite-store.ts).
//
// `chatskin store compact` holds the same lock while it rewrites the file (no host may start in
// the middle of it), and says so beside it: once it holds the host lock it takes a second one,
// `<store>.lock-compact` (removed again when it is done), so that a start or a second compaction
// refused meanwhile names the compaction rather than a running host. Nobody can read who holds
// the host lock itself (the exclusive lock keeps readers out too), hence the second file. A start
// refused in the instant between the two locks still names a running host.
import { existsSync, realpathSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { isFileless, makeStoreFolder, storeOpenError, StoreOpenError } from '../service/store/store-open-error.ts';
import { errorText } from '../host/error-text.ts';

export interface HostLock {
  release(): void;
}

const HELD_BY_HOST = 'is already served by another `chatskin start`: stop that one first, or give this one its own store.path.';
const HELD_BY_COMPACTION = 'is being compacted by a `chatskin store compact` under way: start again when it has finished.';

/** Takes the store's host lock, or throws a StoreOpenError naming its holder (a host, a compaction) when it is held. None for `:memory:`. */
export function lockStoreForHost(storePath: string): HostLock {
  if (isFileless(storePath)) return { release: () => {} };
  makeStoreFolder(storePath);
  const file = `${realStorePath(storePath)}.lock`;
  const db = takeLock(storePath, file, () => (isStoreCompacting(storePath) ? HELD_BY_COMPACTION : HELD_BY_HOST));
  return { release: () => db.close() };
}

/**
 * The host lock for `chatskin store compact`, with the compaction marked beside it. Refused as
 * lockStoreForHost is (the caller asks isStoreCompacting and isStoreHostRunning first, for its
 * own words).
 */
export function lockStoreForCompaction(storePath: string): HostLock {
  if (isFileless(storePath)) return { release: () => {} };
  const host = lockStoreForHost(storePath);
  const file = compactionLockFile(storePath);
  let marker: DatabaseSync;
  try {
    // Only a holder of the host lock takes this one, so it is never held here.
    marker = takeLock(storePath, file, () => HELD_BY_COMPACTION);
  } catch (error) {
    host.release();
    throw error;
  }
  return {
    release: () => {
      // Removed while still held, so that a prober that found it meanwhile finds it held; the
      // host lock, let go last, keeps out any other holder until then.
      try {
        unlinkSync(file);
      } catch {
        // Left behind: an unheld marker says nothing.
      }
      marker.close();
      host.release();
    },
  };
}

/** Whether a `chatskin store compact` is rewriting the store now, found as isStoreHostRunning finds a host. */
export function isStoreCompacting(storePath: string): boolean {
  if (isFileless(storePath)) return false;
  return isLockHeld(compactionLockFile(storePath));
}

function compactionLockFile(storePath: string): string {
  return `${realStorePath(storePath)}.lock-compact`;
}

/** An open connection holding `file`'s exclusive lock, or a StoreOpenError saying (heldBy) who holds it. */
function takeLock(storePath: string, file: string, heldBy: () => string): DatabaseSync {
  let db: DatabaseSync;
  try {
    // No busy wait: a held lock is an answer, not something to wait out.
    db = new DatabaseSync(file, { timeout: 0 });
  } catch (error) {
    throw lockFileError(storePath, file, error);
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
    if (/locked|busy/i.test(errorText(error))) throw new StoreOpenError(storePath, heldBy(), { cause: error });
    throw lockFileError(storePath, file, error);
  }
  return db;
}

/**
 * Whether a `chatskin start` (or a `chatskin store compact`: isStoreCompacting tells them apart)
 * holds the store's host lock now, found without taking it or making the lock file: the holder keeps an exclusive lock on it, so even a read is refused at once.
 * Another failure (an unreadable lock file) says nothing either way: false.
 */
export function isStoreHostRunning(storePath: string): boolean {
  if (isFileless(storePath)) return false;
  return isLockHeld(`${realStorePath(storePath)}.lock`);
}

function isLockHeld(file: string): boolean {
  if (!existsSync(file)) return false;
  let db: DatabaseSync;
  try {
    db = new DatabaseSync(file, { readOnly: true, timeout: 0 });
  } catch {
    return false;
  }
  try {
    db.prepare('SELECT count(*) FROM sqlite_master').get();
    return false;
  } catch (error) {
    return /locked|busy/i.test(errorText(error));
  } finally {
    db.close();
  }
}

/** The database's path with symbolic links resolved; for one not made yet, its folder's. */
function realStorePath(storePath: string): string {
  try {
    return realpathSync(storePath);
  } catch {
    try {
      return path.join(realpathSync(path.dirname(storePath)), path.basename(storePath));
    } catch {
      return storePath;
    }
  }
}

/**
 * Named as the database the config names, the lock file as the detail: a message naming only
 * chatskin.db.lock read as a stale lock to delete, and the store.path to change was not its path.
 */
function lockFileError(storePath: string, file: string, error: unknown): StoreOpenError {
  return new StoreOpenError(storePath, `cannot be served: its lock file beside it, ${path.basename(file)}, ${storeOpenError(file, error).reason}`, { cause: error });
}
