import { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CATALOG_DEFAULTS } from '../../../src/service/settings/catalog.ts';
import type { SeedResult } from '../../../src/service/seed.ts';
import type { Harness } from './service-harness.ts';
import { createEventBus } from '../../../src/service/events.ts';
import { createStyleService } from '../../../src/service/style-service.ts';
import { TEMPLATES, openHarness, openWorld, refusal } from './service-harness.ts';

describe('accounts', () => {
  let h: Harness;
  beforeEach(async () => { h = await openHarness(); });
  afterEach(() => h.close());

  it('are created once, lowercase, always with a default overlay on the bubbles template', async () => {
    const account = await h.service.ensureAccount('Alice');
    expect(account).toEqual({ id: 1, login: 'alice', premium: false, twitchUserId: null });
    expect(await h.service.ensureAccount('ALICE')).toEqual(account);
    const overlays = await h.service.listOverlays(account.id);
    expect(overlays).toHaveLength(1);
    expect(overlays[0]).toMatchObject({ name: 'Main', isDefault: true, template: { slug: 'bubbles' }, syncSourceId: null });
    expect((await h.service.getTemplate(account.id)).preset_id).toBe(overlays[0]!.id);
  });

  it('refuse logins that cannot be Twitch logins', async () => {
    for (const bad of ['', 'has space', 'x'.repeat(26), 'semi;colon']) {
      const error = await refusal(h.service.ensureAccount(bad));
      expect(error.status).toBe(422);
      expect(error.errors?.login?.[0]).toContain('1 to 25 letters, digits or underscores');
    }
  });

  it('switch premium and record the channel Twitch id (unique)', async () => {
    await h.service.ensureAccount('alice');
    await h.service.ensureAccount('bob');
    expect((await h.service.setPremium('alice', true)).premium).toBe(true);
    expect((await h.service.findAccount('alice'))?.premium).toBe(true);
    expect((await h.service.setChannelTwitchId('alice', '555')).twitchUserId).toBe('555');
    expect((await refusal(h.service.setChannelTwitchId('bob', '555'))).status).toBe(409);
    expect((await refusal(h.service.setPremium('nobody', true))).status).toBe(404);
  });
});

