// http.port 0: the running host picks a free port that no other process can know, so the CLI
// prints no address with port 0 in it. `overlays list` prints the paths with one note (or the
// overlay.publicUrl address, which does not depend on the port); `chat say` needs --url.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, startHost, tempWorkspace } from './cli-process.ts';
import type { RunningHost } from './cli-process.ts';

describe('with http.port 0', () => {
  let host: RunningHost | undefined;
  afterAll(async () => { await host?.stop(); });

  it('overlays list prints the overlay paths and one note saying where the full URLs come from', async () => {
    const { dir, config } = tempWorkspace();
    host = await startHost(config, { cwd: dir });
    const listed = await runCli(['overlays', 'list', 'alice', '--config', config], { cwd: dir });
    expect(listed.code).toBe(0);
    expect(listed.stdout).not.toContain(':0');
    const path = new URL(host.overlayUrls[0]!).pathname;
    expect(listed.stdout.split('\n')[1]).toMatch(new RegExp(`^\\d+\\tMain \\(default\\)\\tbubbles\\t${path}$`));
    expect(listed.stderr).toBe(`chatskin: note: http.port is 0 in ${config}: the running host picks a free port and prints the full`
      + ' overlay URLs when it starts, so these are paths on it. Set http.port (or overlay.publicUrl) to know the URLs in advance.\n');
    // The path is the one the running host serves.
    expect((await fetch(`${host.baseUrl}${path}`)).status).toBe(200);
  });

  it('overlays list uses overlay.publicUrl as is, without a note', async () => {
    const { dir, config } = tempWorkspace("overlay: { publicUrl: 'https://overlay.example.com/' }");
    writeFileSync(join(dir, 'fixture.yaml'), 'accounts: [ { login: alice } ]\n');
    expect((await runCli(['seed', join(dir, 'fixture.yaml'), '--config', config], { cwd: dir })).code).toBe(0);
    const listed = await runCli(['overlays', 'list', 'alice', '--config', config], { cwd: dir });
    expect(listed).toMatchObject({ code: 0, stderr: '' });
    expect(listed.stdout.split('\n')[1]).toMatch(/\thttps:\/\/overlay\.example\.com\/overlay\/\S+$/);
  });

  it('chat say without --url refuses in one line naming http.port, the config file and --url; with --url it is sent', async () => {
    const { dir, config } = tempWorkspace();
    const refused = await runCli(['chat', 'say', 'hello', '--config', config], { cwd: dir });
    expect(refused).toEqual({
      code: 1, stdout: '',
      stderr: `chatskin: http.port is 0 in ${config}, so the running host picked a free port only it knows: pass its address`
        + ' with --url http://127.0.0.1:PORT (PORT as it printed at start), or set http.port to a fixed port.\n',
    });
    // The address it printed at start, and a role alias the local chat takes.
    const said = await runCli(['chat', 'say', 'hello', '--as', 'bob', '--role', 'mod', '--url', host!.baseUrl, '--config', config], { cwd: dir });
    expect(said).toMatchObject({ code: 0, stdout: 'sent\n' });
  });
});
