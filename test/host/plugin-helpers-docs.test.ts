// docs/plugins.md's examples of the SDK's helpers, run against the SDK: what each line shows is
// what the helper gives.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkSettingValue, coerceChatValue } from '../../src/sdk.ts';
import { section } from './docs-section.ts';

const PLUGINS_DOC = readFileSync(new URL('../../docs/plugins.md', import.meta.url), 'utf8');

/** A JavaScript expression as the docs write it (object literals, quoted strings), evaluated with `names` in scope. */
function evaluate(expression: string, names: Record<string, unknown> = {}): unknown {
  return new Function(...Object.keys(names), `return (${expression});`)(...Object.values(names)) as unknown;
}

describe('docs/plugins.md, Checking a setting value', () => {
  it('each checkSettingValue line gives what its comment says', () => {
    const lines = [...section(PLUGINS_DOC, '## Checking a setting value').matchAll(/^(checkSettingValue\(.*\));\s+\/\/ (.*)$/gm)];
    expect(lines.length).toBeGreaterThanOrEqual(4);
    for (const [, call, shown] of lines) {
      expect(evaluate(call!, { checkSettingValue, coerceChatValue }), call).toEqual(evaluate(shown!));
    }
    // Both outcomes are shown.
    expect(lines.map(([, , shown]) => evaluate(shown!) as { ok: boolean }).map((result) => result.ok)).toEqual(expect.arrayContaining([true, false]));
  });
});
