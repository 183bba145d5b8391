// Faults no handler caught, in a real `chatskin start`: a plugin's rejected promise nobody awaited
// is logged and the host keeps serving; an exception thrown outside every handler is logged and
// the host stops gracefully with exit code 1. A plugin that failed to start is named on stdout.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SDK_PATH } from '../host/plugin-folders.ts';
import { CHILD_OUTPUT, runCli, startHost, tempWorkspace } from './cli-process.ts';
import type { RunningHost } from './cli-process.ts';

const CARELESS = `import { definePlugin } from ${JSON.stringify(SDK_PATH)};
export default definePlugin({
  name: 'careless',
  setup(ctx) {
    ctx.command({ name: 'leak', run: () => { void Promise.reject(new Error('nobody awaited me')); } });
    ctx.command({ name: 'boom', run: () => { setTimeout(() => { throw new Error('thrown outside every handler'); }, 0); } });
    ctx.command({ name: 'ping', run: (call) => call.reply('pong') });
  },
});`;

describe('chatskin start: faults no handler caught', () => {
  const { dir, config } = tempWorkspace();
  const plugins = join(dir, 'plugins');
  mkdirSync(join(plugins, 'careless'), { recursive: true });
  writeFileSync(join(plugins, 'careless', 'index.ts'), CARELESS);
  writeFileSync(config, `pluginDirs: [${JSON.stringify(plugins)}]\nplugins: { careless: {}, stlye: {} }\n`, { flag: 'a' });
  let host: RunningHost;
  afterAll(async () => { await host?.stop('SIGKILL'); });

  const say = (text: string) => runCli(['chat', 'say', text, '--url', host.baseUrl]);

  it('names a plugin that failed to start among the URLs', async () => {
    host = await startHost(config, { cwd: dir });
    await expect.poll(() => host.stdout(), CHILD_OUTPUT).toMatch(/Plugin stlye is off: no plugin folder named "stlye"/);
    // And where it was switched on, once, so the right file gets fixed: `Plugin NAME is off: why (plugins.NAME in FILE)`.
    const line = host.stdout().split('\n').find((text) => text.includes('Plugin stlye is off'))!;
    expect(line).toMatch(/^ {2}Plugin stlye is off: no plugin folder named "stlye"; searched .* Did you mean "style"\? .*\(plugins\.stlye in \S+\)$/);
    expect(line.endsWith(` (plugins.stlye in ${config})`)).toBe(true);
    expect(line.split('plugins.stlye').length - 1).toBe(1);
  });

  it('logs a rejection nobody awaited and keeps serving', async () => {
    expect((await say('!leak')).code).toBe(0);
    await expect.poll(() => host.stderr(), CHILD_OUTPUT).toMatch(/a promise nobody awaited failed/);
    expect(host.stderr()).toMatch(/nobody awaited me/);
    expect((await say('!ping')).code).toBe(0);
    await expect.poll(() => host.stdout(), CHILD_OUTPUT).toMatch(/pong/);
    expect(host.child.exitCode).toBeNull();
  });

  it('logs an uncaught exception and stops gracefully with exit code 1', async () => {
    const exited = new Promise<number | null>((resolve) => host.child.once('close', (code) => resolve(code)));
    expect((await say('!boom')).code).toBe(0);
    expect(await exited).toBe(1);
    expect(host.stderr()).toMatch(/uncaught exception: stopping/);
    expect(host.stderr()).toMatch(/thrown outside every handler/);
    await expect(fetch(`${host.baseUrl}/healthz`)).rejects.toThrow();
  });
});
