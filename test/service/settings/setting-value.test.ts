import { describe, expect, it } from 'vitest';
import { SETTINGS, SETTINGS_BY_KEY } from '../../../src/service/settings/catalog.ts';
import type { SettingSpec } from '../../../src/service/settings/catalog.ts';
import { normalizeSettingValue } from '../../../src/service/settings/setting-value.ts';

function spec(key: string): SettingSpec {
  const found = SETTINGS_BY_KEY.get(key);
  if (!found) throw new Error(`no catalog key ${key}`);
  return found;
}

const accept = (key: string, raw: unknown) => normalizeSettingValue(spec(key), raw);

describe('integer settings', () => {
  it.each([0, 1, 400, 10_000])('bubble.width accepts %d', (n) => {
    expect(accept('bubble.width', n)).toEqual({ ok: true, value: n });
  });

  it.each([-1, 10_001, -10_000, 0.5, 399.99, Number.NaN, Number.POSITIVE_INFINITY, 1e21])('bubble.width refuses %d', (n) => {
    expect(accept('bubble.width', n)).toEqual({ ok: false, error: 'The bubble.width must be an integer between 0 and 10000.' });
  });

  it.each(['400', '', '0x10', null, true, [400], { value: 400 }])('bubble.width refuses the non-number %j', (raw) => {
    expect(accept('bubble.width', raw)).toEqual({ ok: false, error: 'The bubble.width must be an integer between 0 and 10000.' });
  });

  it.each(['box-shadow-offset-x', 'box-shadow-offset-y', 'box-shadow-spread-radius'])('%s ranges from -10000 to 10000', (property) => {
    for (const element of ['bubble', 'avatar', 'username', 'message']) {
      const key = `${element}.${property}`;
      expect(accept(key, -10_000)).toEqual({ ok: true, value: -10_000 });
      expect(accept(key, 10_000)).toEqual({ ok: true, value: 10_000 });
      expect(accept(key, -10_001)).toEqual({ ok: false, error: `The ${key} must be an integer between -10000 and 10000.` });
      expect(accept(key, 10_001)).toEqual({ ok: false, error: `The ${key} must be an integer between -10000 and 10000.` });
      expect(accept(key, -0.5).ok).toBe(false);
    }
  });

  it('every other integer key ranges from 0 to 10000', () => {
    const wide = /^(box-shadow-offset-x|box-shadow-offset-y|box-shadow-spread-radius)$/;
    const others = SETTINGS.filter((s) => s.type === 'integer' && !wide.test(s.property));
    expect(others.length).toBeGreaterThan(40);
    for (const s of others) {
      expect(normalizeSettingValue(s, 0)).toEqual({ ok: true, value: 0 });
      expect(normalizeSettingValue(s, 10_000)).toEqual({ ok: true, value: 10_000 });
      expect(normalizeSettingValue(s, -1)).toEqual({ ok: false, error: `The ${s.key} must be an integer between 0 and 10000.` });
      expect(normalizeSettingValue(s, 10_001).ok).toBe(false);
    }
  });

  it('stores -0 as 0', () => {
    const result = accept('bubble.box-shadow-offset-x', -0);
    expect(result.ok && Object.is(result.value, 0)).toBe(true);
  });
});

describe('color settings', () => {
  it.each([
    ['#FFF', '#ffffff'],
    ['#abcd', '#aabbccdd'],
    ['#12345678', '#12345678'],
    ['#12345600', 'transparent'],
    ['Transparent', 'transparent'],
  ])('store %s as %s', (raw, value) => {
    expect(accept('bubble.background-color', raw)).toEqual({ ok: true, value });
  });

  it.each(['red', '#12345', 'rgb(0, 0, 0)', '', 0xffffff, null, true])('refuse %j', (raw) => {
    expect(accept('bubble.background-color', raw)).toEqual({
      ok: false,
      error: 'The bubble.background-color must be a colour: #rgb, #rgba, #rrggbb, #rrggbbaa or transparent.',
    });
  });
});

describe('select settings', () => {
  it('accept exactly one of the options', () => {
    expect(accept('bubble.border-style', 'dashed')).toEqual({ ok: true, value: 'dashed' });
    expect(accept('bubble.animation-entrance', 'jack-in-the-box')).toEqual({ ok: true, value: 'jack-in-the-box' });
  });

  it.each(['Dashed', ' dashed', 'wavy', '', 1, true, null, ['solid']])('refuse %j', (raw) => {
    expect(accept('bubble.border-style', raw)).toEqual({
      ok: false,
      error: 'The bubble.border-style must be one of: none, solid, dashed, dotted, double.',
    });
  });

  it('font-weight takes the string or the JSON number and answers the string', () => {
    expect(accept('message.font-weight', '700')).toEqual({ ok: true, value: '700' });
    expect(accept('message.font-weight', 700)).toEqual({ ok: true, value: '700' });
    expect(accept('username.font-weight', 300)).toEqual({ ok: true, value: '300' });
  });

  it.each([450, 1000, 400.5, '450', 'bold', -400])('font-weight refuses %j', (raw) => {
    expect(accept('message.font-weight', raw)).toEqual({
      ok: false,
      error: 'The message.font-weight must be one of: 300, 400, 500, 600, 700, 800, 900.',
    });
  });

  it('only font-weight turns numbers into options', () => {
    expect(accept('bubble.direction', 0).ok).toBe(false);
  });
});

describe('toggle settings', () => {
  it('accept JSON true and false', () => {
    expect(accept('bubble.full-width', true)).toEqual({ ok: true, value: true });
    expect(accept('bubble.full-width', false)).toEqual({ ok: true, value: false });
  });

  it.each(['true', 'false', 1, 0, null, 'yes'])('refuse %j', (raw) => {
    expect(accept('bubble.full-width', raw)).toEqual({ ok: false, error: 'The bubble.full-width must be true or false.' });
  });
});

describe('font family settings', () => {
  it('answer in the catalog spelling', () => {
    expect(accept('message.font-family', 'open sans')).toEqual({ ok: true, value: 'Open Sans' });
    expect(accept('message.font-family', 'ARIAL')).toEqual({ ok: true, value: 'Arial' });
    expect(accept('username.font-family', 'Monospace')).toEqual({ ok: true, value: 'monospace' });
  });

  it.each(['No Such Font', '', 42, null])('refuse %j', (raw) => {
    const result = accept('message.font-family', raw);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toMatch(/^The message\.font-family must be a font family from the font catalog/);
  });
});

describe('gradient settings', () => {
  it('store the normal form', () => {
    expect(accept('bubble.background-gradient', 'linear-gradient(to right, RED, blue)'))
      .toEqual({ ok: true, value: 'linear-gradient(90deg, #ff0000 0%, #0000ff 100%)' });
    expect(accept('bubble.background-gradient', '')).toEqual({ ok: true, value: '' });
  });

  it('name the key and the reason when refusing', () => {
    expect(accept('bubble.background-gradient', 'linear-gradient(red)')).toEqual({
      ok: false,
      error: 'The bubble.background-gradient must be a CSS linear or radial gradient, or "" for none: a gradient needs at least two colour stops.',
    });
    expect(accept('bubble.background-gradient', 5)).toEqual({
      ok: false,
      error: 'The bubble.background-gradient must be a CSS linear or radial gradient, or "" for none.',
    });
  });
});

describe('catalog defaults', () => {
  it('every catalog default is accepted and already in normal form', () => {
    for (const s of SETTINGS) expect(normalizeSettingValue(s, s.default)).toEqual({ ok: true, value: s.default });
  });
});
