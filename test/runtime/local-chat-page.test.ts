// The local chat page (GET /local/chat/say) in real headless Chromium against the whole host with
// the local chat and no Twitch: a line typed there as a moderator restyles the overlay shown
// beside the form, the bot's answer appears in that overlay, a refused line says why on the page,
// and nobody but this machine gets the page.
import type { Browser, Frame, Page } from 'playwright-core';
import { haveChromium, launchChromium } from '../support/chromium.ts';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChatskin } from '../../src/runtime/start-chatskin.ts';
import type { RunningChatskin } from '../../src/runtime/start-chatskin.ts';
import { hostConfig } from './host-config.ts';


describe.skipIf(!haveChromium)('the local chat page in Chromium', () => {
  let running: RunningChatskin;
  let browser: Browser;
  let page: Page;
  let overlay: Frame;
  const errors: string[] = [];
  /** What the host printed in its terminal: each posted line, and the bot's replies. */
  const printed: string[] = [];

  beforeAll(async () => {
    const config = hostConfig('chatskin-local-page-', 'streamer', {
      localChat: { stdin: false },
      // No font stylesheets, emotes from a closed port: the test never reaches the internet.
      overlay: { googleFontsCss: null, emoteCdn: 'http://127.0.0.1:9/emotes' },
    });
    running = await startChatskin(config, { logger: pino({ level: 'silent' }), stdin: null, stdout: { write: (text: string) => { printed.push(text); return true; } } });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 900, height: 800 } });
    page.on('pageerror', (error) => errors.push(String(error)));
    await page.goto(`${running.baseUrl}/local/chat/say`);
    await page.waitForFunction(() => document.body.dataset.status === 'ready');
    const frame = await (await page.waitForSelector('iframe')).contentFrame();
    overlay = frame!;
    await overlay.waitForFunction(() => document.body.dataset.status === 'live');
  });

  afterAll(async () => {
    await browser?.close();
    await running?.close();
  });

  async function say(text: string, options: { login?: string; role?: string } = {}): Promise<{ state: string; text: string }> {
    await page.fill('[name=login]', options.login ?? '');
    await page.selectOption('[name=role]', options.role ?? 'viewer');
    await page.fill('[name=text]', text);
    await page.evaluate(() => { delete document.querySelector<HTMLElement>('#status')!.dataset.state; });
    await page.click('button[type=submit]');
    await page.waitForFunction(() => document.querySelector<HTMLElement>('#status')!.dataset.state !== undefined);
    return page.$eval('#status', (el) => ({ state: (el as HTMLElement).dataset.state!, text: el.textContent ?? '' }));
  }

  const color = async () => (await running.service.getTemplate(running.account.id)).settings_values['bubble.background-color'];

  it("shows the channel's default overlay beside the form", async () => {
    const [main] = await running.service.listOverlays(running.account.id);
    expect(overlay.url()).toBe(`${running.baseUrl}/overlay/${main!.token}`);
    expect(await page.title()).toBe('chatskin local chat: #streamer');
  });

  it("restyles the overlay from a moderator's line, shows the line and the bot's answer there, and clears the input", async () => {
    const status = await say('!style bubble.background-color #00ff00', { login: 'modguy', role: 'moderator' });
    expect(status).toEqual({ state: 'sent', text: 'Sent to the local chat of #streamer as modguy (moderator).' });
    expect(await page.inputValue('[name=text]')).toBe('');
    await expect.poll(color).toBe('#00ff00');
    await overlay.waitForFunction(() => document.body.textContent!.includes('bubble.background-color is now #00ff00'));
    expect(await overlay.evaluate(() => document.body.textContent)).toContain('!style bubble.background-color #00ff00');
  });

  it("does nothing for a viewer's identical line", async () => {
    await say('!style bubble.background-color #0000ff', { login: 'someviewer' });
    // A later moderator line is answered: by then the viewer's line was handled.
    await say('!style show bubble.background-color', { login: 'modguy', role: 'moderator' });
    await overlay.waitForFunction(() => document.body.textContent!.includes('bubble.background-color is #00ff00'));
    expect(await color()).toBe('#00ff00');
  });

  it('says on the page why a line was refused, and keeps it in the input', async () => {
    const status = await say('hello', { login: 'not a login!' });
    expect(status.state).toBe('error');
    expect(status.text).toBe('The login must be a Twitch login: 1 to 25 letters, digits or _');
    expect(await page.inputValue('[name=text]')).toBe('hello');
    expect(errors).toEqual([]);
  });

  it("refuses the terminal's /mod in the line, naming the role list, and sends /me as an action line", async () => {
    const refused = await say('/mod !style bubble.background-color #0000ff');
    expect(refused).toEqual({
      state: 'error',
      text: 'The text is refused: /mod picks the role in the terminal only: give it apart here (chatskin chat say --role mod; the role list on the chat page).',
    });
    expect(await page.inputValue('[name=text]')).toBe('/mod !style bubble.background-color #0000ff');
    expect(await say('/me waves at chat', { login: 'alice' })).toEqual({ state: 'sent', text: 'Sent to the local chat of #streamer as alice (viewer).' });
    await overlay.waitForFunction(() => document.body.textContent!.includes('waves at chat'));
    expect(await overlay.evaluate(() => document.body.textContent)).not.toContain('/me waves');
    expect(await color()).toBe('#00ff00');
  });

  it('sends lines typed in quick succession once each, in order, and never erases the line being typed when an earlier one is answered', async () => {
    await page.fill('[name=login]', '');
    await page.selectOption('[name=role]', 'viewer');
    // The first line's request is held (a host slow to answer) until the next lines are typed.
    let release!: () => void;
    const held = new Promise<void>((resolve) => { release = resolve; });
    let first = true;
    await page.route('**/local/chat/say', async (route) => {
      if (first && route.request().method() === 'POST') {
        first = false;
        await held;
      }
      await route.continue();
    });
    try {
      printed.length = 0;
      await page.fill('[name=text]', 'quick one');
      await page.press('[name=text]', 'Enter');
      await page.fill('[name=text]', 'quick two');
      await page.press('[name=text]', 'Enter');
      await page.fill('[name=text]', 'quick three, still being typed');
      release();
      await expect.poll(() => printed.filter((line) => line.startsWith('you: quick'))).toEqual(['you: quick one\n', 'you: quick two\n']);
      await page.waitForFunction(() => document.querySelector<HTMLElement>('#status')!.dataset.state === 'sent');
      expect(await page.inputValue('[name=text]')).toBe('quick three, still being typed');
      expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('text');
    } finally {
      await page.unroute('**/local/chat/say');
    }
  });

  it('refuses a pasted line over 500 characters, or a login over 25, saying why, instead of sending it cut short', async () => {
    printed.length = 0;
    await page.fill('[name=login]', '');
    await page.fill('[name=text]', '');
    await page.focus('[name=text]');
    await page.keyboard.insertText(`!style bubble.background-color #0000ff ${'x'.repeat(600)}`);
    await page.evaluate(() => { delete document.querySelector<HTMLElement>('#status')!.dataset.state; });
    await page.press('[name=text]', 'Enter');
    await page.waitForFunction(() => document.querySelector<HTMLElement>('#status')!.dataset.state !== undefined);
    expect(await page.$eval('#status', (el) => ({ state: (el as HTMLElement).dataset.state, text: el.textContent })))
      .toEqual({ state: 'error', text: 'A chat line is at most 500 characters, as on Twitch; this one has 639.' });
    expect((await page.inputValue('[name=text]')).length).toBe(639);

    await page.fill('[name=text]', '');
    const login = 'a_login_of_thirty_characters_';
    await page.focus('[name=login]');
    await page.keyboard.insertText(login);
    expect(await say('hello', { login })).toEqual({ state: 'error', text: 'The login must be a Twitch login: 1 to 25 letters, digits or _' });
    expect(printed).toEqual([]);
  });

  it('labels each field with visible text (not only a placeholder), in the order Tab goes through them', async () => {
    const fields = await page.$$eval('#say input, #say select', (controls) => controls.map((control) => {
      const labels = [...(control as HTMLInputElement).labels ?? []];
      return {
        name: control.getAttribute('name'),
        // The label's own words, not the options of a select inside it.
        label: labels.map((label) => [...label.childNodes].filter((node) => node.nodeType === Node.TEXT_NODE).map((node) => node.textContent).join('').trim()).join(' '),
        visible: labels.some((label) => label.getBoundingClientRect().width > 0),
      };
    }));
    expect(fields).toEqual([
      { name: 'login', label: 'Chat as', visible: true },
      { name: 'role', label: 'Role', visible: true },
      { name: 'text', label: 'Line', visible: true },
    ]);
    await page.focus('[name=login]');
    const order: (string | null)[] = [];
    for (let step = 0; step < 4; step += 1) {
      order.push(await page.evaluate(() => document.activeElement!.getAttribute('name') ?? document.activeElement!.textContent));
      await page.keyboard.press('Tab');
    }
    expect(order).toEqual(['login', 'role', 'text', 'Send']);
  });

  it('is served to this machine only, and may not be framed by another site', async () => {
    const own = await fetch(`${running.baseUrl}/local/chat/say`);
    expect(own.status).toBe(200);
    expect(own.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const proxied = await fetch(`${running.baseUrl}/local/chat/say`, { headers: { 'x-forwarded-for': '203.0.113.9' } });
    expect(proxied.status).toBe(403);
    expect(await proxied.json()).toEqual({ message: 'GET /local/chat/say only answers requests from this machine (a loopback address and host name, no proxy headers).' });
    const script = await fetch(`${running.baseUrl}/local/chat/say.js`, { headers: { forwarded: 'for=203.0.113.9' } });
    expect(script.status).toBe(403);
  });
});

