// A real `chatskin start` whose database stops taking writes under it: the file grows past the
// process's file size limit (RLIMIT_FSIZE, set from outside with prlimit: SQLite's write fails with
// EFBIG, an I/O error), or, run as root, the disk holding it fills (a small tmpfs). Every write is
// answered 503 in the API's error shape, nothing is stored, reads and chat go on, /healthz names
// the fault and the chat reply tells the moderator; once the disk takes writes again the next
// write is saved, without a restart.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CHILD_OUTPUT, CLIENT_HEADERS, runCli, startHost, tempWorkspace } from './cli-process.ts';
import type { RunningHost } from './cli-process.ts';

let host: RunningHost | undefined;
const mounted: string[] = [];
afterEach(async () => {
  await host?.stop('SIGKILL');
  host = undefined;
  for (const dir of mounted.splice(0)) execFileSync('umount', ['-l', dir]);
});

interface Workspace {
  config: string;
  dbPath: string;
  key: string;
}

/** A host on a database in `storeDir` (default: a temp folder), with alice's API key. */
async function startWithKey(storeDir?: string): Promise<Workspace> {
  const { dir, config } = tempWorkspace('plugins: { style: {} }');
  const dbPath = join(storeDir ?? dir, 'db.sqlite');
  writeFileSync(config, readFileSync(config, 'utf8').replace(/^store: .*$/m, `store: { path: ${JSON.stringify(dbPath)} }`));
  host = await startHost(config);
  expect((await runCli(['premium', 'alice', 'on', '--config', config])).code).toBe(0);
  const created = await runCli(['keys', 'create', 'alice', '--config', config]);
  expect(created.code, created.stderr).toBe(0);
  return { config, dbPath, key: created.stdout.trim().split('\n').at(-1)! };
}

async function api(path: string, key: string, init: { method?: string; json?: unknown } = {}) {
  const response = await fetch(`${host!.apiUrl}${path}`, {
    method: init.method ?? 'GET',
    headers: { ...CLIENT_HEADERS, authorization: `Bearer ${key}`, ...(init.json === undefined ? {} : { 'content-type': 'application/json' }) },
    body: init.json === undefined ? undefined : JSON.stringify(init.json),
  });
  return { status: response.status, retryAfter: response.headers.get('retry-after'), body: await response.json() as Record<string, any> };
}

async function databaseHealth(): Promise<string> {
  const health = await (await fetch(`${host!.baseUrl}/healthz`)).json() as { components: Record<string, string> };
  return health.components['database']!;
}

const setGap = (gap: number) => ({ method: 'PUT', json: { scope: 'independent', values: { 'bubble.gap': gap } } });
const storedGap = async (key: string) => (await api('/template', key)).body.data.settings_values['bubble.gap'];
const sayAsModerator = (text: string) => runCli(['chat', 'say', text, '--role', 'mod', '--url', host!.baseUrl]);

/** Writes go on being refused while the fault lasts; then `mend` is called and writes are saved again. */
async function expectRefusedUntilMended(ws: Workspace, reason: RegExp, fault: string, mend: () => void): Promise<void> {
  const before = await storedGap(ws.key);
  for (const gap of [21, 22]) {
    const refused = await api('/template', ws.key, setGap(gap));
    expect(refused.status).toBe(503);
    expect(refused.retryAfter).toBe('120');
    expect(Object.keys(refused.body)).toEqual(['message']);
    expect(refused.body.message).toMatch(/^The service cannot save changes now: /);
    expect(refused.body.message).toMatch(reason);
    expect(refused.body.message).toMatch(/nothing was changed/);
  }
  expect(await storedGap(ws.key)).toBe(before);
  expect(await databaseHealth()).toBe(fault);
  expect(host!.stderr()).toMatch(/a write could not be saved/);
  expect(host!.stderr()).not.toMatch(/unexpected error in API request/);

  // A moderator's command is answered with what happened, and chat itself goes on.
  const said = await sayAsModerator('!style bubble.gap 23');
  expect(said.code, said.stderr).toBe(0);
  await expect.poll(() => host!.stdout(), CHILD_OUTPUT).toMatch(/the overlay service cannot save changes now; the streamer should check its log\./);
  expect(host!.child.exitCode).toBeNull();

  // New chatters cannot be registered as viewers meanwhile: said once in the log, not per chatter.
  for (const login of ['ann', 'ben', 'cy']) expect((await runCli(['chat', 'say', 'hi', '--as', login, '--url', host!.baseUrl])).code).toBe(0);
  await expect.poll(() => host!.stderr(), CHILD_OUTPUT).toMatch(/registering chatters as viewers fails/);
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(host!.stderr().split('registering chatters as viewers fails').length - 1).toBe(1);
  expect(host!.stderr()).not.toMatch(/registering a chatter as a viewer failed/);
  expect((await api('/viewers/ann/skins', ws.key)).status).toBe(404);

  mend();
  // ann's next line registers her.
  expect((await runCli(['chat', 'say', 'again', '--as', 'ann', '--url', host!.baseUrl])).code).toBe(0);
  await expect.poll(async () => (await api('/viewers/ann/skins', ws.key)).status, CHILD_OUTPUT).toBe(200);
  const saved = await api('/template', ws.key, setGap(24));
  expect(saved.status).toBe(200);
  expect(await storedGap(ws.key)).toBe(24);
  expect(await databaseHealth()).toBe('writable');
}

describe('a database that stops taking writes while chatskin runs', () => {
  it('past the file size limit (an I/O error): 503 with its reason, nothing stored, /healthz io-error; saved again once the limit is raised', async () => {
    const ws = await startWithKey();
    expect(await databaseHealth()).toBe('writable');
    // Writes that only reuse room the files already have would still succeed: cap at their size now.
    const largest = Math.max(statSync(ws.dbPath).size, statSync(`${ws.dbPath}-wal`).size);
    execFileSync('prlimit', [`--pid=${host!.child.pid}`, `--fsize=${largest}:unlimited`]);
    await expectRefusedUntilMended(ws, /the disk holding the database fails to read or write/, 'io-error', () => {
      execFileSync('prlimit', [`--pid=${host!.child.pid}`, '--fsize=unlimited:unlimited']);
    });
  });

  // Mounting a filesystem needs root (as CI runs); elsewhere the file size limit above stands in.
  it.runIf(process.getuid?.() === 0)('on a full disk: 503 saying so, nothing stored, /healthz disk-full; saved again once space is freed', async () => {
    const { dir } = tempWorkspace();
    const disk = join(dir, 'disk');
    mkdirSync(disk);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', disk]);
    mounted.push(disk);
    const ws = await startWithKey(disk);
    const filler = join(disk, 'filler');
    try {
      execFileSync('dd', ['if=/dev/zero', `of=${filler}`, 'bs=64k', 'count=64'], { stdio: 'ignore' });
    } catch {
      // dd stops with "No space left on device" once the disk is full: that is the point.
    }
    // An admin command meanwhile says what is wrong in one line, and changes nothing.
    const premiumOff = await runCli(['premium', 'alice', 'off', '--config', ws.config]);
    expect(premiumOff.code).toBe(1);
    expect(premiumOff.stderr).toBe(`chatskin: the database ${ws.dbPath} cannot be written: the disk holding the database is full; nothing was changed (store.path in ${ws.config})\n`);
    expect((await api('/template', ws.key)).status).toBe(200);
    await expectRefusedUntilMended(ws, /the disk holding the database is full/, 'disk-full', () => rmSync(filler));
  });
});
