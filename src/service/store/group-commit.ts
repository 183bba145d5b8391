// Group commit: write transactions that arrive together share one SQLite transaction, so one
// COMMIT (with synchronous=FULL, one fsync, the bulk of a write's cost) covers all of them.
//
// - Each write runs alone inside its own SAVEPOINT, one after another (node:sqlite is
//   synchronous, but a write's callback is async, so writes must not interleave). A write that
//   throws rolls back to its savepoint: it has no effect and the others still commit.
// - A batch opens at setImmediate, after the event loop has taken in every request that was
//   ready, and closes when the queue is empty (writes queued while it runs join it) or holds
//   MAX_GROUP_COMMIT writes.
// - Every write's promise settles only after the COMMIT that holds it (also a refused write's,
//   so no answer is ever based on rows that end up not committed). If the COMMIT fails, or
//   SQLite rolls the whole transaction back on its own (disk full, I/O error), every write of
//   the batch fails with that error: none of them took effect.
// - While another program holds the database's write lock, a batch waits for it without blocking
//   the event loop (SQLite's own busy timeout sleeps in the thread: reads, chat and the overlay
//   would stop for as long), the connection lock released meanwhile so reads go on; past
//   `busyWaitMs` its writes fail with SQLite's "database is locked" (isDatabaseBusy).
import { setTimeout as sleep } from 'node:timers/promises';
import { storageFaultOf } from './storage-fault.ts';
import type { StorageFault } from './storage-fault.ts';
import { isDatabaseBusy } from './store-open-error.ts';
import type { TurnLock } from './turn-lock.ts';

/** Most writes one COMMIT covers: bounds how long the first write of a batch waits for its answer. */
export const MAX_GROUP_COMMIT = 64;

/** The part of a node:sqlite connection group commit uses. */
export interface GroupCommitConnection {
  exec(sql: string): void;
  readonly isTransaction: boolean;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

interface Write {
  /** Starts the work, which then runs in the submitter's async context (its AsyncLocalStorage values). */
  start: () => void;
  /** The work's outcome, once started. */
  running: Promise<unknown>;
  outcome?: Outcome;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

const SAVEPOINT = 'group_commit_write';

/** Waits between tries for another program's write lock: short at first, then at most 100 ms. */
const FIRST_BUSY_WAIT_MS = 5;
const LONGEST_BUSY_WAIT_MS = 100;
const NOT_HELD = (): void => {};

export class GroupCommit {
  readonly #db: GroupCommitConnection;
  readonly #lock: TurnLock;
  readonly #assertOpen: () => void;
  readonly #queue: Write[] = [];
  /** A batch is scheduled or running; a write queued meanwhile is taken by it or the next one. */
  #pending = false;
  #commits = 0;
  #storageFault: StorageFault | null = null;
  /** How long a batch waits for another program's write lock; the connection's busy_timeout, restored after each try. */
  readonly #busyWaitMs: number;

  constructor(db: GroupCommitConnection, lock: TurnLock, assertOpen: () => void, busyWaitMs = 0) {
    this.#db = db;
    this.#lock = lock;
    this.#assertOpen = assertOpen;
    this.#busyWaitMs = busyWaitMs;
  }

  /** Write transactions committed so far (a batch of several counts once). */
  get commits(): number {
    return this.#commits;
  }

  /**
   * Why the last batch could not be saved (a full disk, a read-only file, a failing disk), until a
   * batch commits again with none of its writes failing so; null while writes are saved.
   */
  get storageFault(): StorageFault | null {
    return this.#storageFault;
  }

