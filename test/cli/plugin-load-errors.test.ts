// A plugin that does not load, in a real `chatskin start` (Node's own type stripping, not the test
// runner's transform, whose messages differ): the line naming it says where the source is wrong.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SDK_PATH } from '../host/plugin-folders.ts';
import { CHILD_OUTPUT, startHost, tempWorkspace } from './cli-process.ts';
import type { RunningHost } from './cli-process.ts';

const SDK = JSON.stringify(SDK_PATH);
const PLUGINS: Record<string, Record<string, string>> = {
  typo: { 'index.ts': `import { definePlugin } from ${SDK};
export default definePlugin({ name: 'typo', setup(ctx) {
  ctx.command({ name: 'x', run: () => { }
} });` },
  helper: {
    'index.ts': `import { definePlugin } from ${SDK};
import { twice } from './twice.ts';
export default definePlugin({ name: 'helper', setup() { twice(1); } });`,
    'twice.ts': 'export function twice(n: number) {\n  return n * ;\n}\n',
  },
  enumed: { 'index.ts': `import { definePlugin } from ${SDK};
enum Colour { Red }
export default definePlugin({ name: 'enumed', setup() {} });` },
  typed: { 'index.ts': `import { definePlugin, PluginContext } from ${SDK};
export default definePlugin({ name: 'typed', setup(ctx: PluginContext) {} });` },
  noext: { 'index.ts': `import { definePlugin } from ${JSON.stringify(SDK_PATH.replace(/\.ts$/, ''))};
export default definePlugin({ name: 'noext', setup() {} });` },
};

describe('chatskin start: a plugin whose source does not load', () => {
  const { dir, config } = tempWorkspace();
  const plugins = join(dir, 'plugins');
  for (const [name, files] of Object.entries(PLUGINS)) {
    mkdirSync(join(plugins, name), { recursive: true });
    for (const [file, source] of Object.entries(files)) writeFileSync(join(plugins, name, file), source);
  }
  writeFileSync(config, `pluginDirs: [${JSON.stringify(plugins)}]\nplugins: { typo: {}, helper: {}, enumed: {}, typed: {}, noext: {} }\n`, { flag: 'a' });
  let host: RunningHost;
  afterAll(async () => { await host?.stop('SIGKILL'); });

  it('says the file, line and column of a syntax error, to use import type for a type imported as a value, and the file name an import left out', async () => {
    host = await startHost(config, { cwd: dir });
    await expect.poll(() => host.stdout(), CHILD_OUTPUT).toMatch(/Plugin typed is off/);
    await expect.poll(() => host.stdout(), CHILD_OUTPUT).toMatch(/Plugin noext is off/);
    const off = (name: string) => host.stdout().split('\n').find((line) => line.includes(`Plugin ${name} is off:`)) ?? '';
    const entry = (name: string) => join(plugins, name, 'index.ts');
    expect(off('typo')).toContain(`${entry('typo')} could not be loaded: Expected ',', got '}' (at ${entry('typo')}:4:3)`);
    expect(off('helper')).toMatch(new RegExp(`could not be loaded: .* \\(at ${join(plugins, 'helper', 'twice.ts')}:2:\\d+\\)`));
    expect(off('enumed')).toContain(`could not be loaded: TypeScript enum is not supported in strip-only mode (at ${entry('enumed')}:2:1)`);
    expect(off('noext')).toContain(`Cannot find module '${SDK_PATH.replace(/\.ts$/, '')}'`);
    expect(off('noext')).toContain(`; Node needs the whole file name in an import: '${SDK_PATH}'`);
    // The JSON log line says Node's message once in err.message (its stack, under err.stack, says where).
    const logged = host.stderr().split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { plugin?: string; err?: { message: string } })
      .find((line) => line.plugin === 'noext' && line.err !== undefined);
    expect(logged?.err?.message.split(`Cannot find module '${SDK_PATH.replace(/\.ts$/, '')}'`).length).toBe(2);
    expect(off('typed')).toMatch(/does not provide an export named 'PluginContext' \(at file:\S+typed\/index\.ts:1:\d+\); if PluginContext is a type, import it with `import type \{ PluginContext \}`/);
  });
});
