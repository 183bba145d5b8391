// The database file deleted, or replaced by another (a backup put back by rename), under a running
// `chatskin start`: SQLite goes on writing to the file it has open, which no restart finds again,
// so every write answered 200 from then on was lost at the next start. Writes are refused instead
// (500, logged with why), reads go on, and the host keeps running.
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CHILD_OUTPUT, CLIENT_HEADERS, runCli, startHost, tempWorkspace } from './cli-process.ts';
import type { RunningHost } from './cli-process.ts';

let host: RunningHost | undefined;
afterEach(async () => {
  if (host?.child.exitCode === null) await host.stop('SIGKILL');
  host = undefined;
});

async function startSeeded(): Promise<{ dir: string; db: string; call: (method: string, body?: unknown) => Promise<Response> }> {
  const { dir, config } = tempWorkspace();
  writeFileSync(join(dir, 'fixture.yaml'), 'accounts:\n  - login: alice\n    premium: true\n    overlays:\n      - { name: Main, template: bubbles, default: true, values: {} }\n');
  expect((await runCli(['seed', join(dir, 'fixture.yaml'), '--config', config])).code).toBe(0);
  const key = (await runCli(['keys', 'create', 'alice', '--config', config])).stdout.trimEnd().split('\n').at(-1)!;
  const headers = { ...CLIENT_HEADERS, authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  host = await startHost(config, { cwd: dir });
  const running = host;
  const call = (method: string, body?: unknown) =>
    fetch(`${running.apiUrl}/template`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return { dir, db: join(dir, 'db.sqlite'), call };
}

describe('chatskin start whose database file goes away', () => {
  it.each([
    ['deleted', (db: string) => rmSync(db)],
    ['replaced by another file', (db: string) => {
      writeFileSync(`${db}.copy`, 'another file');
      renameSync(`${db}.copy`, db);
    }],
  ])('%s: refuses writes (500, logged with why) instead of answering 200 for what a restart would not find; reads go on', async (_name, remove) => {
    const { db, call } = await startSeeded();
    const width = (value: number) => ({ scope: 'independent', values: { 'bubble.width': value } });
    expect((await call('PUT', width(301))).status).toBe(200);
    remove(db);
    const refused = await call('PUT', width(302));
    expect(refused.status).toBe(500);
    expect(await refused.json()).toEqual({ message: 'Server Error.' });
    await expect.poll(() => host!.stderr(), CHILD_OUTPUT).toContain(`The database ${db} was deleted or replaced while chatskin had it open`);
    const read = await call('GET');
    expect(read.status).toBe(200);
    expect(((await read.json()) as { data: { settings_values: Record<string, unknown> } }).data.settings_values['bubble.width']).toBe(301);
    expect(host!.child.exitCode).toBeNull();
  });
});
