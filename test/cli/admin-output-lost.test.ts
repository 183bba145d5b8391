// Admin commands whose output cannot be written (stdout on a full disk, a pipe whose reader is
// gone). `chatskin keys create`'s key is shown only this once, so a key nobody saw must not stay
// active: it would hold the account's one place for a key, and `keys create` would refuse until
// someone revoked a key they never had. It revokes it, says so in one line and exits 1; run again,
// it works. The others say in one line what they did, instead of a stack trace.
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeSync, existsSync, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAIN, runCli, tempWorkspace } from './cli-process.ts';
import type { CliResult } from './cli-process.ts';

/** `chatskin ARGS` with stdout `out`: a file descriptor, or a pipe closed before the command writes. */
function runInto(args: string[], out: number | 'closed pipe'): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--no-warnings', MAIN, ...args], {
      stdio: ['ignore', out === 'closed pipe' ? 'pipe' : out, 'pipe'],
    });
    // The reader goes away at once, long before the command has opened the database.
    child.stdout?.destroy();
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout: '', stderr }));
  });
}

describe('chatskin keys create with its output gone', () => {
  const { dir, config } = tempWorkspace();
  writeFileSync(join(dir, 'fixture.yaml'), 'accounts:\n  - { login: alice, premium: true }\n');

  const cases: Array<[string, () => number | 'closed pipe', RegExp]> = [
    ['a pipe whose reader is gone', () => 'closed pipe', /EPIPE/],
  ];
  // Writing to /dev/full fails as a full disk does (ENOSPC).
  if (existsSync('/dev/full')) cases.push(['a full disk', () => openSync('/dev/full', 'w'), /ENOSPC/]);

  it.each(cases)('to %s: revokes the key nobody saw, says so in one line, and a new create works', async (_name, output, cause) => {
    expect((await runCli(['seed', join(dir, 'fixture.yaml'), '--config', config])).code).toBe(0);
    const out = output();
    let result: CliResult;
    try {
      result = await runInto(['keys', 'create', 'alice', '--config', config], out);
    } finally {
      if (typeof out === 'number') closeSync(out);
    }
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^chatskin: the new API key of alice could not be printed \(.+\); it was revoked, so alice has no active key\. Run the command again with its output going where it can be written\.\n$/);
    expect(result.stderr).toMatch(cause);
    // Nothing of it is left active: a second create is not refused.
    const again = await runCli(['keys', 'create', 'alice', '--config', config]);
    expect(again.stderr).toBe('');
    expect(again.code).toBe(0);
    expect(again.stdout.trimEnd().split('\n').at(-1)).toMatch(/^csk_[A-Za-z0-9_-]{43}$/);
    expect((await runCli(['keys', 'revoke', 'alice', '--config', config])).code).toBe(0);
  });
});

describe('the other commands with their output gone', () => {
  const { dir, config } = tempWorkspace();
  const fixture = join(dir, 'fixture.yaml');
  writeFileSync(fixture, 'accounts:\n  - { login: alice, premium: true }\n');

  // No stack trace of an 'error' event nobody listened to: one line saying what was done all the same.
  it.skipIf(!existsSync('/dev/full'))('say in one line what was done, and that its answer could not be printed', async () => {
    expect((await runCli(['seed', fixture, '--config', config])).code).toBe(0);
    expect((await runCli(['keys', 'create', 'alice', '--config', config])).code).toBe(0);
    const cases: Array<[string[], string]> = [
      [['seed', fixture], `the fixture ${fixture} was applied`],
      [['premium', 'alice', 'off'], 'Premium is off for alice'],
      [['overlays', 'list', 'alice'], 'alice has 1 overlay(s)'],
      [['keys', 'revoke', 'alice'], 'Revoked the API key csk_'],
    ];
    for (const [args, done] of cases) {
      const out = openSync('/dev/full', 'w');
      let result: CliResult;
      try {
        result = await runInto([...args, '--config', config], out);
      } finally {
        closeSync(out);
      }
      expect(result.stderr.startsWith(`chatskin: ${done}`), result.stderr).toBe(true);
      expect(result.stderr).toMatch(/, but the answer could not be printed \(ENOSPC: no space left on device, write\)\.\n$/);
      expect(result.code).toBe(1);
    }
    // The changes were made: premium is off (the key was revoked too, so a new one can be made).
    expect((await runCli(['keys', 'create', 'alice', '--config', config])).code).toBe(0);
    expect((await runCli(['premium', 'alice', 'on', '--config', config])).stdout).toBe('Premium is on for alice.\n');
  });
});

describe('help and version with their output gone', () => {
  // process.stdout.write's 'error' event, which nobody listened to, ended them with a stack trace.
  it('say in one line that it could not be printed, exit code 1', async () => {
    const cases: Array<[string[], string]> = [[['--help'], 'help'], [['start', '--help'], 'help'], [['--version'], 'version']];
    for (const [args, what] of cases) {
      const result = await runInto(args, 'closed pipe');
      expect(result.stderr).toMatch(new RegExp(`^chatskin: the ${what} could not be printed \\(write EPIPE\\)\\.\\n$`));
      expect(result.code).toBe(1);
    }
  });
});

describe('twitch auth with its output gone', () => {
  // Its lines hold the code to enter: lost, nobody can approve it, so it stops at once, in one line,
  // rather than dying of an unhandled 'error' event's stack trace (or waiting out the code's lifetime).
  it('stops the sign-in and says why in one line, exit code 1', async () => {
    // An id.twitch.tv that takes the request and never answers: the sign-in waits there.
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = silent.address() as AddressInfo;
      const { config } = tempWorkspace('twitch: { clientId: abc, clientSecret: def, bot: { login: mybot, tokenFile: bot.json },'
        + ` oauth: { url: "http://127.0.0.1:${port}/auth" }, httpTimeoutSeconds: 20 }`);
      const result = await runInto(['twitch', 'auth', '--config', config], 'closed pipe');
      expect(result.stderr).toBe('chatskin: the sign-in was stopped: its lines, which hold the code to enter, could not be printed'
        + ' (write EPIPE). Run it again with its output on a terminal.\n');
      expect(result.code).toBe(1);
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });
});
