// Runs a TypeScript fixture in a child process to its exit, with what it printed. Tests of a clean
// stop use it: a leaked timer or socket would hold the child open, so a guard kills it after
// 25 s (a guard against hanging the suite, not a speed check).
import { spawn } from 'node:child_process';

export async function runFixtureProcess(file: string): Promise<{ code: number | null; out: string; err: string }> {
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
