import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SETTINGS } from '../../../src/service/settings/catalog.ts';
import { renderSettingsDocs, SETTINGS_DOCS_PATH } from '../../../src/service/settings/settings-docs.ts';
import { DEFAULT_TEMPLATES_DIR, loadTemplates } from '../../../src/service/settings/templates.ts';

const templates = loadTemplates(DEFAULT_TEMPLATES_DIR);
const rendered = renderSettingsDocs(SETTINGS, templates);

describe('docs/settings.md', () => {
  it('is up to date with the catalog and templates (run `npm run docs:settings` to refresh it)', () => {
    const onDisk = readFileSync(path.resolve(import.meta.dirname, '../../..', SETTINGS_DOCS_PATH), 'utf8');
    expect(onDisk).toBe(rendered);
  });

  it('has a row for every key with its type, default, range and templates', () => {
    for (const spec of SETTINGS) {
      const row = rendered.split('\n').find((line) => line.startsWith(`| \`${spec.key}\` |`));
      expect(row, spec.key).toBeDefined();
      expect(row).toContain(` ${spec.type} `);
      if (spec.type === 'integer') expect(row).toContain(`${spec.min}..${spec.max}`);
      if (spec.type === 'select') expect(row).toContain(spec.options!.join(', '));
    }
    expect(rendered).toContain('| `message.font-size` | integer | `14` (ticker: `16`) | 0..10000 | bubbles, ticker |');
    expect(rendered).toContain('| `bubble.width` | integer | `400` | 0..10000 | bubbles |');
  });

  it('documents the colour rule, the gradient grammar and the font catalog', () => {
    expect(rendered).toContain('## Colours');
    expect(rendered).toContain('| `#12345600` | `transparent` |');
    expect(rendered).toContain('## Gradients');
    expect(rendered).toContain('| `linear-gradient(red, blue)` | `linear-gradient(180deg, #ff0000 0%, #0000ff 100%)` |');
    expect(rendered).toContain('## Fonts');
    expect(rendered).toContain('`Comic Sans MS`');
  });

  it('changes when the catalog changes', () => {
    const changed = SETTINGS.map((s) => (s.key === 'bubble.width' ? { ...s, default: 401 } : s));
    expect(renderSettingsDocs(changed, templates)).not.toBe(rendered);
  });
});
