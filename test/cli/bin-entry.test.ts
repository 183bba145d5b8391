// `npx chatskin` runs bin/chatskin.js through its shebang: the same CLI, and its stderr as clean as
// `npm start`'s (only log lines), also once the overlay's browser modules were served (they are
// stripped with node:module's stripTypeScriptTypes, whose experimental warning is not for the user).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempWorkspace } from './cli-process.ts';

const BIN = fileURLToPath(new URL('../../bin/chatskin.js', import.meta.url));

/** A Node older than 24 on the PATH (the machine's own, say), outside node_modules; undefined when there is none. */
function olderNode(): string | undefined {
  for (const folder of (process.env.PATH ?? '').split(delimiter)) {
    const node = join(folder, 'node');
    if (folder.includes('node_modules') || !existsSync(node)) continue;
    const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout?.trim() ?? '';
    const major = Number(/^v(\d+)\./.exec(version)?.[1]);
    if (major >= 20 && major < 24) return node;
  }
  return undefined;
}

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

  it('on a Node older than 24 says which Node is needed and how to get it, in one line, exit code 1', async (context) => {
    const node = olderNode();
    if (node === undefined) context.skip('no Node older than 24 (20 or newer) on the PATH');
    // As the shebang would run it when `node` on the PATH is that one.
    const result = spawnSync(node!, ['--disable-warning=ExperimentalWarning', BIN, '--version'], { encoding: 'utf8' });
    const version = spawnSync(node!, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim();
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`chatskin: it needs Node 24 or newer, and this is Node ${version} (${node}). In the chatskin folder,`
      + ' `npx chatskin` and `npm start` run on the Node 24 that `npm install` put in node_modules (README.md).\n');
  });
});
