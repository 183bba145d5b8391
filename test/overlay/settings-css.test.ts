import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { CATALOG_DEFAULTS, ENTRANCE_ANIMATIONS, SETTINGS } from '../../src/service/settings/catalog.ts';
import { ADVANCED_GROUPS } from '../../src/overlay/advanced-keys.ts';
import { ENTRANCE_TO_ANIMATE_CSS } from '../../src/overlay/entrance-animations.ts';
import { OVERLAY_WIDE_KEYS, fontFamilyValue, settingsToCss } from '../../src/overlay/settings-css.ts';
import { baseFor, otherValue } from './setting-variations.ts';

describe('settingsToCss', () => {
  it.each(SETTINGS.map((s) => [s.key, s] as const))('overlay-wide CSS changes when %s leaves its default', (key, spec) => {
    const base = baseFor(key);
    const changed = { ...base, [key]: otherValue(spec, base[key]!) };
    expect(settingsToCss(changed)).not.toBe(settingsToCss(base));
  });

  const perMessage = SETTINGS.filter((s) => !OVERLAY_WIDE_KEYS.includes(s.key));
  it.each(perMessage.map((s) => [s.key, s] as const))('skin-scoped CSS changes when %s leaves its default', (key, spec) => {
    const base = baseFor(key);
    const changed = { ...base, [key]: otherValue(spec, base[key]!) };
    const options = { scopeClass: 'cs-skin-5' };
    expect(settingsToCss(changed, options)).not.toBe(settingsToCss(base, options));
  });

  it.each(OVERLAY_WIDE_KEYS)('skin-scoped CSS ignores the container key %s', (key) => {
    const spec = SETTINGS.find((s) => s.key === key)!;
    const base = baseFor(key);
    const changed = { ...base, [key]: otherValue(spec, base[key]!) };
    expect(settingsToCss(changed, { scopeClass: 'cs-skin-5' })).toBe(settingsToCss(base, { scopeClass: 'cs-skin-5' }));
  });

  it('scopes every rule of a skin to its class and leaves out the container', () => {
    const css = settingsToCss(CATALOG_DEFAULTS, { scopeClass: 'cs-skin-5' });
    const selectors = [...css.matchAll(/^([^\s}][^{\n]*) \{$/gm)].map((m) => m[1]!);
    expect(selectors.length).toBeGreaterThan(3);
    for (const selector of selectors) expect(selector.startsWith('.cs-msg.cs-skin-5')).toBe(true);
    expect(css).not.toContain('.cs-chat');
  });

  it('refuses a scope that is not a plain class name', () => {
    expect(() => settingsToCss(CATALOG_DEFAULTS, { scopeClass: 'x{}' })).toThrow(/plain class name/);
  });

  it.each(ADVANCED_GROUPS.map((g) => [g.toggle, g] as const))('%s: per-part keys only count while it is true, the uniform key only while false', (_toggle, group) => {
    const off = { ...baseFor(group.parts[0]!), [group.toggle]: false };
    const on = { ...off, [group.toggle]: true };
    expect(settingsToCss({ ...off, [group.parts[0]!]: 99 })).toBe(settingsToCss(off));
    expect(settingsToCss({ ...on, [group.uniform]: 99 })).toBe(settingsToCss(on));
  });

  it('writes per-corner radii in CSS shorthand order', () => {
    const css = settingsToCss({
      ...CATALOG_DEFAULTS,
      'bubble.border-radius-advanced': true,
      'bubble.border-radius-top-left': 1,
      'bubble.border-radius-top-right': 2,
      'bubble.border-radius-bottom-right': 3,
      'bubble.border-radius-bottom-left': 4,
    });
    expect(css).toMatch(/\.cs-msg \{[^}]*border-radius: 1px 2px 3px 4px;/);
  });

  it('writes per-side chat padding in CSS shorthand order', () => {
    const css = settingsToCss({
      ...CATALOG_DEFAULTS,
      'chat.padding-advanced': true,
      'chat.padding-top': 1, 'chat.padding-right': 2, 'chat.padding-bottom': 3, 'chat.padding-left': 4,
    });
    expect(css).toMatch(/\.cs-chat \{[^}]*padding: 1px 2px 3px 4px;/);
  });

  it('writes an inset box shadow with spread', () => {
    const css = settingsToCss({
      ...CATALOG_DEFAULTS,
      'message.box-shadow-inset': true,
      'message.box-shadow-offset-x': -2,
      'message.box-shadow-offset-y': 3,
      'message.box-shadow-blur-radius': 4,
      'message.box-shadow-spread-radius': -5,
      'message.box-shadow-color': '#11223344',
    });
    expect(css).toContain('box-shadow: inset -2px 3px 4px -5px #11223344;');
  });

  it('draws a gradient over the background colour', () => {
    const gradient = 'linear-gradient(90deg, #ff0000 0%, #0000ff 100%)';
    const css = settingsToCss({ ...CATALOG_DEFAULTS, 'bubble.background-color': '#000000', 'bubble.background-gradient': gradient });
    expect(css).toMatch(new RegExp(`\\.cs-msg \\{[^}]*background-color: #000000;\\n  background-image: ${gradient.replace(/[()]/g, '\\$&')};`));
  });

  it('writes text stroke through -webkit-text-stroke', () => {
    const css = settingsToCss({ ...CATALOG_DEFAULTS, 'message.text-stroke-width': 2, 'message.text-stroke-color': '#ff0000' });
    expect(css).toContain('-webkit-text-stroke: 2px #ff0000;');
  });

  it('falls back to the default for values that could break out of a declaration', () => {
    const css = settingsToCss({
      ...CATALOG_DEFAULTS,
      'bubble.background-color': 'red; } body { display: none',
      'bubble.background-gradient': 'linear-gradient(red, blue); } *{x:y',
      'message.font-family': 'Evil"; } * { color: red',
      'bubble.width': '12',
      'bubble.alignment': 'middle',
    });
    expect(css).toBe(settingsToCss(CATALOG_DEFAULTS));
  });

  it('quotes font families and leaves generic families bare', () => {
    expect(fontFamilyValue('Open Sans', { 'Open Sans': 'google' })).toBe('"Open Sans", sans-serif');
    expect(fontFamilyValue('monospace', { monospace: 'generic' })).toBe('monospace');
  });

  it('gives a newer generic family its CSS 2 generic behind it, so a browser without it does not fall back to serif', () => {
    expect(fontFamilyValue('ui-monospace', { 'ui-monospace': 'generic' })).toBe('ui-monospace, monospace');
    expect(fontFamilyValue('system-ui', { 'system-ui': 'generic' })).toBe('system-ui, sans-serif');
    expect(fontFamilyValue('math', { math: 'generic' })).toBe('math, serif');
  });

  it('shows the name in the chatter colour, with font-color for chatters without one', () => {
    const css = settingsToCss({ ...CATALOG_DEFAULTS, 'username.font-color': '#00ff00' });
    expect(css).toContain('color: var(--cs-user-color, #00ff00);');
  });

  it("puts the avatar's letter on the avatar's own background when it has one, in a skin's scope either way", () => {
    const initial = (css: string) => /\.cs-avatar-initial \{\n  background: ([^;]*);/.exec(css)?.[1];
    expect(initial(settingsToCss(CATALOG_DEFAULTS))).toBe('var(--cs-user-color, #6b6b7b)');
    expect(initial(settingsToCss({ ...CATALOG_DEFAULTS, 'avatar.background-color': '#ff0000' }))).toBe('none');
    expect(initial(settingsToCss({ ...CATALOG_DEFAULTS, 'avatar.background-gradient': 'linear-gradient(90deg, #ff0000 0%, #0000ff 100%)' }))).toBe('none');
    // Scoped, the rule is written either way, so a skin's messages follow the skin's settings, never the overlay-wide rule.
    expect(initial(settingsToCss(CATALOG_DEFAULTS, { scopeClass: 'cs-skin-5' }))).toBe('var(--cs-user-color, #6b6b7b)');
  });

  it("puts the avatar's letter on a skin's own name colour, as the name, with a letter that shows on it", () => {
    const letter = (css: string) => /\.cs-avatar-initial \{\n  background: ([^;]*);\n  color: ([^;]*);/.exec(css)?.slice(1);
    const skin = (values: Record<string, unknown>, scopeKeys: string[]) =>
      settingsToCss({ ...CATALOG_DEFAULTS, ...values }, { scopeClass: 'cs-skin-5', scopeKeys: new Set(scopeKeys) });
    expect(letter(skin({ 'username.font-color': '#ffd700' }, ['username.font-color']))).toEqual(['#ffd700', '#1a1a1a']);
    expect(letter(skin({ 'username.font-color': '#fff' }, ['username.font-color']))).toEqual(['#fff', '#1a1a1a']);
    expect(letter(skin({ 'username.font-color': '#000080' }, ['username.font-color']))).toEqual(['#000080', '#ffffff']);
    // A name colour the skin only carries from the overlay is the fallback, as on the name.
    expect(letter(skin({ 'username.font-color': '#ffd700' }, []))).toEqual(['var(--cs-user-color, #6b6b7b)', 'var(--cs-user-letter-color, #ffffff)']);
    // The avatar's own background (the overlay's or the skin's) is drawn instead.
    expect(letter(skin({ 'username.font-color': '#ffd700', 'avatar.background-color': '#ff0000' }, ['username.font-color']))).toEqual(['none', '#ffffff']);
    // ... with the letter showing on it too; a gradient's colours are not read.
    expect(letter(skin({ 'username.font-color': '#000080', 'avatar.background-color': '#ffff00' }, ['username.font-color']))).toEqual(['none', '#1a1a1a']);
    expect(letter(settingsToCss({ ...CATALOG_DEFAULTS, 'avatar.background-color': '#ffff00' }))).toEqual(['none', '#1a1a1a']);
    expect(letter(settingsToCss({ ...CATALOG_DEFAULTS, 'avatar.background-color': '#ffff00', 'avatar.background-gradient': 'linear-gradient(90deg, #ffff00 0%, #ffff00 100%)' }))).toEqual(['none', '#ffffff']);
  });

  it('hides the avatar of a template without one (ticker) and keeps the bubble unstyled', () => {
    const ticker = Object.fromEntries(Object.entries(CATALOG_DEFAULTS).filter(([k]) => !/^(bubble|avatar)\./.test(k)));
    const css = settingsToCss(ticker);
    expect(css).toMatch(/\.cs-msg \.cs-avatar \{\n  display: none;\n\}/);
    expect(css).not.toMatch(/^\.cs-msg \{/m);
  });
});

describe('entrance animations', () => {
  const animateCss = readFileSync(createRequire(import.meta.url).resolve('animate.css/animate.css'), 'utf8');

  it.each(ENTRANCE_ANIMATIONS.filter((n) => n !== 'none'))('%s maps to keyframes animate.css defines', (name) => {
    const { keyframes } = ENTRANCE_TO_ANIMATE_CSS.get(name)!;
    expect(animateCss).toContain(`@keyframes ${keyframes} {`);
  });

  it('uses the mapped keyframes, duration, delay and easing', () => {
    const css = settingsToCss({
      ...CATALOG_DEFAULTS,
      'avatar.animation-entrance': 'jack-in-the-box',
      'avatar.animation-duration': 1200,
      'avatar.animation-delay': 300,
      'avatar.animation-easing': 'linear',
    });
    expect(css).toMatch(/\.cs-msg \.cs-avatar \{[^}]*animation-name: jackInTheBox;\n  animation-duration: 1200ms;\n  animation-delay: 300ms;\n  animation-timing-function: linear;/);
  });
});
