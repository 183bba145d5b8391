// docs/plugins.md "Testing a plugin" against the helpers it teaches: what it imports exists, it
// names every test host the built-in plugins' own tests start, and its startPluginWorld example
// runs docs/client.md's wide-bubbles plugin as shown.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { section } from './docs-section.ts';
import { chatAnswers } from './host-fixture.ts';
import { moderatorTags } from './irc-tags.ts';
import { startPluginWorld } from './plugin-world.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PLUGINS_DOC = readFileSync(join(ROOT, 'docs/plugins.md'), 'utf8');
const CLIENT_DOC = readFileSync(join(ROOT, 'docs/client.md'), 'utf8');

const TESTING = section(PLUGINS_DOC, '## Testing a plugin');
const IMPORT = /^import (type )?\{ ([^}]+) \} from '([^']+)';$/gm;

describe('docs/plugins.md, Testing a plugin', () => {
  it('imports only what exists: each module it names (from a plugin folder) exports each name', async () => {
    const imports = [...TESTING.matchAll(IMPORT)];
    expect(imports.length).toBeGreaterThan(0);
    for (const [, typeOnly, names, from] of imports) {
      const file = join(ROOT, 'plugins/example-dice', from!);
      expect(existsSync(file), from).toBe(true);
      if (typeOnly !== undefined) continue;
      const module = await import(pathToFileURL(file).href) as Record<string, unknown>;
      for (const name of names!.split(',').map((part) => part.trim())) expect(module[name], `${name} from ${from}`).toBeDefined();
    }
  });

  it("names each test host the built-in plugins' tests start from test/host/", () => {
    const started = new Set<string>();
    for (const plugin of readdirSync(join(ROOT, 'plugins'))) {
      const file = join(ROOT, 'plugins', plugin, 'index.test.ts');
      if (!existsSync(file)) continue;
      for (const [, , names, from] of readFileSync(file, 'utf8').matchAll(IMPORT)) {
        if (!from!.startsWith('../../test/host/')) continue;
        for (const name of names!.split(',').map((part) => part.trim())) if (/^start\w+$/.test(name)) started.add(name);
      }
    }
    expect([...started].sort()).toContain('startPluginWorld');
    expect([...started].filter((name) => !TESTING.includes(`\`${name}\``))).toEqual([]);
  });

  it("its startPluginWorld example runs docs/client.md's wide-bubbles plugin as it shows", async () => {
    const plugin = /```ts\n(import \{[^\n]*\} from '\.\.\/\.\.\/src\/sdk\.ts';\n\nexport default definePlugin\(\{\n  name: 'wide-bubbles'[\s\S]*?)```/.exec(CLIENT_DOC)?.[1];
    expect(plugin).toBeDefined();
    const dir = mkdtempSync(join(tmpdir(), 'chatskin-plugin-docs-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    mkdirSync(join(dir, 'wide-bubbles'));
    writeFileSync(join(dir, 'wide-bubbles/index.ts'), plugin!.replace('../../src/sdk.ts', join(ROOT, 'src/sdk.ts')));

    // The example's own values, as the section shows them.
    expect(TESTING).toContain("await chatAnswers(test, '!width 320', moderatorTags());   // ['@Mod_mia Bubbles are 320px wide now.']");
    expect(TESTING).toContain("(await client.getTemplate()).settings_values['bubble.width'];   // 320");
    const { test, client } = await startPluginWorld({
      fixture: { accounts: [{ login: 'streamer', premium: true, overlays: [{ name: 'Main', template: 'bubbles', default: true, values: {} }] }] },
      plugin: 'wide-bubbles',
      settings: () => ({}),
      config: { pluginDirs: [dir] },
    });
    expect(await chatAnswers(test, '!width 320', moderatorTags())).toEqual(['@Mod_mia Bubbles are 320px wide now.']);
    expect((await client.getTemplate()).settings_values['bubble.width']).toBe(320);
  });
});
