import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CATALOG_DEFAULTS } from '../../../src/service/settings/catalog.ts';
import type { SeedResult } from '../../../src/service/seed.ts';
import type { Harness } from './service-harness.ts';
import { openWorld, refusal } from './service-harness.ts';

let h: Harness & { ids: SeedResult };
let alice: number;
let neon: number;
let vault: number;
beforeEach(async () => {
  h = await openWorld();
  alice = h.ids.accounts.alice!.id;
  neon = h.ids.accounts.alice!.skins.neon!;
  vault = h.ids.accounts.alice!.skins.vault!;
});
afterEach(() => h.close());

describe('GET /skins', () => {
  it('lists the caller\'s own skins of the default overlay\'s template, with effective settings', async () => {
    const skins = await h.service.listSkins(alice);
    expect(skins.map((s) => s.slug)).toEqual(['neon', 'vault', 'retired']);
    expect(skins[0]).toEqual({
      id: neon, name: 'Neon', slug: 'neon', description: 'Bright', availability: 'purchase', is_active: true,
      settings_values: { ...CATALOG_DEFAULTS, 'bubble.background-color': '#ff00ff' },
    });
    expect(skins[2]!.is_active).toBe(false);
  });

  it('filters by the template of the given overlay', async () => {
    const skins = await h.service.listSkins(alice, h.ids.accounts.alice!.overlays.Ticker);
    expect(skins.map((s) => s.slug)).toEqual(['tape']);
    expect(skins[0]!.settings_values['message.font-size']).toBe(20);
  });

  it('answers 404 for another account\'s overlay', async () => {
    expect((await refusal(h.service.listSkins(h.ids.accounts.bob!.id, h.ids.accounts.alice!.overlays.Main))).status).toBe(404);
  });
});

describe('PUT /skins/{id}', () => {
  it('merges values and stores only what differs from the template default', async () => {
    const result = await h.service.updateSkin(alice, neon, { values: { 'bubble.width': 400, 'bubble.gap': 3 } });
    expect(result).toMatchObject({ id: neon, name: 'Neon' });
    expect(result.settings_values).toMatchObject({ 'bubble.background-color': '#ff00ff', 'bubble.gap': 3, 'bubble.width': 400 });
    expect((await h.store.findSkin(neon))!.overrides).toEqual({ 'bubble.background-color': '#ff00ff', 'bubble.gap': 3 });
    // Submitting the default value removes a stored override, as does null.
    await h.service.updateSkin(alice, neon, { values: { 'bubble.background-color': 'transparent', 'bubble.gap': null } });
    expect((await h.store.findSkin(neon))!.overrides).toEqual({});
  });

  it('pushes the overlays of the channel when the skin is assigned to a role', async () => {
    const overlays = h.ids.accounts.alice!.overlays;
    await h.service.updateSkin(alice, neon, { values: { 'bubble.gap': 3 } });
    // Only the overlays on the skin's template (not the ticker one).
    expect(h.events).toEqual([{ type: 'skin-changed', skinId: neon, overlayIds: [overlays.Main, overlays.Second] }]);
    expect((await h.store.findOverlay(overlays.Main!))!.version).toBeGreaterThan(1);
  });

  it('announces nothing for a skin nobody uses', async () => {
    await h.service.updateSkin(alice, vault, { values: { 'bubble.gap': 3 } });
    expect(h.events).toEqual([]);
  });

  it('refuses to edit a global skin (403) and hides other channels\' skins (404)', async () => {
    const global = await refusal(h.service.updateSkin(alice, h.ids.global_skins.classic!, { values: { 'bubble.gap': 3 } }));
    expect(global.status).toBe(403);
    expect(global.message).toContain('global');
    const theirs = await refusal(h.service.updateSkin(alice, h.ids.accounts.bob!.skins.bobskin!, { values: { 'bubble.gap': 3 } }));
    const missing = await refusal(h.service.updateSkin(alice, 9999, { values: { 'bubble.gap': 3 } }));
    expect(theirs.status).toBe(404);
    expect(theirs.message).toBe(missing.message);
  });

  it('refuses an empty values object as missing (the reference service\'s `required`): nothing written or announced', async () => {
    const before = h.dump();
    expect((await refusal(h.service.updateSkin(alice, neon, { values: {} }))).errors).toEqual({ values: ['The values field is required.'] });
    expect(h.dump()).toEqual(before);
    expect(h.events).toEqual([]);
  });

  it('validates values (required, catalog, template) and changes nothing when refused', async () => {
    const before = h.dump();
    expect((await refusal(h.service.updateSkin(alice, neon, {}))).errors).toEqual({ values: ['The values field is required.'] });
    const bad = await refusal(h.service.updateSkin(alice, neon, { values: { 'bubble.gap': 2, 'bubble.width': -5 } }));
    expect(Object.keys(bad.errors ?? {})).toEqual(['values.bubble.width']);
    const outside = await refusal(h.service.updateSkin(alice, h.ids.accounts.alice!.skins.tape!, { values: { 'avatar.size': 10 } }));
    expect(outside.errors?.['values.avatar.size']).toBeDefined();
    expect(h.dump()).toEqual(before);
    expect(h.events).toEqual([]);
  });
});
