// Runs the real CLI (`node src/main.ts …`) as a child process, the way a person or a script does.
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A temp folder with a config whose database lives inside it, on a free port unless `http` says otherwise. */
export function tempWorkspace(extraYaml = '', http = '{ host: 127.0.0.1, port: 0 }'): { dir: string; config: string } {
  const dir = mkdtempSync(join(tmpdir(), 'chatskin-cli-'));
  const config = join(dir, 'config.yaml');
  writeFileSync(config, [
    `http: ${http}`,
    `store: { path: ${JSON.stringify(join(dir, 'db.sqlite'))} }`,
    'channel: { login: alice }',
    'localChat: { enabled: true, stdin: false }',
    'log: { level: warn }',
    extraYaml,
  ].join('\n'));
  return { dir, config };
}

/**
 * `killAfterMs`: a command that should fail at once but might run on (a `start` whose flag is not
 * refused) is killed then, and its exit code is null. `uid`/`gid`: run as another user (the tests
 * must run as root to give them).
 */
export function runCli(
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; killAfterMs?: number; uid?: number; gid?: number } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--no-warnings', MAIN, ...args], {
      cwd: options.cwd, env: { ...process.env, ...options.env }, uid: options.uid, gid: options.gid,
    });
    if (options.killAfterMs !== undefined) {
      const guard = setTimeout(() => child.kill('SIGKILL'), options.killAfterMs);
      child.on('close', () => clearTimeout(guard));
    }
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString(); });
    child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export interface RunningHost {
  child: ChildProcessWithoutNullStreams;
  apiUrl: string;
  baseUrl: string;
  overlayUrls: string[];
  stdout(): string;
  stderr(): string;
  /** Sends the signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** `chatskin start` in a child process; resolves once it has printed its URLs. */
export function startHost(config: string, options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<RunningHost> {
  const child = spawn(process.execPath, ['--no-warnings', MAIN, 'start', '--config', config], {
    cwd: options.cwd, ...(options.env === undefined ? {} : { env: { ...process.env, ...options.env } }),
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`host did not start:\n${stdout}\n${stderr}`)), 20_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      reject(new Error(`host exited with ${code}:\n${stdout}\n${stderr}`));
    });
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const api = /API:\s+(\S+)/.exec(stdout);
      const overlays = [...stdout.matchAll(/Overlay:\s+(\S+)/g)].map((m) => m[1]!);
      if (api && overlays.length > 0) {
        clearTimeout(timer);
        const apiUrl = api[1]!;
        resolve({
          child, apiUrl, baseUrl: apiUrl.replace(/\/api\/v1$/, ''), overlayUrls: overlays,
          stdout: () => stdout, stderr: () => stderr,
          stop: (signal = 'SIGTERM') => { child.kill(signal); return exited; },
        });
      }
    });
  });
}

/**
 * For `expect.poll` on what a child process prints: it comes through a pipe from another process,
 * which on a busy machine can take well past vitest's 1 s default to be scheduled, do the work and
 * write. Waiting longer changes nothing in what is checked: only how long a missing line is looked for.
 */
export const CHILD_OUTPUT = { timeout: 15_000 };

export const CLIENT_HEADERS = { 'user-agent': 'ChatskinTests/1.0', accept: 'application/json' };

/** Whether `script` (util-linux) is here to give a child a real terminal. */
export const haveScript = spawnSync('script', ['--version']).status === 0;

export interface TerminalHost {
  /** Types on the terminal: text as keys, `\x04` for Ctrl-D, `\x03` for Ctrl-C. */
  type(keys: string): void;
  /** Everything the terminal showed so far (its echo of the typed keys included), with \r\n as \n. */
  screen(): string;
  /** Resolves once the screen shows `text`, after what it showed when `from` was taken. */
  waitFor(text: string | RegExp, from?: number): Promise<void>;
  exited: Promise<number | null>;
  /** SIGKILL, for a test that failed with the host still up. */
  kill(): void;
}

/**
 * `chatskin start` on a real terminal (a pty made by `script`), as a person runs it: stdin, stdout
 * and stderr are the terminal, which echoes the keys typed and turns Ctrl-C into SIGINT. Resolves
 * once it has printed its URLs.
 */
export async function startHostInTerminal(config: string, options: { cwd?: string } = {}): Promise<TerminalHost> {
  const quote = (word: string) => `'${word.replaceAll("'", "'\\''")}'`;
  // `exec`: script runs the command through $SHELL; dash (CI's /bin/sh) would stay in between and
  // die of the terminal's SIGINT itself (exit 130) while the host shut down cleanly.
  const command = `exec ${[process.execPath, '--no-warnings', MAIN, 'start', '--config', config].map(quote).join(' ')}`;
  // -e: script exits with the host's exit code; -f: the screen is passed on as it is written.
  const child = spawn('script', ['-qefc', command, '/dev/null'], { cwd: options.cwd, stdio: ['pipe', 'pipe', 'inherit'] });
  let screen = '';
  child.stdout.on('data', (chunk: Buffer) => { screen += chunk.toString().replaceAll('\r\n', '\n'); });
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const host: TerminalHost = {
    type: (keys) => { child.stdin.write(keys); },
    screen: () => screen,
    waitFor: (text, from = 0) => new Promise((resolve, reject) => {
      const found = () => (typeof text === 'string' ? screen.indexOf(text, from) >= 0 : text.test(screen.slice(from)));
      const timer = setTimeout(() => { clearInterval(poll); reject(new Error(`the terminal never showed ${String(text)}:\n${screen}`)); }, 15_000);
      const poll = setInterval(() => {
        if (!found()) return;
        clearTimeout(timer);
        clearInterval(poll);
        resolve();
      }, 20);
    }),
    exited,
    kill: () => { child.kill('SIGKILL'); },
  };
  await host.waitFor(/Chat:\s+\S+/);
  return host;
}
