// `chatskin start` whose stdout or stderr reader went away (`chatskin start | head` once head
// ended, a log shipper that exited): the next line printed or logged fails with EPIPE, and the
// host must run on (serving the API, the overlay and the chat) and still stop cleanly.
import { readFileSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { startHost, tempWorkspace } from './cli-process.ts';
import type { RunningHost } from './cli-process.ts';

let host: RunningHost | undefined;
afterEach(async () => {
  if (host?.child.exitCode === null) await host.stop('SIGKILL');
  host = undefined;
});

async function say(running: RunningHost, text: string): Promise<number> {
  const response = await fetch(`${running.baseUrl}/local/chat/say`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text, login: 'mia', role: 'moderator' }),
  });
  return response.status;
}

/** The reading end of the child's `stream` closed, as when the program it was piped to exits. */
async function closeReader(stream: NodeJS.ReadableStream & { destroy(): void }): Promise<void> {
  stream.destroy();
  await new Promise((resolve) => setTimeout(resolve, 50));
}

describe('chatskin start with its output gone', () => {
  it('runs on when stdout is closed: chat lines it would print are dropped, the rest still works', async () => {
    const { dir, config } = tempWorkspace();
    host = await startHost(config, { cwd: dir });
    await closeReader(host.child.stdout);
    // Each of these prints a line (the chatter's and the bot's reply) to the closed stdout.
    expect(await say(host, '!style show bubble.width')).toBe(202);
    expect(await say(host, '!style bubble.width 321')).toBe(202);
    await expect.poll(async () => (await fetch(`${host!.baseUrl}/healthz`)).status, { timeout: 5_000 }).toBe(200);
    expect(host.child.exitCode).toBeNull();
    expect(host.stderr()).toContain('stdout is closed');
    expect(await host.stop()).toBe(0);
  });

  it('runs on when stderr (the log) is closed, and a stop is still clean', async () => {
    const { dir, config } = tempWorkspace();
    // Debug level: the chat lines and the stop are logged, each write hitting the closed stderr.
    writeFileSync(config, readFileSync(config, 'utf8').replace('log: { level: warn }', 'log: { level: debug }'));
    host = await startHost(config, { cwd: dir });
    await closeReader(host.child.stderr);
    expect(await say(host, '!style show bubble.width')).toBe(202);
    expect((await fetch(`${host.baseUrl}/healthz`)).status).toBe(200);
    expect(host.child.exitCode).toBeNull();
    // A stop stuck on its own log lines ran into the shutdown deadline and exited 1.
    expect(await host.stop()).toBe(0);
  });
});