describe.skipIf(!haveChromium)('the local chat page across host restarts', () => {
  let running: RunningChatskin | undefined;
  let browser: Browser | undefined;

  afterAll(async () => {
    await browser?.close();
    await running?.close();
  });

  it('says the host is gone while it is stopped, sends again once it is back, and says why when it came back without its local chat', async () => {
    const config = hostConfig('chatskin-local-page-restart-', 'streamer', {
      localChat: { stdin: false },
      overlay: { googleFontsCss: null, emoteCdn: 'http://127.0.0.1:9/emotes' },
    });
    const start = async (localChat: boolean, port: number) => startChatskin(
      { ...config, http: { ...config.http, port }, localChat: { ...config.localChat, enabled: localChat } },
      { logger: pino({ level: 'silent' }), stdin: null, stdout: { write: () => true } },
    );
    running = await start(true, 0);
    const { port } = running;
    browser = await launchChromium();
    const page = await browser.newPage();
    await page.goto(`${running.baseUrl}/local/chat/say`);
    await page.waitForFunction(() => document.body.dataset.status === 'ready');
    const send = async (text: string) => {
      await page.fill('[name=text]', text);
      await page.evaluate(() => { delete document.querySelector<HTMLElement>('#status')!.dataset.state; });
      await page.press('[name=text]', 'Enter');
      await page.waitForFunction(() => document.querySelector<HTMLElement>('#status')!.dataset.state !== undefined);
      return page.$eval('#status', (el) => ({ state: (el as HTMLElement).dataset.state!, text: el.textContent ?? '', input: (document.querySelector('[name=text]') as HTMLInputElement).value }));
    };

    await running.close();
    running = undefined;
    expect(await send('anyone there?')).toEqual({ state: 'error', text: 'The host did not answer: is chatskin still running?', input: 'anyone there?' });

    running = await start(true, port);
    expect(await send('back again')).toEqual({ state: 'sent', text: 'Sent to the local chat of #streamer as you (viewer).', input: '' });

    await running.close();
    running = await start(false, port);
    expect(await send('and now?')).toEqual({
      state: 'error',
      text: 'The host has no local chat to send to (404): it runs with localChat.enabled: false (set it to true and restart chatskin).',
      input: 'and now?',
    });
  });
});
