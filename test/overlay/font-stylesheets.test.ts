import { describe, expect, it } from 'vitest';
import { CATALOG_DEFAULTS } from '../../src/service/settings/catalog.ts';
import { googleFontRequests, googleFontStylesheetUrl } from '../../src/overlay/font-stylesheets.ts';
import type { OverlayStyle } from '../../src/service/push/protocol.ts';

const style: OverlayStyle = {
  template: { id: 1, slug: 'bubbles', name: 'Bubbles' },
  settings: { ...CATALOG_DEFAULTS, 'username.font-family': 'Open Sans', 'username.font-weight': '700', 'message.font-family': 'Arial' },
  skins: [{ id: 5, name: 'Mono', slug: 'mono', settings: {}, overrides: { 'message.font-family': 'Open Sans', 'message.font-weight': '300' } },
    { id: 6, name: 'Generic', slug: 'generic', settings: {}, overrides: { 'username.font-family': 'monospace' } }],
  roleSkins: {},
  viewerSkins: {},
  fonts: { 'Open Sans': 'google', Arial: 'system', monospace: 'generic' },
};

describe('googleFontRequests', () => {
  it('asks only for google families, with every weight the overlay and its skins use', () => {
    expect(googleFontRequests(style)).toEqual([{ family: 'Open Sans', weights: ['300', '700'] }]);
  });
});

describe('googleFontStylesheetUrl', () => {
  it('builds a CSS2 API address from a configurable base', () => {
    expect(googleFontStylesheetUrl('https://fonts.googleapis.com/css2', 'Open Sans', ['400', '700']))
      .toBe('https://fonts.googleapis.com/css2?family=Open+Sans:wght@400;700&display=swap');
    expect(googleFontStylesheetUrl('http://127.0.0.1:9/fonts?key=1', 'Inter'))
      .toBe('http://127.0.0.1:9/fonts?key=1&family=Inter&display=swap');
  });
});
