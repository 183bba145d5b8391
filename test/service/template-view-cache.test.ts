// The GET /template view cache (src/service/template-view-cache.ts): a view is answered from memory
// only while the overlay's version stamp, read from the database on every call, is the one the view
// was built from. Unit tests of the cache, then the real service on a real SQLite file (also changed
// through a second store on the same file, as the CLI does from another process), then over HTTP.
import { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SeedResult } from '../../src/service/seed.ts';
import { CATALOG_DEFAULTS } from '../../src/service/settings/catalog.ts';
import type { OverlayVersionRecord } from '../../src/service/store/records.ts';
import { openSqliteStore } from '../../src/service/store/sqlite-store.ts';
import { createStyleService } from '../../src/service/style-service.ts';
import type { StyleService } from '../../src/service/style-service.ts';
import { TemplateViewCache } from '../../src/service/template-view-cache.ts';
import type { TemplateSettingsView } from '../../src/service/types.ts';
import { openWorld, TEMPLATES } from './core/service-harness.ts';
import type { Harness } from './core/service-harness.ts';
import { apiTestServerForEachTest } from './http/api-test-server.ts';

const stamp = (changes: Partial<OverlayVersionRecord> = {}): OverlayVersionRecord =>
  ({ id: 7, templateId: 1, name: 'Main', syncSourceId: 3, version: 4, sourceVersion: 9, ...changes });

const view = (presetId = 7, width = 420): TemplateSettingsView => ({
  template_id: 1, template_name: 'Bubbles', template_slug: 'bubbles',
  settings_values: { 'bubble.width': width, 'avatar.size': 80 },
  source_values: { 'bubble.width': width },
  override_values: { 'avatar.size': 80 },
  overridden_keys: ['avatar.size'],
  sync_source_preset_id: 3, preset_id: presetId, preset_name: 'Main',
});