  /** Runs `work` in the next batch; settles with its outcome once that batch has committed. */
  submit<T>(work: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      // A promise reaction runs in the async context of the `then` that made it, here the
      // submitter's: the work runs there once the batch calls `start`. (AsyncLocalStorage.snapshot()
      // does the same at about 2.5 us per write, a few per cent of a whole PUT /template.)
      let start!: () => void;
      const running = new Promise<void>((go) => {
        start = go;
      }).then(work);
      this.#queue.push({ start, running, resolve: resolve as (value: unknown) => void, reject });
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#pending || this.#queue.length === 0) return;
    this.#pending = true;
    setImmediate(() => void this.#runBatch());
  }

  async #runBatch(): Promise<void> {
    const held = { release: await this.#lock.acquire() };
    const batch: Write[] = [];
    let failure: { error: unknown } | undefined;
    try {
      this.#assertOpen();
      await this.#begin(held);
      while (this.#queue.length > 0 && batch.length < MAX_GROUP_COMMIT) {
        const write = this.#queue.shift()!;
        batch.push(write);
        await this.#runWrite(write);
        if (!this.#db.isTransaction) {
          // SQLite ended the transaction itself: the earlier writes of the batch are gone too.
          const cause = write.outcome!.ok ? undefined : (write.outcome as { error: unknown }).error;
          failure = { error: new Error('The write was rolled back: SQLite ended its group-commit transaction.', { cause }) };
          break;
        }
      }
      if (failure === undefined) {
        this.#db.exec('COMMIT');
        this.#commits++;
      }
    } catch (error) {
      failure = { error };
      try {
        if (this.#db.isTransaction) this.#db.exec('ROLLBACK');
      } catch {
        // Nothing more to undo: the writes fail with the first error either way.
      }
    } finally {
      held.release();
    }
    this.#noteStorageFault(batch, failure);
    if (batch.length === 0 && failure !== undefined) {
      // Could not even begin (closed store, another process holding the write lock too long):
      // the writes that were waiting get the error.
      batch.push(...this.#queue.splice(0, MAX_GROUP_COMMIT));
    }
    for (const write of batch) {
      if (failure !== undefined && write.outcome?.ok !== false) write.reject(failure.error);
      else if (write.outcome!.ok) write.resolve(write.outcome!.value);
      else write.reject(write.outcome!.error);
    }
    this.#pending = false;
    this.#schedule();
  }

  #noteStorageFault(batch: readonly Write[], failure: { error: unknown } | undefined): void {
    if (failure !== undefined) {
      // Another program's lock or a closed store says nothing about the disk: the last word stands.
      this.#storageFault = storageFaultOf(failure.error) ?? this.#storageFault;
      return;
    }
    // Committed: saved unless one of its writes failed for the disk on its own.
    let fault: StorageFault | null = null;
    for (const write of batch) {
      if (write.outcome?.ok === false) fault ??= storageFaultOf(write.outcome.error);
    }
    this.#storageFault = fault;
  }

  /**
   * BEGIN IMMEDIATE without SQLite's sleeping busy handler; while another connection holds the
   * write lock, tries again after a wait, the connection lock released meanwhile (`held` is
   * always the release of the hold in force).
   */
  async #begin(held: { release: () => void }): Promise<void> {
    if (this.#busyWaitMs === 0) {
      this.#db.exec('BEGIN IMMEDIATE');
      return;
    }
    const deadline = Date.now() + this.#busyWaitMs;
    for (let wait = FIRST_BUSY_WAIT_MS; ; wait = Math.min(wait * 2, LONGEST_BUSY_WAIT_MS)) {
      try {
        this.#db.exec('PRAGMA busy_timeout = 0');
        try {
          this.#db.exec('BEGIN IMMEDIATE');
          return;
        } finally {
          this.#db.exec(`PRAGMA busy_timeout = ${this.#busyWaitMs}`);
        }
      } catch (error) {
        if (!isDatabaseBusy(error) || Date.now() >= deadline) throw error;
      }
      held.release();
      held.release = NOT_HELD;
      await sleep(Math.min(wait, Math.max(1, deadline - Date.now())));
      held.release = await this.#lock.acquire();
      this.#assertOpen();
    }
  }

  async #runWrite(write: Write): Promise<void> {
    this.#db.exec(`SAVEPOINT ${SAVEPOINT}`);
    try {
      write.start();
      write.outcome = { ok: true, value: await write.running };
      this.#db.exec(`RELEASE ${SAVEPOINT}`);
    } catch (error) {
      write.outcome = { ok: false, error };
      if (this.#db.isTransaction) {
        this.#db.exec(`ROLLBACK TO ${SAVEPOINT}`);
        this.#db.exec(`RELEASE ${SAVEPOINT}`);
      }
    }
  }
}
