// `chatskin twitch auth` when id.twitch.tv (here twitch.oauth.url) cannot be reached: the one line
// says why (refused, no such host, ...), not only fetch's "fetch failed", which names no reason.
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli, tempWorkspace } from './cli-process.ts';

/** A port nothing listens on: one the system just gave out and took back. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('chatskin twitch auth with id.twitch.tv out of reach', () => {
  it('names the address and the reason (ECONNREFUSED), in one line, exit code 1', async () => {
    const port = await closedPort();
    const { dir, config } = tempWorkspace('twitch: { clientId: abc, clientSecret: def, bot: { login: mybot, tokenFile: bot.json },'
      + ` oauth: { url: "http://127.0.0.1:${port}/auth" } }`);
    for (const args of [[], ['--bot']]) {
      const result = await runCli(['twitch', 'auth', ...args, '--config', config], { cwd: dir, env: { CHATSKIN_DEBUG: '' }, killAfterMs: 20_000 });
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(`chatskin: Could not reach http://127.0.0.1:${port}/auth/device: fetch failed (connect ECONNREFUSED 127.0.0.1:${port})\n`);
    }
    rmSync(dir, { recursive: true, force: true });
  });
});
