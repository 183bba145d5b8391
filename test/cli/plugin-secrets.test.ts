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
