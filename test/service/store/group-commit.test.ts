// Group commit (src/service/store/group-commit.ts): concurrent outermost write transactions share
// one SQLite transaction, each in its own savepoint, all under one COMMIT. Most tests run the real
// store on a real SQLite file and check what another connection sees; a few drive GroupCommit
// directly, over a real DatabaseSync or a small fake connection, to provoke COMMIT failures.
import { AsyncLocalStorage } from 'node:async_hooks';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GroupCommit, MAX_GROUP_COMMIT } from '../../../src/service/store/group-commit.ts';
import type { GroupCommitConnection } from '../../../src/service/store/group-commit.ts';
import { openSqliteStore } from '../../../src/service/store/sqlite-store.ts';
import { isDatabaseBusy } from '../../../src/service/store/store-open-error.ts';
import type { SqliteStore } from '../../../src/service/store/sqlite-store.ts';
import type { StoreTransaction } from '../../../src/service/store/store.ts';
import { TurnLock } from '../../../src/service/store/turn-lock.ts';
import { tempDir } from '../core/service-harness.ts';

let dir: string;
let dbPath: string;
let store: SqliteStore;
/** A second connection on the same file: it sees only what was committed. */
let other: DatabaseSync;

beforeEach(() => {
  dir = tempDir();
  dbPath = path.join(dir, 'chatskin.db');
  store = openSqliteStore({ path: dbPath });
  other = new DatabaseSync(dbPath);
});
afterEach(async () => {
  other.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const addAccount = (tx: StoreTransaction, login: string) => tx.insertAccount({ login, premium: false, twitchUserId: null });
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const logins = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

/** The logins the second connection sees committed, sorted. */
function committedLogins(): string[] {
  return other.prepare('SELECT login FROM accounts ORDER BY login').all().map((row) => String(row.login));
}
const committed = (login: string) => committedLogins().includes(login);

describe('group commit through the store', () => {
  it('lands N concurrent writes with fewer COMMITs than N, all visible to another connection', async () => {
    const names = logins('user', 20);
    const before = store.commits;
    const results = await Promise.all(names.map((login) => store.transaction(async (tx) => {
      const account = await addAccount(tx, login);
      // An await between statements: writes still run one after another, not interleaved.
      await new Promise((resolve) => setImmediate(resolve));
      return (await tx.findAccountById(account.id))!.login;
    })));
    expect(results).toEqual(names);
    const used = store.commits - before;
    expect(used).toBeGreaterThanOrEqual(1);
    expect(used).toBeLessThan(names.length);
    expect(committedLogins()).toEqual([...names].sort());
  });

  it('counts one commit per transaction when writes come one at a time', async () => {
    const before = store.commits;
    for (const login of logins('solo', 3)) await store.transaction((tx) => addAccount(tx, login));
    expect(store.commits - before).toBe(3);
  });

  it('lets a write submitted while a batch runs join that batch', async () => {
    const before = store.commits;
    let started!: () => void;
    const running = new Promise<void>((resolve) => { started = resolve; });
    const first = store.transaction(async (tx) => {
      await addAccount(tx, 'first');
      started();
      await delay(20);
    });
    await running;
    // Submitted from outside the first write (so not a savepoint of it) while it still runs.
    const late = store.transaction((tx) => addAccount(tx, 'late'));
    await Promise.all([first, late]);
    expect(store.commits - before).toBe(1);
    expect(committedLogins()).toEqual(['first', 'late']);
  });

  it('rolls back only a throwing write: it rejects with its own error, the others of its batch commit', async () => {
    const names = logins('ok', 10);
    const own = new Error('refused by write 5');
    const before = store.commits;
    const outcomes = await Promise.allSettled(names.map((login, i) => store.transaction(async (tx) => {
      await addAccount(tx, login);
      await tx.updateAccount((await tx.findAccountByLogin(login))!.id, { premium: true });
      if (i === 5) throw own;
      return login;
    })));
    expect(store.commits - before).toBe(1);
    outcomes.forEach((outcome, i) => {
      if (i === 5) expect(outcome).toEqual({ status: 'rejected', reason: own });
      else expect(outcome).toEqual({ status: 'fulfilled', value: names[i] });
    });
    expect((outcomes[5] as PromiseRejectedResult).reason).toBe(own);
    expect(committedLogins()).toEqual(names.filter((_, i) => i !== 5).sort());
    expect(other.prepare('SELECT count(*) AS n FROM accounts WHERE premium = 1').get()!.n).toBe(9);
  });

  it('rolls back only a write whose statement fails (a UNIQUE violation), keeping its batch', async () => {
    await store.transaction((tx) => addAccount(tx, 'taken'));
    const outcomes = await Promise.allSettled([
      store.transaction((tx) => addAccount(tx, 'a')),
      store.transaction(async (tx) => {
        await addAccount(tx, 'b');
        await addAccount(tx, 'taken');
      }),
      store.transaction((tx) => addAccount(tx, 'c')),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(String((outcomes[1] as PromiseRejectedResult).reason)).toMatch(/UNIQUE/);
    expect(committedLogins()).toEqual(['a', 'c', 'taken']);
  });

  it('answers every write, refused or not, only once another connection can read its batch', async () => {
    const names = logins('w', 8);
    const seenAtAnswer: Array<{ login: string; allVisible: boolean; ownVisible: boolean }> = [];
    const record = (login: string) => {
      seenAtAnswer.push({ login, allVisible: names.filter((_, i) => i !== 3).every(committed), ownVisible: committed(login) });
    };
    await Promise.allSettled(names.map((login, i) => store.transaction(async (tx) => {
      await addAccount(tx, login);
      if (i === 3) throw new Error('refused');
      // The last write keeps the batch open a while: an answer given before the COMMIT would be
      // heard meanwhile, when the other connection cannot see any of these rows yet.
      if (i === names.length - 1) await delay(50);
    }).then(() => record(login), () => record(login))));
    expect(seenAtAnswer).toHaveLength(names.length);
    for (const seen of seenAtAnswer) {
      expect(seen.allVisible, `answer to ${seen.login}`).toBe(true);
      expect(seen.ownVisible, `answer to ${seen.login}`).toBe(seen.login !== 'w3');
    }
  });

  it('runs afterCommit callbacks after the COMMIT, and never those of a refused write', async () => {
    const names = logins('cb', 5);
    const calls: Array<{ login: string; visible: boolean }> = [];
    await Promise.allSettled(names.map((login, i) => store.transaction(async (tx) => {
      await addAccount(tx, login);
      tx.afterCommit(() => calls.push({ login, visible: committed(login) }));
      if (i === 2) throw new Error('refused');
      if (i === names.length - 1) await delay(50);
    })));
    expect(calls.map((c) => c.login).sort()).toEqual(['cb0', 'cb1', 'cb3', 'cb4']);
    expect(calls.every((c) => c.visible)).toBe(true);
  });

  it('runs afterCommit before the write\'s own answer, outside the transaction', async () => {
    const order: string[] = [];
    await store.transaction(async (tx) => {
      await addAccount(tx, 'alice');
      tx.afterCommit(() => order.push('callback'));
    }).then(() => order.push('answer'));
    expect(order).toEqual(['callback', 'answer']);
  });

  it('keeps nested transactions (savepoints) working inside grouped writes', async () => {
    const seen: string[] = [];
    const before = store.commits;
    const outcomes = await Promise.allSettled([
      // Keeps its first inner savepoint, loses the second.
      store.transaction(async (tx) => {
        await addAccount(tx, 'outer1');
        await store.transaction(async (inner) => {
          await addAccount(inner, 'kept1');
          inner.afterCommit(() => seen.push('kept1'));
        });
        await store.transaction(async (inner) => {
          await addAccount(inner, 'dropped1');
          inner.afterCommit(() => seen.push('dropped1'));
          await store.transaction((deeper) => addAccount(deeper, 'deeper1'));
          throw new Error('inner fails');
        }).catch(() => undefined);
        expect(await store.findAccountByLogin('kept1')).not.toBeNull();
        expect(await store.findAccountByLogin('dropped1')).toBeNull();
        expect(await store.findAccountByLogin('deeper1')).toBeNull();
      }),
      // Its inner savepoint succeeded, but the write throws: both go.
      store.transaction(async (tx) => {
        await addAccount(tx, 'outer2');
        await store.transaction(async (inner) => {
          await addAccount(inner, 'inner2');
          inner.afterCommit(() => seen.push('inner2'));
        });
        throw new Error('outer2 fails');
      }),
      store.transaction(async (tx) => {
        await addAccount(tx, 'outer3');
        await store.transaction((inner) => addAccount(inner, 'inner3'));
      }),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(store.commits - before).toBe(1);
    expect(committedLogins()).toEqual(['inner3', 'kept1', 'outer1', 'outer3']);
    expect(seen).toEqual(['kept1']);
  });

  it('never puts more than MAX_GROUP_COMMIT writes in one batch', async () => {
    const count = MAX_GROUP_COMMIT + 10;
    const before = store.commits;
    // Each write notes the number of COMMITs done when it ran: writes of one batch share it.
    const batchOf = await Promise.all(logins('many', count).map((login) => store.transaction(async (tx) => {
      await addAccount(tx, login);
      return store.commits;
    })));
    const sizes = new Map<number, number>();
    for (const batch of batchOf) sizes.set(batch, (sizes.get(batch) ?? 0) + 1);
    expect(store.commits - before).toBeGreaterThanOrEqual(2);
    expect(store.commits - before).toBe(sizes.size);
    expect(Math.max(...sizes.values())).toBeLessThanOrEqual(MAX_GROUP_COMMIT);
    expect(committedLogins()).toHaveLength(count);
  });

  it('runs each write in its caller\'s async context', async () => {
    const requestId = new AsyncLocalStorage<string>();
    const seen = await Promise.all(['r1', 'r2', 'r3'].map((id) => requestId.run(id, () => store.transaction(async (tx) => {
      await addAccount(tx, id);
      return requestId.getStore();
    }))));
    expect(seen).toEqual(['r1', 'r2', 'r3']);
  });

  it('fails every write of a batch whose COMMIT fails, stores none, runs no callback, and stays usable', async () => {
    // A deferred foreign key checked only at COMMIT: inserting the account `dangling` adds an
    // audit row pointing at no account, so the COMMIT of its batch fails.
    other.exec(`
      CREATE TABLE audit (login TEXT, account_id INTEGER REFERENCES accounts(id) DEFERRABLE INITIALLY DEFERRED);
      CREATE TRIGGER audit_dangling AFTER INSERT ON accounts WHEN NEW.login = 'dangling'
      BEGIN INSERT INTO audit VALUES (NEW.login, 999999); END;
    `);
    const before = store.commits;
    const callbacks: string[] = [];
    const outcomes = await Promise.allSettled(['a', 'dangling', 'b'].map((login) => store.transaction(async (tx) => {
      await addAccount(tx, login);
      tx.afterCommit(() => callbacks.push(login));
      return login;
    })));
    for (const outcome of outcomes) {
      expect(outcome.status).toBe('rejected');
      expect(String((outcome as PromiseRejectedResult).reason)).toMatch(/FOREIGN KEY/);
    }
    expect(callbacks).toEqual([]);
    expect(store.commits).toBe(before);
    expect(committedLogins()).toEqual([]);
    expect(other.prepare('SELECT count(*) AS n FROM audit').get()!.n).toBe(0);
    await store.transaction((tx) => addAccount(tx, 'after'));
    expect(committedLogins()).toEqual(['after']);
  });

  it('fails every write of a batch SQLite rolled back on its own; later writes commit in the next batch', async () => {
    // RAISE(ROLLBACK) ends the whole transaction, not just the statement or the savepoint.
    other.exec(`
      CREATE TRIGGER poison BEFORE INSERT ON accounts WHEN NEW.login = 'poison'
      BEGIN SELECT RAISE(ROLLBACK, 'poisoned account'); END;
    `);
    const callbacks: string[] = [];
    const outcomes = await Promise.allSettled(['a', 'b', 'poison', 'c', 'd'].map((login) => store.transaction(async (tx) => {
      await addAccount(tx, login);
      tx.afterCommit(() => callbacks.push(login));
      return login;
    })));
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'rejected', 'fulfilled', 'fulfilled']);
    const reasons = outcomes.slice(0, 3).map((o) => String((o as PromiseRejectedResult).reason));
    expect(reasons[0]).toMatch(/rolled back/);
    expect(reasons[1]).toMatch(/rolled back/);
    expect(reasons[2]).toMatch(/poisoned account/);
    expect(committedLogins()).toEqual(['c', 'd']);
    expect(callbacks.sort()).toEqual(['c', 'd']);
  });

  it('refuses writes once closed, also those submitted just before the close', async () => {
    const pending = store.transaction((tx) => addAccount(tx, 'too-late'));
    const closing = store.close();
    await expect(pending).rejects.toThrow(/is closed/);
    await closing;
    await expect(store.transaction((tx) => addAccount(tx, 'after-close'))).rejects.toThrow(/is closed/);
    expect(committedLogins()).toEqual([]);
  });
});

describe('group commit while another program holds the write lock', () => {
  /** A store on the same file as `other`, waiting at most `busyTimeoutMs` for its lock. */
  const storeWaiting = (busyTimeoutMs: number) => openSqliteStore({ path: dbPath, busyTimeoutMs });

  it('waits without blocking the event loop: reads and timers go on, and the write commits once the lock is let go', async () => {
    const waiting = storeWaiting(30_000);
    try {
      await waiting.transaction((tx) => addAccount(tx, 'before'));
      other.exec('BEGIN IMMEDIATE');
      let settled = false;
      const write = waiting.transaction((tx) => addAccount(tx, 'waiter')).finally(() => {
        settled = true;
      });
      // SQLite's own busy handler would hold the thread here until its timeout, and then fail the write.
      await delay(100);
      expect((await waiting.findAccountByLogin('before'))?.login).toBe('before');
      expect(settled).toBe(false);
      other.exec('COMMIT');
      expect((await write).login).toBe('waiter');
      expect(committed('waiter')).toBe(true);
    } finally {
      if (other.isTransaction) other.exec('ROLLBACK');
      await waiting.close();
    }
  });

  it('past the busy timeout fails the batch\'s writes with "database is locked", stores nothing, and serves the next write once the lock is free', async () => {
    const waiting = storeWaiting(150);
    try {
      other.exec('BEGIN IMMEDIATE');
      const outcomes = await Promise.allSettled(['one', 'two'].map((login) => waiting.transaction((tx) => addAccount(tx, login))));
      for (const outcome of outcomes) {
        expect(outcome.status).toBe('rejected');
        expect(isDatabaseBusy((outcome as PromiseRejectedResult).reason)).toBe(true);
      }
      other.exec('ROLLBACK');
      expect((await waiting.transaction((tx) => addAccount(tx, 'three'))).login).toBe('three');
      expect(committedLogins()).toEqual(['three']);
      // The connection's own busy timeout is back after the wait (reads and COMMIT still use it).
      expect(waiting.connectionSettings().busyTimeoutMs).toBe(150);
    } finally {
      if (other.isTransaction) other.exec('ROLLBACK');
      await waiting.close();
    }
  });
});

describe('GroupCommit on its own', () => {
  /** A connection that logs what it is asked; `failOn` names a statement that throws. */
  class FakeConnection implements GroupCommitConnection {
    readonly log: string[] = [];
    isTransaction = false;
    readonly failOn: string | undefined;
    constructor(failOn?: string) {
      this.failOn = failOn;
    }
    exec(sql: string): void {
      this.log.push(sql);
      if (sql === this.failOn) throw new Error(`${sql} failed: disk I/O error`);
      if (sql.startsWith('BEGIN')) this.isTransaction = true;
      if (sql === 'COMMIT' || sql === 'ROLLBACK') this.isTransaction = false;
    }
  }

  it('settles no write before the COMMIT, and runs the writes one after another', async () => {
    const db = new FakeConnection();
    const group = new GroupCommit(db, new TurnLock(), () => undefined);
    const answers = await Promise.all([1, 2, 3].map((n) => group.submit(async () => {
      db.log.push(`work ${n} start`);
      await delay(5);
      db.log.push(`work ${n} end`);
      return n;
    }).then((value) => {
      db.log.push(`answer ${value}`);
      return value;
    })));
    expect(answers).toEqual([1, 2, 3]);
    expect(group.commits).toBe(1);
    const savepoint = (n: number) => ['SAVEPOINT group_commit_write', `work ${n} start`, `work ${n} end`, 'RELEASE group_commit_write'];
    expect(db.log).toEqual([
      'BEGIN IMMEDIATE', ...savepoint(1), ...savepoint(2), ...savepoint(3), 'COMMIT', 'answer 1', 'answer 2', 'answer 3',
    ]);
  });

  it('rejects every write of the batch with the COMMIT error and rolls back', async () => {
    const db = new FakeConnection('COMMIT');
    const group = new GroupCommit(db, new TurnLock(), () => undefined);
    const own = new Error('write 2 refused');
    const outcomes = await Promise.allSettled([1, 2, 3].map((n) => group.submit(async () => {
      if (n === 2) throw own;
      return n;
    })));
    expect((outcomes[0] as PromiseRejectedResult).reason.message).toBe('COMMIT failed: disk I/O error');
    // The refused write keeps its own error.
    expect((outcomes[1] as PromiseRejectedResult).reason).toBe(own);
    expect((outcomes[2] as PromiseRejectedResult).reason.message).toBe('COMMIT failed: disk I/O error');
    expect(group.commits).toBe(0);
    expect(db.log.slice(-2)).toEqual(['COMMIT', 'ROLLBACK']);
    expect(db.isTransaction).toBe(false);
  });

  it('rejects the waiting writes when the batch cannot begin, then serves the next ones', async () => {
    let open = false;
    const db = new FakeConnection();
    const group = new GroupCommit(db, new TurnLock(), () => {
      if (!open) throw new Error('The store is closed.');
    });
    const outcomes = await Promise.allSettled([1, 2].map((n) => group.submit(async () => n)));
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
    expect(db.log).toEqual([]);
    open = true;
    expect(await group.submit(async () => 'next')).toBe('next');
  });

  it('waits for the connection lock, so it never interleaves with a transaction already running', async () => {
    const db = new FakeConnection();
    const lock = new TurnLock();
    const group = new GroupCommit(db, lock, () => undefined);
    const release = await lock.acquire();
    const answer = group.submit(async () => 'done');
    await delay(10);
    expect(db.log).toEqual([]);
    release();
    expect(await answer).toBe('done');
    expect(db.log[0]).toBe('BEGIN IMMEDIATE');
  });

  it('over a real connection, rolls back a batch whose COMMIT fails so nothing is stored', async () => {
    const realPath = path.join(dir, 'plain.db');
    const db = new DatabaseSync(realPath, { enableForeignKeyConstraints: true });
    try {
      db.exec(`
        PRAGMA journal_mode = WAL;
        CREATE TABLE parent (id INTEGER PRIMARY KEY);
        CREATE TABLE child (id INTEGER PRIMARY KEY, parent_id INTEGER REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED);
      `);
      const group = new GroupCommit(db, new TurnLock(), () => undefined);
      const insert = (sql: string) => group.submit(async () => db.exec(sql));
      const outcomes = await Promise.allSettled([
        insert('INSERT INTO parent VALUES (1)'),
        insert('INSERT INTO child VALUES (1, 1)'),
        insert('INSERT INTO child VALUES (2, 99)'),
      ]);
      for (const outcome of outcomes) {
        expect(String((outcome as PromiseRejectedResult).reason)).toMatch(/FOREIGN KEY/);
      }
      expect(db.isTransaction).toBe(false);
      expect(group.commits).toBe(0);
      const reader = new DatabaseSync(realPath, { readOnly: true });
      try {
        expect(reader.prepare('SELECT (SELECT count(*) FROM parent) + (SELECT count(*) FROM child) AS n').get()!.n).toBe(0);
      } finally {
        reader.close();
      }
      await insert('INSERT INTO parent VALUES (2)');
      expect(group.commits).toBe(1);
      expect(db.prepare('SELECT count(*) AS n FROM parent').get()!.n).toBe(1);
    } finally {
      db.close();
    }
  });
});
