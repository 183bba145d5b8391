// The overlay page over a long run, as OBS keeps it open for hours, in real headless Chromium
// against a real server (through a proxy that can drop its socket): thousands of chat lines,
// restyles through many fonts and entrances, deletions, clears and reconnects. The page must stay
// bounded: no more message elements than maxMessages at any moment, and nothing left behind by
// what went (elements, listeners, timers, sockets, animations, <style>/<link> elements, font
// faces, repeated font requests), a heap that does not grow, and no backlog.
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, CDPSession, Page } from 'playwright-core';
import { haveChromium, launchChromium, NO_CHROMIUM_NOTE } from '../support/chromium.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENTRANCE_ANIMATIONS } from '../../src/service/settings/catalog.ts';
import { loadFontCatalog } from '../../src/service/settings/fonts.ts';
import { startPushTestServer } from '../service/push/push-test-server.ts';
import type { PushTestServer } from '../service/push/push-test-server.ts';
import { startPrefixProxy } from './prefix-proxy.ts';


const MAX_MESSAGES = 25;
const PIXEL = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');
/** Google families the restyles go through, each shown again later. */
const FAMILY_POOL = [...loadFontCatalog().values()].filter((entry) => entry.source === 'google').map((entry) => entry.family).slice(0, 20);

/**
 * Runs in the page before its own scripts: counts the timers and sockets still alive, and the
 * most message elements ever in the chat (after each change, as the page leaves it).
 */
const PROBE = `(() => {
  const timers = new Set();
  const setTimeoutNative = window.setTimeout.bind(window);
  const clearTimeoutNative = window.clearTimeout.bind(window);
  window.setTimeout = (callback, delay, ...args) => {
    const id = setTimeoutNative((...callArgs) => { timers.delete(id); if (typeof callback === 'function') callback(...callArgs); }, delay, ...args);
    timers.add(id);
    return id;
  };
  window.clearTimeout = (id) => { timers.delete(id); clearTimeoutNative(id); };
  const sockets = new Set();
  const NativeWebSocket = window.WebSocket;
  window.WebSocket = class extends NativeWebSocket {
    constructor(...args) {
      super(...args);
      sockets.add(this);
      this.addEventListener('close', () => sockets.delete(this));
    }
  };
  let mostShown = 0;
  const count = () => document.querySelectorAll('.cs-msg').length;
  document.addEventListener('DOMContentLoaded', () => {
    new MutationObserver(() => { mostShown = Math.max(mostShown, count()); })
      .observe(document.body, { childList: true, subtree: true });
  });
  window.__probe = () => ({
    messages: count(),
    mostShown,
    timers: timers.size,
    openSockets: sockets.size,
    animations: document.getAnimations().length,
    styles: document.querySelectorAll('style').length,
    links: document.querySelectorAll('link').length,
    fontFaces: document.fonts.size,
    elements: document.getElementsByTagName('*').length,
  });
})();`;

interface Probe {
  messages: number; mostShown: number; timers: number; openSockets: number; animations: number;
  styles: number; links: number; fontFaces: number; elements: number;
}

