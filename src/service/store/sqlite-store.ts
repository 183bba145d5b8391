// The Store on node:sqlite (DatabaseSync): WAL, an explicit `synchronous` level, a busy timeout,
// foreign keys on, prepared statements cached, migrations applied at open.
//
// One connection serves the whole process. A transaction holds the connection from BEGIN to
// COMMIT, also while its callback awaits, so other callers queue on a lock meanwhile. Write
// transactions that arrive together are group-committed (group-commit.ts): each in its own
// savepoint, all under one COMMIT, each answered only after it. Nested calls (a service write
// inside the seed's transaction) are found through AsyncLocalStorage and run as savepoints of
// the enclosing transaction instead of deadlocking on that lock.
import { AsyncLocalStorage } from 'node:async_hooks';
import { closeSync, openSync, statSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { GroupCommit } from './group-commit.ts';
import { migrate } from './migrations.ts';
import { SqliteQueries, WRITE_METHODS } from './sqlite-queries.ts';
import type { StorageFault } from './storage-fault.ts';
import { DEFAULT_BUSY_TIMEOUT_MS, isFileless, makeStoreFolder, StoreOpenError, storeOpenError } from './store-open-error.ts';
import type { Store, StoreReader, StoreTransaction } from './store.ts';
import { TurnLock } from './turn-lock.ts';

export type SynchronousLevel = 'OFF' | 'NORMAL' | 'FULL' | 'EXTRA';
export const SYNCHRONOUS_LEVELS: readonly SynchronousLevel[] = ['OFF', 'NORMAL', 'FULL', 'EXTRA'];

export interface SqliteStoreOptions {
  /** Database file (its folder is created), or `:memory:`. */
  path: string;
  /**
   * PRAGMA synchronous. Default FULL: with WAL, NORMAL may lose the last acknowledged writes
   * on power loss, and an answered write must survive. (Group commit makes FULL cheap under
   * load: one fsync per batch of concurrent writes.)
   */
  synchronous?: SynchronousLevel;
  /** How long a statement waits for another process's lock before failing. Default 5000 ms. */
  busyTimeoutMs?: number;
  /**
   * PRAGMA journal_size_limit: the size the WAL file is cut back to once it is reset after a
   * complete checkpoint. Default 32 MiB (JOURNAL_SIZE_LIMIT_BYTES).
   */
  journalSizeLimitBytes?: number;
  /**
   * Called when the schema has migrations pending, before any is applied; what it throws fails
   * the open with the database unchanged. The admin commands refuse there while a host runs.
   */
  beforeUpgrade?: (found: number, latest: number) => void;
}

export interface SqliteConnectionSettings {
  journalMode: string;
  synchronous: SynchronousLevel;
  foreignKeys: boolean;
  busyTimeoutMs: number;
  /** PRAGMA journal_size_limit: what the WAL file is cut back to after a checkpoint (see JOURNAL_SIZE_LIMIT_BYTES). */
  journalSizeLimitBytes: number;
  /** Where SQLite keeps its temporary files' contents: 'memory' (see openSqliteStore). */
  tempStore: 'default' | 'file' | 'memory';
}

const TEMP_STORES = ['default', 'file', 'memory'] as const;

/**
 * Without a limit SQLite reuses the WAL file from its start after a checkpoint but never shrinks
 * it: one large transaction (a big seed) left a WAL of its size on disk until the host stopped.
 * 32 MiB stays well above what the auto-checkpoint lets the WAL reach in normal use (1000 pages,
 * about 4 MB), so everyday writes never pay for truncating and growing the file again.
 */
export const JOURNAL_SIZE_LIMIT_BYTES = 32 * 1024 * 1024;

export interface SqliteStore extends Store {
  /** The database file path (or `:memory:`). */
  readonly location: string;
  /** The pragmas in force on this store's connection, read back from SQLite (for diagnostics). */
  connectionSettings(): SqliteConnectionSettings;
  /** Write transactions committed so far; concurrent writes grouped under one COMMIT count once. */
  readonly commits: number;
  /** Why writes cannot be saved now (full disk, read-only file, failing disk), until one is; else null. */
  readonly storageFault: StorageFault | null;
}

/** Where a transaction (or one of its savepoints) stands; kept in AsyncLocalStorage. */
interface Frame {
  open: boolean;
  readOnly: boolean;
  depth: number;
  afterCommit: Array<() => void>;
  /** Serialises savepoints opened inside this frame. */
  children: TurnLock;
}

const FRAME = Symbol('frame');
/** A transaction handle: its methods live on a shared prototype, its frame here. */
interface Handle {
  [FRAME]: Frame;
}

const METHOD_NAMES: readonly string[] = Object.getOwnPropertyNames(SqliteQueries.prototype)
  .filter((name) => name !== 'constructor');
const READ_METHOD_NAMES = METHOD_NAMES.filter((name) => !WRITE_METHODS.has(name));

export function openSqliteStore(options: SqliteStoreOptions): SqliteStore {
  const synchronous = options.synchronous ?? 'FULL';
  if (!SYNCHRONOUS_LEVELS.includes(synchronous)) {
    throw new TypeError(`SQLite synchronous must be one of ${SYNCHRONOUS_LEVELS.join(', ')}, got ${String(synchronous)}`);
  }
  const busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  if (!Number.isSafeInteger(busyTimeoutMs) || busyTimeoutMs < 0) {
    throw new TypeError(`SQLite busyTimeoutMs must be a non-negative integer, got ${String(busyTimeoutMs)}`);
  }
  const journalSizeLimitBytes = options.journalSizeLimitBytes ?? JOURNAL_SIZE_LIMIT_BYTES;
  if (!Number.isSafeInteger(journalSizeLimitBytes) || journalSizeLimitBytes < 0) {
    throw new TypeError(`SQLite journalSizeLimitBytes must be a non-negative integer, got ${String(journalSizeLimitBytes)}`);
  }
  const location = options.path;
  let db: DatabaseSync;
  try {
    makeStoreFolder(location);
    createOwnerOnly(location);
    refuseHardLinkedFile(location);
    db = new DatabaseSync(location, { enableForeignKeyConstraints: true, timeout: busyTimeoutMs });
  } catch (error) {
    throw storeOpenError(location, error);
  }
  try {
    // Before anything is written to it: a file of another program is left as it was.
    refuseForeignDatabase(db, location);
    db.exec('PRAGMA journal_mode = WAL');
    db.exec(`PRAGMA synchronous = ${synchronous}`);
    db.exec(`PRAGMA busy_timeout = ${busyTimeoutMs}`);
    db.exec('PRAGMA foreign_keys = ON');
    // See JOURNAL_SIZE_LIMIT_BYTES: the WAL is cut back to this after a large transaction.
    db.exec(`PRAGMA journal_size_limit = ${journalSizeLimitBytes}`);
    // Every write runs in a savepoint (group commit), whose undo journal SQLite otherwise spills
    // to a temporary file: that doubled the cost of an INSERT (bench:chat's viewer registration).
    // It holds one batch's changes at most, and a crash loses nothing by it (the transaction
    // it could undo was never committed).
    db.exec('PRAGMA temp_store = MEMORY');
    migrate(db, location, undefined, { beforeUpgrade: options.beforeUpgrade });
  } catch (error) {
    db.close();
    throw storeOpenError(location, error, busyTimeoutMs);
  }
  return createStore(db, location, busyTimeoutMs, fileIdentityCheck(location));
}

/**
 * A check, before each write transaction, that `location` still names the file the connection has
 * open. Deleted, or replaced by another file (a backup put back by rename), it does not: SQLite
 * would go on writing to the file it has open, which no restart finds again, so writes answered as
 * done would be lost. One stat per group commit, beside its fsync. None for `:memory:`.
 */
function fileIdentityCheck(location: string): () => void {
  if (isFileless(location)) return () => {};
  const file = path.resolve(location);
  /** The file's device and inode; null when there is none; undefined when stat fails otherwise (no sign either way). */
  const identity = (): string | null | undefined => {
    try {
      const info = statSync(file);
      return `${info.dev}:${info.ino}`;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      return code === 'ENOENT' || code === 'ENOTDIR' ? null : undefined;
    }
  };
  const opened = identity();
  return () => {
    if (typeof opened !== 'string') return;
    const now = identity();
    if (now === undefined || now === opened) return;
    throw new StoreOpenError(location, 'was deleted or replaced while chatskin had it open: writes are refused, since a restart '
      + 'would not find them (reads go on from the file still open). Restart chatskin to use the file now at that path '
      + '(none there: a new, empty store).');
  };
}

/**
 * A new database file is made readable by its owner only (SQLite gives its -wal and -shm files the
 * same mode): it holds the overlays' tokens, the keys' hashes and the viewers. An existing file
 * keeps the mode its owner gave it. An empty file is a new, empty SQLite database.
 */
function createOwnerOnly(location: string): void {
  if (isFileless(location)) return;
  try {
    closeSync(openSync(location, 'wx', 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

/**
 * A database file with a second name (a hard link, `ln`) is refused before it is opened. SQLite
 * keeps the -wal and -shm files beside the name it was opened by, so two processes opening one
 * file by two names do not see each other's writes, and their checkpoints damage it ("How To
 * Corrupt An SQLite Database File", multiple links); and the host lock, beside the name, could not
 * keep a second `chatskin start` off it. A symbolic link is fine: SQLite and the lock resolve it.
 */
function refuseHardLinkedFile(location: string): void {
  if (isFileless(location)) return;
  let links: number;
  try {
    const info = statSync(location);
    // A folder's links are its entries' `..`: the open says a folder is no database.
    if (!info.isFile()) return;
    links = info.nlink;
  } catch {
    return; // Not there or out of reach: the open says why.
  }
  if (links <= 1) return;
  throw new StoreOpenError(location, `has ${links} names (hard links): SQLite keeps its -wal file beside each name, so programs opening it by different names `
    + 'miss each other\'s writes and damage it, and two `chatskin start` could serve it at once. Keep one name: delete the other links '
    + `(\`find / -samefile ${path.resolve(location)} 2>/dev/null\` lists them), or make a second name a symbolic link (ln -s).`);
}

/** A database with tables but no `schema_migrations` is not chatskin's (an empty one becomes it). */
function refuseForeignDatabase(db: DatabaseSync, location: string): void {
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all()
    .map((row) => String(row.name));
  if (tables.length === 0 || tables.includes('schema_migrations')) return;
  const shown = tables.slice(0, 3).join(', ') + (tables.length > 3 ? `, and ${tables.length - 3} more` : '');
  throw new StoreOpenError(location, `holds another program's tables (${shown}), not chatskin's: point store.path at a new file; this one was left unchanged.`);
}

function createStore(db: DatabaseSync, location: string, busyTimeoutMs: number, assertSameFile: () => void): SqliteStore {
  const queries = new SqliteQueries(db);
  const lock = new TurnLock();
  const context = new AsyncLocalStorage<Frame>();
  let closed = false;

  const call = (name: string, args: unknown[]): unknown =>
    (queries as unknown as Record<string, (...a: unknown[]) => unknown>)[name]!(...args);

  const assertOpen = (): void => {
    if (closed) throw new Error(`The store ${location} is closed.`);
  };
  const groupCommit = new GroupCommit(db, lock, () => {
    assertOpen();
    assertSameFile();
  }, busyTimeoutMs);

  /** The frame of the transaction we are inside, if it is still running. */
  const currentFrame = (): Frame | undefined => {
    const frame = context.getStore();
    return frame?.open ? frame : undefined;
  };

  /**
   * The methods of a transaction handle, made once per store (not ~50 closures per
   * transaction): each runs inside the handle's frame, and fails once that has ended.
   */
  const handlePrototype = (names: readonly string[]): object => {
    const frameOf = (handle: Handle | undefined): Frame => {
      const frame = handle?.[FRAME];
      if (frame === undefined) throw new TypeError('Call store transaction methods on their handle, as tx.method(...).');
      return frame;
    };
    const prototype: Record<string, unknown> = {};
    for (const name of names) {
      prototype[name] = async function (this: Handle | undefined, ...args: unknown[]) {
        const frame = frameOf(this);
        if (!frame.open) throw new Error(`Store method ${name} called on a transaction that has already ended.`);
        if (frame.readOnly && WRITE_METHODS.has(name)) throw new Error(`Store method ${name} writes, but this is a read-only view.`);
        return call(name, args);
      };
    }
    prototype.afterCommit = function (this: Handle | undefined, callback: () => void) {
      const frame = frameOf(this);
      if (!frame.open) throw new Error('afterCommit called on a transaction that has already ended.');
      frame.afterCommit.push(callback);
    };
    return prototype;
  };
  const writeHandle = handlePrototype(METHOD_NAMES);
  const readHandle = handlePrototype(READ_METHOD_NAMES);

  /** A view whose methods run inside `frame`. */
  const handleFor = (frame: Frame, prototype: object): StoreTransaction => {
    const handle = Object.create(prototype) as Handle;
    handle[FRAME] = frame;
    return handle as unknown as StoreTransaction;
  };

  const runCallbacks = (callbacks: Array<() => void>): void => {
    // Outside the transaction's context, so a listener that reads or writes starts afresh.
    context.exit(() => {
      for (const callback of callbacks) {
        try {
          callback();
        } catch (error) {
          // The write has committed; a failing listener must not turn it into an error.
          process.emitWarning(`afterCommit callback failed: ${(error as Error).stack ?? String(error)}`);
        }
      }
    });
  };

  const newFrame = (readOnly: boolean, depth: number): Frame =>
    ({ open: true, readOnly, depth, afterCommit: [], children: new TurnLock() });

  /** An outermost write: its own savepoint in the next group commit; callbacks run after it. */
  async function outermostWrite<T>(fn: (frame: Frame) => Promise<T>): Promise<T> {
    assertOpen();
    const frame = newFrame(false, 0);
    const result = await groupCommit.submit(async () => {
      try {
        return await context.run(frame, () => fn(frame));
      } finally {
        frame.open = false;
      }
    });
    runCallbacks(frame.afterCommit);
    return result;
  }

  /** An outermost read-only view: one deferred transaction, so its reads see one moment. */
  async function outermostRead<T>(fn: (frame: Frame) => Promise<T>): Promise<T> {
    assertOpen();
    const release = await lock.acquire();
    const frame = newFrame(true, 0);
    try {
      assertOpen();
      db.exec('BEGIN DEFERRED');
      try {
        return await context.run(frame, () => fn(frame));
      } finally {
        frame.open = false;
        if (db.isTransaction) db.exec('COMMIT');
      }
    } finally {
      release();
    }
  }

  async function nested<T>(parent: Frame, readOnly: boolean, fn: (frame: Frame) => Promise<T>): Promise<T> {
    if (parent.readOnly && !readOnly) throw new Error('A write transaction cannot start inside a read-only one.');
    const release = await parent.children.acquire();
    try {
      if (!parent.open) throw new Error('The enclosing transaction has already ended.');
      const frame = newFrame(readOnly || parent.readOnly, parent.depth + 1);
      const savepoint = `nested_${frame.depth}`;
      db.exec(`SAVEPOINT ${savepoint}`);
      try {
        const result = await context.run(frame, () => fn(frame));
        frame.open = false;
        db.exec(`RELEASE ${savepoint}`);
        parent.afterCommit.push(...frame.afterCommit);
        return result;
      } catch (error) {
        frame.open = false;
        db.exec(`ROLLBACK TO ${savepoint}`);
        db.exec(`RELEASE ${savepoint}`);
        throw error;
      }
    } finally {
      release();
    }
  }

  const pragma = (name: string): unknown => Object.values(db.prepare(`PRAGMA ${name}`).get() ?? {})[0];
  const store: Record<string, unknown> = {
    location,
    get commits() {
      return groupCommit.commits;
    },
    get storageFault() {
      return groupCommit.storageFault;
    },
    connectionSettings(): SqliteConnectionSettings {
      assertOpen();
      return {
        journalMode: String(pragma('journal_mode')),
        synchronous: SYNCHRONOUS_LEVELS[Number(pragma('synchronous'))]!,
        foreignKeys: pragma('foreign_keys') === 1,
        busyTimeoutMs: Number(pragma('busy_timeout')),
        journalSizeLimitBytes: Number(pragma('journal_size_limit')),
        tempStore: TEMP_STORES[Number(pragma('temp_store'))]!,
      };
    },
    transaction<T>(fn: (tx: StoreTransaction) => Promise<T>): Promise<T> {
      const parent = currentFrame();
      const body = (frame: Frame) => fn(handleFor(frame, writeHandle));
      return parent === undefined ? outermostWrite(body) : nested(parent, false, body);
    },
    inTransaction(): boolean {
      const frame = currentFrame();
      return frame !== undefined && !frame.readOnly;
    },
    read<T>(fn: (reader: StoreReader) => Promise<T>): Promise<T> {
      const parent = currentFrame();
      // Inside a transaction the enclosing view already is consistent (and sees its own writes).
      if (parent !== undefined) return fn(handleFor(parent, readHandle));
      return outermostRead((frame) => fn(handleFor(frame, readHandle)));
    },
    async close(): Promise<void> {
      if (closed) return;
      const release = await lock.acquire();
      try {
        closed = true;
        db.close();
      } finally {
        release();
      }
    },
  };

  // Reads outside a transaction: one statement each, run at once unless a transaction holds the
  // connection (then after it, so nobody sees another caller's uncommitted rows).
  for (const name of READ_METHOD_NAMES) {
    store[name] = async (...args: unknown[]) => {
      assertOpen();
      if (currentFrame() !== undefined || !lock.held) return call(name, args);
      const release = await lock.acquire();
      try {
        assertOpen();
        return call(name, args);
      } finally {
        release();
      }
    };
  }
  return store as unknown as SqliteStore;
}

