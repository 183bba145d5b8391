// The SDK's typing, checked by `tsc --noEmit` (npm test runs it first): argument values typed
// from the argument list, ctx.config typed from the schema. The runtime part checks definePlugin
// hands the definition back unchanged.
import { readFileSync } from 'node:fs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import * as sdk from '../../src/sdk.ts';
import { definePlugin, z } from '../../src/sdk.ts';
import type { CommandInvocation, PluginContext, SettingValue, SettingValueResult } from '../../src/sdk.ts';

describe('sdk types', () => {
  it('types ctx.config from the schema and args from the argument list', () => {
    const plugin = definePlugin({
      name: 'typed',
      config: z.object({ limit: z.number().default(3), label: z.string() }),
      setup(ctx) {
        expectTypeOf(ctx.config).toEqualTypeOf<{ limit: number; label: string }>();
        ctx.command({
          name: 'give',
          args: [{ name: 'who', type: 'user' }, { name: 'n', type: 'integer' }, { name: 'note', type: 'rest', optional: true }],
          run(call) {
            expectTypeOf(call.args).toEqualTypeOf<{ who: string; n: number; note: string | undefined }>();
            // @ts-expect-error not an argument of this command
            void call.args.other;
          },
        });
        ctx.command({
          name: 'plain',
          run(call) {
            expectTypeOf(call).toExtend<CommandInvocation<{}>>();
          },
        });
      },
    });
    expect(plugin.name).toBe('typed');
    expect(typeof plugin.setup).toBe('function');
  });

  it('a plugin without a schema gets an empty config', () => {
    const plugin = definePlugin({
      name: 'bare',
      setup(ctx) {
        expectTypeOf(ctx).toExtend<PluginContext<{}>>();
      },
    });
    expect(plugin.config).toBeUndefined();
  });

  it('docs/plugins.md names everything the SDK exports', () => {
    const docs = readFileSync(new URL('../../docs/plugins.md', import.meta.url), 'utf8');
    expect(Object.keys(sdk).filter((name) => !docs.includes(`\`${name}\``))).toEqual([]);
  });

  it('every type or class docs/plugins.md names for plugin authors is one the SDK exports (types included)', () => {
    const docs = readFileSync(new URL('../../docs/plugins.md', import.meta.url), 'utf8');
    const forAuthors = docs.slice(0, docs.indexOf('\n## For host developers'));
    const source = readFileSync(new URL('../../src/sdk.ts', import.meta.url), 'utf8');
    const exported = new Set([
      ...Object.keys(sdk),
      ...[...source.matchAll(/^export type \{([^}]+)\}/gm)].flatMap(([, names]) => names!.split(',').map((name) => name.trim())),
    ]);
    const named = [...new Set([...forAuthors.matchAll(/`([A-Z][A-Za-z]+)`/g)].map(([, name]) => name!))];
    expect(named).toContain('SettingValueResult');
    expect(named.filter((name) => !exported.has(name))).toEqual([]);
  });

  it("types checkSettingValue's result as SettingValueResult: a value when ok, an error otherwise", () => {
    const checked = sdk.checkSettingValue('bubble.width', 320);
    expectTypeOf(checked).toEqualTypeOf<SettingValueResult>();
    if (checked.ok) expectTypeOf(checked.value).toEqualTypeOf<SettingValue>();
    else expectTypeOf(checked.error).toEqualTypeOf<string>();
    expect(checked).toEqual({ ok: true, value: 320 });
  });
});
