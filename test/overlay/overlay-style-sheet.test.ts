import { describe, expect, it } from 'vitest';
import { CATALOG_DEFAULTS } from '../../src/service/settings/catalog.ts';
import { overlayStyleSheet } from '../../src/overlay/overlay-style-sheet.ts';
import { settingsToCss } from '../../src/overlay/settings-css.ts';
import type { OverlayStyle } from '../../src/service/push/protocol.ts';

describe('overlayStyleSheet', () => {
  const settings = { ...CATALOG_DEFAULTS, 'message.font-size': 18, 'bubble.background-color': '#112233' };
  const style: OverlayStyle = {
    template: { id: 1, slug: 'bubbles', name: 'Bubbles' },
    settings,
    skins: [{ id: 5, name: 'Red', slug: 'red', settings: {}, overrides: { 'message.font-color': '#ff0000', 'not.a-template-key': 1 } }],
    roleSkins: {}, viewerSkins: {}, fonts: {},
  };

  it("renders a skin as the overlay's settings with the skin's overrides on top, scoped to its class", () => {
    const css = overlayStyleSheet(style);
    expect(css.startsWith(settingsToCss(settings, { fontSources: {} }))).toBe(true);
    const skinCss = settingsToCss({ ...settings, 'message.font-color': '#ff0000' }, { scopeClass: 'cs-skin-5', fontSources: {} });
    expect(css).toContain(skinCss);
    // The overlay's own changes carry into the skin where it does not override them.
    expect(skinCss).toMatch(/\.cs-msg\.cs-skin-5 \.cs-message \{[^}]*font-size: 18px;/);
    expect(skinCss).toMatch(/\.cs-msg\.cs-skin-5 \{[^}]*background-color: #112233;/);
  });
});
