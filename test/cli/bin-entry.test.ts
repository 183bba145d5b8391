// `npx chatskin` runs bin/chatskin.js through its shebang: the same CLI, and its stderr as clean as
// `npm start`'s (only log lines), also once the overlay's browser modules were served (they are
// stripped with node:module's stripTypeScriptTypes, whose experimental warning is not for the user).
import { spawn } from 'node:child_process';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempWorkspace } from './cli-process.ts';

const BIN = fileURLToPath(new URL('../../bin/chatskin.js', import.meta.url));

describe('bin/chatskin.js', () => {
  it('starts the host, serves the overlay and its modules, and writes no Node warning to stderr', async () => {
    const { dir, config } = tempWorkspace();
    // The shebang asks env for `node`: this test's Node 24 first on the PATH.
    const child = spawn(BIN, ['start', '--config', config], { cwd: dir, env: { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH}` } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString(); });
    child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    try {
      await expect.poll(() => stdout, { timeout: 20_000 }).toMatch(/Overlay:\s+\S+/);
      const overlayUrl = /Overlay:\s+(\S+)/.exec(stdout)![1]!;
      const page = await (await fetch(overlayUrl)).text();
      const modules = [...page.matchAll(/src="([^"]+\.(?:ts|js))"/g)].map((match) => new URL(match[1]!, overlayUrl).href);
      expect(modules.length).toBeGreaterThan(0);
      for (const url of modules) expect((await fetch(url)).status).toBe(200);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    expect(stderr).not.toContain('Warning');
  });
});
