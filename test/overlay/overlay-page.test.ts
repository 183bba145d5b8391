// The overlay page end to end in real headless Chromium (Debian's /usr/bin/chromium, driven by
// playwright-core) against a real server: chat injected over POST /local/chat, settings
// changed over PUT /template, computed styles read from the page.
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { inflateSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { haveChromium, launchChromium, NO_CHROMIUM_NOTE } from '../support/chromium.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SETTINGS } from '../../src/service/settings/catalog.ts';
import { OVERLAY_WIDE_KEYS } from '../../src/overlay/settings-css.ts';
import { startPushTestServer } from '../service/push/push-test-server.ts';
import type { PushTestServer } from '../service/push/push-test-server.ts';
import { baseFor, otherValue } from './setting-variations.ts';
import { startPrefixProxy } from './prefix-proxy.ts';

if (!haveChromium) console.warn(`Skipping the overlay browser tests: ${NO_CHROMIUM_NOTE}.`);

const ARTIFACTS = 'test-artifacts';
/** A 1x1 PNG: the emote and badge image of the local image host. */
const PIXEL = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');

describe.skipIf(!haveChromium)(`overlay page in Chromium${haveChromium ? '' : ` (skipped: ${NO_CHROMIUM_NOTE})`}`, () => {
  let server: PushTestServer;
  let browser: Browser;
  let images: Server;
  let imageOrigin: string;

  beforeAll(async () => {
    // Images from a local host (emote 25 and /badge.png exist, nothing else) and font stylesheets
    // from the overlay's server (404s): the test never reaches the internet.
    images = createServer((request, response) => {
      const found = request.url === '/emotes/25/default/dark/2.0' || request.url === '/badge.png';
      response.writeHead(found ? 200 : 404, { 'content-type': found ? 'image/png' : 'text/plain' }).end(found ? PIXEL : 'Not found.');
    });
    await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
    imageOrigin = `http://127.0.0.1:${(images.address() as AddressInfo).port}`;
    server = await startPushTestServer({ page: { maxMessages: 4, fontStylesheetBaseUrl: '/test-fonts/css2', emoteBaseUrl: `${imageOrigin}/emotes` } });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await new Promise((resolve) => images?.close(resolve));
  });

  async function openOverlay(token = server.main.token): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 600, height: 700 } });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(String(error)));
    await page.goto(`${server.origin}/overlay/${token}`);
    await page.waitForFunction(() => document.body.dataset.status === 'live');
    expect(errors).toEqual([]);
    return page;
  }

  async function chat(event: Record<string, unknown>, token = server.main.token): Promise<any> {
    const response = await fetch(`${server.origin}/local/chat`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token, event }),
    });
    expect(response.status).toBe(202);
    return ((await response.json()) as { data: unknown }).data;
  }

  const computed = (page: Page, selector: string, property: string) =>
    page.$eval(selector, (el, p) => getComputedStyle(el).getPropertyValue(p), property);

  /** Sets `values` on the overlay (independent scope) and waits until `page` has the update. */
  async function setOverlayValues(page: Page, overlay: { id: number }, values: Record<string, unknown>): Promise<void> {
    const before = Number(await page.evaluate(() => document.body.dataset.version));
    expect((await server.api('PUT', '/template', { scope: 'independent', preset_id: overlay.id, values })).status).toBe(200);
    await page.waitForFunction((version) => Number(document.body.dataset.version) > version, before);
  }

  it('renders a chat message, then restyles it live after PUT /template without a reload', async () => {
    const page = await openOverlay();
    await page.evaluate(() => { (window as unknown as { notReloaded: boolean }).notReloaded = true; });
    await chat({ type: 'message', login: 'alice', displayName: 'Alice', text: '😀 Kappa <b>bold?</b>', emotes: '25:2-6', color: '#1e90ff', badges: ['subscriber/12'] });
    await page.waitForSelector('.cs-msg');

    // Emote placed by code points after the emoji, alt text = code; markup shown as text.
    expect(await page.$eval('.cs-message', (el) => el.childNodes.length)).toBe(3);
    expect(await page.$eval('.cs-message img.cs-emote', (img) => (img as HTMLImageElement).alt)).toBe('Kappa');
    expect(await page.$eval('.cs-message', (el) => el.textContent)).toBe('😀  <b>bold?</b>');
    expect(await page.$$('.cs-message b')).toHaveLength(0);
    expect(await page.$eval('.cs-username', (el) => el.textContent)).toBe('Alice');
    expect(await computed(page, '.cs-username', 'color')).toBe('rgb(30, 144, 255)');
    expect(await page.$eval('.cs-avatar', (el) => el.textContent)).toBe('A');
    expect(await page.$eval('.cs-badges', (el) => el.children.length)).toBe(1);

    expect(await computed(page, '.cs-message', 'font-size')).toBe('14px');
    const put = await server.api('PUT', '/template', {
      scope: 'independent', preset_id: server.main.id,
      values: { 'message.font-size': 28, 'bubble.background-color': '#18181bcc', 'bubble.border-radius': 12, 'bubble.padding': 10 },
    });
    expect(put.status).toBe(200);
    await page.waitForFunction(() => getComputedStyle(document.querySelector('.cs-message')!).fontSize === '28px');
    expect(await computed(page, '.cs-msg', 'background-color')).toBe('rgba(24, 24, 27, 0.8)');
    expect(await computed(page, '.cs-msg', 'border-top-left-radius')).toBe('12px');
    expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);

    mkdirSync(ARTIFACTS, { recursive: true });
    await page.addStyleTag({ content: 'html { background: #0e0e10; }' });
    await page.waitForFunction(() => document.querySelector('.cs-msg')!.classList.contains('cs-entered'));
    await page.screenshot({ path: `${ARTIFACTS}/overlay-page.png` });
    await page.close();
  });

  it('shows an emote or badge image that does not load as its text, never as a broken image', async () => {
    const page = await openOverlay();
    await chat({
      type: 'message', id: 'images', login: 'imgs', text: 'Kappa gone LUL', emotes: '25:0-4/404404:11-13',
      badges: [{ set: 'moderator', imageUrl: `${imageOrigin}/badge.png` }, { set: 'vip', imageUrl: `${imageOrigin}/missing.png` }],
    });
    const message = '.cs-msg[data-message-id="images"]';
    await page.waitForFunction((sel) => document.querySelector(`${sel} .cs-message`)?.textContent === ' gone LUL', message, { timeout: 5_000 });
    expect(await page.$$eval(`${message} .cs-message img`, (imgs) => imgs.map((img) => (img as HTMLImageElement).alt))).toEqual(['Kappa']);
    await page.waitForFunction((sel) => document.querySelector(`${sel} .cs-badges`)?.textContent === 'V', message, { timeout: 5_000 });
    expect(await page.$$eval(`${message} .cs-badges img`, (imgs) => imgs.map((img) => (img as HTMLImageElement).alt))).toEqual(['moderator']);
    await page.close();
  });

  it("keeps a line's direction when an emote before its first letter does not load and shows as its name", async () => {
    const page = await openOverlay();
    // Emote 404404 is not on the image host: its name takes the image's place, before the Hebrew.
    await chat({ type: 'message', id: 'he-emote', login: 'dana', text: 'LUL שלום עולם!', emotes: '404404:0-2' });
    const text = '.cs-msg[data-message-id="he-emote"] .cs-message';
    await page.waitForFunction((sel) => document.querySelector(sel)?.querySelector('img') === null, text, { timeout: 5_000 });
    expect(await page.$eval(text, (el) => el.textContent)).toBe('LUL שלום עולם!');
    // Still taken from the first letter of the text (an emote's name does not count): right to left.
    expect(await computed(page, text, 'direction')).toBe('rtl');
    await page.close();
  });

  it('skips zero-width and direction characters in the avatar initial; a name of nothing else shows the login', async () => {
    const page = await openOverlay();
    await chat({ type: 'message', id: 'zw-name', login: 'alice', displayName: '\u200b\u202eAlice', text: 'hi' });
    await chat({ type: 'message', id: 'blank-name', login: 'bob', displayName: '\u200b\u200f', text: 'hi' });
    await page.waitForSelector('.cs-msg[data-message-id="blank-name"]');
    const shown = (id: string) => page.$eval(`.cs-msg[data-message-id="${id}"]`, (msg) =>
      [msg.querySelector('.cs-avatar')!.textContent, msg.querySelector('.cs-username')!.textContent]);
    expect(await shown('zw-name')).toEqual(['A', '\u200b\u202eAlice']);
    expect(await shown('blank-name')).toEqual(['B', 'bob']);
    await page.close();
  });

  it('lines up the name of a chatter without badges with the text, in left-to-right and right-to-left bubbles', async () => {
    const overlay = server.source; // the main overlay keeps the settings the other tests expect
    const page = await openOverlay(overlay.token);
    const setValues = (values: Record<string, unknown>) => setOverlayValues(page, overlay, values);
    await setValues({ 'bubble.animation-entrance': 'none' });
    await chat({ type: 'message', id: 'no-badges', login: 'plain', text: 'no badges here' }, overlay.token);
    await page.waitForSelector('.cs-msg[data-message-id="no-badges"]');
    const edges = () => page.$eval('.cs-msg[data-message-id="no-badges"]', (msg) => {
      const box = (selector: string) => msg.querySelector(selector)!.getBoundingClientRect();
      return { name: [box('.cs-username').left, box('.cs-username').right], text: [box('.cs-message').left, box('.cs-message').right], body: [box('.cs-body').left, box('.cs-body').right] };
    });
    let e = await edges();
    expect(e.name[0]).toBe(e.text[0]); // the name starts where the text does
    await setValues({ 'bubble.direction': 'rtl' });
    e = await edges();
    expect(e.name[1]).toBe(e.body[1]); // right to left: both at the right edge
    await setValues({ 'bubble.direction': null, 'username.position': 'inline' });
    e = await edges();
    expect(e.name[0]).toBe(e.body[0]); // inline: the line starts with the name
    await setValues({ 'bubble.direction': null, 'username.position': null, 'bubble.animation-entrance': null });
    await page.close();
  });

  it('wraps a long row of badges inside the bubble; the name is never squeezed', async () => {
    const page = await openOverlay();
    const badges = Array.from({ length: 20 }, (_, index) => `set${index}/1`);
    await chat({ type: 'message', login: 'decorated', displayName: 'Decorated_Viewer', text: 'so many badges', badges });
    await page.waitForSelector('.cs-msg');
    const box = await page.$eval('.cs-msg', (msg) => {
      const rect = (selector: string) => msg.querySelector(selector)!.getBoundingClientRect();
      const name = msg.querySelector('.cs-username') as HTMLElement;
      return { bubble: msg.getBoundingClientRect().right, badges: rect('.cs-badges').right, name: rect('.cs-username').right, nameWraps: name.getClientRects().length > 1 || name.scrollWidth > name.clientWidth + 1, nameWidth: rect('.cs-username').width };
    });
    expect(box.badges).toBeLessThanOrEqual(box.bubble);
    expect(box.name).toBeLessThanOrEqual(box.bubble);
    expect(box.nameWraps).toBe(false);
    expect(box.nameWidth).toBeGreaterThan(60);
    await page.close();
  });

  it('gives a line of emotes the height it needs: emotes on wrapped lines overlap neither each other nor the text', async () => {
    const overlay = server.source; // the main overlay keeps the settings the other tests expect
    const page = await openOverlay(overlay.token);
    const setValues = (values: Record<string, unknown>) => setOverlayValues(page, overlay, values);
    await setValues({ 'bubble.animation-entrance': 'none', 'bubble.width': 300 });
    // Emotes, some in the middle of the text: at 300 px they wrap over several lines.
    const words = ['Kappa', 'Kappa', 'hello', 'Kappa', 'Kappa', 'Kappa', 'there', 'Kappa', 'Kappa', 'Kappa', 'Kappa', 'chat', 'Kappa', 'Kappa', 'Kappa', 'Kappa', 'Kappa', 'Kappa'];
    const text = words.join(' ');
    const ranges: string[] = [];
    let at = 0;
    for (const word of words) {
      if (word === 'Kappa') ranges.push(`${at}-${at + 4}`);
      at += word.length + 1;
    }
    for (const fontSize of [14, 28]) {
      await setValues({ 'message.font-size': fontSize });
      await chat({ type: 'message', id: `emotes-${fontSize}`, login: 'spammer', text, emotes: `25:${ranges.join(',')}` }, overlay.token);
      await page.waitForSelector(`.cs-msg[data-message-id="emotes-${fontSize}"] img.cs-emote`);
      const shown = await page.$eval(`.cs-msg[data-message-id="emotes-${fontSize}"]`, (msg) => {
        const rect = (r: DOMRect) => ({ top: r.top, bottom: r.bottom, left: r.left, right: r.right });
        const emotes = [...msg.querySelectorAll('img.cs-emote')].map((img) => rect(img.getBoundingClientRect()));
        const words = [...msg.querySelector('.cs-message')!.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE && n.textContent!.trim() !== '').map((node) => {
          const range = document.createRange();
          const start = node.textContent!.search(/\S/);
          range.setStart(node, start);
          range.setEnd(node, node.textContent!.trimEnd().length);
          return rect(range.getBoundingClientRect());
        });
        return { emotes, words, name: rect(msg.querySelector('.cs-username')!.getBoundingClientRect()), bubble: rect(msg.getBoundingClientRect()) };
      });
      const overlap = (a: { top: number; bottom: number; left: number; right: number }, b: typeof a) =>
        Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 0.5 && Math.min(a.right, b.right) - Math.max(a.left, b.left) > 0.5;
      expect(new Set(shown.emotes.map((e) => Math.round(e.top))).size).toBeGreaterThan(1); // it does wrap
      for (const [i, emote] of shown.emotes.entries()) {
        for (const other of shown.emotes.slice(i + 1)) expect(overlap(emote, other), `emotes overlap at ${fontSize} px`).toBe(false);
        for (const word of [...shown.words, shown.name]) expect(overlap(emote, word), `an emote covers text at ${fontSize} px`).toBe(false);
        expect(emote.top).toBeGreaterThanOrEqual(shown.bubble.top);
        expect(emote.bottom).toBeLessThanOrEqual(shown.bubble.bottom);
      }
    }
    await setValues({ 'bubble.animation-entrance': null, 'bubble.width': null, 'message.font-size': null });
    await page.close();
  });

  it('sets the name on the same baseline as the text in the inline layout, with image badges, text badges or none', async () => {
    const overlay = server.source; // the main overlay keeps the settings the other tests expect
    const page = await openOverlay(overlay.token);
    const setValues = (values: Record<string, unknown>) => setOverlayValues(page, overlay, values);
    await setValues({ 'bubble.animation-entrance': 'none', 'username.position': 'inline', 'message.font-size': 16 });
    await chat({ type: 'message', id: 'base-img', login: 'imgs', text: 'image badges', badges: [{ set: 'moderator', imageUrl: `${imageOrigin}/badge.png` }, { set: 'vip', imageUrl: `${imageOrigin}/badge.png` }] }, overlay.token);
    await chat({ type: 'message', id: 'base-text', login: 'texts', text: 'text badges', badges: ['moderator/1', 'vip/1'] }, overlay.token);
    await chat({ type: 'message', id: 'base-none', login: 'plain', text: 'no badges' }, overlay.token);
    await page.waitForFunction(() => document.querySelector('.cs-msg[data-message-id="base-img"] img.cs-badge')?.getBoundingClientRect().height! > 1);
    /** The baseline of each: where a zero-size inline-block put at its end sits. */
    const baselines = (id: string) => page.$eval(`.cs-msg[data-message-id="${id}"]`, (msg) => {
      const baseline = (selector: string) => {
        const probe = document.createElement('span');
        probe.style.cssText = 'display: inline-block; width: 0; height: 0;';
        msg.querySelector(selector)!.append(probe);
        const y = probe.getBoundingClientRect().top;
        probe.remove();
        return y;
      };
      return { name: baseline('.cs-username'), text: baseline('.cs-message') };
    });
    for (const id of ['base-img', 'base-text', 'base-none']) {
      const b = await baselines(id);
      expect(Math.abs(b.name - b.text), id).toBeLessThanOrEqual(0.5);
    }
    await setValues({ 'badges.position': 'after-name' });
    const b = await baselines('base-img');
    expect(Math.abs(b.name - b.text), 'badges after the name').toBeLessThanOrEqual(0.5);
    await setValues({ 'bubble.animation-entrance': null, 'username.position': null, 'message.font-size': null, 'badges.position': null });
    await page.close();
  });

  it("draws the avatar's initial on avatar.background-color / -gradient when set, on the name colour otherwise, live", async () => {
    const overlay = server.source; // the main overlay keeps the settings the other tests expect
    const setValues = (values: Record<string, unknown>) => setOverlayValues(page, overlay, values);
    const page = await openOverlay(overlay.token);
    await setValues({ 'bubble.animation-entrance': 'none' });
    await chat({ type: 'message', id: 'avatar', login: 'alice', text: 'hi', color: '#1e90ff' }, overlay.token);
    await page.waitForSelector('.cs-msg[data-message-id="avatar"] .cs-avatar');
    /** What the stream shows a quarter into the avatar (beside the letter): a screenshot's pixel. */
    const avatarPixel = async (id = 'avatar') => {
      const box = (await page.$eval(`.cs-msg[data-message-id="${id}"] .cs-avatar`, (el) => {
        const r = el.getBoundingClientRect();
        return { x: r.left + r.width / 4, y: r.top + r.height / 4 };
      }));
      return pixelAt(await page.screenshot({ clip: { x: Math.floor(box.x), y: Math.floor(box.y), width: 1, height: 1 } }));
    };
    expect(await avatarPixel()).toEqual([30, 144, 255]); // the name colour
    // A chatter without a name colour: grey, not username.font-color (white, which the white letter would vanish on).
    await chat({ type: 'message', id: 'avatar-no-colour', login: 'bob', text: 'hi' }, overlay.token);
    await page.waitForSelector('.cs-msg[data-message-id="avatar-no-colour"] .cs-avatar');
    expect(await avatarPixel('avatar-no-colour')).toEqual([107, 107, 123]);

    await setValues({ 'avatar.background-color': '#ff0000' });
    expect(await avatarPixel()).toEqual([255, 0, 0]);
    await setValues({ 'avatar.background-color': null, 'avatar.background-gradient': 'linear-gradient(90deg, #00ff00 0%, #00ff00 100%)' });
    expect(await avatarPixel()).toEqual([0, 255, 0]);
    await setValues({ 'avatar.background-gradient': null, 'bubble.animation-entrance': null });
    expect(await avatarPixel()).toEqual([30, 144, 255]);
    await page.close();
  });

  it("renders a viewer's picked skin and a role's skin on top of the overlay's settings", async () => {
    const page = await openOverlay();
    await chat({ type: 'message', login: 'viewer', userId: '1001', text: 'picked a skin' });
    await chat({ type: 'message', login: 'mod', userId: '3003', text: 'moderator here', badges: ['moderator/1'] });
    await chat({ type: 'message', login: 'plain', userId: '4004', text: 'no skin' });
    await page.waitForFunction(() => document.querySelectorAll('.cs-msg').length === 3);
    const [picked, mod, plain] = ['1001', '3003', '4004'].map((id) => `.cs-msg[data-user-id="${id}"]`);
    expect(await page.$eval(picked!, (el) => el.className)).toContain(`cs-skin-${server.pickedSkinId}`);
    expect(await computed(page, `${picked} .cs-message`, 'color')).toBe('rgb(255, 215, 0)');
    expect(await computed(page, `${mod}`, 'background-color')).toBe('rgb(0, 255, 0)');
    expect(await computed(page, `${plain} .cs-message`, 'color')).toBe('rgb(255, 255, 255)');
    // The skin sits on top of the overlay: the overlay's own font size carries into skinned messages.
    expect(await computed(page, `${picked} .cs-message`, 'font-size')).toBe(await computed(page, `${plain} .cs-message`, 'font-size'));

    // A skin edit reaches messages already on screen.
    await server.api('PUT', `/skins/${server.pickedSkinId}`, { values: { 'message.font-color': '#ff00ff' } });
    await page.waitForFunction((sel) => getComputedStyle(document.querySelector(sel)!).color === 'rgb(255, 0, 255)', `${picked} .cs-message`);
    await page.close();
  });

  it("shows what a skin sets on an overlay whose own settings would hide it: colour over the overlay's gradient, gradient without its colour, border, name colour", async () => {
    // The overlay has a gradient over a blue bubble and a 4px white border switched off with style none.
    const overlay = await server.service.createOverlay(server.accountId, { name: 'Layering', template: 'bubbles' });
    expect((await server.api('PUT', '/template', {
      scope: 'independent', preset_id: overlay.id, values: {
        'bubble.animation-entrance': 'none', 'bubble.padding': 12, 'avatar.show': false,
        'bubble.background-color': '#0000ff', 'bubble.background-gradient': 'linear-gradient(90deg, #ffff00 0%, #ffff00 100%)',
        'bubble.border-width': 4, 'bubble.border-style': 'none', 'bubble.border-color': '#ffffff',
      },
    })).status).toBe(200);
    const skin = (slug: string, values: Record<string, unknown>) =>
      server.service.createSkin(server.accountId, { slug, name: slug, template: 'bubbles', availability: 'free', values });
    // A red bubble with a cyan border and a gold name, bought by a viewer.
    const red = await skin('layer-red', { 'bubble.background-color': '#ff0000', 'bubble.border-width': 6, 'bubble.border-color': '#00ffff', 'username.font-color': '#ffd700' });
    // A gradient that fades out, meant to show what is behind the overlay, not the overlay's blue.
    const fade = await skin('layer-fade', { 'bubble.background-gradient': 'linear-gradient(90deg, #ff00ff 0%, #ff00ff 50%, transparent 50%, transparent 100%)' });
    const redViewer = await server.service.registerViewer({ twitchUserId: '5005', login: 'redbubble' });
    const fadeViewer = await server.service.registerViewer({ twitchUserId: '6006', login: 'fadebubble' });
    await server.service.pickSkin(server.accountId, redViewer.id, red.id);
    await server.service.pickSkin(server.accountId, fadeViewer.id, fade.id);
    try {
      const page = await openOverlay(overlay.token);
      await page.addStyleTag({ content: 'html { background: #000000; }' });
      const say = (id: string, login: string, userId: string, extra: Record<string, unknown> = {}) =>
        chat({ type: 'message', id, login, userId, text: 'hello there', color: '#1e90ff', ...extra }, overlay.token);
      await say('red', 'redbubble', '5005');
      await say('fade', 'fadebubble', '6006');
      await say('mod', 'amod', '7007', { badges: ['moderator/1'] }); // the moderators' role skin: bubble.background-color #00ff00
      await say('plain', 'plain', '8008');
      await page.waitForFunction(() => document.querySelectorAll('.cs-msg').length === 4);
      const msg = (id: string) => `.cs-msg[data-message-id="${id}"]`;
      /** The stream's pixel `fx` of the way across the bubble, at the middle of its padding. */
      const bubblePixel = async (id: string, fx: number) => {
        const at = await page.$eval(msg(id), (el, f) => {
          const r = el.getBoundingClientRect();
          return { x: r.left + r.width * f, y: r.top + parseFloat(getComputedStyle(el).borderTopWidth) + 3 };
        }, fx);
        return pixelAt(await page.screenshot({ clip: { x: Math.floor(at.x), y: Math.floor(at.y), width: 1, height: 1 } }));
      };

      // The overlay's own messages: its gradient, no border.
      expect(await bubblePixel('plain', 0.5)).toEqual([255, 255, 0]);
      expect(await computed(page, msg('plain'), 'border-top-style')).toBe('none');
      expect(await computed(page, `${msg('plain')} .cs-username`, 'color')).toBe('rgb(30, 144, 255)');
      // The viewer's red bubble is red, not the overlay's gradient; its border shows (style solid, the skin's own).
      expect(await computed(page, msg('red'), 'background-image')).toBe('none');
      expect(await bubblePixel('red', 0.5)).toEqual([255, 0, 0]);
      expect(await computed(page, msg('red'), 'border-top-style')).toBe('solid');
      expect(await computed(page, msg('red'), 'border-top-width')).toBe('6px');
      expect(await computed(page, msg('red'), 'border-top-color')).toBe('rgb(0, 255, 255)');
      // The skin's name colour wins over the chatter's Twitch colour.
      expect(await computed(page, `${msg('red')} .cs-username`, 'color')).toBe('rgb(255, 215, 0)');
      // A role's skin alike: the moderators' green, not the overlay's gradient.
      expect(await bubblePixel('mod', 0.5)).toEqual([0, 255, 0]);
      expect(await computed(page, `${msg('mod')} .cs-username`, 'color')).toBe('rgb(30, 144, 255)'); // it sets no name colour
      // The skin's gradient on its own (transparent) background: its see-through half shows the scene, not the overlay's blue.
      expect(await bubblePixel('fade', 0.25)).toEqual([255, 0, 255]);
      expect(await bubblePixel('fade', 0.75)).toEqual([0, 0, 0]);
      expect(await computed(page, msg('fade'), 'background-color')).toBe('rgba(0, 0, 0, 0)');

      // Live: the overlay dropping its gradient changes nothing for the red skin, and the skin's
      // colour still wins when the overlay turns its gradient back on.
      await setOverlayValues(page, overlay, { 'bubble.background-gradient': null });
      expect(await bubblePixel('plain', 0.5)).toEqual([0, 0, 255]);
      expect(await bubblePixel('red', 0.5)).toEqual([255, 0, 0]);
      mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: `${ARTIFACTS}/overlay-skin-layering.png` });
      await page.close();
    } finally {
      await server.service.pickSkin(server.accountId, redViewer.id, null);
      await server.service.pickSkin(server.accountId, fadeViewer.id, null);
    }
  });

  it("draws the avatar's letter on a skin's name colour, as the name, over the chatter's Twitch colour; the overlay's own avatar background still wins", async () => {
    const overlay = await server.service.createOverlay(server.accountId, { name: 'Avatar name colour', template: 'bubbles' });
    expect((await server.api('PUT', '/template', { scope: 'independent', preset_id: overlay.id, values: { 'bubble.animation-entrance': 'none' } })).status).toBe(200);
    const skin = (slug: string, values: Record<string, unknown>) =>
      server.service.createSkin(server.accountId, { slug, name: slug, template: 'bubbles', availability: 'free', values });
    const gold = await skin('avatar-gold-name', { 'username.font-color': '#ffd700' });
    const navy = await skin('avatar-navy-name', { 'username.font-color': '#000080' });
    const viewers = await Promise.all([['9101', 'goldname'], ['9102', 'goldnocolour'], ['9103', 'navyname']].map(([twitchUserId, login]) =>
      server.service.registerViewer({ twitchUserId: twitchUserId!, login: login! })));
    await server.service.pickSkin(server.accountId, viewers[0]!.id, gold.id);
    await server.service.pickSkin(server.accountId, viewers[1]!.id, gold.id);
    await server.service.pickSkin(server.accountId, viewers[2]!.id, navy.id);
    try {
      const page = await openOverlay(overlay.token);
      const say = (id: string, login: string, userId: string, extra: Record<string, unknown> = {}) =>
        chat({ type: 'message', id, login, userId, text: 'hi', ...extra }, overlay.token);
      await say('gold', 'goldname', '9101', { color: '#1e90ff' });
      await say('gold-no-colour', 'goldnocolour', '9102');
      await say('navy', 'navyname', '9103', { color: '#1e90ff' });
      await say('mod', 'amod', '7007', { color: '#1e90ff', badges: ['moderator/1'] }); // the moderators' role skin sets no name colour
      await page.waitForFunction(() => document.querySelectorAll('.cs-msg').length === 4);
      const part = (id: string, cls: string) => `.cs-msg[data-message-id="${id}"] .${cls}`;
      const avatar = async (id: string) => ({
        name: await computed(page, part(id, 'cs-username'), 'color'),
        background: await computed(page, part(id, 'cs-avatar-initial'), 'background-color'),
        letter: await computed(page, part(id, 'cs-avatar-initial'), 'color'),
      });
      // The gold-name skin: name and avatar gold, for a chatter with a Twitch colour and one without;
      // the letter dark, as white would hardly show on gold.
      expect(await avatar('gold')).toEqual({ name: 'rgb(255, 215, 0)', background: 'rgb(255, 215, 0)', letter: 'rgb(26, 26, 26)' });
      expect(await avatar('gold-no-colour')).toEqual({ name: 'rgb(255, 215, 0)', background: 'rgb(255, 215, 0)', letter: 'rgb(26, 26, 26)' });
      // A dark skin colour keeps the white letter.
      expect(await avatar('navy')).toEqual({ name: 'rgb(0, 0, 128)', background: 'rgb(0, 0, 128)', letter: 'rgb(255, 255, 255)' });
      // A skin without a name colour: name and avatar in the chatter's Twitch colour, as on the overlay.
      expect(await avatar('mod')).toEqual({ name: 'rgb(30, 144, 255)', background: 'rgb(30, 144, 255)', letter: 'rgb(255, 255, 255)' });

      // The streamer's own avatar background is the overlay's choice for every avatar: the skin's
      // name colour does not paint over it (the skin sets the name's colour, not the avatar's).
      await setOverlayValues(page, overlay, { 'avatar.background-color': '#ff0000' });
      expect(await computed(page, part('gold', 'cs-avatar'), 'background-color')).toBe('rgb(255, 0, 0)');
      expect(await avatar('gold')).toEqual({ name: 'rgb(255, 215, 0)', background: 'rgba(0, 0, 0, 0)', letter: 'rgb(255, 255, 255)' });
      await page.close();
    } finally {
      for (const viewer of viewers) await server.service.pickSkin(server.accountId, viewer.id, null);
    }
  });

  it("draws the avatar's letter dark on a light colour (Twitch's, a skin's name colour, the avatar's own background) and white on a dark one", async () => {
    const overlay = await server.service.createOverlay(server.accountId, { name: 'Avatar letter', template: 'bubbles' });
    expect((await server.api('PUT', '/template', { scope: 'independent', preset_id: overlay.id, values: { 'bubble.animation-entrance': 'none' } })).status).toBe(200);
    const page = await openOverlay(overlay.token);
    // Twitch's own SpringGreen and a gold a Turbo chatter picked; DodgerBlue; no colour (grey). maxMessages is 4.
    const colours: Record<string, string | undefined> = { spring: '#00ff7f', gold: '#ffd700', dodger: '#1e90ff', none: undefined };
    for (const [id, color] of Object.entries(colours)) {
      await chat({ type: 'message', id, login: `letter${id}`, text: 'hi', ...(color === undefined ? {} : { color }) }, overlay.token);
    }
    await page.waitForFunction(() => document.querySelectorAll('.cs-msg').length === 4);
    const avatar = async (id: string) => {
      const selector = `.cs-msg[data-message-id="${id}"] .cs-avatar-initial`;
      return { background: await computed(page, selector, 'background-color'), letter: await computed(page, selector, 'color') };
    };
    const dark = 'rgb(26, 26, 26)';
    const white = 'rgb(255, 255, 255)';
    expect(await avatar('spring')).toEqual({ background: 'rgb(0, 255, 127)', letter: dark });
    expect(await avatar('gold')).toEqual({ background: 'rgb(255, 215, 0)', letter: dark }); // as on the gold-name skin
    expect(await avatar('dodger')).toEqual({ background: 'rgb(30, 144, 255)', letter: white });
    expect(await avatar('none')).toEqual({ background: 'rgb(107, 107, 123)', letter: white });
    // The same rule on the avatar's own background: dark on a yellow one, white on a navy one or a gradient.
    await setOverlayValues(page, overlay, { 'avatar.background-color': '#ffff00' });
    expect(await computed(page, '.cs-msg[data-message-id="dodger"] .cs-avatar', 'background-color')).toBe('rgb(255, 255, 0)');
    for (const id of Object.keys(colours)) expect(await avatar(id)).toEqual({ background: 'rgba(0, 0, 0, 0)', letter: dark });
    await setOverlayValues(page, overlay, { 'avatar.background-color': '#000080' });
    for (const id of Object.keys(colours)) expect((await avatar(id)).letter).toBe(white);
    await setOverlayValues(page, overlay, { 'avatar.background-color': null, 'avatar.background-gradient': 'linear-gradient(90deg, #ffff00 0%, #ffff00 100%)' });
    for (const id of Object.keys(colours)) expect((await avatar(id)).letter).toBe(white);
    await page.close();
  });

  it("draws the overlay's value, not the catalog default, for a skin value the page cannot render (an old or hand-edited row)", async () => {
    const overlay = server.source; // the main overlay keeps the settings the other tests expect
    expect((await server.api('PUT', '/template', { scope: 'independent', preset_id: overlay.id, values: { 'message.font-size': 22, 'bubble.width': 300 } })).status).toBe(200);
    const viewer = await server.service.registerViewer({ twitchUserId: '2002', login: 'brokenskin' });
    const skin = await server.service.createSkin(server.accountId, {
      slug: 'broken', name: 'Broken', template: 'bubbles', availability: 'free', values: { 'message.font-color': '#ff0000' },
    });
    await server.service.pickSkin(server.accountId, viewer.id, skin.id);
    // Written past the API's checks, as a row of an older chatskin (or a hand edit) would be.
    await server.store.transaction(async (tx) => tx.updateSkin(skin.id, {
      overrides: { 'message.font-color': '#ff0000', 'message.font-size': 'huge', 'bubble.width': -5 } as never,
    }));
    const page = await openOverlay(overlay.token);
    await chat({ type: 'message', id: 'broken-skin', login: 'brokenskin', userId: '2002', text: 'skinned' }, overlay.token);
    const msg = `.cs-msg[data-message-id="broken-skin"]`;
    await page.waitForSelector(msg);
    expect(await computed(page, `${msg} .cs-message`, 'color')).toBe('rgb(255, 0, 0)'); // the skin's good value
    expect(await computed(page, `${msg} .cs-message`, 'font-size')).toBe('22px'); // the overlay's, under the broken one
    expect(await computed(page, msg, 'width')).toBe('300px');
    await page.close();
    await server.service.pickSkin(server.accountId, viewer.id, null);
    await server.api('PUT', '/template', { scope: 'independent', preset_id: overlay.id, values: { 'message.font-size': null, 'bubble.width': null } });
  });

  it("removes a deleted message, a cleared user's messages and everything on chat clear, and keeps at most maxMessages", async () => {
    const page = await openOverlay();
    const count = () => page.$$eval('.cs-msg', (els) => els.length);
    const first = await chat({ type: 'message', login: 'a1', text: 'one' });
    await chat({ type: 'message', login: 'a2', userId: '77', text: 'two' });
    await chat({ type: 'message', login: 'a2', userId: '77', text: 'three' });
    await chat({ type: 'message', login: 'a3', text: 'four' });
    await page.waitForFunction(() => document.querySelectorAll('.cs-msg').length === 4);
    await chat({ type: 'message-deleted', messageId: first.id });
    await page.waitForFunction(() => document.querySelectorAll('.cs-msg').length === 3);
    await chat({ type: 'user-cleared', userId: '77' });
    await page.waitForFunction(() => document.querySelectorAll('.cs-msg').length === 1);
    expect(await page.$eval('.cs-message', (el) => el.textContent)).toBe('four');
    for (const n of [5, 6, 7, 8, 9]) await chat({ type: 'message', login: 'b', text: `m${n}` });
    await page.waitForFunction(() => document.querySelector('.cs-msg:last-child .cs-message')?.textContent === 'm9');
    expect(await count()).toBe(4); // maxMessages: 4 for this server
    expect(await page.$$eval('.cs-message', (els) => els.map((el) => el.textContent))).toEqual(['m6', 'm7', 'm8', 'm9']);
    await chat({ type: 'chat-cleared' });
    await page.waitForFunction(() => document.querySelectorAll('.cs-msg').length === 0);
    await page.close();
  });

  it('runs each message in its own text direction, in block and inline layouts, left-to-right and right-to-left overlays', async () => {
    // The sync source overlay, so the main overlay keeps the settings the other tests expect.
    const overlay = server.source;
    const setValues = async (values: Record<string, unknown>) => {
      expect((await server.api('PUT', '/template', { scope: 'independent', preset_id: overlay.id, values })).status).toBe(200);
    };
    const page = await openOverlay(overlay.token);
    /** Whether the line's last character (its punctuation) is drawn left of its first. */
    const lastIsLeftOfFirst = (id: string) => page.$eval(`.cs-msg[data-message-id="${id}"] .cs-message`, (el) => {
      const node = [...el.childNodes].find((n) => n.nodeType === Node.TEXT_NODE)!;
      const left = (index: number) => {
        const range = document.createRange();
        range.setStart(node, index);
        range.setEnd(node, index + 1);
        return range.getBoundingClientRect().left;
      };
      return left(node.textContent!.length - 1) < left(0);
    });
    const direction = (selector: string) => computed(page, selector, 'direction');
    const shown = (id: string) => page.waitForSelector(`.cs-msg[data-message-id="${id}"]`);

    // A Hebrew line in a left-to-right overlay ends at its left, as Hebrew does, name above or inline.
    await chat({ type: 'message', id: 'he-block', login: 'dana', displayName: 'דנה', text: 'שלום עולם!' });
    await shown('he-block');
    expect(await lastIsLeftOfFirst('he-block')).toBe(true);
    expect(await direction('.cs-msg[data-message-id="he-block"] .cs-username')).toBe('rtl');
    await setValues({ 'username.position': 'inline' });
    await page.waitForFunction(() => getComputedStyle(document.querySelector('.cs-message')!).display === 'inline');
    await chat({ type: 'message', id: 'he-inline', login: 'dana', text: 'שלום עולם!' });
    await shown('he-inline');
    expect(await lastIsLeftOfFirst('he-inline')).toBe(true);

    // An English line in a right-to-left overlay ends at its right; a line without letters keeps the overlay's direction.
    await setValues({ 'username.position': 'above-message', 'bubble.direction': 'rtl' });
    await page.waitForFunction(() => getComputedStyle(document.querySelector('.cs-body')!).direction === 'rtl');
    await chat({ type: 'message', id: 'en', login: 'alice', text: 'hello world!' });
    await chat({ type: 'message', id: 'emote-only', login: 'alice', text: 'Kappa 123', emotes: '25:0-4' });
    await shown('emote-only');
    expect(await lastIsLeftOfFirst('en')).toBe(false);
    expect(await direction('.cs-msg[data-message-id="emote-only"] .cs-message')).toBe('rtl');

    await setValues({ 'username.position': null, 'bubble.direction': null });
    await page.close();
  });

  it('places new messages, bubbles, avatars and badges where their settings say', async () => {
    // The sync source overlay, so the main overlay keeps the settings the other tests expect.
    const overlay = server.source;
    const page = await openOverlay(overlay.token);
    /** Applies the values and waits for the page to have the update. */
    const setValues = (values: Record<string, unknown>) => setOverlayValues(page, overlay, values);
    await chat({ type: 'message', id: 'older', login: 'first', text: 'older', badges: ['moderator/1'] }, overlay.token);
    await chat({ type: 'message', id: 'newer', login: 'second', text: 'newer', badges: ['moderator/1'] }, overlay.token);
    await page.waitForSelector('.cs-msg[data-message-id="newer"]');
    const boxes = () => page.evaluate(() => {
      const box = (el: Element) => { const r = el.getBoundingClientRect(); return { left: r.left, right: r.right, top: r.top }; };
      const parts = (id: string) => {
        const msg = document.querySelector(`.cs-msg[data-message-id="${id}"]`)!;
        return { msg: box(msg), avatar: box(msg.querySelector('.cs-avatar')!), body: box(msg.querySelector('.cs-body')!), badges: box(msg.querySelector('.cs-badges')!), name: box(msg.querySelector('.cs-username')!) };
      };
      return { chat: box(document.querySelector('.cs-chat')!), older: parts('older'), newer: parts('newer') };
    });

    await setValues({ 'bubble.message-direction': 'bottom-up', 'bubble.full-width': false, 'bubble.width': 200, 'bubble.alignment': 'left', 'avatar.show': true, 'avatar.position': 'left', 'badges.show': true, 'badges.position': 'before-name', 'username.position': 'above-message' });
    let b = await boxes();
    expect(b.newer.msg.top).toBeGreaterThan(b.older.msg.top); // new at the bottom
    expect(b.newer.msg.left - b.chat.left).toBeLessThan(b.chat.right - b.newer.msg.right); // bubble at the left
    expect(b.newer.avatar.right).toBeLessThanOrEqual(b.newer.body.left); // avatar at the left
    expect(b.newer.badges.right).toBeLessThanOrEqual(b.newer.name.left); // badges before the name

    await setValues({ 'bubble.message-direction': 'top-down', 'bubble.alignment': 'right', 'avatar.position': 'right', 'badges.position': 'after-name' });
    b = await boxes();
    expect(b.newer.msg.top).toBeLessThan(b.older.msg.top); // new at the top
    expect(b.chat.right - b.newer.msg.right).toBeLessThan(b.newer.msg.left - b.chat.left); // bubble at the right
    expect(b.newer.avatar.left).toBeGreaterThanOrEqual(b.newer.body.right); // avatar at the right
    expect(b.newer.badges.left).toBeGreaterThanOrEqual(b.newer.name.right); // badges after the name

    await setValues({ 'bubble.message-direction': 'right-to-left', 'bubble.width': 150 });
    b = await boxes();
    expect(b.newer.msg.left).toBeGreaterThan(b.older.msg.left); // new at the right
    await setValues({ 'bubble.message-direction': 'left-to-right' });
    b = await boxes();
    expect(b.newer.msg.left).toBeLessThan(b.older.msg.left); // new at the left

    await setValues(Object.fromEntries(['bubble.message-direction', 'bubble.full-width', 'bubble.width', 'bubble.alignment', 'avatar.show', 'avatar.position', 'badges.show', 'badges.position', 'username.position'].map((key) => [key, null])));
    await page.close();
  });

  it('clears the chat after a reconnect: removals sent while the socket was down are lost', async () => {
    const proxy = await startPrefixProxy('/chatskin', server.port);
    try {
      const page = await browser.newPage();
      await page.goto(`${proxy.origin}/chatskin/overlay/${server.main.token}`);
      await page.waitForFunction(() => document.body.dataset.status === 'live', null, { timeout: 5_000 });
      await chat({ type: 'message', id: 'before-drop', login: 'alice', text: 'shown before the drop' });
      await page.waitForSelector('.cs-msg[data-message-id="before-drop"]');
      proxy.cutSockets();
      await page.waitForFunction(() => document.body.dataset.status !== 'live', null, { timeout: 5_000 });
      await page.waitForFunction(() => document.body.dataset.status === 'live', null, { timeout: 10_000 });
      expect(await page.$$('.cs-msg')).toHaveLength(0);
      await page.close();
    } finally {
      await proxy.close();
    }
  });

  it('does not start an entrance over on a message still entering when the entrance changes', async () => {
    const overlay = server.source; // the main overlay keeps the settings the other tests expect
    const page = await openOverlay(overlay.token);
    const setValues = (values: Record<string, unknown>) => setOverlayValues(page, overlay, values);
    // The longest entrance the catalog allows: time for the restyle below to reach the page on a busy machine.
    await setValues({ 'bubble.animation-entrance': 'slide-in-up', 'bubble.animation-duration': 10000 });
    await chat({ type: 'message', id: 'entering', login: 'alice', text: 'sliding in' }, overlay.token);
    const msg = '.cs-msg[data-message-id="entering"]';
    const entrance = () => page.$eval(msg, (el) => el.getAnimations().map((a) => ({ name: (a as CSSAnimation).animationName, at: Number(a.currentTime) })));
    await page.waitForFunction((sel) => Number(document.querySelector(sel)?.getAnimations()[0]?.currentTime) > 300, msg);
    const [before] = await entrance();
    expect(before!.name).toBe('slideInUp');

    await setValues({ 'bubble.animation-entrance': 'zoom-in' });
    const [after] = await entrance();
    expect(after!.name).toBe('slideInUp'); // carries on, not started over as a zoom
    expect(after!.at).toBeGreaterThanOrEqual(before!.at);
    // A message that comes now enters with the new one.
    await chat({ type: 'message', id: 'entering-next', login: 'alice', text: 'zooming in' }, overlay.token);
    await page.waitForSelector('.cs-msg[data-message-id="entering-next"]');
    expect(await page.$eval('.cs-msg[data-message-id="entering-next"]', (el) => el.getAnimations().map((a) => (a as CSSAnimation).animationName))).toEqual(['zoomIn']);
    await setValues({ 'bubble.animation-entrance': null, 'bubble.animation-duration': null });
    await page.close();
  });

  it('does not play an entrance again on an element hidden while it entered and shown again', async () => {
    const overlay = server.source; // the main overlay keeps the settings the other tests expect
    const page = await openOverlay(overlay.token);
    const setValues = (values: Record<string, unknown>) => setOverlayValues(page, overlay, values);
    await setValues({ 'bubble.animation-entrance': 'none', 'avatar.animation-entrance': 'fade-in', 'avatar.animation-duration': 10000 });
    await chat({ type: 'message', id: 'hidden-avatar', login: 'alice', text: 'hello' }, overlay.token);
    const avatar = '.cs-msg[data-message-id="hidden-avatar"] .cs-avatar';
    await page.waitForFunction((sel) => Number(document.querySelector(sel)?.getAnimations()[0]?.currentTime) > 100, avatar);
    await setValues({ 'avatar.show': false });
    await setValues({ 'avatar.show': null });
    expect(await page.$eval(avatar, (el) => el.getAnimations().length)).toBe(0);
    expect(await computed(page, avatar, 'opacity')).toBe('1');
    await setValues({ 'bubble.animation-entrance': null, 'avatar.animation-entrance': null, 'avatar.animation-duration': null });
    await page.close();
  });

  it('removes a message deleted while the page waits for the snapshot of its resync', async () => {
    const page = await browser.newPage();
    // Between the page and the server, a socket that can lose one chat frame, as flow control
    // drops one for a page that reads too slowly: the page sees the gap and resyncs.
    let dropNextChat = false;
    await page.routeWebSocket(/\/ws$/, (toPage) => {
      const toServer = toPage.connectToServer();
      toServer.onMessage((message) => {
        if (dropNextChat && String(message).includes('"type":"chat"')) dropNextChat = false;
        else toPage.send(message);
      });
    });
    await page.goto(`${server.origin}/overlay/${server.main.token}`);
    await page.waitForFunction(() => document.body.dataset.status === 'live');
    const message = (id: string) => ({ type: 'message' as const, id, userId: '55', login: 'spammer', displayName: 'spammer', color: null, text: id, emotes: '', badges: [], avatarUrl: null });
    const shown = () => page.$$eval('.cs-msg', (els) => els.map((el) => (el as HTMLElement).dataset.messageId));
    server.gateway.pushChatEvent(server.accountId, message('spam'));
    await page.waitForSelector('.cs-msg[data-message-id="spam"]');

    // The store is busy (another transaction holds it), so the resync's snapshot read waits.
    let releaseStore!: () => void;
    const storeHeld = server.store.read(() => new Promise<void>((resolve) => { releaseStore = resolve; }));
    const reads = server.gateway.stats().styleReads;
    dropNextChat = true;
    server.gateway.pushChatEvent(server.accountId, message('lost'));
    await expect.poll(() => dropNextChat).toBe(false);
    server.gateway.pushChatEvent(server.accountId, message('after-gap'));
    await page.waitForSelector('.cs-msg[data-message-id="after-gap"]');
    await expect.poll(() => server.gateway.stats().styleReads).toBe(reads + 1); // the page asked; the read waits
    const version = Number(await page.evaluate(() => document.body.dataset.version));
    // A moderator deletes the spam meanwhile, and chat goes on.
    server.gateway.pushChatEvent(server.accountId, { type: 'message-deleted', messageId: 'spam' });
    server.gateway.pushChatEvent(server.accountId, message('meanwhile'));
    releaseStore();
    await storeHeld;
    await page.waitForFunction((v) => Number(document.body.dataset.version) >= v + 2 && document.body.dataset.status === 'live', version);
    expect(await shown()).toEqual(['after-gap', 'meanwhile']);
    await page.close();
  });

  it('shows the lines typed while a page that just connected waits for its first snapshot, each once', async () => {
    const overlay = server.syncedA; // no other page of it open: its snapshot is a read
    // The store is busy (another transaction holds it) once the page's socket is let in, so its snapshot read waits.
    const hold = server.holdStoreOnNextUpgrade(overlay.token);
    const reads = server.gateway.stats().styleReads;
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(String(error)));
    await page.goto(`${server.origin}/overlay/${overlay.token}`);
    await expect.poll(() => server.gateway.stats().styleReads).toBe(reads + 1);
    expect(await page.evaluate(() => document.body.dataset.status)).toBe('connecting');
    const message = (id: string) => ({ type: 'message' as const, id, userId: '56', login: 'early', displayName: 'early', color: null, text: id, emotes: '', badges: [], avatarUrl: null });
    server.gateway.pushChatEvent(server.accountId, message('typed-meanwhile'));
    server.gateway.pushChatEvent(server.accountId, message('deleted-meanwhile'));
    server.gateway.pushChatEvent(server.accountId, { type: 'message-deleted', messageId: 'deleted-meanwhile' });
    server.gateway.pushChatEvent(server.accountId, { type: 'message-deleted', messageId: 'never-shown-here' });
    await hold.release();
    await page.waitForFunction(() => document.body.dataset.status === 'live');
    const shown = () => page.$$eval('.cs-msg', (els) => els.map((el) => (el as HTMLElement).dataset.messageId));
    expect(await shown()).toEqual(['typed-meanwhile']);
    // What follows the snapshot is the next version: applied once, and no resync.
    server.gateway.pushChatEvent(server.accountId, message('after'));
    await page.waitForSelector('.cs-msg[data-message-id="after"]');
    expect(await shown()).toEqual(['typed-meanwhile', 'after']);
    expect(server.gateway.stats().styleReads).toBe(reads + 1);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('changes the computed style of the page for every catalog key (overlay-wide and in a skin)', async () => {
    const page = await openOverlay();
    // No name colour: username.font-color is the colour for chatters without one.
    await chat({ type: 'message', login: 'fixture', text: 'Kappa text', emotes: '25:0-4', badges: ['vip/1'] });
    await page.waitForSelector('.cs-msg');
    const variations = SETTINGS.map((spec) => {
      const base = baseFor(spec.key);
      return { key: spec.key, base, changed: { ...base, [spec.key]: otherValue(spec, base[spec.key]!) } };
    });
    // The fixture message carries the skin class too, so skin-scoped CSS applies to it.
    await page.$eval('.cs-msg', (el) => el.classList.add('cs-skin-999'));
    const cases = [
      ...variations.map((v) => ({ ...v, scope: null })),
      ...variations.filter((v) => !OVERLAY_WIDE_KEYS.includes(v.key)).map((v) => ({ ...v, scope: 'cs-skin-999' })),
    ];
    // A string, so the test runner's transform leaves the page's dynamic import() alone.
    const unchanged = await page.evaluate(`(async (cases) => {
      const { settingsToCss } = await import('/overlay-assets/src/overlay/settings-css.ts');
      document.querySelector('#cs-settings').remove(); // the live sheet: the fixture sheet alone decides
      const sheet = document.createElement('style');
      document.head.append(sheet);
      const message = document.querySelector('.cs-msg');
      for (const el of [message, ...message.querySelectorAll('*')]) el.classList.remove('cs-entered');
      const elements = [document.querySelector('.cs-chat'), message, ...message.querySelectorAll('*')];
      const fingerprint = (css) => {
        sheet.textContent = css;
        return elements.map((el) => { const s = getComputedStyle(el); return Array.from(s, (p) => p + ':' + s.getPropertyValue(p)).join(';'); }).join('\\n');
      };
      const failed = [];
      for (const { key, base, changed, scope } of cases) {
        const options = scope ? { scopeClass: scope } : {};
        if (fingerprint(settingsToCss(base, options)) === fingerprint(settingsToCss(changed, options))) failed.push(key + (scope ? ' (skin)' : ''));
      }
      return failed;
    })(${JSON.stringify(cases)})`) as string[];
    expect(unchanged).toEqual([]);
    await page.close();
  });

  it('loads Google-source fonts by name from the configured base, falling back to the default style when refused', async () => {
    await server.api('PUT', '/template', { scope: 'independent', preset_id: server.main.id, values: { 'username.font-family': 'Open Sans', 'username.font-weight': 700 } });
    const page = await openOverlay();
    // The test base answers 404, as Google does for a weight a family lacks: the page asks again without weights.
    await page.waitForFunction(() => [...document.querySelectorAll('link[rel=stylesheet]')]
      .some((link) => (link as HTMLLinkElement).href.endsWith('/test-fonts/css2?family=Open+Sans&display=swap')));
    const requested = await page.$$eval('link[data-requested]', (links) => links.map((l) => (l as HTMLLinkElement).dataset.requested));
    expect(requested).toContain('/test-fonts/css2?family=Open+Sans:wght@700&display=swap');
    expect(requested).toContain('/test-fonts/css2?family=Inter:wght@400&display=swap');
    await page.close();
  });

  it('loads no web font when font loading is off (overlay.googleFontsCss: null)', async () => {
    const offline = await startPushTestServer({ page: { fontStylesheetBaseUrl: null } });
    try {
      await offline.api('PUT', '/template', { scope: 'independent', preset_id: offline.main.id, values: { 'username.font-family': 'Open Sans' } });
      const page = await browser.newPage();
      const requests: string[] = [];
      page.on('request', (request) => requests.push(request.url()));
      await page.goto(`${offline.origin}/overlay/${offline.main.token}`);
      await page.waitForFunction(() => document.body.dataset.status === 'live');
      expect(await computed(page, '.cs-chat', 'position')).toBe('fixed'); // the page and its style are in
      expect(await page.$$('link[data-requested]')).toHaveLength(0);
      expect(requests.filter((url) => url.includes('family='))).toEqual([]);
      await page.close();
    } finally {
      await offline.close();
    }
  });

  it('shows "Overlay not found" when a restarted server no longer knows an open page\'s token, and goes live again when it does', async () => {
    const proxy = await startPrefixProxy('/chatskin', server.port);
    const otherDatabase = await startPushTestServer();
    try {
      const page = await browser.newPage();
      await page.goto(`${proxy.origin}/chatskin/overlay/${server.main.token}`);
      await page.waitForFunction(() => document.body.dataset.status === 'live', null, { timeout: 5_000 });
      const notice = () => page.evaluate(() => {
        const shown = [...document.querySelectorAll('body *')].find((el) => el.textContent?.trim().startsWith('Overlay not found') && (el as HTMLElement).offsetHeight > 0);
        return shown === undefined ? null : (shown as HTMLElement).innerText;
      });
      expect(await notice()).toBeNull();

      // Restarted on a database without this overlay: the socket is refused (404) on every retry.
      proxy.retarget(otherDatabase.port);
      proxy.cutSockets();
      await page.waitForFunction(() => document.body.dataset.status === 'not-found', null, { timeout: 10_000 });
      expect(await notice()).toContain('chatskin overlays list');

      // The overlay is back (the right database again): the page goes live by itself and the notice goes.
      proxy.retarget(server.port);
      await page.waitForFunction(() => document.body.dataset.status === 'live', null, { timeout: 20_000 });
      expect(await notice()).toBeNull();
      await page.close();
    } finally {
      await proxy.close();
      await otherDatabase.close();
    }
  });

  it('reloads itself when it reconnects to a chatskin whose page code changed, and only then', async () => {
    let build = 'build-one';
    const restartable = await startPushTestServer({ pageBuild: () => build });
    const proxy = await startPrefixProxy('/chatskin', restartable.port);
    try {
      const page = await browser.newPage();
      await page.goto(`${proxy.origin}/chatskin/overlay/${restartable.main.token}`);
      await page.waitForFunction(() => document.body.dataset.status === 'live', null, { timeout: 5_000 });
      const mark = () => page.evaluate(() => { (window as unknown as { marked: boolean }).marked = true; });
      const marked = () => page.evaluate(() => (window as unknown as { marked?: boolean }).marked === true);
      await mark();

      // The same code after a dropped connection: the page reconnects, and stays the page it was.
      proxy.cutSockets();
      await page.waitForFunction(() => document.body.dataset.status === 'reconnecting', null, { timeout: 5_000 });
      await page.waitForFunction(() => document.body.dataset.status === 'live', null, { timeout: 10_000 });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await marked()).toBe(true);

      // chatskin restarted with other page code: the reconnected page loads the new one.
      build = 'build-two';
      proxy.cutSockets();
      await page.waitForFunction(() => document.querySelector('meta[name="chatskin-build"]')?.getAttribute('content') === 'build-two', null, { timeout: 15_000 });
      await page.waitForFunction(() => document.body.dataset.status === 'live', null, { timeout: 5_000 });
      expect(await marked()).toBe(false);
      await page.close();
    } finally {
      await proxy.close();
      await restartable.close();
    }
  });

  it('works behind a reverse proxy that serves chatskin under a path prefix', async () => {
    const proxy = await startPrefixProxy('/chatskin', server.port);
    try {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(String(error)));
      await page.goto(`${proxy.origin}/chatskin/overlay/${server.main.token}`);
      await page.waitForFunction(() => document.body.dataset.status === 'live', null, { timeout: 5_000 });
      await chat({ type: 'message', id: 'proxied', login: 'alice', text: 'through the proxy' });
      await page.waitForSelector('.cs-msg[data-message-id="proxied"]');
      expect(await computed(page, '.cs-chat', 'position')).toBe('fixed'); // overlay.css loaded
      expect(errors).toEqual([]);
      await page.close();
    } finally {
      await proxy.close();
    }
  });

  it('opens the overlay from its address pasted with a trailing slash; any other address under /overlay/ shows the not-found page, never the token', async () => {
    const page = await browser.newPage();
    await page.goto(`${server.origin}/overlay/${server.main.token}/`);
    await page.waitForFunction(() => document.body.dataset.status === 'live', null, { timeout: 5_000 });
    expect(new URL(page.url()).pathname).toBe(`/overlay/${server.main.token}`);
    const proxy = await startPrefixProxy('/chatskin', server.port);
    try {
      await page.goto(`${proxy.origin}/chatskin/overlay/${server.main.token}/`);
      await page.waitForFunction(() => document.body.dataset.status === 'live', null, { timeout: 5_000 });
      expect(new URL(page.url()).pathname).toBe(`/chatskin/overlay/${server.main.token}`);
    } finally {
      await proxy.close();
    }
    for (const path of [`/overlay/${server.main.token}/extra`, `/overlay/${server.main.token}/ws`, `/overlay/${server.main.token}//`, '/overlay/']) {
      const response = await page.goto(`${server.origin}${path}`);
      expect(response!.status(), path).toBe(404);
      expect(await page.textContent('h1'), path).toBe('Overlay not found');
      // What the page shows is on stream: the token, which is the overlay's only credential, is not in it.
      expect(await page.content(), path).not.toContain(server.main.token);
    }
    await page.close();
  });

  it('shows the not-found page for an unknown token, without a socket', async () => {
    const page = await browser.newPage();
    const response = await page.goto(`${server.origin}/overlay/${'q'.repeat(32)}`);
    expect(response!.status()).toBe(404);
    expect(await page.textContent('h1')).toBe('Overlay not found');
    await page.close();
  });

  it('loads the overlay by itself once the not-found page\'s address names an overlay again', async () => {
    // OBS has the address of an overlay that this database does not know (chatskin was started on
    // another one); then the right database is back.
    const otherDatabase = await startPushTestServer();
    const proxy = await startPrefixProxy('/chatskin', otherDatabase.port);
    try {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(String(error)));
      page.on('console', (message) => { if (message.type() === 'error' && !message.text().includes('404')) errors.push(message.text()); });
      const address = `${proxy.origin}/chatskin/overlay/${server.main.token}`;
      const checked = () => page.waitForResponse((response) => response.request().method() === 'HEAD' && response.url() === address, { timeout: 5_000 });
      const response = await page.goto(address);
      expect(response!.status()).toBe(404);
      expect(await page.textContent('h1')).toBe('Overlay not found');
      // It checks its address now and then, without reloading while the answer is 404.
      expect((await checked()).status()).toBe(404);
      expect(await page.textContent('h1')).toBe('Overlay not found');

      proxy.retarget(server.port);
      await page.waitForFunction(() => document.body.dataset.status === 'live', null, { timeout: 15_000 });
      expect(new URL(page.url()).pathname).toBe(`/chatskin/overlay/${server.main.token}`);
      expect(errors).toEqual([]);
      await page.close();
    } finally {
      await proxy.close();
      await otherDatabase.close();
    }
  });

  it('shows the not-found page legibly over a dark scene and a light one', async () => {
    const page = await browser.newPage();
    await page.goto(`${server.origin}/overlay/${'q'.repeat(32)}`);
    // OBS draws a browser source with a transparent background over whatever the scene shows.
    for (const scene of ['#000000', '#ffffff']) {
      await page.addStyleTag({ content: `html { background: ${scene} !important; }` });
      expect(await lightnessSpread(page, 'h1'), `over ${scene}`).toBeGreaterThan(0.5);
    }
    await page.close();
  });
});

