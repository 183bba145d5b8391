import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { OVERLAY_ENTRY, buildBrowserModuleGraph } from '../../src/overlay/browser-modules.ts';

function project(files: Record<string, string>): string {
  const root = mkdtempSync(path.join(tmpdir(), 'chatskin-modules-'));
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
  return root;
}

describe('buildBrowserModuleGraph', () => {
  it("serves the overlay page's modules, the shared CSS function and catalog among them, as plain JavaScript", () => {
    const graph = buildBrowserModuleGraph();
    expect([...graph.keys()]).toEqual(expect.arrayContaining([
      OVERLAY_ENTRY,
      'src/overlay/settings-css.ts',
      'src/overlay/emote-segments.ts',
      'src/overlay/chat-roles.ts',
      'src/service/settings/catalog.ts',
      'src/service/push/protocol.ts',
    ]));
    const css = graph.get('src/overlay/settings-css.ts')!.javascript;
    expect(css).toMatch(/export function settingsToCss\(settings\s*, options\s*= \{\}\)/);
    expect(css).not.toMatch(/import type|: SettingValue/);
  });

  it('strips every module to JavaScript that Node accepts as an ES module', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'chatskin-stripped-'));
    for (const module of buildBrowserModuleGraph().values()) {
      const file = path.join(dir, `${module.path.replaceAll('/', '__')}.mjs`);
      writeFileSync(file, module.javascript);
      const check = spawnSync(process.execPath, ['--check', file], { encoding: 'utf8' });
      expect(check.stderr, module.path).toBe('');
      expect(check.status, module.path).toBe(0);
    }
  });

  it('leaves out modules reached only through type imports', () => {
    expect(buildBrowserModuleGraph().has('src/service/settings/fonts.ts')).toBe(false);
  });

  it('refuses a browser module that imports a Node builtin or a package', () => {
    const root = project({
      'a.ts': "import { b } from './b.ts';\nexport const a: number = b;\n",
      'b.ts': "import { readFileSync } from 'node:fs';\nexport const b = 1;\n",
    });
    expect(() => buildBrowserModuleGraph('a.ts', root)).toThrow(/b\.ts imports "node:fs"/);
  });

  it('refuses a relative import without the .ts suffix', () => {
    const root = project({ 'a.ts': "export { b } from './b';\n" });
    expect(() => buildBrowserModuleGraph('a.ts', root)).toThrow(/write the \.ts suffix/);
  });

  it('refuses TypeScript that cannot be type-stripped', () => {
    const root = project({ 'a.ts': 'enum Colour { Red }\nexport const c = Colour.Red;\n' });
    expect(() => buildBrowserModuleGraph('a.ts', root)).toThrow(/cannot be type-stripped/);
  });
});
