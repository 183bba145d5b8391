// `chatskin chat say` and the local chat's browser address against a running `chatskin start`
// behind a proxy (overlay.publicUrl set): both use the listening address, since the local chat
// refuses anything that came through a proxy.
import { readFileSync, writeFileSync } from 'node:fs';
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
    // Or as a line `start` printed, path and all (Chat:, API:): the local chat is at the host's root,
    // so the path was a 404 said to mean "localChat.enabled: false".
    for (const printed of [`http://127.0.0.1:${port}/local/chat/say`, `http://127.0.0.1:${port}/api/v1`]) {
      const pasted = await runCli(['chat', 'say', 'pasted', '--url', printed, '--config', config], { cwd: dir });
      expect({ printed, ...pasted }).toMatchObject({ printed, code: 0, stdout: 'sent\n' });
    }
    // The terminal's role prefix in the text: refused with the flag to use, not sent as a viewer's text.
    const prefixed = await runCli(['chat', 'say', '/mod !style bubble.width 300', '--config', config], { cwd: dir });
    expect(prefixed).toMatchObject({
      code: 1, stdout: '',
      stderr: 'chatskin: The text is refused: /mod picks the role in the terminal only: give it apart here (chatskin chat say --role mod; the role list on the chat page).\n',
    });
    expect(host.stdout()).not.toContain('/mod !style');
  });
});

describe('chat say to a host whose local chat is off', () => {
  let host: RunningHost | undefined;
  afterAll(async () => { await host?.stop(); });

  it('says so, not "Route POST:/local/chat/say not found"', async () => {
    const port = await freePort();
    const { dir, config } = tempWorkspace('', `{ host: 127.0.0.1, port: ${port} }`);
    writeFileSync(config, readFileSync(config, 'utf8').replace('localChat: { enabled: true, stdin: false }', 'localChat: { enabled: false }'));
    host = await startHost(config, { cwd: dir });
    const said = await runCli(['chat', 'say', 'hello', '--config', config], { cwd: dir });
    expect(said).toEqual({
      code: 1, stdout: '',
      stderr: `chatskin: http://127.0.0.1:${port} has no local chat to send to (404): the chatskin there runs with localChat.enabled: false`
        + ' (set it to true and restart that chatskin), or what answers there is not chatskin.\n',
    });
  });
});
