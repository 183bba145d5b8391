// A key revoked, or premium switched off, by another process on the same database is refused
// on the very next request: the API reads both on every request. The other process is the real
// CLI (`node src/main.ts keys revoke … / premium … off --config FILE`).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../cli/cli-process.ts';
import { startApiTestServer } from './api-test-server.ts';
import type { ApiTestServer } from './api-test-server.ts';

let server: ApiTestServer;
let config: string;
beforeEach(async () => {
  server = await startApiTestServer();
  config = path.join(server.harness.dir, 'config.yaml');
  writeFileSync(config, `store: { path: ${JSON.stringify(server.harness.dbPath)} }\nlog: { level: warn }\n`);
});
afterEach(async () => {
  await server.close();
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
