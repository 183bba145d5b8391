// A key revoked, or premium switched off, by another process on the same database is refused
// on the very next request: the API reads both on every request. The other process is the real
// CLI (`node src/main.ts keys revoke … / premium … off --config FILE`).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../cli/cli-process.ts';
import { apiTestServerForEachTest, startApiTestServer } from './api-test-server.ts';

const server = apiTestServerForEachTest();
let config: string;
beforeEach(() => {
  config = path.join(server.harness.dir, 'config.yaml');
  writeFileSync(config, `store: { path: ${JSON.stringify(server.harness.dbPath)} }\nlog: { level: warn }\n`);
});

async function cli(...args: string[]): Promise<void> {
  const result = await runCli([...args, '--config', config]);
  expect(result.code, result.stderr).toBe(0);
}

describe('changes made by another process', () => {
  it('a key revoked there is refused with 401 on the very next request', async () => {
    expect((await server.call('/template')).status).toBe(200);
    await cli('keys', 'revoke', 'alice');
    const next = await server.call('/template');
    expect(next.status).toBe(401);
    expect(next.body).toEqual({ message: 'Unauthenticated.' });
    expect((await server.call('/template', { key: server.keys.bob })).status).toBe(200);
  });

  it('premium switched off there is refused with 403 on the very next request, and back on is served', async () => {
    expect((await server.call('/skins')).status).toBe(200);
    await cli('premium', 'alice', 'off');
    const next = await server.call('/skins');
    expect(next.status).toBe(403);
    expect(next.body.message).toMatch(/premium subscription/);
    await cli('premium', 'alice', 'on');
    expect((await server.call('/skins')).status).toBe(200);
  });
});

describe('another program holding the database\'s write lock', () => {
  it('a write that waits out the busy timeout is 503 with Retry-After, stores nothing; reads go on meanwhile; the same write succeeds once the lock is free', async () => {
    const locked = await startApiTestServer({ store: { busyTimeoutMs: 300 } });
    const holder = new DatabaseSync(locked.harness.dbPath);
    try {
      const put = { method: 'PUT', json: { scope: 'independent', values: { 'bubble.gap': 9 } } };
      holder.exec('BEGIN IMMEDIATE');
      const before = locked.dump();
      const refused = await locked.call('/template', put);
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(refused.body).toEqual({ message: 'The database is busy (another program holds its write lock); nothing was changed. Try again shortly.' });
      expect((await locked.call('/template')).status).toBe(200);
      expect(locked.logs.join('')).toMatch(/another program holds the database's write lock/);
      holder.exec('ROLLBACK');
      expect(locked.dump()).toEqual(before);
      const accepted = await locked.call('/template', put);
      expect(accepted.status).toBe(200);
      expect((await locked.call('/template')).body).toMatchObject({ data: { settings_values: { 'bubble.gap': 9 } } });
    } finally {
      if (holder.isTransaction) holder.exec('ROLLBACK');
      holder.close();
      await locked.close();
    }
  });
});
