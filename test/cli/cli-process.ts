// Runs the real CLI (`node src/main.ts …`) as a child process, the way a person or a script does.
import { spawn } from 'node:child_process';
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
 * refused) is killed then, and its exit code is null.
 */
export function runCli(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; killAfterMs?: number } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--no-warnings', MAIN, ...args], {
      cwd: options.cwd, env: { ...process.env, ...options.env },
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

export const CLIENT_HEADERS = { 'user-agent': 'ChatskinTests/1.0', accept: 'application/json' };
