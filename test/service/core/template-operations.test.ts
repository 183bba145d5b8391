import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CATALOG_DEFAULTS } from '../../../src/service/settings/catalog.ts';
import type { SeedResult } from '../../../src/service/seed.ts';
import type { Harness } from './service-harness.ts';
import { openWorld, refusal } from './service-harness.ts';

let h: Harness & { ids: SeedResult };
let alice: number;
let main: number;
let second: number;
let ticker: number;
beforeEach(async () => {
  h = await openWorld();
  alice = h.ids.accounts.alice!.id;
  main = h.ids.accounts.alice!.overlays.Main!;
  second = h.ids.accounts.alice!.overlays.Second!;
  ticker = h.ids.accounts.alice!.overlays.Ticker!;
});
afterEach(() => h.close());

const versions = (ids: number[]) => Promise.all(ids.map(async (id) => (await h.store.findOverlay(id))!.version));

describe('GET /template', () => {
  it('reads the default overlay when preset_id is omitted: independent values, no overrides', async () => {
    const view = await h.service.getTemplate(alice);
    expect(view).toMatchObject({
      template_id: 1, template_name: 'Bubbles', template_slug: 'bubbles',
      override_values: {}, overridden_keys: [], sync_source_preset_id: null, preset_id: main, preset_name: 'Main',
    });
    expect(view.settings_values).toEqual({ ...CATALOG_DEFAULTS, 'bubble.width': 420 });
    expect(view.source_values).toEqual(view.settings_values);
    expect(Object.keys(view.settings_values)).toEqual(Object.keys(CATALOG_DEFAULTS));
  });

  it('resolves a synced overlay: defaults, then the source, then its overrides', async () => {
    const view = await h.service.getTemplate(alice, second);
    expect(view.sync_source_preset_id).toBe(main);
    expect(view.source_values).toEqual({ ...CATALOG_DEFAULTS, 'bubble.width': 420 });
    expect(view.override_values).toEqual({ 'avatar.size': 80 });
    expect(view.overridden_keys).toEqual(['avatar.size']);
    expect(view.settings_values).toEqual({ ...CATALOG_DEFAULTS, 'bubble.width': 420, 'avatar.size': 80 });
  });

  it('shows only the keys of the overlay template, with its defaults', async () => {
    const view = await h.service.getTemplate(alice, ticker);
    expect(view.template_slug).toBe('ticker');
    expect('bubble.width' in view.settings_values).toBe(false);
    expect(view.settings_values['message.font-size']).toBe(16);
  });

  it('answers 404 for another account\'s overlay and for missing ids, without telling them apart', async () => {
    const bob = h.ids.accounts.bob!;
    const theirs = await refusal(h.service.getTemplate(bob.id, main));
    const missing = await refusal(h.service.getTemplate(alice, 9999));
    expect(theirs.status).toBe(404);
    expect(theirs.message).toBe(missing.message);
    expect((await refusal(h.service.getTemplate(alice, -1))).status).toBe(404);
  });
});