describe('TemplateViewCache', () => {
  it('answers the cached view for an identical stamp (a fresh object with the same fields)', () => {
    const cache = new TemplateViewCache();
    const set = cache.set(stamp(), view());
    const hit = cache.get(stamp());
    expect(hit).toBe(set);
    expect(hit!.view.settings_values['bubble.width']).toBe(420);
  });

  it.each<[string, Partial<OverlayVersionRecord>]>([
    ['version', { version: 5 }],
    ['sourceVersion', { sourceVersion: 10 }],
    ['sourceVersion (source removed)', { sourceVersion: null }],
    ['syncSourceId', { syncSourceId: 4 }],
    ['syncSourceId (unsynced)', { syncSourceId: null }],
    ['templateId', { templateId: 2 }],
    ['name', { name: 'Renamed' }],
    ['id', { id: 8 }],
  ])('misses when the stamp\'s %s differs', (_field, changes) => {
    const cache = new TemplateViewCache();
    cache.set(stamp(), view());
    expect(cache.get(stamp(changes))).toBeUndefined();
    // The entry built from the old stamp is still there for that stamp.
    expect(cache.get(stamp())).toBeDefined();
  });

  it('keeps its own copy of the stamp: changing the caller\'s object later does not move the entry', () => {
    const cache = new TemplateViewCache();
    const mine = stamp();
    cache.set(mine, view());
    mine.version = 99;
    expect(cache.get(stamp({ version: 99 }))).toBeUndefined();
    expect(cache.get(stamp())).toBeDefined();
  });

  it('keeps one entry per overlay: a newer view replaces the older one', () => {
    const cache = new TemplateViewCache();
    cache.set(stamp(), view(7, 420));
    cache.set(stamp({ version: 5 }), view(7, 500));
    expect(cache.size).toBe(1);
    expect(cache.get(stamp())).toBeUndefined();
    expect(cache.get(stamp({ version: 5 }))!.view.settings_values['bubble.width']).toBe(500);
  });

  it('evicts the least recently used entry at its bound', () => {
    const cache = new TemplateViewCache(2);
    cache.set(stamp({ id: 1 }), view(1));
    cache.set(stamp({ id: 2 }), view(2));
    // Reading 1 makes 2 the least recently used.
    expect(cache.get(stamp({ id: 1 }))).toBeDefined();
    cache.set(stamp({ id: 3 }), view(3));
    expect(cache.size).toBe(2);
    expect(cache.get(stamp({ id: 2 }))).toBeUndefined();
    expect(cache.get(stamp({ id: 1 }))!.view.preset_id).toBe(1);
    expect(cache.get(stamp({ id: 3 }))!.view.preset_id).toBe(3);
    // Replacing an overlay's entry counts as a use too: 1 was read last, 3 is replaced now.
    cache.set(stamp({ id: 3, version: 5 }), view(3));
    cache.set(stamp({ id: 4 }), view(4));
    expect(cache.get(stamp({ id: 1 }))).toBeUndefined();
    expect(cache.get(stamp({ id: 3, version: 5 }))).toBeDefined();
    expect(cache.get(stamp({ id: 4 }))).toBeDefined();
  });

  it('holds nothing with 0 entries, but still hands back a usable frozen entry', () => {
    const cache = new TemplateViewCache(0);
    const entry = cache.set(stamp(), view());
    expect(cache.size).toBe(0);
    expect(cache.get(stamp())).toBeUndefined();
    expect(Object.isFrozen(entry.view.settings_values)).toBe(true);
    expect(entry.encoded((v) => v.preset_id)).toBe(7);
  });

  it('refuses a size that is not a non-negative integer', () => {
    for (const size of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => new TemplateViewCache(size)).toThrow(TypeError);
    }
  });

  it('freezes the view all the way down, so no caller can change what the others are answered', () => {
    const cache = new TemplateViewCache();
    const built = view();
    const entry = cache.set(stamp(), built);
    const shared = cache.get(stamp())!.view;
    expect(shared).toBe(entry.view);
    for (const part of [shared, shared.settings_values, shared.source_values, shared.override_values, shared.overridden_keys]) {
      expect(Object.isFrozen(part)).toBe(true);
    }
    expect(() => { (shared.settings_values as Record<string, unknown>)['bubble.width'] = 1; }).toThrow(TypeError);
    expect(() => { shared.overridden_keys.push('x'); }).toThrow(TypeError);
    expect(cache.get(stamp())!.view.settings_values['bubble.width']).toBe(420);
  });

  it('freezes the inner objects of a view whose outer object was frozen already', () => {
    const cache = new TemplateViewCache();
    const entry = cache.set(stamp(), Object.freeze(view()));
    expect(Object.isFrozen(entry.view.settings_values)).toBe(true);
    expect(Object.isFrozen(entry.view.overridden_keys)).toBe(true);
  });

  it('computes encoded() once per encode function, again for another function, and again for a new view', () => {
    const cache = new TemplateViewCache();
    const calls: string[] = [];
    const json = (v: TemplateSettingsView) => {
      calls.push('json');
      return Buffer.from(JSON.stringify({ data: v }));
    };
    const name = (v: TemplateSettingsView) => {
      calls.push('name');
      return v.preset_name;
    };
    cache.set(stamp(), view());
    const first = cache.get(stamp())!.encoded(json);
    expect(cache.get(stamp())!.encoded(json)).toBe(first);
    expect(calls).toEqual(['json']);
    expect(JSON.parse(first.toString()).data.settings_values['bubble.width']).toBe(420);

    expect(cache.get(stamp())!.encoded(name)).toBe('Main');
    expect(calls).toEqual(['json', 'name']);
    // One slot: back to the first function computes again.
    const again = cache.get(stamp())!.encoded(json);
    expect(again).not.toBe(first);
    expect(again.equals(first)).toBe(true);
    expect(calls).toEqual(['json', 'name', 'json']);

    cache.set(stamp({ version: 5 }), view(7, 500));
    const newer = cache.get(stamp({ version: 5 }))!.encoded(json);
    expect(calls).toEqual(['json', 'name', 'json', 'json']);
    expect(JSON.parse(newer.toString()).data.settings_values['bubble.width']).toBe(500);
  });

  it('keeps nothing when encode throws, so the next call tries again', () => {
    const cache = new TemplateViewCache();
    const entry = cache.set(stamp(), view());
    let fail = true;
    const encode = (v: TemplateSettingsView) => {
      if (fail) throw new Error('encode failed');
      return v.preset_id;
    };
    expect(() => entry.encoded(encode)).toThrow('encode failed');
    fail = false;
    expect(entry.encoded(encode)).toBe(7);
  });
});

