import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SeedResult } from '../../../src/service/seed.ts';
import type { Harness } from './service-harness.ts';
import { openWorld, refusal } from './service-harness.ts';

let h: Harness & { ids: SeedResult };
let alice: number;
let bob: number;
let skins: Record<string, number>;
beforeEach(async () => {
  h = await openWorld();
  alice = h.ids.accounts.alice!.id;
  bob = h.ids.accounts.bob!.id;
  skins = { ...h.ids.accounts.alice!.skins, ...h.ids.global_skins, bobskin: h.ids.accounts.bob!.skins.bobskin! };
});
afterEach(() => h.close());

describe('POST /viewers/unlock-skin', () => {
  it('creates an API grant once (created), then answers that the viewer holds it', async () => {
    const first = await h.service.unlockSkin(alice, { twitch_username: 'viewer_two', skin_id: skins.vault });
    expect(first).toEqual({ created: true, twitch_username: 'viewer_two', skin: { id: skins.vault, name: 'Vault' } });
    const again = await h.service.unlockSkin(alice, { twitch_user_id: '1002', skin_id: skins.vault });
    expect(again.created).toBe(false);
    expect(h.dump().entitlements).toHaveLength(2); // the seeded purchase and this grant
  });

  it('creates nothing when the viewer bought the skin', async () => {
    const result = await h.service.unlockSkin(alice, { twitch_username: 'viewer_one', skin_id: skins.neon });
    expect(result.created).toBe(false);
    expect(await h.service.listViewerSkins(alice, 'viewer_one')).toEqual([]);
  });

  it('grants global skins, and grants are per channel', async () => {
    expect((await h.service.unlockSkin(alice, { twitch_username: 'viewer_two', skin_id: skins.classic })).created).toBe(true);
    expect((await h.service.unlockSkin(bob, { twitch_username: 'viewer_two', skin_id: skins.classic })).created).toBe(true);
  });

  it('answers 404 for a viewer without an account and for a skin of another channel', async () => {
    const viewer = await refusal(h.service.unlockSkin(alice, { twitch_username: 'stranger', skin_id: skins.vault }));
    expect(viewer.status).toBe(404);
    expect(viewer.message).toContain('does not have an account');
    const theirs = await refusal(h.service.unlockSkin(alice, { twitch_username: 'viewer_two', skin_id: skins.bobskin }));
    const missing = await refusal(h.service.unlockSkin(alice, { twitch_username: 'viewer_two', skin_id: 9999 }));
    expect(theirs.status).toBe(404);
    expect(theirs.message).toBe(missing.message);
  });

  it('refuses an inactive skin with 422', async () => {
    const error = await refusal(h.service.unlockSkin(alice, { twitch_username: 'viewer_two', skin_id: skins.retired }));
    expect(error.status).toBe(422);
    expect(error.errors).toEqual({ skin_id: ['The selected skin is not active.'] });
  });

  it('finds logins without regard to case, and needs both identifiers to name the same viewer', async () => {
    expect((await h.service.unlockSkin(alice, { twitch_username: 'VIEWER_TWO', skin_id: skins.vault })).twitch_username).toBe('viewer_two');
    expect((await h.service.unlockSkin(alice, { twitch_username: 'viewer_two', twitch_user_id: '1002', skin_id: skins.vault })).created).toBe(false);
    const mismatch = await refusal(h.service.unlockSkin(alice, { twitch_username: 'viewer_one', twitch_user_id: '1002', skin_id: skins.vault }));
    expect(mismatch.status).toBe(422);
    expect(mismatch.errors?.twitch_username?.[0]).toContain('different viewers');
    const halfKnown = await refusal(h.service.unlockSkin(alice, { twitch_username: 'stranger', twitch_user_id: '1002', skin_id: skins.vault }));
    expect(halfKnown.status).toBe(422);
    expect((await refusal(h.service.unlockSkin(alice, { twitch_username: 'stranger', twitch_user_id: '999', skin_id: skins.vault }))).status).toBe(404);
  });

  it('validates the body before anything else, ignoring unknown fields', async () => {
    const before = h.dump();
    const none = await refusal(h.service.unlockSkin(alice, { skin_id: skins.vault }));
    expect(none.errors).toEqual({
      twitch_username: ['The twitch_username field is required when twitch_user_id is not present.'],
      twitch_user_id: ['The twitch_user_id field is required when twitch_username is not present.'],
    });
    expect((await refusal(h.service.unlockSkin(alice, { twitch_username: 'viewer_two' }))).errors).toEqual({ skin_id: ['The skin_id field is required.'] });
    // Not a positive integer, 0 and negatives included: a malformed field (422), not an unknown skin (404).
    for (const skinId of ['3', 1.5, 0, -1]) {
      const body = { twitch_username: 'viewer_two', skin_id: skinId };
      for (const write of [() => h.service.unlockSkin(alice, body), () => h.service.revokeSkin(alice, body)]) {
        const error = await refusal(write());
        expect(error.status).toBe(422);
        expect(error.errors).toEqual({ skin_id: ['The skin_id field must be a positive integer.'] });
      }
    }
    expect((await refusal(h.service.unlockSkin(alice, { twitch_username: 42, skin_id: 3 }))).errors).toEqual({ twitch_username: ['The twitch_username field must be a string.'] });
    expect((await refusal(h.service.unlockSkin(alice, { twitch_user_id: 1002, skin_id: 3 }))).errors).toEqual({ twitch_user_id: ['The twitch_user_id field must be a string.'] });
    expect(h.dump()).toEqual(before);
    expect((await h.service.unlockSkin(alice, { twitch_username: 'viewer_two', skin_id: skins.vault, note: 'hi' })).created).toBe(true);
  });
});

