// The contract every OverlayStyleClient keeps, written once and run against both clients: the
// in-process one over the real service on a temp SQLite database, the HTTP one over the real
// bundled server on a real socket. A plugin written against one behaves the same on the other.
import { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { OverlayStyleClient } from '../../src/client/overlay-style-client.ts';
import { OverlayStyleError } from '../../src/client/overlay-style-error.ts';

/** What the contract needs to exist, seeded fresh for every test. */
export interface ContractWorld {
  client: OverlayStyleClient;
  /** The account's default overlay: bubbles template, independent (no sync source). */
  defaultPresetId: number;
  /** A second overlay of the account, synced to `defaultPresetId`. */
  syncedPresetId: number;
  /** An overlay of the ticker template (fewer keys than bubbles), independent. */
  tickerPresetId: number;
  /** An active, purchasable skin of the account (bubbles), with bubble.width 320 overridden. */
  ownSkin: { id: number; name: string; slug: string };
  /** An inactive skin of the account (bubbles). */
  inactiveSkinId: number;
  /** A global platform skin (bubbles). */
  globalSkin: { id: number; name: string; slug: string };
  /** An overlay and a skin of another account. */
  foreignPresetId: number;
  foreignSkinId: number;
  /** A viewer who has signed in: login and Twitch user id. */
  viewer: { login: string; userId: string };
  /** Another viewer who has signed in. */
  otherViewer: { login: string; userId: string };
  /** The service's SQLite file, for another program to lock (its busy timeout is short). */
  dbPath: string;
  close(): Promise<void>;
}

type Settled<T> = { ok: true; value: T } | { ok: false; status: number };

async function settle<T>(promise: Promise<T>): Promise<Settled<T>> {
  try {
    return { ok: true, value: await promise };
  } catch (error) {
    if (!(error instanceof OverlayStyleError)) throw error;
    return { ok: false, status: error.status };
  }
}

async function refusal(promise: Promise<unknown>): Promise<OverlayStyleError> {
  const outcome = await promise.then(() => undefined, (error: unknown) => error);
  expect(outcome, 'the call should have been refused').toBeInstanceOf(OverlayStyleError);
  return outcome as OverlayStyleError;
}

export function describeOverlayClientContract(name: string, makeWorld: () => Promise<ContractWorld>): void {
  describe(`OverlayStyleClient contract: ${name}`, () => {
    let world: ContractWorld;
    let client: OverlayStyleClient;

    beforeEach(async () => {
      world = await makeWorld();
      client = world.client;
    });

    afterEach(async () => {
      await world.close();
    });

    describe('getTemplate', () => {
      it('reads the default overlay when no preset is named', async () => {
        const view = await client.getTemplate();
        expect(view.preset_id).toBe(world.defaultPresetId);
        expect(view.template_slug).toBe('bubbles');
        expect(view.sync_source_preset_id).toBeNull();
        expect(view.settings_values['bubble.width']).toBe(400);
        expect(view.settings_values['message.font-family']).toBe('Inter');
        expect(view.source_values).toEqual(view.settings_values);
        expect(view.override_values).toEqual({});
        expect(view.overridden_keys).toEqual([]);
        expect(Object.keys(view).sort()).toEqual([
          'overridden_keys', 'override_values', 'preset_id', 'preset_name', 'settings_values', 'source_values',
          'sync_source_preset_id', 'template_id', 'template_name', 'template_slug',
        ]);
      });

      it('reads a named overlay, with its sync source', async () => {
        const view = await client.getTemplate(world.syncedPresetId);
        expect(view.preset_id).toBe(world.syncedPresetId);
        expect(view.sync_source_preset_id).toBe(world.defaultPresetId);
      });

      it('shows only the keys of the overlay\'s template', async () => {
        const ticker = await client.getTemplate(world.tickerPresetId);
        const bubbles = await client.getTemplate();
        expect(ticker.template_slug).toBe('ticker');
        expect(Object.keys(ticker.settings_values).length).toBeLessThan(Object.keys(bubbles.settings_values).length);
      });

      it('answers 404 for another account\'s overlay and for an unknown one', async () => {
        expect((await refusal(client.getTemplate(world.foreignPresetId))).status).toBe(404);
        expect((await refusal(client.getTemplate(987_654))).status).toBe(404);
      });

      it('answers 422 on preset_id for an id that is not a positive integer', async () => {
        for (const bad of [0, -1, 1.5]) {
          const error = await refusal(client.getTemplate(bad));
          expect(error.status).toBe(422);
          expect(Object.keys(error.errors ?? {})).toEqual(['preset_id']);
        }
      });
    });

    describe('updateTemplate', () => {
      it('merges values into an independent overlay and answers the new values in stored form', async () => {
        const result = await client.updateTemplate({
          scope: 'independent', values: { 'bubble.width': 300, 'bubble.background-color': '#ABC' },
        });
        expect(result.scope).toBe('independent');
        expect(result.preset_id).toBe(world.defaultPresetId);
        expect(result.settings_values['bubble.width']).toBe(300);
        expect(result.settings_values['bubble.background-color']).toBe('#aabbcc');

        await client.updateTemplate({ scope: 'independent', values: { 'bubble.gap': 4 }, preset_id: world.defaultPresetId });
        const view = await client.getTemplate();
        expect(view.settings_values['bubble.width']).toBe(300);
        expect(view.settings_values['bubble.gap']).toBe(4);
      });

      it('removes a key with null, back to the default', async () => {
        await client.updateTemplate({ scope: 'independent', values: { 'bubble.width': 300 } });
        await client.updateTemplate({ scope: 'independent', values: { 'bubble.width': null } });
        expect((await client.getTemplate()).settings_values['bubble.width']).toBe(400);
      });

      it.each([NaN, Infinity, -Infinity])('refuses %s as a value (JSON would carry it as null, a reset), changing nothing', async (bad) => {
        await client.updateTemplate({ scope: 'independent', values: { 'bubble.width': 300 } });
        const error = await client.updateTemplate({ scope: 'independent', values: { 'bubble.width': bad } }).then(() => null, (e: unknown) => e);
        expect(error).toBeInstanceOf(OverlayStyleError);
        expect(error).toMatchObject({ status: 422, errors: { 'values.bubble.width': [`The bubble.width must be a number, not ${bad}.`] } });
        expect((await client.getTemplate()).settings_values['bubble.width']).toBe(300);
      });

      it('refuses a __proto__ or constructor.prototype key as the API\'s body parser does (422 on body), changing nothing', async () => {
        const poisoned = 'The request body must not contain "__proto__" or "constructor.prototype" keys.';
        const proto = await refusal(client.updateTemplate({ scope: 'independent', values: JSON.parse('{"__proto__":{"bubble.width":1}}') }));
        expect(proto).toMatchObject({ status: 422, message: poisoned, errors: { body: [poisoned] } });
        const ctor = await refusal(client.updateSkin(world.ownSkin.id, { constructor: { prototype: {} } } as never));
        expect(ctor).toMatchObject({ status: 422, message: poisoned, errors: { body: [poisoned] } });
        expect((await client.getTemplate()).settings_values['bubble.width']).toBe(400);
      });

      it('writes an override on a synced overlay, and the source through scope source', async () => {
        const override = await client.updateTemplate({
          scope: 'override', values: { 'avatar.size': 80 }, preset_id: world.syncedPresetId,
        });
        expect(override.override_values).toEqual({ 'avatar.size': 80 });
        expect(override.settings_values['avatar.size']).toBe(80);

        await client.updateTemplate({ scope: 'source', values: { 'bubble.width': 250 }, preset_id: world.syncedPresetId });
        const synced = await client.getTemplate(world.syncedPresetId);
        expect(synced.overridden_keys).toEqual(['avatar.size']);
        expect(synced.source_values['bubble.width']).toBe(250);
        expect(synced.settings_values['bubble.width']).toBe(250);
        expect((await client.getTemplate(world.defaultPresetId)).settings_values['bubble.width']).toBe(250);
      });

      it('answers 422 on scope when the scope does not fit the overlay', async () => {
        const error = await refusal(client.updateTemplate({ scope: 'override', values: { 'bubble.width': 1 } }));
        expect(error.status).toBe(422);
        expect(Object.keys(error.errors ?? {})).toEqual(['scope']);
      });

      it('answers 422 per setting key for bad values, with the first error as the message', async () => {
        const error = await refusal(client.updateTemplate({
          scope: 'independent', values: { 'bubble.width': 10_001, 'bubble.no-such-key': 1, 'avatar.show': 'yes' },
        }));
        expect(error.status).toBe(422);
        expect(Object.keys(error.errors ?? {}).sort()).toEqual(['values.avatar.show', 'values.bubble.no-such-key', 'values.bubble.width']);
        expect(error.message).toMatch(/\(and 2 more errors\)$/);
        expect((await client.getTemplate()).settings_values['bubble.width']).toBe(400);
      });

      it('answers 422 for a key outside the overlay\'s template', async () => {
        const error = await refusal(client.updateTemplate({
          scope: 'independent', values: { 'avatar.size': 10 }, preset_id: world.tickerPresetId,
        }));
        expect(error.status).toBe(422);
        expect(Object.keys(error.errors ?? {})).toEqual(['values.avatar.size']);
      });

      it('answers 422 on values and scope when they are missing', async () => {
        const error = await refusal(client.updateTemplate({} as never));
        expect(error.status).toBe(422);
        expect(Object.keys(error.errors ?? {})).toEqual(expect.arrayContaining(['values', 'scope']));
      });

      it('answers 404 for another account\'s overlay', async () => {
        const error = await refusal(client.updateTemplate({
          scope: 'independent', values: { 'bubble.width': 1 }, preset_id: world.foreignPresetId,
        }));
        expect(error.status).toBe(404);
      });

      it('answers 413 for a body over 64 KiB', async () => {
        const error = await refusal(client.updateTemplate({
          scope: 'independent', values: { 'bubble.background-gradient': `linear-gradient(${'red, '.repeat(14_000)}blue)` },
        }));
        expect(error.status).toBe(413);
      });
    });

    describe('listSkins', () => {
      it('lists the account\'s own skins of the template with the spec fields, not global or foreign ones', async () => {
        const skins = await client.listSkins();
        const ids = skins.map((skin) => skin.id);
        expect(ids).toContain(world.ownSkin.id);
        expect(ids).not.toContain(world.globalSkin.id);
        expect(ids).not.toContain(world.foreignSkinId);
        const own = skins.find((skin) => skin.id === world.ownSkin.id)!;
        expect(own).toMatchObject({ name: world.ownSkin.name, slug: world.ownSkin.slug, is_active: true, availability: 'purchase' });
        expect(own.settings_values['bubble.width']).toBe(320);
        expect(own.settings_values['bubble.gap']).toBe(10);
        expect(Object.keys(own).sort()).toEqual(['availability', 'description', 'id', 'is_active', 'name', 'settings_values', 'slug']);
      });

      it('filters by the named overlay\'s template', async () => {
        const ids = (await client.listSkins(world.tickerPresetId)).map((skin) => skin.id);
        expect(ids).not.toContain(world.ownSkin.id);
      });

      it('answers 404 for another account\'s overlay', async () => {
        expect((await refusal(client.listSkins(world.foreignPresetId))).status).toBe(404);
      });
    });

    describe('updateSkin', () => {
      it('merges values into the skin and answers id, name and effective values', async () => {
        const result = await client.updateSkin(world.ownSkin.id, { 'bubble.gap': 2, 'username.font-color': '#F00' });
        expect(result).toMatchObject({ id: world.ownSkin.id, name: world.ownSkin.name });
        expect(result.settings_values['bubble.width']).toBe(320);
        expect(result.settings_values['bubble.gap']).toBe(2);
        expect(result.settings_values['username.font-color']).toBe('#ff0000');
        const listed = (await client.listSkins()).find((skin) => skin.id === world.ownSkin.id)!;
        expect(listed.settings_values).toEqual(result.settings_values);
      });

      it('drops a key with null', async () => {
        const result = await client.updateSkin(world.ownSkin.id, { 'bubble.width': null });
        expect(result.settings_values['bubble.width']).toBe(400);
      });

      it('answers 403 for a global skin, 404 for a foreign or unknown one', async () => {
        expect((await refusal(client.updateSkin(world.globalSkin.id, { 'bubble.gap': 1 }))).status).toBe(403);
        expect((await refusal(client.updateSkin(world.foreignSkinId, { 'bubble.gap': 1 }))).status).toBe(404);
        expect((await refusal(client.updateSkin(987_654, { 'bubble.gap': 1 }))).status).toBe(404);
      });

      it('answers 422 for a bad value and for a skin id that is not a positive integer', async () => {
        const bad = await refusal(client.updateSkin(world.ownSkin.id, { 'bubble.border-style': 'wavy' }));
        expect(bad.status).toBe(422);
        expect(Object.keys(bad.errors ?? {})).toEqual(['values.bubble.border-style']);
        const badId = await refusal(client.updateSkin(-2, { 'bubble.gap': 1 }));
        expect(badId.status).toBe(422);
        expect(Object.keys(badId.errors ?? {})).toEqual(['skin_id']);
      });
    });

    describe('unlockSkin and revokeSkin', () => {
      it('creates one grant: created the first time, not the second', async () => {
        const first = await client.unlockSkin({ twitch_username: world.viewer.login, skin_id: world.ownSkin.id });
        expect(first).toEqual({
          created: true, twitch_username: world.viewer.login, skin: { id: world.ownSkin.id, name: world.ownSkin.name },
        });
        const again = await client.unlockSkin({ twitch_user_id: world.viewer.userId, skin_id: world.ownSkin.id });
        expect(again.created).toBe(false);
        expect(await client.listViewerSkins(world.viewer.login)).toEqual([world.ownSkin]);
      });

      it('grants a global platform skin', async () => {
        const result = await client.unlockSkin({ twitch_user_id: world.viewer.userId, skin_id: world.globalSkin.id });
        expect(result.created).toBe(true);
        expect(result.skin.id).toBe(world.globalSkin.id);
      });

      it('answers 404 for an unknown viewer and for another account\'s skin', async () => {
        expect((await refusal(client.unlockSkin({ twitch_username: 'never_signed_in', skin_id: world.ownSkin.id }))).status).toBe(404);
        expect((await refusal(client.unlockSkin({ twitch_username: world.viewer.login, skin_id: world.foreignSkinId }))).status).toBe(404);
      });

      it('answers 422 for an inactive skin, a missing identifier, and identifiers of two viewers', async () => {
        expect((await refusal(client.unlockSkin({ twitch_username: world.viewer.login, skin_id: world.inactiveSkinId }))).status).toBe(422);
        expect((await refusal(client.unlockSkin({ skin_id: world.ownSkin.id } as never))).status).toBe(422);
        const mismatch = await refusal(client.unlockSkin({
          twitch_username: world.viewer.login, twitch_user_id: world.otherViewer.userId, skin_id: world.ownSkin.id,
        }));
        expect(mismatch.status).toBe(422);
      });

      it('revokes an API grant once; a second revoke is 404', async () => {
        await client.unlockSkin({ twitch_username: world.viewer.login, skin_id: world.ownSkin.id });
        await expect(client.revokeSkin({ twitch_username: world.viewer.login, skin_id: world.ownSkin.id })).resolves.toBeUndefined();
        expect(await client.listViewerSkins(world.viewer.login)).toEqual([]);
        expect((await refusal(client.revokeSkin({ twitch_user_id: world.viewer.userId, skin_id: world.ownSkin.id }))).status).toBe(404);
      });
    });

    describe('listViewerSkins', () => {
      it('finds the viewer by login (any case) or by user id', async () => {
        await client.unlockSkin({ twitch_username: world.viewer.login, skin_id: world.ownSkin.id });
        await client.unlockSkin({ twitch_username: world.viewer.login, skin_id: world.globalSkin.id });
        const byLogin = await client.listViewerSkins(world.viewer.login.toUpperCase());
        expect(byLogin.map((skin) => skin.id).sort((a, b) => a - b))
          .toEqual([world.ownSkin.id, world.globalSkin.id].sort((a, b) => a - b));
        expect(await client.listViewerSkins(world.viewer.userId)).toEqual(byLogin);
        expect(await client.listViewerSkins(world.otherViewer.login)).toEqual([]);
      });

      it('treats path-like identifiers as names, never as other routes', async () => {
        await client.unlockSkin({ twitch_username: world.viewer.login, skin_id: world.ownSkin.id });
        // Whatever an unknown viewer gets (an empty list or a 404), these get too.
        const outcome = async (identifier: string) => {
          const settled = await settle(client.listViewerSkins(identifier));
          return settled.ok ? settled.value : settled.status;
        };
        const unknown = await outcome('no_such_viewer');
        for (const identifier of ['..', '.', 'a/b', '%2E%2E', `${world.viewer.login}/../x`]) {
          expect(await outcome(identifier), identifier).toEqual(unknown);
        }
      });

      it('looks up an identifier that is not well-formed UTF-16 (a lone surrogate) like any unknown name', async () => {
        // JavaScript strings may hold one; on the wire (UTF-8) it can only be U+FFFD.
        const unknown = await settle(client.listViewerSkins('no_such_viewer'));
        for (const identifier of ['\uD800', 'viewer\uDC00']) {
          expect(await settle(client.listViewerSkins(identifier)), JSON.stringify(identifier)).toEqual(unknown);
        }
      });

      it('answers an identifier over 100 characters with the API\'s routing 404, one of 100 like any unknown name', async () => {
        // The router matches no route for a longer path segment (docs/api.md).
        const long = await refusal(client.listViewerSkins('x'.repeat(101)));
        expect(long).toMatchObject({ status: 404, message: 'Not Found.', kind: 'service' });
        const unknown = await refusal(client.listViewerSkins('no_such_viewer'));
        expect(await refusal(client.listViewerSkins('x'.repeat(100)))).toMatchObject({ status: 404, message: unknown.message });
      });

      it('answers 422 on identifier for an empty one', async () => {
        const error = await refusal(client.listViewerSkins(''));
        expect(error.status).toBe(422);
        expect(Object.keys(error.errors ?? {})).toEqual(['identifier']);
      });
    });

    it('treats fields left undefined as absent, as JSON on the wire does', async () => {
      const result = await client.updateTemplate({ scope: 'independent', values: { 'bubble.gap': 3 }, preset_id: undefined });
      expect(result.preset_id).toBe(world.defaultPresetId);
      const grant = await client.unlockSkin({
        twitch_username: world.viewer.login, twitch_user_id: undefined, skin_id: world.ownSkin.id,
      } as never);
      expect(grant.created).toBe(true);
    });

    it('hands out answers the caller may change without touching the service', async () => {
      const view = await client.getTemplate();
      view.settings_values['bubble.width'] = 1;
      view.overridden_keys.push('bubble.width');
      const again = await client.getTemplate();
      expect(again.settings_values['bubble.width']).toBe(400);
      expect(again.overridden_keys).toEqual([]);
    });

    it('answers 503 with Retry-After while another program holds the database\'s write lock, stores nothing, and goes on once it is free', async () => {
      const holder = new DatabaseSync(world.dbPath);
      try {
        holder.exec('BEGIN IMMEDIATE');
        const busy = await refusal(client.unlockSkin({ twitch_username: world.viewer.login, skin_id: world.ownSkin.id }));
        expect(busy.status).toBe(503);
        expect(busy.message).toBe('The database is busy (another program holds its write lock); nothing was changed. Try again shortly.');
        expect(busy.retryAfter).toBe(1);
        holder.exec('ROLLBACK');
        expect(await client.listViewerSkins(world.viewer.login)).toEqual([]);
        const granted = await client.unlockSkin({ twitch_username: world.viewer.login, skin_id: world.ownSkin.id });
        expect(granted.created).toBe(true);
      } finally {
        if (holder.isTransaction) holder.exec('ROLLBACK');
        holder.close();
      }
    });

    it('throws OverlayStyleError carrying status and message for every refusal', async () => {
      const error = await refusal(client.getTemplate(987_654));
      expect(error.name).toBe('OverlayStyleError');
      expect(error.kind).toBe('service');
      expect(typeof error.message).toBe('string');
      expect(error.message.length).toBeGreaterThan(0);
    });
  });
}
