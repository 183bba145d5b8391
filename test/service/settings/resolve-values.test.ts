import { describe, expect, it } from 'vitest';
import { CATALOG_DEFAULTS, SETTINGS } from '../../../src/service/settings/catalog.ts';
import { dropDefaults, resolveValues } from '../../../src/service/settings/resolve-values.ts';
import { DEFAULT_TEMPLATES_DIR, loadTemplates } from '../../../src/service/settings/templates.ts';

const templates = loadTemplates(DEFAULT_TEMPLATES_DIR);
const bubbles = templates.find((t) => t.slug === 'bubbles')!;
const ticker = templates.find((t) => t.slug === 'ticker')!;

describe('resolveValues', () => {
  it('is the template defaults when there are no layers', () => {
    expect(resolveValues(bubbles)).toEqual(CATALOG_DEFAULTS);
    expect(resolveValues(ticker)).toEqual(ticker.defaults);
    expect(resolveValues(ticker)['message.font-size']).toBe(16);
  });

  it('applies layers in order, the last one winning', () => {
    const source = { 'bubble.width': 300, 'bubble.gap': 5 };
    const overrides = { 'bubble.width': 250 };
    const resolved = resolveValues(bubbles, source, overrides);
    expect(resolved['bubble.width']).toBe(250);
    expect(resolved['bubble.gap']).toBe(5);
    expect(resolved['avatar.size']).toBe(60);
  });

  it('keeps only the template keys, in catalog order', () => {
    const resolved = resolveValues(ticker, { 'bubble.width': 300, 'message.font-size': 30, 'zzz.unknown': 1 });
    expect(Object.keys(resolved)).toEqual([...ticker.keys]);
    expect(resolved['message.font-size']).toBe(30);
    expect('bubble.width' in resolved).toBe(false);
    const fromShuffled = resolveValues(bubbles, { 'badges.show': false, 'chat.padding': 3 });
    expect(Object.keys(fromShuffled)).toEqual(SETTINGS.map((s) => s.key));
  });

  it('reads only own properties of a layer', () => {
    const layer = Object.create({ 'bubble.width': 1 }) as Record<string, number>;
    expect(resolveValues(bubbles, layer)['bubble.width']).toBe(400);
  });

  it('does not change the template defaults', () => {
    const resolved = resolveValues(bubbles, { 'bubble.width': 1 });
    resolved['bubble.gap'] = 99;
    expect(bubbles.defaults['bubble.gap']).toBe(10);
    expect(bubbles.defaults['bubble.width']).toBe(400);
  });
});

describe('dropDefaults', () => {
  it('removes values equal to the template default', () => {
    expect(dropDefaults(bubbles, { 'bubble.width': 400, 'bubble.gap': 12, 'avatar.show': true, 'avatar.position': 'left' }))
      .toEqual({ 'bubble.gap': 12, 'avatar.position': 'left' });
  });

  it('compares with the template default, not the catalog default', () => {
    expect(dropDefaults(ticker, { 'message.font-size': 16, 'username.position': 'above-message' }))
      .toEqual({ 'username.position': 'above-message' });
  });

  it('drops keys outside the template and lists the rest in catalog order', () => {
    const kept = dropDefaults(ticker, { 'message.font-size': 20, 'bubble.width': 10, 'chat.padding': 4 });
    expect(kept).toEqual({ 'chat.padding': 4, 'message.font-size': 20 });
    expect(Object.keys(kept)).toEqual(['chat.padding', 'message.font-size']);
  });

  it('keeps falsy values that differ from the default', () => {
    expect(dropDefaults(bubbles, { 'avatar.show': false, 'bubble.gap': 0, 'bubble.background-gradient': '' }))
      .toEqual({ 'avatar.show': false, 'bubble.gap': 0 });
  });
});
