// `chatskin chat say` and the local chat's browser address against a running `chatskin start`
// behind a proxy (overlay.publicUrl set): both use the listening address, since the local chat
// refuses anything that came through a proxy.
import { createServer } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, startHost, tempWorkspace } from './cli-process.ts';
import type { RunningHost } from './cli-process.ts';

/** A port nothing listens on now (the config needs a fixed one for `chat say` to find the host). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('the local chat with overlay.publicUrl set', () => {
  let host: RunningHost | undefined;
  afterAll(async () => { await host?.stop(); });

  it('prints the local chat page at the listening address, and chat say reaches it there', async () => {
    const port = await freePort();
    const { dir, config } = tempWorkspace("overlay: { publicUrl: 'https://overlay.example.com' }", `{ host: 127.0.0.1, port: ${port} }`);
    host = await startHost(config, { cwd: dir });
    expect(host.overlayUrls[0]).toMatch(/^https:\/\/overlay\.example\.com\/overlay\//);
    expect(host.stdout()).toContain(`  Chat:    http://127.0.0.1:${port}/local/chat/say   (the local chat in a browser on this machine)`);
    const page = await fetch(`http://127.0.0.1:${port}/local/chat/say`);
    expect(page.status).toBe(200);

    const said = await runCli(['chat', 'say', 'hello from the CLI', '--as', 'bob', '--config', config], { cwd: dir });
    expect(said).toMatchObject({ code: 0, stdout: 'sent\n' });
    // --url as an address is often copied, with a trailing slash.
    const slashed = await runCli(['chat', 'say', 'again', '--url', `http://127.0.0.1:${port}/`, '--config', config], { cwd: dir });
    expect(slashed).toMatchObject({ code: 0, stdout: 'sent\n' });
  });
});