describe.skipIf(!haveChromium)(`overlay page over a long run in Chromium${haveChromium ? '' : ` (skipped: ${NO_CHROMIUM_NOTE})`}`, () => {
  let server: PushTestServer;
  let browser: Browser;
  let assets: Server;
  let assetOrigin: string;
  /** Font stylesheet requests by URL. */
  const fontRequests = new Map<string, number>();

  beforeAll(async () => {
    // Emote, badge and avatar images, and font stylesheets (cacheable for a day, as Google's are),
    // from a local host: the test never reaches the internet.
    assets = createServer((request, response) => {
      const url = new URL(request.url ?? '/', 'http://x');
      if (url.pathname === '/css2') {
        fontRequests.set(request.url!, (fontRequests.get(request.url!) ?? 0) + 1);
        const family = (url.searchParams.get('family') ?? '').split(':')[0]!;
        response.writeHead(200, { 'content-type': 'text/css', 'cache-control': 'private, max-age=86400' })
          .end(`@font-face { font-family: '${family}'; src: url(/fonts/${encodeURIComponent(family)}.woff2) format('woff2'); }\n`);
        return;
      }
      const found = url.pathname.startsWith('/emotes/25/') || url.pathname === '/badge.png' || url.pathname === '/avatar.png';
      response.writeHead(found ? 200 : 404, { 'content-type': found ? 'image/png' : 'text/plain', 'cache-control': 'max-age=86400' })
        .end(found ? PIXEL : 'Not found.');
    });
    await new Promise<void>((resolve) => assets.listen(0, '127.0.0.1', resolve));
    assetOrigin = `http://127.0.0.1:${(assets.address() as AddressInfo).port}`;
    server = await startPushTestServer({
      page: { maxMessages: MAX_MESSAGES, fontStylesheetBaseUrl: `${assetOrigin}/css2`, emoteBaseUrl: `${assetOrigin}/emotes` },
    });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await new Promise((resolve) => assets?.close(resolve));
  });

  async function chat(event: Record<string, unknown>): Promise<void> {
    const response = await fetch(`${server.origin}/local/chat`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: server.main.token, event }),
    });
    expect(response.status).toBe(202);
    await response.arrayBuffer();
  }

  async function measure(page: Page, cdp: CDPSession): Promise<Probe & { heap: number; listeners: number; nodes: number }> {
    // Two collections: the first can leave what finalizers freed for the second.
    await cdp.send('HeapProfiler.collectGarbage');
    await cdp.send('HeapProfiler.collectGarbage');
    const { metrics } = await cdp.send('Performance.getMetrics');
    const metric = (name: string) => metrics.find((m) => m.name === name)!.value;
    const probe = await page.evaluate(() => (window as unknown as { __probe(): Probe }).__probe());
    return { ...probe, heap: metric('JSHeapUsedSize'), listeners: metric('JSEventListeners'), nodes: metric('Nodes') };
  }

  it('stays bounded through thousands of lines, restyles, deletions, clears and reconnects, and keeps up', async () => {
    const proxy = await startPrefixProxy('/chatskin', server.port);
    const page = await browser.newPage({ viewport: { width: 500, height: 800 } });
    try {
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(String(error)));
      await page.addInitScript(PROBE);
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('Performance.enable');
      await page.goto(`${proxy.origin}/chatskin/overlay/${server.main.token}`);
      const live = () => page.waitForFunction(() => document.body.dataset.status === 'live', null, { timeout: 10_000 });
      await live();

      let line = 0;
      /** One round of a busy chat: 100 lines, some deleted, a chatter timed out, a restyle. */
      async function round(index: number): Promise<void> {
        const families = [FAMILY_POOL[(index * 2) % FAMILY_POOL.length]!, FAMILY_POOL[(index * 2 + 1) % FAMILY_POOL.length]!];
        const restyle = server.api('PUT', '/template', {
          scope: 'independent', preset_id: server.main.id,
          values: {
            'username.font-family': families[0], 'message.font-family': families[1],
            'username.font-weight': index % 2 === 0 ? 700 : 400,
            'bubble.animation-entrance': ENTRANCE_ANIMATIONS[index % ENTRANCE_ANIMATIONS.length],
            'bubble.animation-duration': 200 + (index % 5) * 100,
            'message.font-size': 12 + (index % 8),
          },
        });
        for (let batch = 0; batch < 5; batch++) {
          await Promise.all(Array.from({ length: 20 }, () => {
            const n = line++;
            return chat({
              type: 'message', id: `m${n}`, login: `viewer${n % 37}`, userId: String(2000 + (n % 37)),
              displayName: `Viewer ${n % 37}`, color: n % 3 === 0 ? null : '#1e90ff',
              text: `Kappa line ${n} ${'text '.repeat(n % 20)}`, emotes: '25:0-4',
              badges: n % 4 === 0 ? [{ set: 'moderator', imageUrl: `${assetOrigin}/badge.png` }, 'subscriber/12'] : [],
              avatarUrl: n % 5 === 0 ? `${assetOrigin}/avatar.png` : null,
            });
          }));
          await chat({ type: 'message-deleted', messageId: `m${line - 3}` });
        }
        await chat({ type: 'user-cleared', userId: String(2000 + (index % 37)) });
        if (index % 5 === 4) await chat({ type: 'chat-cleared' });
        expect((await restyle).status).toBe(200);
        // A last line the page must show: everything before it was applied (no backlog).
        await chat({ type: 'message', id: `end-${index}`, login: 'closer', text: `round ${index} done` });
        // (waitForFunction, not waitForSelector: its element handle would keep the element alive.)
        await page.waitForFunction((id) => document.querySelector(`.cs-msg[data-message-id="${id}"]`) !== null, `end-${index}`, { timeout: 10_000 });
      }

      async function rounds(from: number, to: number): Promise<void> {
        for (let index = from; index < to; index++) {
          await round(index);
          if (index % 4 === 3) {
            proxy.cutSockets();
            await page.waitForFunction(() => document.body.dataset.status !== 'live', null, { timeout: 5_000 });
            await live();
          }
        }
      }

      // Warm up (code compiled, caches and pools filled), then a long run measured against it.
      await rounds(0, 4);
      const before = await measure(page, cdp);
      await rounds(4, 28);
      const after = await measure(page, cdp);

      expect(errors).toEqual([]);
      expect(after.mostShown).toBeLessThanOrEqual(MAX_MESSAGES);
      expect(after.messages).toBeLessThanOrEqual(MAX_MESSAGES);
      expect(after.openSockets).toBe(1);
      expect(after.timers).toBeLessThanOrEqual(before.timers);
      expect(after.styles).toBe(before.styles);
      // One font stylesheet per family in use (two here), besides the page's own two and its icon.
      expect(after.links).toBeLessThanOrEqual(3 + 2);
      expect(after.fontFaces).toBeLessThanOrEqual(2);
      expect(after.animations).toBeLessThanOrEqual(MAX_MESSAGES * 4);
      // The DOM holds what is on screen only; listeners and nodes do not pile up.
      expect(after.elements).toBeLessThanOrEqual(before.elements + MAX_MESSAGES * 20);
      expect(after.nodes).toBeLessThanOrEqual(before.nodes + MAX_MESSAGES * 20);
      expect(after.listeners).toBeLessThanOrEqual(before.listeners + MAX_MESSAGES * 4);
      // Flat to within some tens of kilobytes in practice; anything kept per line would be megabytes.
      expect(after.heap - before.heap).toBeLessThan(1_000_000);
      // No stylesheet asked for twice: the browser's cache answers a family shown again.
      expect([...fontRequests].filter(([, times]) => times > 1)).toEqual([]);
    } finally {
      await page.close();
      await proxy.close();
    }
  }, 60_000);
});
