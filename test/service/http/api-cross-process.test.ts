// A key revoked, or premium switched off, by another process on the same database is refused
// on the very next request: the API reads both on every request.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startApiTestServer } from './api-test-server.ts';
import type { ApiTestServer } from './api-test-server.ts';

const run = promisify(execFile);
const ADMIN_SCRIPT = fileURLToPath(new URL('./admin-child-process.ts', import.meta.url));

async function inChildProcess(server: ApiTestServer, ...args: string[]): Promise<void> {
  await run(process.execPath, [ADMIN_SCRIPT, server.harness.dbPath, ...args], { timeout: 20_000 });
}

let server: ApiTestServer;
beforeEach(async () => {
  server = await startApiTestServer();
});
afterEach(async () => {
  await server.close();
});

describe('changes made by another process', () => {
  it('a key revoked there is refused with 401 on the very next request', async () => {
    expect((await server.call('/template')).status).toBe(200);
    await inChildProcess(server, 'revoke', 'alice');
    const next = await server.call('/template');
    expect(next.status).toBe(401);
    expect(next.body).toEqual({ message: 'Unauthenticated.' });
    expect((await server.call('/template', { key: server.keys.bob })).status).toBe(200);
  });

  it('premium switched off there is refused with 403 on the very next request, and back on is served', async () => {
    expect((await server.call('/skins')).status).toBe(200);
    await inChildProcess(server, 'premium', 'alice', 'off');
    const next = await server.call('/skins');
    expect(next.status).toBe(403);
    expect(next.body.message).toMatch(/premium subscription/);
    await inChildProcess(server, 'premium', 'alice', 'on');
    expect((await server.call('/skins')).status).toBe(200);
  });
});
