// Rules the database enforces by itself, so no code path (or a second process) can break them.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SqliteStore } from '../../../src/service/store/sqlite-store.ts';
import { openSqliteStore } from '../../../src/service/store/sqlite-store.ts';
import type { StoreTransaction } from '../../../src/service/store/store.ts';

let store: SqliteStore;
beforeEach(async () => {
  store = openSqliteStore({ path: ':memory:' });
  await store.transaction(async (tx) => {
    await tx.upsertTemplate({ id: 1, slug: 'bubbles', name: 'Bubbles', description: '' });
    await tx.upsertTemplate({ id: 2, slug: 'ticker', name: 'Ticker', description: '' });
    await tx.insertAccount({ login: 'alice', premium: true, twitchUserId: null });
    await tx.insertAccount({ login: 'bob', premium: true, twitchUserId: null });
  });
});
afterEach(() => store.close());

let tokens = 0;
const overlay = (tx: StoreTransaction, accountId: number, name: string, extra: { templateId?: number; isDefault?: boolean; syncSourceId?: number | null } = {}) =>
  tx.insertOverlay({
    accountId, name, templateId: extra.templateId ?? 1, isDefault: extra.isDefault ?? false,
    syncSourceId: extra.syncSourceId ?? null, values: {}, token: `token-${String(++tokens).padStart(32, '0')}`,
  });
const write = <T>(fn: (tx: StoreTransaction) => Promise<T>) => store.transaction(fn);

describe('schema constraints', () => {
  it('allows one active API key per account, any number of revoked ones', async () => {
    const hash = (n: number) => new Uint8Array(32).fill(n);
    const first = await write((tx) => tx.insertApiKey({ accountId: 1, prefix: 'csk_a', hash: hash(1) }));
    await expect(write((tx) => tx.insertApiKey({ accountId: 1, prefix: 'csk_b', hash: hash(2) }))).rejects.toThrow(/UNIQUE/);
    await write((tx) => tx.revokeApiKey(first.id));
    await write((tx) => tx.insertApiKey({ accountId: 1, prefix: 'csk_b', hash: hash(2) }));
    await expect(write((tx) => tx.insertApiKey({ accountId: 2, prefix: 'csk_c', hash: hash(2) }))).rejects.toThrow(/UNIQUE/);
  });

  it('allows one default overlay per account', async () => {
    await write((tx) => overlay(tx, 1, 'Main', { isDefault: true }));
    await expect(write((tx) => overlay(tx, 1, 'Other', { isDefault: true }))).rejects.toThrow(/UNIQUE/);
    await write((tx) => overlay(tx, 2, 'Main', { isDefault: true }));
  });

  it('keeps sync sources on the same account and template, one level deep', async () => {
    const main = await write((tx) => overlay(tx, 1, 'Main', { isDefault: true }));
    const synced = await write((tx) => overlay(tx, 1, 'Synced', { syncSourceId: main.id }));
    await expect(write((tx) => overlay(tx, 2, 'Theirs', { syncSourceId: main.id }))).rejects.toThrow(/FOREIGN KEY/);
    await expect(write((tx) => overlay(tx, 1, 'OtherTemplate', { templateId: 2, syncSourceId: main.id }))).rejects.toThrow(/FOREIGN KEY/);
    await expect(write((tx) => overlay(tx, 1, 'Chained', { syncSourceId: synced.id }))).rejects.toThrow(/must not have a sync source itself/);
    await expect(write((tx) => tx.updateOverlay(main.id, { syncSourceId: synced.id }))).rejects.toThrow(/sync source/);
    await expect(write((tx) => tx.updateOverlay(main.id, { syncSourceId: main.id }))).rejects.toThrow(/its own sync source/);
  });

  it('lets a channel point only at its own or global skins', async () => {
    const skin = (accountId: number | null, slug: string) => write((tx) => tx.insertSkin({
      accountId, templateId: 1, slug, name: slug, description: '', availability: 'free', isActive: true, overrides: {},
    }));
    const bobs = await skin(2, 'bobs');
    const global = await skin(null, 'classic');
    const viewer = await write((tx) => tx.insertViewer({ twitchUserId: '1', twitchUsername: 'v', displayName: null }));
    await expect(write((tx) => tx.setSkinRole(1, 'moderator', bobs.id))).rejects.toThrow(/global or belong to the same account/);
    await expect(write((tx) => tx.insertEntitlement({ accountId: 1, viewerId: viewer.id, skinId: bobs.id, source: 'api' }))).rejects.toThrow(/same account/);
    await expect(write((tx) => tx.setSkinPick(1, viewer.id, bobs.id))).rejects.toThrow(/same account/);
    await write((tx) => tx.setSkinRole(1, 'moderator', global.id));
    await write((tx) => tx.insertEntitlement({ accountId: 1, viewerId: viewer.id, skinId: global.id, source: 'api' }));
    await expect(write((tx) => tx.insertEntitlement({ accountId: 1, viewerId: viewer.id, skinId: global.id, source: 'purchase' }))).rejects.toThrow(/UNIQUE/);
  });

  it('keeps skin slugs unique per owner and among global skins', async () => {
    const skin = (accountId: number | null) => write((tx) => tx.insertSkin({
      accountId, templateId: 1, slug: 'neon', name: 'Neon', description: '', availability: 'free', isActive: true, overrides: {},
    }));
    await skin(1);
    await skin(2);
    await skin(null);
    await expect(skin(1)).rejects.toThrow(/UNIQUE/);
    await expect(skin(null)).rejects.toThrow(/UNIQUE/);
  });

  it('stores logins lowercase only and Twitch ids as digits only', async () => {
    await expect(write((tx) => tx.insertAccount({ login: 'Carol', premium: false, twitchUserId: null }))).rejects.toThrow(/CHECK/);
    await expect(write((tx) => tx.insertViewer({ twitchUserId: '12a', twitchUsername: 'v', displayName: null }))).rejects.toThrow(/CHECK/);
    await expect(write((tx) => tx.insertViewer({ twitchUserId: '12', twitchUsername: 'Vee', displayName: null }))).rejects.toThrow(/CHECK/);
  });
});
