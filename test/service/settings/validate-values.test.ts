import { describe, expect, it } from 'vitest';
import { DEFAULT_TEMPLATES_DIR, loadTemplates } from '../../../src/service/settings/templates.ts';
import { MAX_VALUES_KEYS, validateSettingsValues } from '../../../src/service/settings/validate-values.ts';

const templates = loadTemplates(DEFAULT_TEMPLATES_DIR);
const bubbles = templates.find((t) => t.slug === 'bubbles')!;
const ticker = templates.find((t) => t.slug === 'ticker')!;
const NO_NULL = { allowNull: false };
const WITH_NULL = { allowNull: true };

describe('validateSettingsValues', () => {
  it('normalises every accepted value', () => {
    const result = validateSettingsValues(bubbles, {
      'bubble.width': 320,
      'bubble.background-color': '#ABC',
      'message.font-weight': 700,
      'message.font-family': 'open sans',
      'bubble.background-gradient': 'linear-gradient(to right, red, blue)',
      'avatar.show': false,
    }, NO_NULL);
    expect(result.errors).toEqual({});
    expect(result.values).toEqual({
      'bubble.width': 320,
      'bubble.background-color': '#aabbcc',
      'message.font-weight': '700',
      'message.font-family': 'Open Sans',
      'bubble.background-gradient': 'linear-gradient(90deg, #ff0000 0%, #0000ff 100%)',
      'avatar.show': false,
    });
  });

  it('accepts an empty object (the caller decides whether that is enough)', () => {
    expect(validateSettingsValues(bubbles, {}, NO_NULL)).toEqual({ values: {}, errors: {} });
  });

  it.each([null, undefined, [], [{ 'bubble.width': 1 }], 'bubble.width=1', 5, true, new Map([['bubble.width', 1]]), new Date()])(
    'refuses the non-object %j',
    (input) => {
      expect(validateSettingsValues(bubbles, input, NO_NULL)).toEqual({
        values: {},
        errors: { values: ['The values field must be an object.'] },
      });
    },
  );

  it('accepts an object without prototype', () => {
    const input = Object.create(null) as Record<string, unknown>;
    input['bubble.gap'] = 4;
    expect(validateSettingsValues(bubbles, input, NO_NULL)).toEqual({ values: { 'bubble.gap': 4 }, errors: {} });
  });

  it('refuses keys outside the catalog', () => {
    const result = validateSettingsValues(bubbles, { 'bubble.colour': '#fff', 'bubble.gap': 2 }, NO_NULL);
    expect(result.errors).toEqual({ 'values.bubble.colour': ['The bubble.colour is not a known setting.'] });
    expect(result.values).toEqual({ 'bubble.gap': 2 });
  });

  it('names an empty or blank key as such, not "The  is not a known setting."', () => {
    const result = validateSettingsValues(bubbles, { '': 1, ' ': 2 }, NO_NULL);
    expect(result.errors).toEqual({
      'values.': ['The key "" is not a known setting.'],
      'values. ': ['The key " " is not a known setting.'],
    });
  });

  it('refuses catalog keys outside the template, naming the template', () => {
    const result = validateSettingsValues(ticker, { 'bubble.width': 100, 'avatar.size': 10, 'message.font-size': 20 }, NO_NULL);
    expect(result.errors).toEqual({
      'values.bubble.width': ['The bubble.width is not part of the ticker template.'],
      'values.avatar.size': ['The avatar.size is not part of the ticker template.'],
    });
    expect(result.values).toEqual({ 'message.font-size': 20 });
  });

  it('reports each invalid value under values.<key>', () => {
    const result = validateSettingsValues(bubbles, { 'bubble.width': '400', 'bubble.full-width': 'yes', 'bubble.gap': 1.5 }, NO_NULL);
    expect(result.errors).toEqual({
      'values.bubble.width': ['The bubble.width must be an integer between 0 and 10000.'],
      'values.bubble.full-width': ['The bubble.full-width must be true or false.'],
      'values.bubble.gap': ['The bubble.gap must be an integer between 0 and 10000.'],
    });
    expect(result.values).toEqual({});
  });

  it('takes null as "remove" only when allowed', () => {
    expect(validateSettingsValues(bubbles, { 'bubble.width': null }, WITH_NULL)).toEqual({ values: { 'bubble.width': null }, errors: {} });
    expect(validateSettingsValues(bubbles, { 'bubble.width': null }, NO_NULL)).toEqual({
      values: {},
      errors: { 'values.bubble.width': ['The bubble.width must have a value; null is not allowed here.'] },
    });
  });

  it('still refuses null for keys outside the catalog or template', () => {
    const result = validateSettingsValues(ticker, { 'bubble.width': null, 'nope.key': null }, WITH_NULL);
    expect(Object.keys(result.errors)).toEqual(['values.bubble.width', 'values.nope.key']);
    expect(result.values).toEqual({});
  });

  it('never lets prototype keys pollute anything', () => {
    const input = JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}, "prototype": 1, "toString": 2, "bubble.gap": 3}') as unknown;
    const result = validateSettingsValues(bubbles, input, WITH_NULL);
    expect(result.values).toEqual({ 'bubble.gap': 3 });
    expect(Object.keys(result.values)).toEqual(['bubble.gap']);
    expect(Object.getPrototypeOf(result.values)).toBe(Object.prototype);
    expect(Object.getPrototypeOf(result.errors)).toBe(Object.prototype);
    expect(Object.keys(result.errors)).toEqual(['values.__proto__', 'values.constructor', 'values.prototype', 'values.toString']);
    expect(result.errors['values.__proto__']).toEqual(['The __proto__ is not a known setting.']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses more than MAX_VALUES_KEYS keys with one error', () => {
    const input = Object.fromEntries(Array.from({ length: MAX_VALUES_KEYS + 1 }, (_, i) => [`junk.${i}`, i]));
    expect(validateSettingsValues(bubbles, input, NO_NULL)).toEqual({
      values: {},
      errors: { values: [`The values field may have at most ${MAX_VALUES_KEYS} settings.`] },
    });
  });

  it('answers a huge object with one error too', () => {
    const input: Record<string, number> = {};
    for (let i = 0; i < 200_000; i++) input[`k${i}`] = i;
    const result = validateSettingsValues(bubbles, input, NO_NULL);
    expect(Object.keys(result.errors)).toEqual(['values']);
  });

  it('cuts long unknown keys short in the message but keys the error by the full key', () => {
    const key = `x${'y'.repeat(300)}`;
    const result = validateSettingsValues(bubbles, { [key]: 1 }, NO_NULL);
    const message = result.errors[`values.${key}`]![0]!;
    expect(message.length).toBeLessThan(120);
    expect(message).toMatch(/… is not a known setting\.$/);
  });

  it('cuts a long unknown key short between characters, never inside one (no lone surrogate in the message)', () => {
    for (let before = 75; before <= 82; before++) {
      const key = `${'k'.repeat(before)}${'😀'.repeat(10)}`;
      const message = validateSettingsValues(bubbles, { [key]: 1 }, NO_NULL).errors[`values.${key}`]![0]!;
      expect(message.isWellFormed(), JSON.stringify(message)).toBe(true);
      expect(message).toMatch(/… is not a known setting\.$/);
    }
  });
});
