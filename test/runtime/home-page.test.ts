// GET / on the whole host: a page saying chatskin runs there and where its parts are, never an
// overlay's address; the local chat page only for a request from this machine with it on.
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

async function hostWith(localChat: boolean): Promise<RunningChatskin> {
  const config = hostConfig('chatskin-home-', 'alice', { localChat: { enabled: localChat }, api: { prefix: '/api/v1' } });
  running = await startChatskin(config, { logger: pino({ level: 'silent' }), stdin: null });
  return running;
}

async function home(host: RunningChatskin, headers: Record<string, string> = {}): Promise<{ status: number; type: string | null; csp: string | null; body: string }> {
  const answer = await fetch(`${host.baseUrl}/`, { headers });
  return { status: answer.status, type: answer.headers.get('content-type'), csp: answer.headers.get('content-security-policy'), body: await answer.text() };
}

describe('the host\'s bare address', () => {
  it('says chatskin runs, names the API, health and (from this machine) the local chat page, and no overlay address', async () => {
    const host = await hostWith(true);
    const page = await home(host);
    expect(page).toMatchObject({ status: 200, type: 'text/html; charset=utf-8', csp: expect.stringContaining("default-src 'none'") });
    expect(page.body).toContain('chatskin is running');
    expect(page.body).toContain('<code>/api/v1</code>');
    expect(page.body).toContain('href="/healthz"');
    expect(page.body).toContain('href="/local/chat/say"');
    const [overlay] = await host.service.listOverlays(host.account.id);
    expect(page.body).not.toContain(overlay!.token);
  });

  it('answers a path nothing serves (a mistyped overlay address) 404 in the API\'s shape, without repeating the path', async () => {
    const host = await hostWith(true);
    const [overlay] = await host.service.listOverlays(host.account.id);
    for (const [method, path] of [['GET', `/overlays/${overlay!.token}`], ['POST', '/nothing-here'], ['GET', '/api/v2/template']] as const) {
      const answer = await fetch(`${host.baseUrl}${path}`, { method, headers: { accept: 'application/json' } });
      expect(answer.status).toBe(404);
      expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(await answer.json()).toEqual({ message: 'Not Found.' });
    }
    // The API's own 404 is unchanged.
    const api = await fetch(`${host.baseUrl}/api/v1/nothing`, { headers: { accept: 'application/json', 'user-agent': 'ChatskinTests/1.0' } });
    expect(api.status).toBe(404);
    expect(await api.json()).toEqual({ message: 'Not Found.' });
  });

  it('names no local chat page to a request through a proxy, nor with the local chat off', async () => {
    const host = await hostWith(true);
    expect((await home(host, { 'X-Forwarded-For': '203.0.113.7' })).body).not.toContain('/local/chat/say');
    await host.close();
    running = undefined;
    const quiet = await hostWith(false);
    const page = await home(quiet);
    expect(page.status).toBe(200);
    expect(page.body).not.toContain('/local/chat/say');
  });
});
