// docs/config.md's "Backing up and restoring the store", run as written against a real `chatskin
// start`: a copy of the database file alone misses what is still in its WAL; the documented backups,
// made while the host runs and writes, hold the last answered write and are owner-only; and the
// documented restore, after a host killed with its WAL full of later writes, brings the backup's
// state back, not the WAL's.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, startHost } from './cli-process.ts';
import type { RunningHost } from './cli-process.ts';

const DOCS = readFileSync(new URL('../../docs/config.md', import.meta.url), 'utf8');
const SECTION = DOCS.slice(DOCS.indexOf('#### Backing up and restoring the store'));
/** The section's fenced shell blocks, in order: sqlite3 backup, Node backup, restore. */
const BLOCKS = [...SECTION.matchAll(/```sh\n([\s\S]*?)```/g)].slice(0, 3).map((match) => match[1]!.trim());
const HAS_SQLITE3 = spawnSync('sqlite3', ['-version']).status === 0;

/** Runs a documented command in `cwd` with sh; `npx node` is this test's Node 24 (the temp folder has no node_modules). */
function sh(command: string, cwd: string): { status: number | null; stderr: string } {
  const result = spawnSync('sh', ['-c', command.replaceAll('npx node', JSON.stringify(process.execPath))], { cwd, encoding: 'utf8' });
  return { status: result.status, stderr: result.stderr };
}

function premiumIn(file: string): number | undefined {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const tables = db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'accounts'").get()!.n;
    if (tables === 0) return undefined;
    expect(db.prepare('PRAGMA integrity_check').get()!.integrity_check).toBe('ok');
    return db.prepare("SELECT premium FROM accounts WHERE login = 'alice'").get()?.premium as number | undefined;
  } finally {
    db.close();
  }
}

describe('docs/config.md: backing up and restoring the store', () => {
  const dir = mkdtempSync(join(tmpdir(), 'chatskin-backup-'));
  const config = join(dir, 'config.yaml');
  // The shipped relative store.path, so the documented commands run as written from the folder chatskin runs in.
  writeFileSync(config, 'http: { host: 127.0.0.1, port: 0 }\nchannel: { login: alice }\nlocalChat: { enabled: true, stdin: false }\nlog: { level: warn }\n');
  const database = join(dir, 'data', 'chatskin.db');
  let host: RunningHost | undefined;
  afterAll(async () => {
    if (host?.child.exitCode === null) await host.stop('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('shows three commands: two backups and a restore', () => {
    expect(BLOCKS).toHaveLength(3);
    expect(BLOCKS[0]).toContain('sqlite3 ./data/chatskin.db');
    expect(BLOCKS[1]).toContain('VACUUM INTO');
    expect(BLOCKS[2]).toContain('./data/chatskin.db-wal');
  });

  it('backs up a running host with its latest writes, owner-only, and restores over a killed host\'s WAL', async () => {
    host = await startHost(config, { cwd: dir });
    const on = await runCli(['premium', 'alice', 'on', '--config', config], { cwd: dir });
    expect(on.code, on.stderr).toBe(0);

    // What the section warns of: the file alone, copied while the host runs, has not even the tables yet.
    copyFileSync(database, join(dir, 'plain-copy.db'));
    expect(premiumIn(join(dir, 'plain-copy.db'))).toBeUndefined();

    const backups = [HAS_SQLITE3 ? 'sqlite3-backup.db' : null, 'node-backup.db'];
    for (const [index, name] of backups.entries()) {
      if (name === null) continue;
      const result = sh(BLOCKS[index]!.replaceAll('./chatskin-backup.db', `./${name}`), dir);
      expect(result.status, result.stderr).toBe(0);
      expect(statSync(join(dir, name)).mode & 0o777).toBe(0o600);
      expect(premiumIn(join(dir, name))).toBe(1);
    }
    // The Node backup never overwrites a file.
    expect(sh(BLOCKS[1]!.replaceAll('./chatskin-backup.db', './node-backup.db'), dir).stderr).toContain('output file already exists');

    // A later write, then a kill: it stays in the WAL beside the database.
    const off = await runCli(['premium', 'alice', 'off', '--config', config], { cwd: dir });
    expect(off.code, off.stderr).toBe(0);
    await host.stop('SIGKILL');
    expect(statSync(`${database}-wal`).size).toBeGreaterThan(0);

    const restored = sh(BLOCKS[2]!.replaceAll('./chatskin-backup.db', './node-backup.db'), dir);
    expect(restored.status, restored.stderr).toBe(0);
    expect(existsSync(`${database}-wal`)).toBe(false);
    host = await startHost(config, { cwd: dir });
    expect(await host.stop()).toBe(0);
    expect(premiumIn(database)).toBe(1);
  }, 60_000);
});
