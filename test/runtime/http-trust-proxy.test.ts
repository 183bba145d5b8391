// http.trustProxy reaches the whole host's HTTP server: behind a trusted proxy the API's
// failed-authentication limit counts each forwarded client on its own, so one client guessing
// keys does not lock every other client of the proxy out; unset, the header is not believed.
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { startChatskin } from '../../src/runtime/start-chatskin.ts';
import type { RunningChatskin } from '../../src/runtime/start-chatskin.ts';
import { hostConfig } from './host-config.ts';

let running: RunningChatskin | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

async function hostWith(http: Record<string, unknown>): Promise<RunningChatskin> {
  const config = hostConfig('chatskin-trust-proxy-', 'alice', {
    http: { host: '127.0.0.1', port: 0, ...http },
    api: { rateLimit: { failedAuthPerMinute: 2 } },
    localChat: { enabled: false },
  });
  running = await startChatskin(config, { logger: pino({ level: 'silent' }), stdin: null });
  return running;
}

async function guessFrom(host: RunningChatskin, client: string): Promise<number> {
  const answer = await fetch(`${host.apiUrl}/template`, {
    headers: { Authorization: 'Bearer wrong-key', Accept: 'application/json', 'User-Agent': 'chatskin-tests/1', 'X-Forwarded-For': client },
  });
  return answer.status;
}

describe('http.trustProxy on the whole host', () => {
  it('with the proxy trusted, a second client is not locked out by the first one\'s failures', async () => {
    const host = await hostWith({ trustProxy: ['127.0.0.1'] });
    expect([await guessFrom(host, '203.0.113.7'), await guessFrom(host, '203.0.113.7'), await guessFrom(host, '203.0.113.7')])
      .toEqual([401, 401, 429]);
    expect(await guessFrom(host, '198.51.100.4')).toBe(401);
  });

  it('counts an IPv6 client by its /64: the other addresses of its /64 are locked out with it, another /64 is not', async () => {
    const host = await hostWith({ trustProxy: ['127.0.0.1'] });
    expect([await guessFrom(host, '2001:db8:1:2::1'), await guessFrom(host, '2001:db8:1:2::2'), await guessFrom(host, '2001:db8:1:2:ffff:ab:cd:3')])
      .toEqual([401, 401, 429]);
    expect(await guessFrom(host, '2001:db8:1:3::1')).toBe(401);
  });

  it('by default the header is not believed: naming another address does not dodge the limit', async () => {
    const host = await hostWith({});
    expect([await guessFrom(host, '203.0.113.7'), await guessFrom(host, '203.0.113.8'), await guessFrom(host, '203.0.113.9')])
      .toEqual([401, 401, 429]);
  });
});
