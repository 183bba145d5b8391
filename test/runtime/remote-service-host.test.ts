// Two whole chatskins (startChatskin): the first, bundled, is "the remote": a premium account with
// an API key. The second runs with `service.mode: remote` pointed at the first's API, so its
// plugins drive the first's service over HTTP. A moderator's line in the second's chat (its local
// chat) restyles the FIRST's overlay, seen through the first's GET /template and its overlay push
// socket; a viewer's identical line changes nothing; the second's own store and overlay keep their
// style (docs/config.md, "Remote mode").
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { pino } from 'pino';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { parseConfig } from '../../src/config/index.ts';
import { startChatskin } from '../../src/runtime/start-chatskin.ts';
import type { RunningChatskin } from '../../src/runtime/start-chatskin.ts';
import type { ServerFrame } from '../../src/service/push/protocol.ts';
import { splitFrames } from '../../src/service/push/protocol.ts';

function tempStore(prefix: string): { path: string } {
  return { path: join(mkdtempSync(join(tmpdir(), prefix)), 'db.sqlite') };
}

describe('host with service.mode remote, driving another chatskin over HTTP', () => {
  let remote: RunningChatskin;
  let host: RunningChatskin;
  let apiKey: string;
  const stdin = new PassThrough();
  let printed = '';
  const frames: ServerFrame[] = [];
  let socket: WebSocket;

  beforeAll(async () => {
    const silent = pino({ level: 'silent' });
    remote = await startChatskin(parseConfig({
      http: { host: '127.0.0.1', port: 0 },
      store: tempStore('chatskin-remote-'),
      channel: { login: 'streamer' },
      localChat: { enabled: false },
      log: { level: 'silent' },
    }), { logger: silent, stdin: null });
    // As `chatskin premium on streamer` and `chatskin keys create streamer` would, on its database.
    await remote.service.setPremium('streamer', true);
    apiKey = (await remote.service.createKey('streamer')).token;

    host = await startChatskin(parseConfig({
      http: { host: '127.0.0.1', port: 0 },
      store: tempStore('chatskin-remote-host-'),
      channel: { login: 'streamer' },
      service: { mode: 'remote', baseUrl: remote.apiUrl, apiKey, maxRetries: 0 },
      log: { level: 'silent' },
    }), { logger: silent, stdin, stdout: { write: (text: string) => { printed += text; } } });

    const [main] = await remote.service.listOverlays(remote.account.id);
    socket = new WebSocket(`ws://127.0.0.1:${remote.port}/overlay/${main!.token}/ws`);
    socket.on('message', (data) => frames.push(...splitFrames(String(data)).map((text) => JSON.parse(text) as ServerFrame)));
    await new Promise((resolve, reject) => { socket.once('open', resolve); socket.once('error', reject); });
  });

  afterAll(async () => {
    socket?.close();
    await host?.close();
    await remote?.close();
  });

  /** The first chatskin's GET /template, as any API client reads it. */
  async function remoteTemplate(): Promise<Record<string, unknown>> {
    const response = await request(`${remote.apiUrl}/template`, {
      headers: { authorization: `Bearer ${apiKey}`, accept: 'application/json', 'user-agent': 'chatskin-test/1.0' },
    });
    expect(response.statusCode).toBe(200);
    return ((await response.body.json()) as { data: { settings_values: Record<string, unknown> } }).data.settings_values;
  }

  it('the two are separate services: different ports, stores and accounts', async () => {
    expect(host.port).not.toBe(remote.port);
    expect(host.service).not.toBe(remote.service);
    expect((await remoteTemplate())['bubble.background-color']).toBe('transparent');
  });

  it("a viewer's !style changes nothing; a moderator's restyles the remote's overlay, pushed live", async () => {
    await expect.poll(() => frames.some((f) => f.type === 'snapshot')).toBe(true);
    stdin.write('!style bubble.background-color #00ff00\n');
    stdin.write('/mod !style bubble.background-color #ff0000\n');
    // Polled on the push socket, which costs no API request (the remote allows 30 a minute).
    await expect.poll(() => frames.some((f) => f.type === 'update' && f.style.settings['bubble.background-color'] === '#ff0000'), { timeout: 10_000 })
      .toBe(true);
    await expect.poll(() => printed).toMatch(/bubble\.background-color is now #ff0000/);
    expect(frames.some((f) => f.type === 'update' && f.style.settings['bubble.background-color'] === '#00ff00')).toBe(false);
    expect((await remoteTemplate())['bubble.background-color']).toBe('#ff0000');
    // The host's own bundled store (and so its own overlay page) was not touched.
    expect((await host.service.getTemplate(host.account.id)).settings_values['bubble.background-color']).toBe('transparent');
  });

  it('!skins answers from the remote API; !skin refuses in one line', async () => {
    stdin.write('/as ann !skins\n');
    await expect.poll(() => printed).toMatch(/Ann no skins are granted to you yet\./);
    stdin.write('/as ann !skin neon\n');
    await expect.poll(() => printed).toMatch(/Ann picking a skin in chat needs the bundled overlay service/);
  });
});
