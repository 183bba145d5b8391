// After stop(), nothing of the redemption path keeps the process alive: a child process that ran
// redemptions and closed everything exits by itself (without process.exit).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const CHILD = fileURLToPath(new URL('./fixtures/redemptions-child.ts', import.meta.url));

describe('stopping the redemptions', () => {
  it('leaves nothing that holds the process open', async () => {
    const child = spawn(process.execPath, [CHILD], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    // A guard against hanging the suite, not a speed check: a leaked timer holds it for 10 minutes.
    const guard = setTimeout(() => child.kill('SIGKILL'), 25_000);
    const code = await new Promise<number | null>((resolve) => child.on('exit', (exitCode) => resolve(exitCode)));
    clearTimeout(guard);
    expect({ code, out, err }).toEqual({ code: 0, out: 'closed 1\n', err: '' });
  });
});
