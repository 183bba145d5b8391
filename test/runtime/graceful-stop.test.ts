// A graceful stop of the whole process (close(), what SIGINT/SIGTERM run): a command under way
// finishes, its write is stored and its reply printed before chat, the sockets and the database
// close; the overlay's socket is told the server is going away; the database is closed after.
import net from 'node:net';
import { PassThrough } from 'node:stream';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { openService } from '../../src/runtime/open-service.ts';
import { startChatskin } from '../../src/runtime/start-chatskin.ts';
import { FakeTwitchIrc } from '../fakes/fake-twitch-irc.ts';
import { createPluginFolders } from '../host/plugin-folders.ts';
import { hostConfig } from './host-config.ts';
import { watchDefaultOverlay } from './overlay-socket.ts';
import { twitchHostConfig } from './twitch-host-config.ts';

// Restyles after a pause, so a stop comes while it is under way.
const SLOWPOKE = `import { definePlugin } from SDK;
export default definePlugin({
  name: 'slowpoke',
  setup(ctx) {
    ctx.command({
      name: 'slowpoke',
      role: 'moderator',
      async run(call) {
        globalThis.chatskinSlowpokeStarted = (globalThis.chatskinSlowpokeStarted ?? 0) + 1;
        await new Promise((resolve) => setTimeout(resolve, 300));
        await ctx.overlay.updateTemplate({ scope: 'independent', values: { 'bubble.width': 333 } });
        await call.reply('slow restyle done');
      },
    });
  },
});`;

const folders = createPluginFolders();
folders.add('slowpoke', SLOWPOKE);
afterAll(() => folders.remove());

const flags = globalThis as typeof globalThis & { chatskinSlowpokeStarted?: number };

describe('chatskin close() while a command is under way', () => {
  it('finishes the command, stores its write and prints its reply, then closes sockets and the database', async () => {
    const config = hostConfig('chatskin-stop-', 'streamer', { pluginDirs: [folders.dir], plugins: { slowpoke: {} } });
    const stdin = new PassThrough();
    let printed = '';
    const running = await startChatskin(config, {
      logger: pino({ level: 'silent' }), stdin, stdout: { write: (text: string) => { printed += text; } },
    });
    const overlay = await watchDefaultOverlay(running);
    const closed = new Promise<number>((resolve) => overlay.socket.once('close', (code) => resolve(code)));

    const started = flags.chatskinSlowpokeStarted ?? 0;
    stdin.write('/mod !slowpoke\n');
    await expect.poll(() => flags.chatskinSlowpokeStarted).toBe(started + 1);
    await running.close();

    expect(printed).toMatch(/slow restyle done/);
    expect(await closed).toBe(1001);
    // The overlay's socket closed only after the command: its reply reached the overlay live.
    expect(overlay.frames.some((frame) => frame.type === 'chat' && frame.event.type === 'message' && /slow restyle done/.test(frame.event.text))).toBe(true);
    // ...and so did its restyle, made just before the stop.
    expect(overlay.frames.some((frame) => frame.type === 'update' && frame.style.settings['bubble.width'] === 333)).toBe(true);
    await expect(running.service.getTemplate(running.account.id)).rejects.toThrow(/closed/);
    const reopened = await openService(config);
    try {
      expect((await reopened.service.getTemplate(running.account.id)).settings_values['bubble.width']).toBe(333);
    } finally {
      await reopened.close();
    }
  });

  it('sends the reply to Twitch chat before disconnecting from it (real tmi.js against the fake server)', async () => {
    const irc = await FakeTwitchIrc.start();
    try {
      const config = twitchHostConfig(irc, 'chatskin-stop-twitch-', { pluginDirs: [folders.dir], plugins: { slowpoke: {} } });
      const running = await startChatskin(config, { logger: pino({ level: 'silent' }), stdin: null });
      await irc.waitForJoin('alice');
      const started = flags.chatskinSlowpokeStarted ?? 0;
      const since = irc.privmsgs.length;
      irc.sendPrivmsg('#alice', { login: 'modguy', mod: true }, '!slowpoke');
      await expect.poll(() => flags.chatskinSlowpokeStarted).toBe(started + 1);
      await running.close();
      expect(irc.privmsgs.slice(since).filter((m) => m.login === 'chatskinbot').map((m) => m.text)).toEqual(['@modguy slow restyle done']);
    } finally {
      await irc.close();
    }
  });

  it('does not wait for a client that never finishes sending its request: its connection is cut, the database closed', async () => {
    const config = hostConfig('chatskin-stop-slow-client-', 'alice');
    const running = await startChatskin(config, { logger: pino({ level: 'silent' }), stdin: null });
    // A request to the local chat (no key needed) whose body never arrives. `Expect: 100-continue`
    // makes the server say when it has the headers, so the stop comes while the request is open.
    const client = net.connect(running.port, '127.0.0.1');
    let received = '';
    client.on('data', (chunk) => { received += String(chunk); });
    client.on('error', () => {});
    const cut = new Promise<void>((resolve) => client.on('close', () => resolve()));
    client.write('POST /local/chat/say HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n'
      + 'Content-Length: 500\r\nExpect: 100-continue\r\n\r\n');
    await expect.poll(() => received).toMatch(/^HTTP\/1\.1 100 Continue/);
    client.write('{"text":');
    await running.close();
    await cut;
    await expect(running.service.getTemplate(running.account.id)).rejects.toThrow(/closed/);
  });

  it('a second close() while one is under way (a signal during the stop after an uncaught exception) waits for the same stop', async () => {
    const config = hostConfig('chatskin-stop-twice-', 'streamer', { pluginDirs: [folders.dir], plugins: { slowpoke: {} } });
    const stdin = new PassThrough();
    let printed = '';
    const running = await startChatskin(config, {
      logger: pino({ level: 'silent' }), stdin, stdout: { write: (text: string) => { printed += text; } },
    });
    const started = flags.chatskinSlowpokeStarted ?? 0;
    stdin.write('/mod !slowpoke\n');
    await expect.poll(() => flags.chatskinSlowpokeStarted).toBe(started + 1);
    const first = running.close();
    await running.close();
    // The second one resolved only once the stop was done: the command's reply is out, the database closed.
    expect(printed).toMatch(/slow restyle done/);
    await expect(running.service.getTemplate(running.account.id)).rejects.toThrow(/closed/);
    await first;
  });
});
