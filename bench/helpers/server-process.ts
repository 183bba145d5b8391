// Starts bench-server-process.ts in a child process and waits for its origin.
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { BenchServerRequest } from './bench-server-process.ts';

const SCRIPT = fileURLToPath(new URL('./bench-server-process.ts', import.meta.url));

export interface ServerStats {
  /** CPU time (user + system) the server process has used so far. */
  cpuMicros: number;
  /** SQLite commits the chatskin server has made so far; null for the raw server. */
  commits: number | null;
}

export interface ServerProcess {
  origin: string;
  stats(): Promise<ServerStats>;
  stop(): Promise<void>;
}

/**
 * `execArgv`: extra node flags for the server, e.g. ['--cpu-prof', '--cpu-prof-dir=...'].
 * `script`: another checkout's bench-server-process.ts (bench:api --baseline), to run its code.
 */
export async function startServerProcess(request: BenchServerRequest, execArgv: string[] = [], script = SCRIPT): Promise<ServerProcess> {
  const child: ChildProcess = fork(script, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv });
  const origin = await new Promise<string>((resolve, reject) => {
    child.once('message', (message) => resolve((message as { origin: string }).origin));
    child.once('exit', (code) => reject(new Error(`bench server exited early with code ${code}`)));
    child.send(request);
  });
  return {
    origin,
    stats: () => new Promise<ServerStats>((resolve) => {
      child.once('message', (message) => resolve(message as ServerStats));
      child.send({ kind: 'stats' });
    }),
    stop: () => new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.send({ kind: 'stop' });
    }),
  };
}
