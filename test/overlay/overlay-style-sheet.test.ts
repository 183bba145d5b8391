import { describe, expect, it } from 'vitest';
import { CATALOG_DEFAULTS, SETTINGS, SETTINGS_BY_KEY } from '../../src/service/settings/catalog.ts';
import type { SettingValue } from '../../src/service/settings/catalog.ts';
import { isRenderableValue, skinLayer } from '../../src/overlay/setting-read.ts';
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

describe('skinLayer: a skin on the overlay', () => {
  const overlay = {
    ...CATALOG_DEFAULTS,
    'bubble.background-color': '#0000ff',
    'bubble.background-gradient': 'linear-gradient(90deg, #ffff00 0%, #ffff00 100%)',
    'bubble.border-width': 4, 'bubble.border-style': 'dashed', 'bubble.border-color': '#ffffff',
    'message.text-stroke-color': 'transparent',
  };
  const layer = (overrides: Record<string, SettingValue>) =>
    skinLayer(overlay, { settings: { ...CATALOG_DEFAULTS, ...overrides }, overrides });

  it("draws a skin's background colour without the overlay's gradient, and a skin's gradient without the overlay's colour", () => {
    const red = layer({ 'bubble.background-color': '#ff0000' });
    expect(red.values['bubble.background-color']).toBe('#ff0000');
    expect(red.values['bubble.background-gradient']).toBe('');
    expect([...red.skinKeys]).toEqual(['bubble.background-color']);
    const fade = layer({ 'bubble.background-gradient': 'linear-gradient(90deg, #ff00ff 0%, transparent 100%)' });
    expect(fade.values['bubble.background-color']).toBe('transparent');
    // Both set: both the skin's.
    const both = layer({ 'bubble.background-color': '#ff0000', 'bubble.background-gradient': 'linear-gradient(90deg, #ff00ff 0%, transparent 100%)' });
    expect(both.values['bubble.background-gradient']).toBe('linear-gradient(90deg, #ff00ff 0%, transparent 100%)');
    expect(both.values['bubble.background-color']).toBe('#ff0000');
  });

  it("keeps the overlay's values where they hide nothing the skin sets", () => {
    // Recolouring the overlay's border keeps its width and style.
    const cyan = layer({ 'bubble.border-color': '#00ffff' });
    expect([cyan.values['bubble.border-width'], cyan.values['bubble.border-style'], cyan.values['bubble.border-color']]).toEqual([4, 'dashed', '#00ffff']);
    // An overlay without a gradient keeps its own, whatever the skin's colour.
    const plain = skinLayer({ ...overlay, 'bubble.background-gradient': '' }, { settings: CATALOG_DEFAULTS, overrides: { 'bubble.border-width': 1 } });
    expect(plain.values['bubble.background-color']).toBe('#0000ff');
  });

  it('draws a hiding key at the skin\'s own value: border style, outline colour, radius toggle', () => {
    const values = skinLayer(
      { ...overlay, 'bubble.border-style': 'none', 'bubble.border-radius-advanced': true, 'bubble.full-width': true, 'avatar.show': false },
      { settings: { ...CATALOG_DEFAULTS, 'avatar.border-width': 3 }, overrides: {
        'bubble.border-width': 6, 'message.text-stroke-width': 2, 'bubble.border-radius': 9, 'bubble.width': 300, 'avatar.border-width': 3,
      } },
    ).values;
    expect(values['bubble.border-style']).toBe('solid');
    expect(values['message.text-stroke-color']).toBe('#000000');
    expect(values['bubble.border-radius-advanced']).toBe(false);
    // Only paint hides paint: the streamer's switches stay (a skin never brings back a hidden
    // avatar, nor narrows full-width bubbles).
    expect(values['bubble.full-width']).toBe(true);
    expect(values['avatar.show']).toBe(false);
  });

  it("never undoes the streamer's switches: avatar.show, badges.show, full-width, an entrance of none", () => {
    const switchedOff = {
      ...overlay, 'avatar.show': false, 'badges.show': false, 'bubble.full-width': true, 'bubble.animation-entrance': 'none',
    };
    const overrides = {
      'avatar.border-width': 3, 'avatar.size': 64, 'badges.position': 'after-name', 'bubble.width': 300, 'bubble.animation-duration': 200,
    };
    const values = skinLayer(switchedOff, { settings: { ...CATALOG_DEFAULTS, ...overrides }, overrides }).values;
    expect([values['avatar.show'], values['badges.show'], values['bubble.full-width'], values['bubble.animation-entrance']])
      .toEqual([false, false, true, 'none']);
  });

  it("renders a skin's name colour over the chatter's Twitch colour, and the chatter's colour otherwise", () => {
    const styleWith = (overrides: Record<string, SettingValue>): OverlayStyle => ({
      template: { id: 1, slug: 'bubbles', name: 'Bubbles' }, settings: CATALOG_DEFAULTS,
      skins: [{ id: 7, name: 'Gold', slug: 'gold', settings: { ...CATALOG_DEFAULTS, ...overrides }, overrides }],
      roleSkins: {}, viewerSkins: {}, fonts: {},
    });
    expect(overlayStyleSheet(styleWith({ 'username.font-color': '#ffd700' }))).toMatch(/\.cs-msg\.cs-skin-7 \.cs-username \{[^}]*\n  color: #ffd700;/);
    expect(overlayStyleSheet(styleWith({ 'message.font-color': '#ffd700' }))).toMatch(/\.cs-msg\.cs-skin-7 \.cs-username \{[^}]*\n  color: var\(--cs-user-color, #ffffff\);/);
  });

  it('names, in every hiddenWhen of the catalog, a key of the same element with a value that key can take', () => {
    for (const spec of SETTINGS) {
      for (const mask of spec.hiddenWhen ?? []) {
        const hiding = SETTINGS_BY_KEY.get(`${spec.element}.${mask.property}`);
        expect(hiding, `${spec.key} hidden by ${mask.property}`).toBeDefined();
        expect(hiding!.key).not.toBe(spec.key);
        const value = 'is' in mask ? mask.is : mask.isNot;
        expect(isRenderableValue(hiding!, value), `${spec.key}: ${String(value)}`).toBe(true);
      }
    }
  });
});