describe('the template read through the service', () => {
  let h: Harness & { ids: SeedResult };
  let alice: number;
  let main: number;
  let second: number;
  /** A second store and service on the same file, as the CLI opens from another process. */
  let otherStore: ReturnType<typeof openSqliteStore> | undefined;
  let otherService: StyleService;

  beforeEach(async () => {
    h = await openWorld();
    alice = h.ids.accounts.alice!.id;
    main = h.ids.accounts.alice!.overlays.Main!;
    second = h.ids.accounts.alice!.overlays.Second!;
  });
  afterEach(async () => {
    await otherStore?.close();
    otherStore = undefined;
    await h.close();
  });

  async function openOtherService(): Promise<StyleService> {
    otherStore = openSqliteStore({ path: h.dbPath });
    otherService = await createStyleService({ store: otherStore, templates: TEMPLATES });
    return otherService;
  }
  const width = async (presetId?: number) => (await h.service.getTemplate(alice, presetId)).settings_values['bubble.width'];

  it('answers an unchanged overlay from the cache: the same shared, frozen view', async () => {
    const first = await h.service.getTemplate(alice);
    expect(await h.service.getTemplate(alice)).toBe(first);
    expect(await h.service.getTemplate(alice, main)).toBe(first);
    expect(Object.isFrozen(first.settings_values)).toBe(true);
  });

  it('with templateViewCacheEntries 0 builds a fresh view every time', async () => {
    const uncached = await createStyleService({ store: h.store, templates: TEMPLATES, templateViewCacheEntries: 0 });
    const first = await uncached.getTemplate(alice);
    const next = await uncached.getTemplate(alice);
    expect(next).not.toBe(first);
    expect(next).toEqual(first);
  });

  it('shows the new values after updateTemplate', async () => {
    expect(await width()).toBe(420);
    await h.service.updateTemplate(alice, { scope: 'independent', values: { 'bubble.width': 510 } });
    expect(await width()).toBe(510);
    await h.service.updateTemplate(alice, { scope: 'override', preset_id: second, values: { 'avatar.size': 90 } });
    expect((await h.service.getTemplate(alice, second)).settings_values['avatar.size']).toBe(90);
    await h.service.updateTemplate(alice, { scope: 'override', preset_id: second, values: { 'avatar.size': null } });
    expect((await h.service.getTemplate(alice, second)).override_values).toEqual({});
  });

  it('never caches a view read inside a write that then rolls back (its version comes back with other values)', async () => {
    expect(await width()).toBe(420);
    const rolledBack = new Error('roll back');
    await expect(h.store.transaction(async () => {
      await h.service.updateTemplate(alice, { scope: 'independent', values: { 'bubble.width': 111 } });
      expect(await width()).toBe(111);
      throw rolledBack;
    })).rejects.toBe(rolledBack);
    // No read in between (one would replace the entry): the same next version, now committed
    // with another value.
    await h.service.updateTemplate(alice, { scope: 'independent', values: { 'bubble.width': 222 } });
    expect(await width()).toBe(222);
  });

  it('changes a synced overlay\'s view when its sync source\'s values change', async () => {
    const before = await h.service.getTemplate(alice, second);
    expect(before.source_values['bubble.width']).toBe(420);
    await h.service.updateTemplate(alice, { scope: 'independent', preset_id: main, values: { 'bubble.width': 333 } });
    const after = await h.service.getTemplate(alice, second);
    expect(after.source_values['bubble.width']).toBe(333);
    expect(after.settings_values).toMatchObject({ 'bubble.width': 333, 'avatar.size': 80 });
  });

  it('changes a synced overlay\'s view when only its sync source\'s version moved', async () => {
    // A writer that bumps only the overlay it changed (not the overlays synced to it): the
    // synced overlay's own version stays, its stamp's sourceVersion does not.
    expect((await h.service.getTemplate(alice, second)).settings_values['bubble.width']).toBe(420);
    const db = new DatabaseSync(h.dbPath);
    try {
      db.prepare('UPDATE overlays SET values_json = ?, version = version + 1 WHERE id = ?')
        .run(JSON.stringify({ 'bubble.width': 444 }), main);
    } finally {
      db.close();
    }
    expect((await h.service.getTemplate(alice, second)).settings_values['bubble.width']).toBe(444);
  });

  it('follows the sync source when an overlay is unsynced, then synced again', async () => {
    const synced = await h.service.getTemplate(alice, second);
    expect(synced.sync_source_preset_id).toBe(main);
    expect(synced.settings_values['bubble.width']).toBe(420);
    await h.service.updateOverlay(alice, second, { syncSourceId: null });
    const unsynced = await h.service.getTemplate(alice, second);
    expect(unsynced.sync_source_preset_id).toBeNull();
    expect(unsynced.settings_values['bubble.width']).toBe(CATALOG_DEFAULTS['bubble.width']);
    await h.service.updateOverlay(alice, second, { syncSourceId: main });
    const again = await h.service.getTemplate(alice, second);
    expect(again.sync_source_preset_id).toBe(main);
    expect(again.settings_values['bubble.width']).toBe(420);
  });

  it('answers the new default overlay when the default changes', async () => {
    expect((await h.service.getTemplate(alice)).preset_id).toBe(main);
    await h.service.updateOverlay(alice, second, { isDefault: true });
    const view = await h.service.getTemplate(alice);
    expect(view.preset_id).toBe(second);
    expect(view.override_values).toEqual({ 'avatar.size': 80 });
  });

  it('sees at once a change made through a second store on the same file (another process)', async () => {
    expect(await width()).toBe(420);
    expect((await h.service.getTemplate(alice, second)).settings_values['bubble.width']).toBe(420);
    const other = await openOtherService();
    await other.updateTemplate(alice, { scope: 'independent', values: { 'bubble.width': 610 } });
    expect(await width()).toBe(610);
    expect((await h.service.getTemplate(alice, second)).settings_values['bubble.width']).toBe(610);
    await other.updateOverlay(alice, main, { values: { 'bubble.gap': 3 } });
    const replaced = await h.service.getTemplate(alice);
    expect(replaced.settings_values['bubble.gap']).toBe(3);
    expect(replaced.settings_values['bubble.width']).toBe(CATALOG_DEFAULTS['bubble.width']);
  });

  it('answers getTemplateEncoded from the cache until the overlay changes', async () => {
    let encodes = 0;
    const encode = (v: TemplateSettingsView) => {
      encodes += 1;
      return Buffer.from(JSON.stringify({ data: v }));
    };
    const first = await h.service.getTemplateEncoded(alice, undefined, encode);
    expect(await h.service.getTemplateEncoded(alice, undefined, encode)).toBe(first);
    expect(encodes).toBe(1);
    await (await openOtherService()).updateTemplate(alice, { scope: 'independent', values: { 'bubble.width': 640 } });
    const changed = await h.service.getTemplateEncoded(alice, undefined, encode);
    expect(encodes).toBe(2);
    expect(JSON.parse(changed.toString()).data.settings_values['bubble.width']).toBe(640);
  });

  it('answers 404 the same way, cached or not, for another account\'s overlay', async () => {
    await h.service.getTemplate(alice, main);
    const bob = h.ids.accounts.bob!.id;
    await expect(h.service.getTemplate(bob, main)).rejects.toMatchObject({ status: 404 });
    await expect(h.service.getTemplateEncoded(bob, main, () => 'x')).rejects.toMatchObject({ status: 404 });
  });
});

