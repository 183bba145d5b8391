// A plugin whose setup fails with its own secrets in what it throws, in a real `chatskin start`:
// neither the log on stderr nor the line on stdout naming the plugin shows them.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SDK_PATH } from '../host/plugin-folders.ts';
import { CHILD_OUTPUT, startHost, tempWorkspace } from './cli-process.ts';
import type { RunningHost } from './cli-process.ts';

const SDK = JSON.stringify(SDK_PATH);
const ENV_TOKEN = 'EnvPluginToken0123456789';
const ENV_HOOK_SECRET = 'EnvHookSecret9876543210';
const FILE_PASSWORD = 'FilePassword-hunter2-xyz';

const PLUGINS: Record<string, string> = {
  // Throws an object holding its whole config.
  holder: `import { definePlugin, z } from ${SDK};
export default definePlugin({ name: 'holder',
  config: z.object({ apiToken: z.string(), password: z.string(), webhook: z.string() }),
  setup(ctx) { throw { reason: 'upstream refused', settings: ctx.config }; } });`,
  // Quotes a setting from the environment in its message.
  quoter: `import { definePlugin, z } from ${SDK};
export default definePlugin({ name: 'quoter', config: z.object({ webhook: z.string() }),
  setup(ctx) { throw new Error('the webhook ' + ctx.config.webhook + ' refused the call'); } });`,
};

describe('chatskin start: a plugin that fails with its secrets in what it throws', () => {
  const { dir, config } = tempWorkspace();
  const plugins = join(dir, 'plugins');
  for (const [name, source] of Object.entries(PLUGINS)) {
    mkdirSync(join(plugins, name), { recursive: true });
    writeFileSync(join(plugins, name, 'index.ts'), source);
  }
  writeFileSync(config, [
    `pluginDirs: [${JSON.stringify(plugins)}]`,
    'plugins:',
    `  holder: { apiToken: "\${PLUGIN_TOKEN}", password: ${FILE_PASSWORD}, webhook: "https://hooks.example/h?k=\${HOOK_SECRET}" }`,
    '  quoter: { webhook: "https://hooks.example/h/${HOOK_SECRET}" }',
    '',
  ].join('\n'), { flag: 'a' });
  let host: RunningHost;
  afterAll(async () => { await host?.stop('SIGKILL'); });

  it('shows none of them on stdout or in the log', async () => {
    host = await startHost(config, { cwd: dir, env: { PLUGIN_TOKEN: ENV_TOKEN, HOOK_SECRET: ENV_HOOK_SECRET } });
    await expect.poll(() => host.stdout(), CHILD_OUTPUT).toMatch(/Plugin quoter is off/);
    await expect.poll(() => host.stderr(), CHILD_OUTPUT).toMatch(/plugin quoter failed to start/);
    const output = `${host.stdout()}\n${host.stderr()}`;
    expect(output).toMatch(/Plugin holder is off: \{ reason: 'upstream refused'/);
    expect(output).toContain('Plugin quoter is off: the webhook https://hooks.example/h/[redacted] refused the call');
    for (const secret of [ENV_TOKEN, ENV_HOOK_SECRET, FILE_PASSWORD]) expect(output).not.toContain(secret);
  });
});

// While the host is still starting (a plugin's setup, before the URLs are printed), a fault no
// handler caught went to Node's default handler: the raw error and stack on stderr, secrets and
// all, and the host crashed on a rejection nobody awaited, which it otherwise logs and serves on.
const HASTY = `import { definePlugin, z } from ${SDK};
export default definePlugin({ name: 'hasty', config: z.object({ webhook: z.string() }),
  async setup(ctx) {
    void Promise.reject(new Error('the webhook ' + ctx.config.webhook + ' refused the call'));
    await new Promise((resolve) => setTimeout(resolve, 50));
  } });`;

describe('chatskin start: a plugin whose setup leaves a rejection nobody awaited, with its secret in it', () => {
  const { dir, config } = tempWorkspace();
  const plugins = join(dir, 'plugins');
  mkdirSync(join(plugins, 'hasty'), { recursive: true });
  writeFileSync(join(plugins, 'hasty', 'index.ts'), HASTY);
  writeFileSync(config, [
    `pluginDirs: [${JSON.stringify(plugins)}]`,
    'plugins: { hasty: { webhook: "https://hooks.example/h/${HOOK_SECRET}" }, style: {} }',
    '',
  ].join('\n'), { flag: 'a' });
  let host: RunningHost | undefined;
  afterAll(async () => { await host?.stop('SIGKILL'); });

  it('logs it scrubbed and serves on, as once started', async () => {
    host = await startHost(config, { cwd: dir, env: { HOOK_SECRET: ENV_HOOK_SECRET, CHATSKIN_DEBUG: '1' } });
    await expect.poll(() => host!.stderr(), CHILD_OUTPUT).toMatch(/a promise nobody awaited failed/);
    expect(host.stderr()).toContain('the webhook https://hooks.example/h/[redacted] refused the call');
    expect((await fetch(`${host.baseUrl}/healthz`)).status).toBe(200);
    expect(`${host.stdout()}\n${host.stderr()}`).not.toContain(ENV_HOOK_SECRET);
  });
});
