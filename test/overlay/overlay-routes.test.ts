// The overlay page and its assets over a real socket.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPushTestServer } from '../service/push/push-test-server.ts';
import type { PushTestServer } from '../service/push/push-test-server.ts';

describe('overlay page routes', () => {
  let server: PushTestServer;
  beforeAll(async () => { server = await startPushTestServer(); });
  afterAll(async () => { await server.close(); });

  it('serves the page for a known token, with a CSP that allows only its own scripts and no referrer', async () => {
    const response = await fetch(`${server.origin}/overlay/${server.main.token}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    // The token's page is kept by no cache (a shared browser profile, a proxy).
    expect(response.headers.get('cache-control')).toBe('no-store');
    const html = await response.text();
    // Relative to the page (/overlay/<token>), so a proxy may serve it under a path prefix.
    expect(html).toContain('<script type="module" src="../overlay-assets/src/overlay/client/main.ts"></script>');
    expect(html).not.toContain(server.main.token); // the page never echoes its token
    // An empty icon of its own: no request for /favicon.ico, no 404 in the browser source's console.
    expect(html).toContain('<link rel="icon" href="data:,">');
  });

  it('serves a 404 page for an unknown or malformed token', async () => {
    for (const token of ['z'.repeat(32), 'a%22%3Cb%3E', 'short']) {
      const response = await fetch(`${server.origin}/overlay/${token}`);
      expect(response.status).toBe(404);
      expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
      const html = await response.text();
      expect(html).toContain('Overlay not found');
      // A token-shaped address may name an overlay later: its page checks, with a script of this
      // server (relative, as the overlay page's), no inline one. Other addresses never will.
      const recheck = '<script type="module" src="../overlay-assets/src/overlay/client/not-found-recheck.ts"></script>';
      if (token === 'a%22%3Cb%3E') expect(html).not.toContain('<script');
      else expect(html).toContain(recheck);
    }
    const deeper = await (await fetch(`${server.origin}/overlay/${'z'.repeat(32)}/extra`)).text();
    expect(deeper).toContain('Overlay not found');
    expect(deeper).not.toContain('<script');
    const script = await fetch(`${server.origin}/overlay-assets/src/overlay/client/not-found-recheck.ts`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    // Past the router's parameter length: still 404 (the server's own envelope).
    expect((await fetch(`${server.origin}/overlay/${'x'.repeat(500)}`)).status).toBe(404);
  });

  it('serves the type-stripped modules as JavaScript, and animate.css', async () => {
    const module = await fetch(`${server.origin}/overlay-assets/src/overlay/settings-css.ts`);
    expect(module.status).toBe(200);
    expect(module.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    // Checked again each time: a restarted host with new code is what the page runs.
    expect(module.headers.get('cache-control')).toBe('no-cache');
    expect(await module.text()).not.toContain('import type');
    const animate = await fetch(`${server.origin}/overlay-assets/animate.css`);
    expect(animate.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(await animate.text()).toBe(readFileSync('node_modules/animate.css/animate.css', 'utf8'));
  });

  it('serves nothing outside the page module graph', async () => {
    for (const path of ['src/service/settings/fonts.ts', 'src/service/store/sqlite-store.ts', '..%2Fpackage.json', 'src/overlay/../../package.json', 'package.json']) {
      const response = await fetch(`${server.origin}/overlay-assets/${path}`);
      expect(response.status, path).toBe(404);
    }
  });
});
