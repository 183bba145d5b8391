// `chatskin store compact` (docs/config.md, "Compacting the store"), run as the real command line
// on a real SQLite file: the space of deleted rows, which SQLite keeps in the file, goes back to
// the disk, with the data kept; refused while a `chatskin start` serves the database, which is
// then left exactly as it was.
import { readFileSync, rmSync, statSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { lockStoreForCompaction } from '../../src/runtime/host-lock.ts';
import { openSqliteStore } from '../../src/service/store/sqlite-store.ts';
import { runCli, startHost, tempWorkspace } from './cli-process.ts';
import type { RunningHost } from './cli-process.ts';

let host: RunningHost | undefined;
const dirs: string[] = [];
afterEach(async () => {
  if (host?.child.exitCode === null) await host.stop('SIGKILL');
  host = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A store with bob's account (alice's, channel.login, is made by chatskin start) whose ledger once held ~8 MB of rows, since deleted: the file kept their pages. */
async function storeWithFreedSpace(): Promise<{ dir: string; config: string; database: string }> {
  const { dir, config } = tempWorkspace();
  dirs.push(dir);
  const database = `${dir}/db.sqlite`;
  await openSqliteStore({ path: database }).close();
  const db = new DatabaseSync(database);
  db.exec("INSERT INTO accounts (login, premium) VALUES ('bob', 1)");
  const insert = db.prepare("INSERT INTO processed_redemptions (id, account_id, reward_id, status) VALUES (?, 1, ?, 'status-sent')");
  db.exec('BEGIN');
  for (let i = 0; i < 2000; i++) insert.run(`r${i}`, 'x'.repeat(4000));
  db.exec('COMMIT');
  db.exec('DELETE FROM processed_redemptions');
  db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  db.close();
  return { dir, config, database };
}

function readStore(database: string): { integrity: unknown; premium: unknown; free: unknown } {
  const db = new DatabaseSync(database, { readOnly: true });
  try {
    return {
      integrity: db.prepare('PRAGMA integrity_check').get()!.integrity_check,
      premium: db.prepare("SELECT premium FROM accounts WHERE login = 'bob'").get()?.premium,
      free: db.prepare('PRAGMA freelist_count').get()!.freelist_count,
    };
  } finally {
    db.close();
  }
}

describe('chatskin store compact', () => {
  it('gives the space of deleted rows back to the disk, keeping the data, and says how much', async () => {
    const { dir, config, database } = await storeWithFreedSpace();
    const before = statSync(database).size;
    expect(before).toBeGreaterThan(8_000_000);
    expect(readStore(database).free).toBeGreaterThan(1000);

    const result = await runCli(['store', 'compact', '--config', config], { cwd: dir });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const after = statSync(database).size;
    expect(after).toBeLessThan(500_000);
    expect(result.stdout).toMatch(new RegExp(`^Compacted the database ${database}: \\d+\\.\\d MiB before, \\d+\\.\\d KiB after \\(\\d+\\.\\d MiB given back to the disk\\)\\.\\n$`));
    expect(readStore(database)).toEqual({ integrity: 'ok', premium: 1, free: 0 });

    // Again: nothing left to give back. A chatskin start works on the compacted store.
    const again = await runCli(['store', 'compact', '--config', config], { cwd: dir });
    expect(again.stdout).toContain('(nothing to give back).');
    host = await startHost(config, { cwd: dir });
    expect((await fetch(`${host.baseUrl}/healthz`)).status).toBe(200);
  });

  it('is refused while a chatskin start serves the database, which is left as it was', async () => {
    const { dir, config, database } = await storeWithFreedSpace();
    host = await startHost(config, { cwd: dir });
    const bytes = readFileSync(database);
    const refused = await runCli(['store', 'compact', '--config', config], { cwd: dir });
    expect(refused).toEqual({
      code: 1, stdout: '',
      stderr: `chatskin: The database ${database} is served by a running \`chatskin start\`: compacting rewrites the whole file, and the host could not write `
        + `meanwhile. Stop the host, run this again, then start it. (store.path in ${config})\n`,
    });
    expect(readFileSync(database).equals(bytes)).toBe(true);
    expect(await host.stop('SIGTERM')).toBe(0);
    expect((await runCli(['store', 'compact', '--config', config], { cwd: dir })).code).toBe(0);
  });

  it('while it runs, a chatskin start and a second compaction are refused in one line naming the compaction, not a host', async () => {
    const { dir, config, database } = await storeWithFreedSpace();
    // Held as a compaction under way holds it (the same code, from this process).
    const compaction = lockStoreForCompaction(database);
    try {
      const start = await runCli(['start', '--config', config], { cwd: dir, killAfterMs: 20_000 });
      expect(start.code).toBe(1);
      expect(start.stderr.trim().split('\n')).toEqual([expect.stringContaining(
        `The database ${database} is being compacted by a \`chatskin store compact\` under way: start again when it has finished.`,
      )]);
      expect(start.stderr).not.toContain('another `chatskin start`');
      expect(await runCli(['store', 'compact', '--config', config], { cwd: dir })).toEqual({
        code: 1, stdout: '',
        stderr: `chatskin: The database ${database} is being compacted already, by another \`chatskin store compact\` under way: it needs no second one. (store.path in ${config})\n`,
      });
    } finally {
      compaction.release();
    }
    expect((await runCli(['store', 'compact', '--config', config], { cwd: dir })).code).toBe(0);
    host = await startHost(config, { cwd: dir });
    expect((await fetch(`${host.baseUrl}/healthz`)).status).toBe(200);
  });

  it('refuses another action, and a database not made yet, in one line', async () => {
    const { dir, config } = tempWorkspace();
    dirs.push(dir);
    expect(await runCli(['store', 'shrink', '--config', config], { cwd: dir }))
      .toEqual({ code: 1, stdout: '', stderr: 'chatskin: Usage: chatskin store compact [--config FILE]\n' });
    const missing = await runCli(['store', 'compact', '--config', config], { cwd: dir });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^chatskin: There is no database at .*db\.sqlite yet/);
  });
});