/**
 * Lightest minus darkest pixel (0 to 1) of what the page shows in `selector`'s box: near 0 when its
 * text does not stand out from what is behind it.
 */
async function lightnessSpread(page: Page, selector: string): Promise<number> {
  const box = await page.$eval(selector, (el) => {
    const r = el.getBoundingClientRect();
    return { x: r.left, y: r.top, width: r.width, height: r.height };
  });
  const png = (await page.screenshot({ clip: box })).toString('base64');
  // Decoded by the page itself (its CSP allows data: images).
  return page.evaluate(async (data) => {
    const image = new Image();
    image.src = `data:image/png;base64,${data}`;
    await image.decode();
    const canvas = document.createElement('canvas');
    canvas.width = image.width;
    canvas.height = image.height;
    const context = canvas.getContext('2d')!;
    context.drawImage(image, 0, 0);
    const pixels = context.getImageData(0, 0, image.width, image.height).data;
    let darkest = 1;
    let lightest = 0;
    for (let i = 0; i < pixels.length; i += 4) {
      const lightness = (pixels[i]! + pixels[i + 1]! + pixels[i + 2]!) / (3 * 255);
      darkest = Math.min(darkest, lightness);
      lightest = Math.max(lightest, lightness);
    }
    return lightest - darkest;
  }, png);
}

/** The [r, g, b] of a 1x1 PNG screenshot (the one row's filter byte, whatever it is, leaves one pixel as it is). */
function pixelAt(png: Buffer): [number, number, number] {
  const chunks: Buffer[] = [];
  for (let at = 8; at < png.length;) {
    const length = png.readUInt32BE(at);
    if (png.toString('latin1', at + 4, at + 8) === 'IDAT') chunks.push(png.subarray(at + 8, at + 8 + length));
    at += 12 + length;
  }
  const row = inflateSync(Buffer.concat(chunks));
  return [row[1]!, row[2]!, row[3]!];
}