describe('GET /template over HTTP', () => {
  const server = apiTestServerForEachTest();

  it('answers identical JSON bytes twice, then the change after a PUT', async () => {
    const first = await server.call('/template');
    const second = await server.call('/template');
    for (const answer of [first, second]) {
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    }
    expect(second.text).toBe(first.text);
    expect(first.body.data.settings_values['bubble.width']).toBe(420);
    expect(first.headers.get('content-length')).toBe(String(Buffer.byteLength(first.text)));

    const put = await server.call('/template', { method: 'PUT', json: { scope: 'independent', values: { 'bubble.width': 480 } } });
    expect(put.status).toBe(200);

    const after = await server.call('/template');
    expect(after.status).toBe(200);
    expect(after.headers.get('content-type')).toMatch(/^application\/json/);
    expect(after.body.data.settings_values['bubble.width']).toBe(480);
    expect(after.text).not.toBe(first.text);
    // Another channel's overlay is answered with its own bytes, not alice's cached ones.
    const bob = await server.call('/template', { key: server.keys.bob });
    expect(bob.body.data.preset_name).toBe('Bob main');
  });

  it('answers a change made by another connection on the same file at once', async () => {
    expect((await server.call('/template')).body.data.settings_values['bubble.width']).toBe(420);
    const db = new DatabaseSync(server.harness.dbPath);
    try {
      db.prepare('UPDATE overlays SET values_json = ?, version = version + 1 WHERE id = ?')
        .run(JSON.stringify({ 'bubble.width': 455 }), server.ids.accounts.alice!.overlays.Main!);
    } finally {
      db.close();
    }
    expect((await server.call('/template')).body.data.settings_values['bubble.width']).toBe(455);
  });
});
