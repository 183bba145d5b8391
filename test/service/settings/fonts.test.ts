import { describe, expect, it } from 'vitest';
import {
  findFontFamily, GENERIC_FONT_FAMILIES, loadFontCatalog, SYSTEM_FONT_FAMILIES,
} from '../../../src/service/settings/fonts.ts';

describe('findFontFamily', () => {
  it('finds Google fonts without regard to case and answers in the catalog spelling', () => {
    expect(findFontFamily('open sans')).toEqual({ family: 'Open Sans', source: 'google', category: 'sans-serif' });
    expect(findFontFamily('OPEN SANS')).toEqual({ family: 'Open Sans', source: 'google', category: 'sans-serif' });
    expect(findFontFamily('inter')?.family).toBe('Inter');
    expect(findFontFamily('roboto mono')).toEqual({ family: 'Roboto Mono', source: 'google', category: 'monospace' });
    expect(findFontFamily('lobster')).toEqual({ family: 'Lobster', source: 'google', category: 'display' });
    expect(findFontFamily('abeezee')?.family).toBe('ABeeZee');
  });

  it('ignores surrounding and repeated blanks', () => {
    expect(findFontFamily('  Open   Sans ')?.family).toBe('Open Sans');
  });

  it('marks the system fonts of the metrics package as system, not google', () => {
    expect(findFontFamily('arial')).toEqual({ family: 'Arial', source: 'system', category: 'sans-serif' });
    expect(findFontFamily('times new roman')).toEqual({ family: 'Times New Roman', source: 'system', category: 'serif' });
    expect(findFontFamily('-APPLE-SYSTEM')).toEqual({ family: '-apple-system', source: 'system', category: 'sans-serif' });
    expect(findFontFamily('segoe ui')?.source).toBe('system');
  });

  it('has the common system fonts the metrics package lacks', () => {
    expect(findFontFamily('comic sans ms')).toEqual({ family: 'Comic Sans MS', source: 'system', category: 'handwriting' });
    expect(findFontFamily('consolas')?.source).toBe('system');
  });

  it('has the CSS generic families, answered in lower case', () => {
    expect(findFontFamily('Sans-Serif')).toEqual({ family: 'sans-serif', source: 'generic' });
    expect(findFontFamily('SYSTEM-UI')).toEqual({ family: 'system-ui', source: 'generic' });
    for (const family of GENERIC_FONT_FAMILIES) expect(findFontFamily(family)?.source).toBe('generic');
  });

  it.each(['', ' ', 'Comic Sans', 'Not A Font', 'open-sans', 'Arial, sans-serif', '"Arial"', 'x'.repeat(10_000)])(
    'finds nothing for %j',
    (name) => {
      expect(findFontFamily(name)).toBeUndefined();
    },
  );

  it('does not mistake Object.prototype names for fonts', () => {
    for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) expect(findFontFamily(name)).toBeUndefined();
  });
});

describe('font catalog', () => {
  it('holds the Google Fonts collection, the system list and the generics', () => {
    const catalog = loadFontCatalog();
    const bySource = { google: 0, system: 0, generic: 0 };
    for (const entry of catalog.values()) bySource[entry.source]++;
    expect(bySource.google).toBeGreaterThan(1500);
    expect(bySource.system).toBe(SYSTEM_FONT_FAMILIES.length);
    expect(bySource.generic).toBe(GENERIC_FONT_FAMILIES.length);
  });

  it('is built once', () => {
    expect(loadFontCatalog()).toBe(loadFontCatalog());
  });

  it('names every system family once', () => {
    const keys = SYSTEM_FONT_FAMILIES.map((f) => f.family.toLowerCase());
    expect(new Set(keys).size).toBe(keys.length);
  });
});
