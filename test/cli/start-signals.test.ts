// Signals to `chatskin start` outside the steady state: while it is still starting (a plugin's
// setup under way, before the URLs print), the instant the URLs print, and SIGHUP (what a terminal
// that closes sends). One signal is a graceful stop with exit code 0, two exit 1 at once; either
// way the next start on the same database works at once (no lock left behind).
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MAIN, startHost, tempWorkspace } from './cli-process.ts';
import { createPluginFolders } from '../host/plugin-folders.ts';

// Its setup leaves a mark, takes CHATSKIN_TEST_SETUP_MS (1.5 s unless set), then leaves a second
// mark: a signal after the first comes while chatskin starts, and the second tells whether the
// process waited for the setup to end.
const SLOW_SETUP = `import { definePlugin } from SDK;
import { writeFileSync } from 'node:fs';
export default definePlugin({
  name: 'slowsetup',
  async setup(ctx) {
    writeFileSync(process.env.CHATSKIN_TEST_MARK!, 'setting up');
    await new Promise((resolve) => setTimeout(resolve, Number(process.env.CHATSKIN_TEST_SETUP_MS ?? 1500)));
    writeFileSync(process.env.CHATSKIN_TEST_MARK! + '.done', 'set up');
  },
});`;

const folders = createPluginFolders();
folders.add('slowsetup', SLOW_SETUP);
afterAll(() => folders.remove());

interface Exit { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }

/** `chatskin start` at info level; `act` is called with the child once it runs. */
function runStart(
  config: string, act: (child: ReturnType<typeof spawn>, output: () => string) => void, mark?: string, setupMs?: number,
): Promise<Exit> {
  const env = { ...process.env, CHATSKIN_TEST_MARK: mark, CHATSKIN_TEST_SETUP_MS: setupMs === undefined ? undefined : String(setupMs) };
  const child = spawn(process.execPath, ['--no-warnings', MAIN, 'start', '--config', config], { env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString(); });
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
  act(child, () => stdout);
  return new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
}

function infoWorkspace(extraYaml = ''): { dir: string; config: string } {
  const workspace = tempWorkspace(extraYaml);
  writeFileSync(workspace.config, readFileSync(workspace.config, 'utf8').replace('log: { level: warn }', 'log: { level: info }'));
  return workspace;
}

function slowSetupWorkspace(): { dir: string; config: string; mark: string } {
  const { dir, config } = infoWorkspace();
  const mark = join(dir, 'setup-started');
  writeFileSync(config, `${readFileSync(config, 'utf8')}\npluginDirs: [${JSON.stringify(folders.dir)}]\nplugins: { slowsetup: {} }\n`);
  return { dir, config, mark };
}

function whenFile(file: string, then: () => void): void {
  const poll = setInterval(() => {
    if (!existsSync(file)) return;
    clearInterval(poll);
    then();
  }, 10);
}

async function startsAgain(config: string, dir: string): Promise<void> {
  const again = await startHost(config, { cwd: dir });
  expect(await again.stop()).toBe(0);
}

describe('chatskin start signalled while it starts', () => {
  it('SIGTERM while a plugin sets up: finishes starting, stops gracefully, exit 0, the next start works', async () => {
    const { dir, config, mark } = slowSetupWorkspace();
    const exit = await runStart(config, (child) => whenFile(mark, () => child.kill('SIGTERM')), mark);
    expect({ code: exit.code, signal: exit.signal }).toEqual({ code: 0, signal: null });
    expect(existsSync(`${mark}.done`)).toBe(true);
    expect(exit.stderr).toContain('"msg":"shutting down"');
    expect(exit.stderr).toContain('"msg":"shut down"');
    // Stopped before it was ready: no URLs to open.
    expect(exit.stdout).not.toContain('API:');
    await startsAgain(config, dir);
  });

  it('SIGINT twice while a plugin sets up: exits at once with 1, the next start works', async () => {
    const { dir, config, mark } = slowSetupWorkspace();
    // A setup of a minute: exiting "at once" is exiting before it ends (its second mark never written).
    const exit = await runStart(config, (child) => whenFile(mark, () => {
      child.kill('SIGINT');
      setTimeout(() => child.kill('SIGINT'), 100);
    }), mark, 60_000);
    expect({ code: exit.code, signal: exit.signal }).toEqual({ code: 1, signal: null });
    expect(exit.stderr).toContain('second signal: exiting without waiting');
    expect(existsSync(`${mark}.done`)).toBe(false);
    await startsAgain(config, dir);
  });

  it('SIGTERM the moment the URLs print is a graceful stop (exit 0), every time', async () => {
    const { dir, config } = infoWorkspace();
    for (let round = 0; round < 4; round += 1) {
      const exit = await runStart(config, (child, output) => {
        child.stdout!.on('data', () => { if (/Overlay:/.test(output())) child.kill('SIGTERM'); });
      });
      expect({ round, code: exit.code, signal: exit.signal }).toEqual({ round, code: 0, signal: null });
      expect(exit.stderr).toContain('"msg":"shut down"');
    }
    await startsAgain(config, dir);
  });
});

describe('chatskin start and SIGHUP (the terminal it runs in closed)', () => {
  it('stops gracefully, exit 0, and the next start works', async () => {
    const { dir, config } = infoWorkspace();
    const host = await startHost(config, { cwd: dir });
    expect(await host.stop('SIGHUP')).toBe(0);
    expect(host.stderr()).toMatch(/"signal":"SIGHUP","msg":"shutting down"/);
    await startsAgain(config, dir);
  });
});
