// A chatskin in remote mode (startChatskin, its local chat) in front of a remote that goes wrong:
// another whole chatskin whose premium is switched off, or something that is not the service at
// all (a proxy's HTML page, a redirect), each on a real socket. What /healthz's `remote-service`
// says, and what the log tells the streamer (docs/api.md, docs/client.md).
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it, onTestFinished } from 'vitest';
import { parseConfig } from '../../src/config/index.ts';
import { startChatskin } from '../../src/runtime/start-chatskin.ts';
import type { RunningChatskin } from '../../src/runtime/start-chatskin.ts';

function tempStore(prefix: string): { path: string } {
  return { path: join(mkdtempSync(join(tmpdir(), prefix)), 'db.sqlite') };
}

interface LogLine { level: number; msg: string }

interface RemoteModeHost {
  running: RunningChatskin;
  /** Log lines at warn and above. */
  problems(): LogLine[];
  /** Types `line` in the local chat and waits for the bot's next answer. */
  say(line: string): Promise<string>;
  health(): Promise<string | undefined>;
}

async function startRemoteModeHost(baseUrl: string, apiKey: string): Promise<RemoteModeHost> {
  const logs: LogLine[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const text of String(chunk).split('\n').filter(Boolean)) logs.push(JSON.parse(text) as LogLine);
      done();
    },
  });
  const stdin = new PassThrough();
  let printed = '';
  const running = await startChatskin(parseConfig({
    http: { host: '127.0.0.1', port: 0 },
    store: tempStore('chatskin-remote-host-'),
    channel: { login: 'streamer' },
    service: { mode: 'remote', baseUrl, apiKey, maxRetries: 0 },
    log: { level: 'info' },
  }), { logger: pino({ level: 'info' }, sink), stdin, stdout: { write: (text: string) => { printed += text; } } });
  onTestFinished(() => running.close());
  return {
    running,
    problems: () => logs.filter((line) => line.level >= 40),
    async say(line) {
      const answers = printed.split('\n').filter((text) => text.startsWith('chatskin (bot):')).length;
      stdin.write(`${line}\n`);
      await expect.poll(() => printed.split('\n').filter((text) => text.startsWith('chatskin (bot):')).length, { timeout: 10_000 })
        .toBeGreaterThan(answers);
      return printed.split('\n').filter((text) => text.startsWith('chatskin (bot):'))[answers]!;
    },
    async health() {
      const body = await (await fetch(`${running.baseUrl}/healthz`)).json() as { components: Record<string, string> };
      return body.components['remote-service'];
    },
  };
}

async function startRemote(): Promise<{ remote: RunningChatskin; apiKey: string }> {
  const remote = await startChatskin(parseConfig({
    http: { host: '127.0.0.1', port: 0 },
    store: tempStore('chatskin-remote-'),
    channel: { login: 'streamer' },
    localChat: { enabled: false },
    log: { level: 'silent' },
  }), { logger: pino({ level: 'silent' }), stdin: null });
  onTestFinished(() => remote.close());
  await remote.service.setPremium('streamer', true);
  return { remote, apiKey: (await remote.service.createKey('streamer')).token };
}

/** An HTTP server that answers every request with `answer`: what sits at a wrong base URL. */
async function notTheService(answer: (response: ServerResponse) => void): Promise<string> {
  const server = createServer((_request, response) => answer(response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(() => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
}

describe('remote mode, a remote that refuses or is not the service', () => {
  it('premium switched off on the remote: /healthz says access-refused, and ok again once it is back on', async () => {
    const { remote, apiKey } = await startRemote();
    const host = await startRemoteModeHost(remote.apiUrl, apiKey);
    expect(await host.say('/mod !style bubble.width 299')).toMatch(/bubble\.width is now 299/);
    expect(await host.health()).toBe('ok');
    await remote.service.setPremium('streamer', false);
    expect(await host.say('/mod !style bubble.width 300')).toContain('premium subscription');
    expect(await host.health()).toBe('access-refused');
    await remote.service.setPremium('streamer', true);
    expect(await host.say('/mod !style bubble.width 301')).toMatch(/bubble\.width is now 301/);
    expect(await host.health()).toBe('ok');
  });

  it.each([
    ['a proxy\'s HTML page, 200', (response: ServerResponse) => { response.writeHead(200, { 'content-type': 'text/html' }); response.end('<html>Sign in to the network</html>'); }],
    ['a web server\'s HTML 404', (response: ServerResponse) => { response.writeHead(404, { 'content-type': 'text/html' }); response.end('<html>Not Found</html>'); }],
    ['a redirect', (response: ServerResponse) => { response.writeHead(302, { location: 'https://portal.example/login' }); response.end(); }],
  ])('%s where the service should be: the chat is told to check the settings, /healthz says unreachable', async (_name, answer) => {
    const host = await startRemoteModeHost(await notTheService(answer), 'csk_any');
    expect(await host.say('/mod !style bubble.width 300')).toContain('the overlay service gave an answer the bot cannot read');
    expect(await host.health()).toBe('unreachable');
  });
});

describe('remote mode, the log tells the streamer once per outage, not once per command', () => {
  it('premium switched off: one error line saying what to do, whatever the number of commands; again for the next outage', async () => {
    const { remote, apiKey } = await startRemote();
    const host = await startRemoteModeHost(remote.apiUrl, apiKey);
    await remote.service.setPremium('streamer', false);
    for (const width of [300, 301, 302]) expect(await host.say(`/mod !style bubble.width ${width}`)).toContain('premium subscription');
    expect(host.problems().map((line) => line.msg)).toEqual([
      expect.stringMatching(/^the overlay service at http:\/\/127\.0\.0\.1:\d+\/api\/v1 refused the bot's access \(403\).*premium/),
    ]);
    expect(host.problems()[0]!.level).toBe(50);
    await remote.service.setPremium('streamer', true);
    expect(await host.say('/mod !style bubble.width 303')).toMatch(/bubble\.width is now 303/);
    await remote.service.setPremium('streamer', false);
    await host.say('/mod !style bubble.width 304');
    await host.say('/mod !style bubble.width 305');
    expect(host.problems()).toHaveLength(2);
  });

  it('the remote killed: every command answers in one line, the log says it once', async () => {
    const { remote, apiKey } = await startRemote();
    const host = await startRemoteModeHost(remote.apiUrl, apiKey);
    expect(await host.say('/mod !style bubble.width 299')).toMatch(/bubble\.width is now 299/);
    await remote.close();
    for (const width of [300, 301, 302]) {
      expect(await host.say(`/mod !style bubble.width ${width}`)).toBe('chatskin (bot): @You the overlay service is not answering; try again in a moment.');
    }
    expect(await host.health()).toBe('unreachable');
    expect(host.problems().map((line) => line.msg)).toEqual([
      expect.stringMatching(/^the overlay service at http:\/\/127\.0\.0\.1:\d+\/api\/v1 is not answering/),
    ]);
  });
});
