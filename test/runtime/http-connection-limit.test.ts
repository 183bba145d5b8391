// http.maxConnections on the whole host, and http.maxConnectionsPerAddress per client address: past
// either a new connection is closed at once, unanswered, and once one closes a new one is served again.
import net from 'node:net';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { startChatskin } from '../../src/runtime/start-chatskin.ts';
import type { RunningChatskin } from '../../src/runtime/start-chatskin.ts';
import { hostConfig } from './host-config.ts';

let running: RunningChatskin | undefined;
const sockets: net.Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await running?.close();
  running = undefined;
});

/** A connection that asks for /healthz and stays open (keep-alive); resolves with what it got once it is answered or closed. */
function healthzOver(port: number, localAddress?: string): { answer: Promise<string>; socket: net.Socket } {
  const socket = net.connect({ port, host: '127.0.0.1', localAddress });
  sockets.push(socket);
  const answer = new Promise<string>((resolve) => {
    let text = '';
    socket.on('connect', () => socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'));
    socket.on('data', (chunk) => {
      text += String(chunk);
      if (text.includes('\r\n\r\n')) resolve(text);
    });
    socket.on('close', () => resolve(text));
    socket.on('error', () => {});
  });
  return { answer, socket };
}

describe('http.maxConnections on the whole host', () => {
  it('closes a connection past the limit unanswered; a freed place is served again', async () => {
    const config = hostConfig('chatskin-max-connections-', 'alice', { http: { host: '127.0.0.1', port: 0, maxConnections: 2 }, localChat: { enabled: false } });
    running = await startChatskin(config, { logger: pino({ level: 'silent' }), stdin: null });
    const first = healthzOver(running.port);
    const second = healthzOver(running.port);
    expect(await first.answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(await second.answer).toMatch(/^HTTP\/1\.1 200 /);

    expect(await healthzOver(running.port).answer).toBe('');

    first.socket.destroy();
    await expect.poll(async () => (await healthzOver(running!.port).answer).slice(0, 12)).toBe('HTTP/1.1 200');
  });
});

describe('http.maxConnectionsPerAddress', () => {
  it('closes one address\'s connection past its limit unanswered, while another address is still served', async () => {
    const config = hostConfig('chatskin-per-address-', 'alice', {
      http: { host: '127.0.0.1', port: 0, maxConnectionsPerAddress: 2 }, localChat: { enabled: false },
    });
    running = await startChatskin(config, { logger: pino({ level: 'silent' }), stdin: null });
    const first = healthzOver(running.port, '127.0.0.1');
    const second = healthzOver(running.port, '127.0.0.1');
    expect(await first.answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(await second.answer).toMatch(/^HTTP\/1\.1 200 /);

    expect(await healthzOver(running.port, '127.0.0.1').answer).toBe('');
    // Another address (Linux answers all of 127/8 on the loopback interface) has places of its own.
    expect(await healthzOver(running.port, '127.0.0.2').answer).toMatch(/^HTTP\/1\.1 200 /);

    first.socket.destroy();
    await expect.poll(async () => (await healthzOver(running!.port, '127.0.0.1').answer).slice(0, 12)).toBe('HTTP/1.1 200');
  });

  it('does not count the connections of an address trusted as a proxy (http.trustProxy): they carry many clients', async () => {
    const config = hostConfig('chatskin-per-address-proxy-', 'alice', {
      http: { host: '127.0.0.1', port: 0, maxConnectionsPerAddress: 1, trustProxy: ['127.0.0.0/8'] }, localChat: { enabled: false },
    });
    running = await startChatskin(config, { logger: pino({ level: 'silent' }), stdin: null });
    const answers = [healthzOver(running.port), healthzOver(running.port), healthzOver(running.port)].map((open) => open.answer);
    for (const answer of await Promise.all(answers)) expect(answer).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('defaults to 256 a client address', () => {
    expect(hostConfig('chatskin-per-address-default-', 'alice').http.maxConnectionsPerAddress).toBe(256);
  });
});
