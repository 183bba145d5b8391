import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../../src/service/api-keys.ts';
import type { Harness } from './service-harness.ts';
import { openHarness, refusal } from './service-harness.ts';

const run = promisify(execFile);
const storeModule = new URL('../../../src/service/store/sqlite-store.ts', import.meta.url).href;
const keysModule = new URL('../../../src/service/api-keys.ts', import.meta.url).href;

let h: Harness;
beforeEach(async () => {
  h = await openHarness();
  await h.service.ensureAccount('alice', { premium: true });
});
afterEach(() => h.close());

describe('API keys', () => {
  it('are random 32-byte base64url tokens with a short visible prefix, shown once', async () => {
    const a = await h.service.createKey('alice');
    expect(a.token).toMatch(/^csk_[A-Za-z0-9_-]{43}$/);
    expect(a.prefix).toBe(a.token.slice(0, 10));
    expect(await h.service.describeKey('alice')).toEqual({ prefix: a.prefix, createdAt: a.createdAt });
    await h.service.revokeKey('alice');
    const b = await h.service.createKey('alice');
    expect(b.token).not.toBe(a.token);
  });

  it('are stored only as SHA-256: the database files never contain the token', async () => {
    const { token } = await h.service.createKey('alice');
    const files = [h.dbPath, `${h.dbPath}-wal`].filter(existsSync).map((f) => readFileSync(f));
    const all = Buffer.concat(files);
    expect(all.includes(Buffer.from(hashApiKey(token)))).toBe(true);
    expect(all.includes(Buffer.from(token))).toBe(false);
    expect(all.includes(Buffer.from(token.slice(10)))).toBe(false);
    expect(all.includes(Buffer.from(token.slice(10, 30)))).toBe(false);
  });

  it('authenticate to the account with its current premium flag', async () => {
    const { token } = await h.service.createKey('alice');
    expect((await h.service.authenticate(token))?.account).toEqual({ id: 1, login: 'alice', premium: true, twitchUserId: null });
    await h.service.setPremium('alice', false);
    expect((await h.service.authenticate(token))?.account.premium).toBe(false);
  });

  it('refuse malformed, unknown and near-miss tokens', async () => {
    const { token } = await h.service.createKey('alice');
    const flipped = token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A');
    for (const bad of ['', 'csk_', token.toUpperCase(), flipped, `${token} `, token.slice(4), `csk_${'a'.repeat(43)}`, 'x'.repeat(10_000)]) {
      expect(await h.service.authenticate(bad)).toBeNull();
    }
    expect(await h.service.authenticate(undefined as unknown as string)).toBeNull();
  });

  it('allow one active key per account: creating another is refused with a clear message', async () => {
    const first = await h.service.createKey('alice');
    const error = await refusal(h.service.createKey('alice'));
    expect(error.status).toBe(409);
    expect(error.message).toContain('already has an active API key');
    expect(error.message).toContain(first.prefix);
    expect(error.message).toContain('Revoke it first');
    expect(await h.service.authenticate(first.token)).not.toBeNull();
  });

  it('stop working at once when revoked, and a revoke without a key is refused', async () => {
    const { token } = await h.service.createKey('alice');
    await h.service.revokeKey('alice');
    expect(await h.service.authenticate(token)).toBeNull();
    expect((await refusal(h.service.revokeKey('alice'))).status).toBe(404);
    expect(await h.service.describeKey('alice')).toBeNull();
  });

  it('refuse unknown accounts', async () => {
    const error = await refusal(h.service.createKey('nobody'));
    expect(error.status).toBe(404);
    expect(error.message).toContain('nobody');
  });

  it('see a revoke made by another process on its very next call', async () => {
    const { token } = await h.service.createKey('alice');
    expect(await h.service.authenticate(token)).not.toBeNull();
    const script = `
      const { openSqliteStore } = await import(${JSON.stringify(storeModule)});
      const { createApiKeys } = await import(${JSON.stringify(keysModule)});
      const store = openSqliteStore({ path: ${JSON.stringify(h.dbPath)} });
      const revoked = await createApiKeys(store).revokeKey('alice');
      await store.close();
      process.stdout.write(revoked.prefix);
    `;
    const { stdout } = await run(process.execPath, ['--input-type=module', '--no-warnings', '-e', script]);
    expect(stdout).toBe(token.slice(0, 10));
    expect(await h.service.authenticate(token)).toBeNull();
  });

  it('see premium switched off through another connection on the very next call', async () => {
    const { token } = await h.service.createKey('alice');
    const other = new DatabaseSync(h.dbPath);
    other.prepare("UPDATE accounts SET premium = 0 WHERE login = 'alice'").run();
    other.close();
    expect((await h.service.authenticate(token))?.account.premium).toBe(false);
  });
});