describe('DELETE /viewers/unlock-skin', () => {
  it('removes an API grant; a second revoke is 404', async () => {
    await h.service.unlockSkin(alice, { twitch_username: 'viewer_two', skin_id: skins.vault });
    await h.service.revokeSkin(alice, { twitch_username: 'viewer_two', skin_id: skins.vault });
    expect(await h.service.listViewerSkins(alice, 'viewer_two')).toEqual([]);
    expect((await refusal(h.service.revokeSkin(alice, { twitch_username: 'viewer_two', skin_id: skins.vault }))).status).toBe(404);
  });

  it('never touches a purchase', async () => {
    const error = await refusal(h.service.revokeSkin(alice, { twitch_username: 'viewer_one', skin_id: skins.neon }));
    expect(error.status).toBe(404);
    expect(error.message).toContain('granted through the API');
    expect(await h.store.findEntitlement(alice, h.ids.viewers.viewer_one!, skins.neon!)).toMatchObject({ source: 'purchase' });
  });

  it('clears the viewer\'s pick of a skin they no longer hold, and tells the overlays', async () => {
    const viewer = h.ids.viewers.viewer_two!;
    await h.service.unlockSkin(alice, { twitch_username: 'viewer_two', skin_id: skins.vault });
    await h.service.pickSkin(alice, viewer, skins.vault!);
    h.events.length = 0;
    await h.service.revokeSkin(alice, { twitch_username: 'viewer_two', skin_id: skins.vault });
    expect(await h.store.findSkinPick(alice, viewer)).toBeNull();
    expect(h.events).toEqual([{ type: 'viewer-skin-changed', accountId: alice, viewerId: viewer, overlayIds: Object.values(h.ids.accounts.alice!.overlays) }]);
  });

  it('keeps a pick of a free skin', async () => {
    const viewer = h.ids.viewers.viewer_two!;
    await h.service.unlockSkin(alice, { twitch_username: 'viewer_two', skin_id: skins.classic });
    await h.service.pickSkin(alice, viewer, skins.classic!);
    await h.service.revokeSkin(alice, { twitch_username: 'viewer_two', skin_id: skins.classic });
    expect(await h.store.findSkinPick(alice, viewer)).toBe(skins.classic);
  });
});

describe('GET /viewers/{identifier}/skins', () => {
  it('lists only this channel\'s API grants', async () => {
    await h.service.unlockSkin(alice, { twitch_username: 'viewer_one', skin_id: skins.vault });
    await h.service.unlockSkin(alice, { twitch_username: 'viewer_one', skin_id: skins.classic });
    await h.service.unlockSkin(bob, { twitch_username: 'viewer_one', skin_id: skins.bobskin });
    // Ordered by skin id: alice's own skins were seeded before the global one.
    expect(await h.service.listViewerSkins(alice, 'viewer_one')).toEqual([
      { id: skins.vault, name: 'Vault', slug: 'vault' },
      { id: skins.classic, name: 'Classic', slug: 'classic' },
    ]);
    expect(await h.service.listViewerSkins(bob, 'viewer_one')).toEqual([{ id: skins.bobskin, name: 'Bob skin', slug: 'bobskin' }]);
  });

  it('reads an all-digit identifier as a user id first, then as a login', async () => {
    await h.service.unlockSkin(alice, { twitch_username: 'viewer_one', skin_id: skins.vault });
    await h.service.unlockSkin(alice, { twitch_username: '4242', skin_id: skins.classic });
    expect((await h.service.listViewerSkins(alice, '1001')).map((s) => s.slug)).toEqual(['vault']);
    expect((await h.service.listViewerSkins(alice, '4242')).map((s) => s.slug)).toEqual(['classic']);
    expect((await h.service.listViewerSkins(alice, 'Viewer_One')).map((s) => s.slug)).toEqual(['vault']);
    expect((await refusal(h.service.listViewerSkins(alice, 'nobody'))).status).toBe(404);
  });
});
