// The newcomer's path: no Twitch credentials, the host's local chat on "stdin". A moderator line
// typed there restyles the overlay live; the same line from a viewer does nothing; plain lines
// show on the overlay; bot replies are printed.
import { PassThrough } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChatskin } from '../../src/runtime/start-chatskin.ts';
import type { RunningChatskin } from '../../src/runtime/start-chatskin.ts';
import { hostConfig } from './host-config.ts';
import { watchDefaultOverlay } from './overlay-socket.ts';
import type { OverlaySocket } from './overlay-socket.ts';

describe('host with the local chat (no Twitch credentials)', () => {
  const stdin = new PassThrough();
  let printed = '';
  let overlay: OverlaySocket;
  let running: RunningChatskin;

  beforeAll(async () => {
    const config = hostConfig('chatskin-local-', 'streamer');
    expect(config.twitch.enabled).toBe(false);
    running = await startChatskin(config, {
      logger: pino({ level: 'silent' }), stdin, stdout: { write: (text: string) => { printed += text; } },
    });
    overlay = await watchDefaultOverlay(running);
  });

  afterAll(async () => {
    overlay?.socket.close();
    await running?.close();
  });

  const color = async () => (await running.service.getTemplate(running.account.id)).settings_values['bubble.background-color'];

  it('shows a plain line on the overlay', async () => {
    stdin.write('hello from the terminal\n');
    await overlay.waitFor((f) => f.type === 'chat' && f.event.type === 'message' && f.event.text === 'hello from the terminal');
  });

  it("ignores a viewer's !style, then applies a moderator's and pushes it live", async () => {
    stdin.write('!style bubble.background-color #00ff00\n');
    stdin.write('/mod !style bubble.background-color #ff0000\n');
    await expect.poll(color).toBe('#ff0000');
    await overlay.waitFor((f) => f.type === 'update' && f.style.settings['bubble.background-color'] === '#ff0000');
    expect(overlay.frames.some((f) => f.type === 'update' && f.style.settings['bubble.background-color'] === '#00ff00')).toBe(false);
    await expect.poll(() => printed).toMatch(/bubble\.background-color is now #ff0000/);
  });
});
