// After stop(), nothing of the redemption path keeps the process alive: a child process that ran
// redemptions and closed everything exits by itself (without process.exit).
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runFixtureProcess } from '../../support/run-fixture-process.ts';

const CHILD = fileURLToPath(new URL('./fixtures/redemptions-child.ts', import.meta.url));
const NEEDS_AUTH_CHILD = fileURLToPath(new URL('./fixtures/needs-auth-child.ts', import.meta.url));

const run = runFixtureProcess;

describe('stopping the redemptions', () => {
  it('leaves nothing that holds the process open', async () => {
    expect(await run(CHILD)).toEqual({ code: 0, out: 'closed 1\n', err: '' });
  });

  it('while they wait for a broadcaster token (needs-auth), leaves nothing that holds the process open', async () => {
    expect(await run(NEEDS_AUTH_CHILD)).toEqual({ code: 0, out: 'closed needs-auth stopped\n', err: '' });
  });
});
