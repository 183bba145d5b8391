// Real signals to a real child process.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const CHILD = fileURLToPath(new URL('./fixtures/shutdown-child.ts', import.meta.url));

interface Exit {
  code: number | null;
  messages: string[];
}

/** Starts the child, sends `signals` once it is ready, and collects its log messages until it exits. */
function runChild(mode: string, signals: NodeJS.Signals[]): Promise<Exit> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD, mode], { stdio: ['ignore', 'pipe', 'inherit'] });
    const messages: string[] = [];
    let buffer = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      buffer += chunk;
      let newline;
      while ((newline = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        const { msg } = JSON.parse(line) as { msg: string };
        messages.push(msg);
        if (msg === 'ready') child.kill(signals[0]);
        if (msg === 'closing resources' && signals[1]) child.kill(signals[1]);
      }
    });
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, messages }));
  });
}

describe('handleShutdownSignals', () => {
  it('SIGTERM runs the shutdown and exits 0', async () => {
    const exit = await runChild('ok', ['SIGTERM']);
    expect(exit).toEqual({ code: 0, messages: ['ready', 'shutting down', 'closing resources', 'shut down'] });
  });

  it('SIGINT does the same', async () => {
    const exit = await runChild('ok', ['SIGINT']);
    expect(exit.code).toBe(0);
    expect(exit.messages).toContain('shut down');
  });

  it('a failing shutdown is logged and exits 1', async () => {
    const exit = await runChild('fail', ['SIGTERM']);
    expect(exit).toEqual({ code: 1, messages: ['ready', 'shutting down', 'closing resources', 'shutdown failed'] });
  });

  it('a second signal during shutdown exits at once with 1', async () => {
    const exit = await runChild('hang', ['SIGTERM', 'SIGINT']);
    expect(exit).toEqual({ code: 1, messages: ['ready', 'shutting down', 'closing resources', 'second signal: exiting without waiting'] });
  });

  it('a shutdown that outlasts the timeout exits 1', async () => {
    const exit = await runChild('slow', ['SIGTERM']);
    expect(exit).toEqual({ code: 1, messages: ['ready', 'shutting down', 'closing resources', 'shutdown did not finish in time: exiting'] });
  });
});