describe('overlays', () => {
  let h: Harness;
  beforeEach(async () => { h = await openHarness(); });
  afterEach(() => h.close());

  it('get unguessable tokens that find them again', async () => {
    const alice = await h.service.ensureAccount('alice');
    const second = await h.service.createOverlay(alice.id, { name: 'Second', template: 'ticker', values: { 'message.font-size': 30 } });
    expect(second.token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    const [main] = await h.service.listOverlays(alice.id);
    expect(second.token).not.toBe(main!.token);
    expect(await h.service.findOverlayByToken(second.token)).toMatchObject({ id: second.id, accountId: alice.id, name: 'Second' });
    expect(await h.service.findOverlayByToken('x'.repeat(32))).toBeNull();
    expect(await h.service.findOverlayByToken('short')).toBeNull();
  });

  it('check the name, template, values and sync source', async () => {
    const alice = await h.service.ensureAccount('alice');
    const bob = await h.service.ensureAccount('bob');
    const [aliceMain] = await h.service.listOverlays(alice.id);
    const [bobMain] = await h.service.listOverlays(bob.id);
    expect((await refusal(h.service.createOverlay(alice.id, { name: 'Main', template: 'bubbles' }))).status).toBe(409);
    expect((await refusal(h.service.createOverlay(alice.id, { name: 'X', template: 'nope' }))).errors?.template).toBeDefined();
    expect((await refusal(h.service.createOverlay(alice.id, { name: 'X', template: 'bubbles', values: { 'bubble.width': -1 } }))).errors?.['values.bubble.width']).toBeDefined();
    expect((await refusal(h.service.createOverlay(alice.id, { name: 'X', template: 'bubbles', syncSourceId: bobMain!.id }))).errors?.sync_source?.[0]).toContain('does not exist on this account');
    expect((await refusal(h.service.createOverlay(alice.id, { name: 'X', template: 'ticker', syncSourceId: aliceMain!.id }))).errors?.sync_source?.[0]).toContain('another template');
    const synced = await h.service.createOverlay(alice.id, { name: 'Synced', template: 'bubbles', syncSourceId: aliceMain!.id });
    expect((await refusal(h.service.createOverlay(alice.id, { name: 'X', template: 'bubbles', syncSourceId: synced.id }))).errors?.sync_source?.[0]).toContain('one level deep');
  });

  it('move the default flag, so an account keeps exactly one default overlay', async () => {
    const alice = await h.service.ensureAccount('alice');
    const other = await h.service.createOverlay(alice.id, { name: 'Other', template: 'bubbles', isDefault: true });
    expect((await h.service.listOverlays(alice.id)).filter((o) => o.isDefault).map((o) => o.id)).toEqual([other.id]);
    expect((await h.service.getTemplate(alice.id)).preset_id).toBe(other.id);
  });
});

describe('viewers', () => {
  let h: Harness;
  beforeEach(async () => { h = await openHarness(); });
  afterEach(() => h.close());

  it('sign in once per Twitch user id; a rename updates the login', async () => {
    const first = await h.service.registerViewer({ twitchUserId: '1001', login: 'Old_Name', displayName: 'Old_Name' });
    expect(first).toEqual({ id: 1, twitchUserId: '1001', twitchUsername: 'old_name', displayName: 'Old_Name' });
    const renamed = await h.service.registerViewer({ twitchUserId: '1001', login: 'new_name' });
    expect(renamed).toEqual({ ...first, twitchUsername: 'new_name' });
    expect(await h.service.findViewer('old_name')).toBeNull();
    expect((await h.service.findViewer('NEW_NAME'))?.id).toBe(1);
  });

  it('take a login over from a stale row whose user renamed away', async () => {
    await h.service.registerViewer({ twitchUserId: '1001', login: 'shared' });
    const newcomer = await h.service.registerViewer({ twitchUserId: '2002', login: 'shared' });
    expect((await h.service.findViewer('shared'))?.id).toBe(newcomer.id);
    expect((await h.service.findViewer('1001'))?.twitchUsername).toBeNull();
    // The old user shows up again under a new name.
    await h.service.registerViewer({ twitchUserId: '1001', login: 'fresh' });
    expect((await h.service.findViewer('fresh'))?.twitchUserId).toBe('1001');
  });

  it('refuse ids and logins Twitch cannot have', async () => {
    expect((await refusal(h.service.registerViewer({ twitchUserId: 'abc', login: 'x' }))).errors?.twitch_user_id).toBeDefined();
    expect((await refusal(h.service.registerViewer({ twitchUserId: '1', login: 'a b' }))).errors?.twitch_username).toBeDefined();
  });

  it('register many in one write: each gets its outcome, a refused one alone', async () => {
    await h.service.registerViewer({ twitchUserId: '1001', login: 'old_name' });
    const commits = h.store.commits;
    const outcomes = await h.service.registerViewers([
      { twitchUserId: '1001', login: 'new_name', displayName: 'New_Name' },
      { twitchUserId: 'abc', login: 'bad_id' },
      { twitchUserId: '2002', login: 'old_name' },
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(outcomes[0]).toEqual({ status: 'fulfilled', value: { id: 1, twitchUserId: '1001', twitchUsername: 'new_name', displayName: 'New_Name' } });
    expect(((outcomes[1] as PromiseRejectedResult).reason as { errors?: Record<string, unknown> }).errors?.twitch_user_id).toBeDefined();
    expect(h.store.commits - commits).toBe(1);
    expect((await h.service.findViewer('old_name'))?.twitchUserId).toBe('2002');
    expect((await h.service.findViewer('new_name'))?.twitchUserId).toBe('1001');
  });

  it('register many: when the write fails, every viewer in it fails and none is stored', async () => {
    const other = new DatabaseSync(h.dbPath);
    other.exec("CREATE TRIGGER refuse_666 BEFORE INSERT ON viewers WHEN NEW.twitch_user_id = '666' BEGIN SELECT RAISE(ABORT, 'refused by a test trigger'); END");
    other.close();
    const outcomes = await h.service.registerViewers([
      { twitchUserId: '1', login: 'first' },
      { twitchUserId: '666', login: 'refused' },
      { twitchUserId: '3', login: 'third' },
    ]);
    expect(outcomes.map((o) => (o.status === 'rejected' ? String(o.reason) : o.status))).toEqual(Array(3).fill(expect.stringContaining('refused by a test trigger')));
    expect(h.dump().viewers).toEqual([]);
  });
});

describe('channel skins: purchases, picks, roles and the overlay snapshot', () => {
  let h: Harness & { ids: SeedResult };
  let alice: number;
  let skins: Record<string, number>;
  let one: number;
  let two: number;
  beforeEach(async () => {
    h = await openWorld();
    alice = h.ids.accounts.alice!.id;
    skins = { ...h.ids.accounts.alice!.skins, ...h.ids.global_skins, bobskin: h.ids.accounts.bob!.skins.bobskin! };
    one = h.ids.viewers.viewer_one!;
    two = h.ids.viewers.viewer_two!;
  });
  afterEach(() => h.close());

  it('a purchase turns an API grant into a purchase, which revoke then leaves alone', async () => {
    await h.service.unlockSkin(alice, { twitch_username: 'viewer_two', skin_id: skins.neon });
    expect(await h.service.recordPurchase(alice, two, skins.neon!)).toBe('upgraded');
    expect(await h.service.recordPurchase(alice, two, skins.neon!)).toBe('unchanged');
    expect((await refusal(h.service.revokeSkin(alice, { twitch_username: 'viewer_two', skin_id: skins.neon }))).status).toBe(404);
    expect((await refusal(h.service.recordPurchase(alice, two, skins.vault!))).status).toBe(422);
    expect((await refusal(h.service.recordPurchase(alice, two, skins.bobskin!))).status).toBe(404);
  });

  it('a viewer may pick a free skin or one they hold, nothing else', async () => {
    expect(await h.service.pickSkin(alice, two, skins.classic!)).toBe(true);
    expect(await h.service.pickSkin(alice, two, skins.classic!)).toBe(false);
    expect((await refusal(h.service.pickSkin(alice, two, skins.neon!))).status).toBe(403);
    expect((await refusal(h.service.pickSkin(alice, two, skins.bobskin!))).status).toBe(404);
    expect((await refusal(h.service.pickSkin(alice, two, skins.retired!))).status).toBe(422);
    expect(await h.service.pickSkin(alice, one, skins.neon!)).toBe(true);
    expect((await h.service.listPickableSkins(alice, one)).map((s) => s.slug)).toEqual(['neon', 'tape', 'classic']);
    expect(await h.service.pickSkin(alice, two, null)).toBe(true);
    expect(await h.store.findSkinPick(alice, two)).toBeNull();
  });

  it('lists only active skins as pickable: a held or free skin that is switched off drops out', async () => {
    // viewer_one bought neon; classic (global) and tape are free.
    expect((await h.service.listPickableSkins(alice, one)).map((s) => s.slug)).toEqual(['neon', 'tape', 'classic']);
    await h.service.updateSkinDetails(skins.neon!, { isActive: false });
    await h.service.updateSkinDetails(skins.tape!, { isActive: false });
    expect((await h.service.listPickableSkins(alice, one)).map((s) => s.slug)).toEqual(['classic']);
  });

  it('picks and role changes bump the channel overlays and are announced', async () => {
    const overlayIds = Object.values(h.ids.accounts.alice!.overlays);
    const before = (await h.service.listOverlays(alice)).map((o) => o.version);
    await h.service.pickSkin(alice, one, skins.neon!);
    await h.service.assignSkinRole(alice, 'vip', skins.classic!);
    await h.service.assignSkinRole(alice, 'vip', skins.classic!); // no change, no event
    await h.service.assignSkinRole(alice, 'vip', null);
    expect(h.events).toEqual([
      { type: 'viewer-skin-changed', accountId: alice, viewerId: one, overlayIds },
      { type: 'skin-changed', skinId: skins.classic, overlayIds },
      { type: 'skin-changed', skinId: skins.classic, overlayIds },
    ]);
    expect((await h.service.listOverlays(alice)).map((o) => o.version)).toEqual(before.map((v) => v + 3));
    expect((await refusal(h.service.assignSkinRole(alice, 'vip', skins.bobskin!))).status).toBe(404);
    expect((await refusal(h.service.assignSkinRole(alice, 'king' as never, skins.neon!))).status).toBe(422);
  });

  it('the snapshot carries settings, version and the skins in use by role and pick', async () => {
    const overlays = h.ids.accounts.alice!.overlays;
    await h.service.pickSkin(alice, one, skins.neon!);
    await h.service.pickSkin(alice, two, skins.classic!);
    await h.service.assignSkinRole(alice, 'subscriber', skins.retired!); // inactive: not shown
    const snapshot = await h.service.getOverlaySnapshot(overlays.Second!);
    const second = (await h.service.listOverlays(alice)).find((o) => o.id === overlays.Second)!;
    expect(snapshot).toEqual({
      overlay: { id: second.id, accountId: alice, name: 'Second', token: second.token },
      version: second.version,
      template: { id: 1, slug: 'bubbles', name: 'Bubbles' },
      settings: { ...CATALOG_DEFAULTS, 'bubble.width': 420, 'avatar.size': 80 },
      skins: [
        { id: skins.neon, name: 'Neon', slug: 'neon', settings: { ...CATALOG_DEFAULTS, 'bubble.background-color': '#ff00ff' }, overrides: { 'bubble.background-color': '#ff00ff' } },
        { id: skins.classic, name: 'Classic', slug: 'classic', settings: { ...CATALOG_DEFAULTS }, overrides: {} },
      ],
      roleSkins: { moderator: skins.neon },
      viewerSkins: { 1001: skins.neon, 1002: skins.classic },
    });
    // The ticker overlay shows only ticker skins.
    const ticker = await h.service.getOverlaySnapshot(overlays.Ticker!);
    expect(ticker?.skins).toEqual([]);
    expect(ticker?.roleSkins).toEqual({});
    expect(await h.service.getOverlaySnapshot(9999)).toBeNull();
  });

  it('a viewer\'s picked skin is theirs while it is active; role skins are the overlay\'s to apply', async () => {
    // 1002 has no pick yet: a role's skin (neon is the moderators') is not a pick.
    expect(await h.service.getPickedSkin(alice, '1002')).toBeNull();
    await h.service.pickSkin(alice, two, skins.classic!);
    expect((await h.service.getPickedSkin(alice, '1002'))?.slug).toBe('classic');
    await h.service.updateSkinDetails(skins.classic!, { isActive: false });
    expect(await h.service.getPickedSkin(alice, '1002')).toBeNull();
    expect(await h.service.getPickedSkin(alice, '424242')).toBeNull();
  });
});

describe('events', () => {
  let h: Harness & { ids: SeedResult };
  beforeEach(async () => { h = await openWorld(); });
  afterEach(() => h.close());

  it('are announced after the commit, so a listener on another connection already reads the new state', async () => {
    const alice = h.ids.accounts.alice!.id;
    const main = h.ids.accounts.alice!.overlays.Main!;
    const seen: unknown[] = [];
    h.service.events.subscribe(() => {
      const row = h.dump().overlays!.find((o) => (o as { id: number }).id === main) as { values_json: string };
      seen.push(JSON.parse(row.values_json)['bubble.gap']);
    });
    await h.service.updateTemplate(alice, { scope: 'independent', values: { 'bubble.gap': 7 } });
    expect(seen).toEqual([7]);
  });

  it('are never announced for a write that rolls back, even inside a larger transaction', async () => {
    const alice = h.ids.accounts.alice!.id;
    const before = h.dump();
    await expect(h.service.runInTransaction(async () => {
      await h.service.updateTemplate(alice, { scope: 'independent', values: { 'bubble.gap': 7 } });
      throw new Error('later step failed');
    })).rejects.toThrow('later step failed');
    expect(h.events).toEqual([]);
    expect(h.dump()).toEqual(before);
  });

  it('a failing listener neither fails the write nor starves other listeners', async () => {
    const failures: unknown[] = [];
    const events = createEventBus({ onListenerError: (error) => failures.push(error) });
    const service = await createStyleService({ store: h.store, templates: TEMPLATES, events });
    events.subscribe(() => { throw new Error('listener broke'); });
    const later: string[] = [];
    events.subscribe((e) => later.push(e.type));
    await service.updateTemplate(h.ids.accounts.alice!.id, { scope: 'independent', values: { 'bubble.gap': 7 } });
    expect(later).toEqual(['overlay-changed']);
    expect(failures).toEqual([new Error('listener broke')]);
  });
});
