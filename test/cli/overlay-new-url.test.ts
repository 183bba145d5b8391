// `chatskin overlays new-url LOGIN ID` beside a running host: the overlay gets a new token, its
// old URL stops working at once (page and socket answer 404), the new one serves, `overlays list`
// shows it, and only that overlay changed. (Pages already open on the old URL are closed with 4004
// by the next heartbeat's token recheck, tested with a token changed from another process in
// test/service/push/push-gateway.test.ts.)
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { runCli, startHost, tempWorkspace } from './cli-process.ts';
import type { RunningHost } from './cli-process.ts';
import { ISSUE_SEED_FIXTURE as FIXTURE } from '../support/issue-seed-fixture.ts';

/** The status a WebSocket upgrade on `url` is answered with (101 once it opens). */
function upgradeStatus(url: string): Promise<number> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url);
    socket.on('error', () => { /* the refused handshake */ });
    socket.once('open', () => { socket.close(); resolve(101); });
    socket.once('unexpected-response', (_request, response) => { socket.terminate(); resolve(response.statusCode ?? 0); });
  });
}

/** id -> path (/overlay/TOKEN) from `overlays list` (http.port 0: paths only). */
async function listed(config: string): Promise<Map<string, string>> {
  const result = await runCli(['overlays', 'list', 'alice', '--config', config]);
  expect(result.code, result.stderr).toBe(0);
  return new Map(result.stdout.trimEnd().split('\n').slice(1).map((line) => {
    const fields = line.split('\t');
    return [fields[0]!, fields[3]!];
  }));
}

describe('chatskin overlays new-url', () => {
  const { dir, config } = tempWorkspace();
  let host: RunningHost | undefined;
  afterAll(async () => { await host?.stop(); });

  it('gives one overlay a new URL: the old one answers 404 at once, the new one serves, the others keep theirs', async () => {
    const fixture = join(dir, 'fixture.yaml');
    writeFileSync(fixture, FIXTURE);
    expect((await runCli(['seed', fixture, '--config', config])).code).toBe(0);
    host = await startHost(config, { cwd: dir });
    const before = await listed(config);
    expect(before.size).toBeGreaterThan(1);
    const [id, oldPath] = [...before][0]!;
    const ws = (path: string) => `${host!.baseUrl.replace('http', 'ws')}${path}/ws`;
    expect(await upgradeStatus(ws(oldPath))).toBe(101);

    const renewed = await runCli(['overlays', 'new-url', 'alice', id, '--config', config]);
    expect(renewed.code, renewed.stderr).toBe(0);
    const newPath = renewed.stdout.trim();
    expect(newPath).toMatch(/^\/overlay\/[A-Za-z0-9_-]{32}$/);
    expect(newPath).not.toBe(oldPath);
    expect(renewed.stderr).toContain(`the old URL of overlay ${id} no longer works`);

    expect((await fetch(`${host.baseUrl}${oldPath}`)).status).toBe(404);
    expect(await upgradeStatus(ws(oldPath))).toBe(404);
    expect((await fetch(`${host.baseUrl}${newPath}`)).status).toBe(200);
    expect(await upgradeStatus(ws(newPath))).toBe(101);

    const after = await listed(config);
    expect(after.get(id)).toBe(newPath);
    for (const [other, path] of before) if (other !== id) expect(after.get(other)).toBe(path);
  });

  it('refuses an id that is not one of the account\'s overlays, or not an id, changing nothing', async () => {
    const before = await listed(config);
    for (const [bad, says] of [['999', 'alice has no overlay 999'], ['abc', '"abc" is not an overlay id'], ['0', '"0" is not an overlay id']] as const) {
      const result = await runCli(['overlays', 'new-url', 'alice', bad, '--config', config]);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(says);
      expect(result.stdout).toBe('');
    }
    const nobody = await runCli(['overlays', 'new-url', 'nobody', '1', '--config', config]);
    expect(nobody.code).toBe(1);
    expect(nobody.stderr).toContain('No account with the login "nobody"');
    expect(await listed(config)).toEqual(before);
  });
});
