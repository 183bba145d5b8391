// The store's transaction discipline on one node:sqlite connection.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SqliteStore } from '../../../src/service/store/sqlite-store.ts';
import { openSqliteStore } from '../../../src/service/store/sqlite-store.ts';
import type { StoreTransaction } from '../../../src/service/store/store.ts';

let store: SqliteStore;
beforeEach(() => {
  store = openSqliteStore({ path: ':memory:' });
});
afterEach(() => store.close());

const addAccount = (tx: StoreTransaction, login: string) => tx.insertAccount({ login, premium: false, twitchUserId: null });

describe('transactions', () => {
  it('commit every write when the callback resolves, and answer only then', async () => {
    const account = await store.transaction(async (tx) => {
      await addAccount(tx, 'alice');
      return addAccount(tx, 'bob');
    });
    expect(account.login).toBe('bob');
    expect(await store.findAccountByLogin('alice')).not.toBeNull();
  });

  it('roll back every write when the callback throws, leaving nothing changed', async () => {
    await expect(store.transaction(async (tx) => {
      await addAccount(tx, 'alice');
      await tx.updateAccount(1, { premium: true });
      throw new Error('refused halfway');
    })).rejects.toThrow('refused halfway');
    expect(await store.findAccountByLogin('alice')).toBeNull();
  });

  it('roll back when a statement fails, and the connection stays usable', async () => {
    await expect(store.transaction(async (tx) => {
      await addAccount(tx, 'alice');
      await addAccount(tx, 'alice');
    })).rejects.toThrow(/UNIQUE/);
    expect(await store.findAccountByLogin('alice')).toBeNull();
    await store.transaction((tx) => addAccount(tx, 'alice'));
    expect(await store.findAccountByLogin('alice')).not.toBeNull();
  });

  it('run afterCommit callbacks after the commit, and never after a rollback', async () => {
    const seen: string[] = [];
    await store.transaction(async (tx) => {
      await addAccount(tx, 'alice');
      tx.afterCommit(() => seen.push('committed'));
      seen.push('in transaction');
    });
    await store.transaction(async (tx) => {
      tx.afterCommit(() => seen.push('rolled back'));
      throw new Error('no');
    }).catch(() => undefined);
    expect(seen).toEqual(['in transaction', 'committed']);
  });

  it('make other callers wait while a transaction awaits, so nobody reads uncommitted rows', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => { release = resolve; });
    const writing = store.transaction(async (tx) => {
      await addAccount(tx, 'alice');
      await gate;
      throw new Error('abandoned');
    });
    // Let the transaction start and insert before the outside read is issued.
    await new Promise((resolve) => setImmediate(resolve));
    const reading = store.findAccountByLogin('alice');
    const otherWrite = store.transaction((tx) => addAccount(tx, 'bob'));
    release();
    await expect(writing).rejects.toThrow('abandoned');
    expect(await reading).toBeNull();
    expect((await otherWrite).login).toBe('bob');
  });

  it('join a transaction started inside another as a savepoint', async () => {
    const seen: string[] = [];
    await store.transaction(async (tx) => {
      await addAccount(tx, 'alice');
      await store.transaction(async (inner) => {
        await addAccount(inner, 'bob');
        inner.afterCommit(() => seen.push('inner kept'));
      });
      await store.transaction(async (inner) => {
        await addAccount(inner, 'carol');
        inner.afterCommit(() => seen.push('inner dropped'));
        throw new Error('inner fails');
      }).catch(() => undefined);
      // Reads through the store inside the transaction see its own writes.
      expect(await store.findAccountByLogin('bob')).not.toBeNull();
    });
    expect(await store.findAccountByLogin('alice')).not.toBeNull();
    expect(await store.findAccountByLogin('bob')).not.toBeNull();
    expect(await store.findAccountByLogin('carol')).toBeNull();
    expect(seen).toEqual(['inner kept']);
  });

  it('roll back a nested savepoint with its enclosing transaction', async () => {
    await store.transaction(async () => {
      await store.transaction((inner) => addAccount(inner, 'bob'));
      throw new Error('outer fails');
    }).catch(() => undefined);
    expect(await store.findAccountByLogin('bob')).toBeNull();
  });

  it('refuse a transaction handle used after its transaction ended', async () => {
    let leaked!: StoreTransaction;
    await store.transaction(async (tx) => { leaked = tx; });
    await expect(addAccount(leaked, 'alice')).rejects.toThrow(/already ended/);
  });

  it('give read() a consistent view that cannot write', async () => {
    await store.transaction((tx) => addAccount(tx, 'alice'));
    const logins = await store.read(async (reader) => {
      expect('insertAccount' in reader).toBe(false);
      return (await reader.findAccountByLogin('alice'))?.login;
    });
    expect(logins).toBe('alice');
    expect(await store.findAccountByLogin('bob')).toBeNull();
  });

  it('refuse calls after close with a clear message', async () => {
    await store.close();
    await expect(store.findAccountByLogin('alice')).rejects.toThrow(/is closed/);
    await expect(store.transaction(async () => undefined)).rejects.toThrow(/is closed/);
  });
});
