// A server error outside the API (the overlay page, its assets, /healthz) is answered as the API
// answers one, without the error's own message, and logged: per-request lines are off in the
// host, and Fastify's switch for them silenced its error lines too. The route's pattern is
// logged, never the address, which holds the overlay's token.
import { DatabaseSync } from 'node:sqlite';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { startChatskin } from '../../src/runtime/start-chatskin.ts';
import type { RunningChatskin } from '../../src/runtime/start-chatskin.ts';
import { hostConfig } from './host-config.ts';

let running: RunningChatskin | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

describe('server errors outside the API', () => {
  it('a 500 on the overlay page is "Server Error." and logged with its route, without the token; a 404 is not logged', async () => {
    const config = hostConfig('chatskin-server-error-', 'alice', { localChat: { enabled: false } });
    const lines: string[] = [];
    const sink = new Writable({ write(chunk, _encoding, done) { lines.push(String(chunk)); done(); } });
    running = await startChatskin(config, { logger: pino({ level: 'info' }, sink), stdin: null });
    const [overlay] = await running.service.listOverlays(running.account.id);
    const token = overlay!.token;
    expect((await fetch(`${running.baseUrl}/overlay/${token}`)).status).toBe(200);

    expect((await fetch(`${running.baseUrl}/overlay/not-a-token-at-all`)).status).toBe(404);
    expect(lines.join('')).not.toMatch(/unexpected error/);

    // Another program breaks the database under the running host.
    const other = new DatabaseSync(config.store.path);
    try {
      other.exec('ALTER TABLE overlays RENAME COLUMN token TO token_gone');
    } finally {
      other.close();
    }
    const failed = await fetch(`${running.baseUrl}/overlay/${token}`);
    expect(failed.status).toBe(500);
    expect(await failed.json()).toEqual({ message: 'Server Error.' });
    const logged = lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.msg === 'unexpected error in request');
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ level: 50, method: 'GET', route: '/overlay/:token', err: { message: expect.stringMatching(/token/) } });
    expect(lines.join('')).not.toContain(token);
  });
});
