// chatskin store compact: gives the disk back the space of deleted rows. SQLite keeps a deleted
// row's pages in the file, free for later writes (no auto_vacuum), so the file never shrinks on
// its own: after the ledger retention deleted a busy channel's old redemptions, or a big seed was
// undone, it keeps its largest size. VACUUM rewrites the file without them.
//
// Refused while a `chatskin start` serves the database: VACUUM holds the write lock for as long
// as it rewrites the whole file, and the host's writes would wait and then fail meanwhile. The
// command holds the host lock itself while it runs, so no host starts in the middle of it, and
// marks it as a compaction's (lockStoreForCompaction), so that one refused meanwhile says so.
import { statSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import type { CliOptions } from '../main.ts';
import { isStoreCompacting, isStoreHostRunning, lockStoreForCompaction } from '../runtime/host-lock.ts';
import { openSqliteStore } from '../service/store/sqlite-store.ts';
import { DEFAULT_BUSY_TIMEOUT_MS, isFileless, shownLocation, StoreOpenError, storeOpenError } from '../service/store/store-open-error.ts';
import { loadCliConfig, requireArgs, requireDatabaseFile } from './cli-context.ts';
import { CliError } from './cli-error.ts';
import { printAnswer } from './print.ts';

const USAGE = 'chatskin store compact [--config FILE]';

export async function run(args: string[], options: CliOptions): Promise<void> {
  const [action] = requireArgs(args, 1, USAGE);
  if (action !== 'compact') throw new CliError(`Usage: ${USAGE}`);
  const config = loadCliConfig(options);
  const location = config.store.path;
  if (isFileless(location)) throw new CliError(`store.path is ${location}: a database in memory has no file to compact.`);
  requireDatabaseFile(options, config);
  // The compaction first: it holds the host lock too.
  if (isStoreCompacting(location)) {
    throw new StoreOpenError(location, 'is being compacted already, by another `chatskin store compact` under way: it needs no second one.');
  }
  if (isStoreHostRunning(location)) {
    throw new StoreOpenError(location, 'is served by a running `chatskin start`: compacting rewrites the whole file, and the host could not write '
      + 'meanwhile. Stop the host, run this again, then start it.');
  }
  const lock = lockStoreForCompaction(location);
  let before: number;
  let after: number;
  try {
    before = footprint(location);
    // Opened as every command opens it first: a file that is not chatskin's store is refused
    // (and left as it was), an older schema is upgraded.
    await openSqliteStore({ path: location, synchronous: config.store.synchronous }).close();
    const db = new DatabaseSync(location, { timeout: DEFAULT_BUSY_TIMEOUT_MS });
    try {
      db.exec('VACUUM');
      // The rewritten pages went through the WAL: copied into the file, which is cut to its new
      // size, and the WAL emptied.
      db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    } catch (error) {
      throw storeOpenError(location, error);
    } finally {
      db.close();
    }
    after = footprint(location);
  } finally {
    lock.release();
  }
  const freed = before - after;
  const answer = `Compacted the database ${shownLocation(location)}: ${size(before)} before, ${size(after)} after`
    + (freed > 0 ? ` (${size(freed)} given back to the disk)` : ' (nothing to give back)');
  await printAnswer(`${answer}.\n`, answer);
}

/** What the database takes on disk: the file and its -wal beside it. */
function footprint(location: string): number {
  const sizeOf = (file: string): number => {
    try {
      return statSync(file).size;
    } catch {
      return 0;
    }
  };
  return sizeOf(location) + sizeOf(`${location}-wal`);
}

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}
