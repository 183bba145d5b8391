// The newcomer's path: no Twitch credentials, the host's local chat on "stdin". A moderator line
// typed there restyles the overlay live; the same line from a viewer does nothing; plain lines
// show on the overlay; bot replies are printed.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { parseConfig } from '../../src/config/index.ts';
import { startChatskin } from '../../src/runtime/start-chatskin.ts';
import type { RunningChatskin } from '../../src/runtime/start-chatskin.ts';
import type { ServerFrame } from '../../src/service/push/protocol.ts';
import { splitFrames } from '../../src/service/push/protocol.ts';

describe('host with the local chat (no Twitch credentials)', () => {
  const stdin = new PassThrough();
  let printed = '';
  const frames: ServerFrame[] = [];
  let socket: WebSocket;
  let running: RunningChatskin;

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chatskin-local-'));
    const config = parseConfig({
      http: { host: '127.0.0.1', port: 0 },
      store: { path: join(dir, 'db.sqlite') },
      channel: { login: 'streamer' },
      log: { level: 'silent' },
    });
    expect(config.twitch.enabled).toBe(false);
    running = await startChatskin(config, {
      logger: pino({ level: 'silent' }), stdin, stdout: { write: (text: string) => { printed += text; } },
    });
    const [main] = await running.service.listOverlays(running.account.id);
    socket = new WebSocket(`ws://127.0.0.1:${running.port}/overlay/${main!.token}/ws`);
    socket.on('message', (data) => frames.push(...splitFrames(String(data)).map((text) => JSON.parse(text) as ServerFrame)));
    await new Promise((resolve, reject) => { socket.once('open', resolve); socket.once('error', reject); });
  });

  afterAll(async () => {
    socket?.close();
    await running?.close();
  });

  const color = async () => (await running.service.getTemplate(running.account.id)).settings_values['bubble.background-color'];

  it('shows a plain line on the overlay', async () => {
    await expect.poll(() => frames.some((f) => f.type === 'snapshot')).toBe(true);
    stdin.write('hello from the terminal\n');
    await expect.poll(() => frames.some((f) => f.type === 'chat' && f.event.type === 'message' && f.event.text === 'hello from the terminal')).toBe(true);
  });

  it("ignores a viewer's !style, then applies a moderator's and pushes it live", async () => {
    stdin.write('!style bubble.background-color #00ff00\n');
    stdin.write('/mod !style bubble.background-color #ff0000\n');
    await expect.poll(color).toBe('#ff0000');
    await expect.poll(() => frames.some((f) => f.type === 'update' && f.style.settings['bubble.background-color'] === '#ff0000')).toBe(true);
    expect(frames.some((f) => f.type === 'update' && f.style.settings['bubble.background-color'] === '#00ff00')).toBe(false);
    await expect.poll(() => printed).toMatch(/bubble\.background-color is now #ff0000/);
  });
});
