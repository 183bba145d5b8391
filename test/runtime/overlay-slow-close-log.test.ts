// An overlay page that reads too slowly is closed with 4008 (docs/push.md, "Flow control"): its
// browser source goes blank until it reconnects, and the host said nothing of it, so an operator
// whose OBS machine cannot keep up never learnt why the overlay flickered. Now each such close is
// one warning naming the overlay (never its token, which is the overlay's only key).
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { startChatskin } from '../../src/runtime/start-chatskin.ts';
import type { RunningChatskin } from '../../src/runtime/start-chatskin.ts';
import { hostConfig } from './host-config.ts';
import { watchDefaultOverlay } from './overlay-socket.ts';

let running: RunningChatskin | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

describe('an overlay socket closed for reading too slowly', () => {
  it('is one warning naming the overlay, without its token', async () => {
    const config = hostConfig('chatskin-slow-close-', 'alice', { localChat: { enabled: false } });
    const lines: string[] = [];
    const sink = new Writable({ write(chunk, _encoding, done) { lines.push(String(chunk)); done(); } });
    running = await startChatskin(config, { logger: pino({ level: 'info' }, sink), stdin: null });
    const [overlay] = await running.service.listOverlays(running.account.id);
    const page = await watchDefaultOverlay(running);
    const closed = new Promise<number>((resolve) => page.socket.on('close', (code) => resolve(code)));
    // The page stops reading: the OS buffers fill, then the gateway's 1 MiB.
    const raw = (page.socket as unknown as { _socket: import('node:net').Socket })._socket;
    raw.pause();
    const { gateway } = running;
    const accountId = running.account.id;
    for (let sent = 0; gateway.stats().droppedFrames === 0;) {
      if (sent > 1_000_000) throw new Error('the gateway never dropped a frame for a stalled page');
      for (let i = 0; i < 200; i++) {
        gateway.pushChatEvent(accountId, {
          type: 'message', id: `flood-${sent++}`, userId: '42', login: 'bob', displayName: 'Bob', color: null, text: 'x', emotes: '', badges: [], avatarUrl: null,
        });
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    // A removal may not be dropped: the page is closed instead.
    gateway.pushChatEvent(accountId, { type: 'message-deleted', messageId: 'm'.repeat(150) });
    expect(gateway.stats().slowClosed).toBe(1);
    raw.resume();
    expect(await closed).toBe(4008);

    const warnings = lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.level === 40);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ overlayId: overlay!.id, msg: expect.stringMatching(/4008.*too slowly/) });
    expect(lines.join('')).not.toContain(overlay!.token);
  });
});
