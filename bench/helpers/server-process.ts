// Starts bench-server-process.ts in a child process and waits for its origin.
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { BenchServerRequest } from './bench-server-process.ts';

const SCRIPT = fileURLToPath(new URL('./bench-server-process.ts', import.meta.url));

export interface ServerProcess {
  origin: string;
  stop(): Promise<void>;
}

export async function startServerProcess(request: BenchServerRequest): Promise<ServerProcess> {
  const child: ChildProcess = fork(SCRIPT, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const origin = await new Promise<string>((resolve, reject) => {
    child.once('message', (message) => resolve((message as { origin: string }).origin));
    child.once('exit', (code) => reject(new Error(`bench server exited early with code ${code}`)));
    child.send(request);
  });
  return {
    origin,
    stop: () => new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.send({ kind: 'stop' });
    }),
  };
}
