import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hslToRgb, normalizeColor, rgbaToColor } from '../../../src/service/settings/color.ts';

describe('normalizeColor', () => {
  it.each([
    ['#fff', '#ffffff'],
    ['#FFF', '#ffffff'],
    ['#abc', '#aabbcc'],
    ['#abcd', '#aabbccdd'],
    ['#AbCdEf', '#abcdef'],
    ['#12345678', '#12345678'],
    ['#123456FF', '#123456ff'],
    ['transparent', 'transparent'],
    ['TRANSPARENT', 'transparent'],
    ['Transparent', 'transparent'],
  ])('accepts %s as %s', (input, expected) => {
    expect(normalizeColor(input)).toBe(expected);
  });

  it.each(['#0000', '#fff0', '#12345600', '#ABCDEF00'])('turns the fully transparent %s into transparent', (input) => {
    expect(normalizeColor(input)).toBe('transparent');
  });

  it.each([
    '', '#', '#ff', '#fffff', '#1234567', '#123456789', 'fff', 'ffffff', '#ggg', 'red', 'rgb(0,0,0)',
    ' #fff', '#fff ', 'transparent ', '#ff ff ff', 'none', '#-12',
  ])('refuses %j', (input) => {
    expect(normalizeColor(input)).toBeUndefined();
  });

  it('is the identity on its own output', () => {
    const hexDigits = fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEF'), minLength: 3, maxLength: 8 })
      .filter((s) => [3, 4, 6, 8].includes(s.length));
    fc.assert(fc.property(hexDigits, (digits) => {
      const once = normalizeColor(`#${digits}`);
      expect(once).toBeDefined();
      expect(normalizeColor(once!)).toBe(once);
      expect(once).toMatch(/^(#[0-9a-f]{6}|#[0-9a-f]{6}[0-9a-f]{2}|transparent)$/);
    }));
  });
});

describe('rgbaToColor', () => {
  it('writes opaque colours with six digits and others with eight', () => {
    expect(rgbaToColor(255, 0, 16)).toBe('#ff0010');
    expect(rgbaToColor(255, 0, 16, 1)).toBe('#ff0010');
    expect(rgbaToColor(0, 0, 255, 0.5)).toBe('#0000ff80');
  });

  it('clamps channels and alpha like CSS', () => {
    expect(rgbaToColor(300, -5, 127.6, 2)).toBe('#ff0080');
  });

  it('turns an alpha that rounds to 00 into transparent', () => {
    expect(rgbaToColor(10, 20, 30, 0)).toBe('transparent');
    expect(rgbaToColor(10, 20, 30, 0.001)).toBe('transparent');
  });
});

describe('hslToRgb', () => {
  it.each([
    [[0, 100, 50], [255, 0, 0]],
    [[120, 100, 50], [0, 255, 0]],
    [[240, 100, 50], [0, 0, 255]],
    [[0, 0, 100], [255, 255, 255]],
    [[0, 0, 0], [0, 0, 0]],
    [[480, 100, 50], [0, 255, 0]],
    [[-120, 100, 50], [0, 0, 255]],
    [[30, 100, 50], [255, 127.5, 0]],
  ])('hsl%j is rgb%j', (hsl, rgb) => {
    const [h, s, l] = hsl as [number, number, number];
    const out = hslToRgb(h, s, l);
    out.forEach((channel, i) => expect(channel).toBeCloseTo(rgb[i]!, 6));
  });
});
