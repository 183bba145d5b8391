// Property-based test of the overlay page in real headless Chromium with fuzzed chat: fast-check's
// message text, display names, colours, badges and emotes tags (test/adapters/twitch-line-arbitraries.ts:
// markup, controls, direction and zero-width characters, emoji sequences, emote ranges out of the
// text, overlapping, reversed, not numbers or thousands of them) go through the composition root's
// mapping (overlayChatEventOf) and the push gateway to an open page. Checked, for every message:
// - no page error, and the page stays live;
// - no markup injection: the message's element holds only the elements the page builds (divs,
//   spans, emote images with the CDN's address), text is text;
// - the text shown (with each emote as its code) is the message's text, nothing lost or twice;
//   the name shown is the display name, or the login when it draws nothing.
import fc from 'fast-check';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { overlayChatEventOf } from '../../src/adapters/chat-event-mapping.ts';
import type { ChatTags } from '../../src/host/chat-transport.ts';
import { CLASSES } from '../../src/overlay/dom-classes.ts';
import type { ChatMessageEvent } from '../../src/service/push/protocol.ts';
import { badgesTag, chatText, colorTag, displayNameTag, emotesTag } from '../adapters/twitch-line-arbitraries.ts';
import { startPushTestServer } from '../service/push/push-test-server.ts';
import type { PushTestServer } from '../service/push/push-test-server.ts';
import { haveChromium, launchChromium, NO_CHROMIUM_NOTE } from '../support/chromium.ts';

/** A tag value from its wire form, as tmi.js reads it (the arbitraries give wire forms). */
function tmiUnescape(value: string): string {
  const escapes: Record<string, string> = { s: ' ', n: '', ':': ';', r: '', '\\': '\\' };
  return value.replace(/\\([sn:r\\])/g, (_match, ch: string) => escapes[ch]!);
}

const message = fc.record({
  text: chatText,
  displayName: displayNameTag.map(tmiUnescape),
  color: colorTag.map(tmiUnescape),
  badges: badgesTag.map(tmiUnescape),
  emotes: emotesTag.map(tmiUnescape),
  login: fc.stringMatching(/^[a-z0-9_]{1,25}$/),
}).map(({ text, displayName, color, badges, emotes, login }): ChatMessageEvent => {
  const tags: ChatTags = {
    id: crypto.randomUUID(), 'user-id': '4242', username: login, 'display-name': displayName, color, 'badges-raw': badges, 'emotes-raw': emotes,
  };
  return overlayChatEventOf({ type: 'message', channel: 'streamer', text, tags, self: false }) as ChatMessageEvent;
});

describe.skipIf(!haveChromium)(`fuzzed chat on the overlay page in Chromium${haveChromium ? '' : ` (skipped: ${NO_CHROMIUM_NOTE})`}`, () => {
  let server: PushTestServer;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];

  beforeAll(async () => {
    // Emote images from an address that answers nothing: each emote falls back to its code.
    server = await startPushTestServer({ page: { maxMessages: 5, fontStylesheetBaseUrl: null, emoteBaseUrl: 'http://127.0.0.1:9/emotes' } });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 600, height: 700 } });
    page.on('pageerror', (error) => errors.push(String(error)));
    page.on('dialog', (dialog) => { errors.push(`dialog: ${dialog.message()}`); void dialog.dismiss(); });
    await page.goto(`${server.origin}/overlay/${server.main.token}`);
    await page.waitForFunction(() => document.body.dataset.status === 'live');
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('renders every message as text, with only its own elements, and never errs', async () => {
    await fc.assert(fc.asyncProperty(message, async (event) => {
      server.gateway.pushChatEvent(server.accountId, event);
      const selector = `[data-message-id="${event.id}"]`;
      await page.waitForSelector(selector, { state: 'attached' });
      // Emote images that fail are replaced by their code; wait for those replacements to settle.
      await page.waitForFunction((sel) => [...document.querySelectorAll(`${sel} img`)].every((img) => (img as HTMLImageElement).complete), selector);
      const shown = await page.$eval(selector, (root, classes) => {
        const text = root.querySelector(`.${classes.text}`)!;
        // Each node of the text: its text, or an emote image's alt (its code).
        const pieces = [...text.childNodes].map((node) => (node instanceof HTMLImageElement ? node.alt : node.textContent ?? ''));
        return {
          tags: [...root.querySelectorAll('*')].map((element) => element.tagName.toLowerCase()),
          imageSources: [...root.querySelectorAll('img')].map((img) => img.getAttribute('src') ?? ''),
          text: pieces.join(''),
          name: root.querySelector(`.${classes.username}`)?.textContent ?? null,
          attributes: [...root.querySelectorAll('*')].flatMap((element) => [...element.attributes].map((attribute) => attribute.name)),
        };
      }, CLASSES);
      expect(errors).toEqual([]);
      expect(shown.tags.filter((tag) => !['div', 'span', 'img', 'bdi'].includes(tag))).toEqual([]);
      expect(shown.attributes.filter((name) => name.startsWith('on'))).toEqual([]);
      for (const source of shown.imageSources) expect(source.startsWith('http://127.0.0.1:9/emotes/')).toBe(true);
      expect(shown.text).toBe(event.text);
      const visible = event.displayName.replace(/[\p{Cf}\p{Cc}\p{Z}\p{M}]/gu, '') !== '';
      expect(shown.name).toBe(visible ? event.displayName : event.login);
    }), { numRuns: 60 });
    expect(await page.evaluate(() => document.body.dataset.status)).toBe('live');
  });
});
