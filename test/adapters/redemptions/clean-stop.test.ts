// After stop(), nothing of the redemption path keeps the process alive: a child process that ran
// redemptions and closed everything exits by itself (without process.exit).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const CHILD = fileURLToPath(new URL('./fixtures/redemptions-child.ts', import.meta.url));
const NEEDS_AUTH_CHILD = fileURLToPath(new URL('./fixtures/needs-auth-child.ts', import.meta.url));

/** Runs a fixture; a leaked timer would hold it open, so a guard kills it (not a speed check). */
async function run(file: string): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, [file], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const guard = setTimeout(() => child.kill('SIGKILL'), 25_000);
  const code = await new Promise<number | null>((resolve) => child.on('exit', (exitCode) => resolve(exitCode)));
  clearTimeout(guard);
  return { code, out, err };
}

describe('stopping the redemptions', () => {
  it('leaves nothing that holds the process open', async () => {
    expect(await run(CHILD)).toEqual({ code: 0, out: 'closed 1\n', err: '' });
  });

  it('while they wait for a broadcaster token (needs-auth), leaves nothing that holds the process open', async () => {
    expect(await run(NEEDS_AUTH_CHILD)).toEqual({ code: 0, out: 'closed needs-auth stopped\n', err: '' });
  });
});