describe('PUT /template', () => {
  it('merges values into the independent overlay (partial update) and announces it after commit', async () => {
    const before = await versions([main, second]);
    const result = await h.service.updateTemplate(alice, { scope: 'independent', values: { 'bubble.gap': 4 } });
    expect(result).toMatchObject({ scope: 'independent', preset_id: main, override_values: {} });
    expect(result.settings_values).toMatchObject({ 'bubble.width': 420, 'bubble.gap': 4 });
    expect(result.source_values).toEqual(result.settings_values);
    expect((await h.service.getTemplate(alice)).settings_values['bubble.gap']).toBe(4);
    // Main is the sync source of Second, so both change.
    expect(await versions([main, second])).toEqual(before.map((v) => v + 1));
    expect(h.events).toEqual([{ type: 'overlay-changed', overlayIds: [main, second] }]);
  });

  it('with scope source writes the sync source and pushes it and every overlay synced to it', async () => {
    const other = await h.service.createOverlay(alice, { name: 'Third', template: 'bubbles', syncSourceId: main });
    const result = await h.service.updateTemplate(alice, { scope: 'source', preset_id: second, values: { 'bubble.width': 500 } });
    expect(result.preset_id).toBe(second);
    expect(result.source_values['bubble.width']).toBe(500);
    expect(result.override_values).toEqual({ 'avatar.size': 80 });
    expect(result.settings_values).toMatchObject({ 'bubble.width': 500, 'avatar.size': 80 });
    expect((await h.service.getTemplate(alice, main)).settings_values['bubble.width']).toBe(500);
    expect(h.events).toEqual([{ type: 'overlay-changed', overlayIds: [main, second, other.id] }]);
  });

  it('with scope override writes only this overlay\'s overrides', async () => {
    const result = await h.service.updateTemplate(alice, { scope: 'override', preset_id: second, values: { 'bubble.gap': 2 } });
    expect(result.override_values).toEqual({ 'bubble.gap': 2, 'avatar.size': 80 });
    expect((await h.service.getTemplate(alice, main)).settings_values['bubble.gap']).toBe(10);
    expect(h.events).toEqual([{ type: 'overlay-changed', overlayIds: [second] }]);
  });

  it('removes a key from the chosen scope with null, back to the inherited value', async () => {
    const result = await h.service.updateTemplate(alice, { scope: 'override', preset_id: second, values: { 'avatar.size': null } });
    expect(result.override_values).toEqual({});
    expect(result.settings_values['avatar.size']).toBe(60);
    const independent = await h.service.updateTemplate(alice, { scope: 'independent', values: { 'bubble.width': null } });
    expect(independent.settings_values['bubble.width']).toBe(400);
  });

  it('refuses a scope that does not fit the overlay, naming the scope to use', async () => {
    const onIndependent = await refusal(h.service.updateTemplate(alice, { scope: 'override', values: { 'bubble.gap': 1 } }));
    expect(onIndependent.status).toBe(422);
    expect(onIndependent.errors?.scope?.[0]).toMatch(/Use the scope independent/);
    const sourceOnIndependent = await refusal(h.service.updateTemplate(alice, { scope: 'source', values: { 'bubble.gap': 1 } }));
    expect(sourceOnIndependent.errors?.scope?.[0]).toMatch(/Use the scope independent/);
    const onSynced = await refusal(h.service.updateTemplate(alice, { scope: 'independent', preset_id: second, values: { 'bubble.gap': 1 } }));
    expect(onSynced.errors?.scope?.[0]).toMatch(/Use the scope override .* or source/);
  });

  it('validates the body with clear 422s before reading or writing anything', async () => {
    const cases: Array<[unknown, string, string]> = [
      [{ scope: 'independent' }, 'values', 'The values field is required.'],
      [{ scope: 'independent', values: null }, 'values', 'The values field is required.'],
      // The reference service's `required` counts an empty object as missing (docs/architecture.md).
      [{ scope: 'independent', values: {} }, 'values', 'The values field is required.'],
      [{ scope: 'independent', values: [1] }, 'values', 'The values field must be an object.'],
      [{ values: { 'bubble.gap': 1 } }, 'scope', 'The scope field is required. Use one of: source, override, independent.'],
      [{ scope: 'everything', values: { 'bubble.gap': 1 } }, 'scope', 'The selected scope is invalid. Use one of: source, override, independent.'],
      [{ scope: 'independent', values: { 'bubble.gap': 1 }, preset_id: '1' }, 'preset_id', 'The preset_id field must be a positive integer.'],
      [{ scope: 'independent', values: { 'bubble.gap': 1 }, preset_id: 1.5 }, 'preset_id', 'The preset_id field must be a positive integer.'],
      // Not positive: a malformed field (422), not an unknown overlay (404).
      [{ scope: 'independent', values: { 'bubble.gap': 1 }, preset_id: 0 }, 'preset_id', 'The preset_id field must be a positive integer.'],
      [{ scope: 'independent', values: { 'bubble.gap': 1 }, preset_id: -3 }, 'preset_id', 'The preset_id field must be a positive integer.'],
    ];
    for (const [body, field, message] of cases) {
      const error = await refusal(h.service.updateTemplate(alice, body));
      expect(error.status).toBe(422);
      expect(error.errors?.[field]).toEqual([message]);
    }
    const both = await refusal(h.service.updateTemplate(alice, {}));
    expect(Object.keys(both.errors ?? {})).toEqual(['scope', 'values']);
    expect(both.message).toMatch(/\(and 1 more error\)$/);
    expect((await refusal(h.service.updateTemplate(alice, 'text'))).errors?.body).toBeDefined();
  });

  it('refuses bad setting values and keys outside the template, changing nothing', async () => {
    const before = h.dump();
    const error = await refusal(h.service.updateTemplate(alice, {
      scope: 'independent', values: { 'bubble.gap': 2, 'bubble.width': 'wide', 'nope.key': 1 },
    }));
    expect(error.status).toBe(422);
    expect(Object.keys(error.errors ?? {})).toEqual(['values.bubble.width', 'values.nope.key']);
    const outside = await refusal(h.service.updateTemplate(alice, { scope: 'independent', preset_id: ticker, values: { 'bubble.width': 300 } }));
    expect(outside.errors?.['values.bubble.width']?.[0]).toContain('not part of the ticker template');
    expect(h.dump()).toEqual(before);
    expect(h.events).toEqual([]);
  });

  it('ignores unknown body fields and answers 404 for an overlay that is not the caller\'s', async () => {
    const ok = await h.service.updateTemplate(alice, { scope: 'independent', values: { 'bubble.gap': 3 }, colour: 'red' });
    expect(ok.settings_values['bubble.gap']).toBe(3);
    const bob = h.ids.accounts.bob!.id;
    expect((await refusal(h.service.updateTemplate(bob, { scope: 'independent', preset_id: main, values: { 'bubble.gap': 1 } }))).status).toBe(404);
  });

  it('stores values in normalised form', async () => {
    const result = await h.service.updateTemplate(alice, { scope: 'independent', values: { 'bubble.background-color': '#F0F', 'message.font-weight': 700 } });
    expect(result.settings_values['bubble.background-color']).toBe('#ff00ff');
    expect(result.settings_values['message.font-weight']).toBe('700');
  });

  it('writes and announces nothing when the values are already stored', async () => {
    const before = await versions([main, second]);
    await h.service.updateTemplate(alice, { scope: 'independent', values: { 'bubble.width': 420 } });
    expect(await versions([main, second])).toEqual(before);
    expect(h.events).toEqual([]);
  });
});
