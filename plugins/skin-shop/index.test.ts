// The skin-shop plugin in the real host over a memory chat, against the bundled service on SQLite
// (the Twitch side is in test/redemptions). Redemptions come in through host.handleRedemption, as
// the redemption pipeline hands them over.
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { OverlayStyleError } from '../../src/client/overlay-style-error.ts';
import type { OverlayStyleClient } from '../../src/client/overlay-style-client.ts';
import { BUILT_IN_PLUGIN_DIR } from '../../src/host/plugin-loader.ts';
import type { SeedResult } from '../../src/service/seed.ts';
import { redeemed, startTestHost } from '../../test/host/host-fixture.ts';
import type { TestHost } from '../../test/host/host-fixture.ts';
import { startPluginWorld } from '../../test/host/plugin-world.ts';
import { stableNumericId } from '../../test/fakes/stable-id.ts';
import { settle } from '../../test/host/manual-clock.ts';
import type { Harness } from '../../test/service/core/service-harness.ts';
import { httpWorld } from '../../test/client/contract-world.ts';
import { startAnswerDroppingProxy } from '../../test/client/answer-dropping-proxy.ts';
import { createHttpClient } from '../../src/client/http-client.ts';
import { Agent } from 'undici';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** Skin ids of the seed: the channel's own, global ones (GET /skins lists neither of these), another channel's. */
interface SkinIds {
  neon: number;
  classic: number;
  vintage: number;
  foreign: number;
}

interface Shop {
  test: TestHost;
  harness: Harness;
  accountId: number;
  skins: SkinIds;
  redeem(login: string, attempt?: number, rewardKey?: string): Promise<string>;
}

type Settings = Record<string, unknown>;

/** `remoteLike`: the host signs no viewer in (as with a remote service), the client has no registerViewer. */
async function open(settings: Settings | ((skins: SkinIds) => Settings) = { rewards: { 'unlock-neon': 'neon' } }, wrap?: (c: OverlayStyleClient) => OverlayStyleClient, remoteLike = false): Promise<Shop> {
  const fixture = {
    accounts: [
      {
        login: 'streamer', overlays: [{ name: 'Main', template: 'bubbles', default: true, values: {} }],
        skins: [{ slug: 'neon', name: 'Neon', template: 'bubbles', availability: 'purchase', values: {} }],
      },
      { login: 'other', skins: [{ slug: 'foreign', name: 'Foreign', template: 'bubbles', availability: 'purchase', values: {} }] },
    ],
    global_skins: [
      { slug: 'classic', name: 'Classic', template: 'bubbles', availability: 'purchase', values: {} },
      { slug: 'vintage', name: 'Vintage', template: 'bubbles', availability: 'purchase', active: false, values: {} },
    ],
  };
  const skinIdsOf = (ids: SeedResult): SkinIds => ({
    neon: ids.accounts['streamer']!.skins['neon']!, classic: ids.global_skins['classic']!,
    vintage: ids.global_skins['vintage']!, foreign: ids.accounts['other']!.skins['foreign']!,
  });
  const { test, harness, ids, accountId } = await startPluginWorld({
    fixture, plugin: 'skin-shop', ...(wrap ? { wrapClient: wrap } : {}), signsInRedeemers: !remoteLike,
    settings: (seeded) => (typeof settings === 'function' ? settings(skinIdsOf(seeded)) : settings),
  });
  const skins = skinIdsOf(ids);
  let next = 0;
  return {
    test, harness, accountId, skins,
    async redeem(login, attempt = 1, rewardKey = 'unlock-neon') {
      const event = { id: `r${next++}`, rewardKey, channel: 'streamer', user: { id: stableNumericId(login), login, displayName: login.toUpperCase() }, input: '', attempt };
      const result = await redeemed(test.host.handleRedemption(event));
      await settle();
      return result.outcome;
    },
  };
}

describe('skin-shop', () => {
  it('registers one redemption handler per configured reward key', async () => {
    const shop = await open({ rewards: { 'unlock-neon': 'neon', 'unlock-other': 'other' } });
    expect(shop.test.host.plugins).toEqual([{ name: 'skin-shop', state: 'running', commands: [], rewards: ['unlock-neon', 'unlock-other'] }]);
  });

  it('fulfils a first redemption and refunds a second one of the same viewer', async () => {
    const shop = await open();
    expect(await shop.redeem('ann')).toBe('fulfill');
    expect(await shop.harness.service.listViewerSkins(shop.accountId, 'ann')).toEqual([expect.objectContaining({ slug: 'neon' })]);
    expect(await shop.redeem('ann')).toBe('refund');
    expect(shop.test.said()).toEqual(['@ANN the Neon skin is yours!', '@ANN you already have the Neon skin. Your points were refunded.']);
  });

  it('on a later attempt (an interrupted redemption run again) counts a skin already held as this redemption\'s own', async () => {
    const shop = await open();
    expect(await shop.redeem('ann', 1)).toBe('fulfill');
    expect(await shop.redeem('ann', 1)).toBe('refund');
    expect(await shop.redeem('ann', 2)).toBe('fulfill');
    expect(shop.test.said()).toEqual([
      '@ANN the Neon skin is yours!',
      '@ANN you already have the Neon skin. Your points were refunded.',
      '@ANN the Neon skin is yours!',
    ]);
  });

  it('uses the configured chat lines', async () => {
    const shop = await open({ rewards: { 'unlock-neon': 'neon', 'unlock-gone': 'gone' }, messages: { unlocked: 'enjoy {skin}!', refunded: 'sorry: {reason}' } });
    await shop.redeem('ann');
    await shop.redeem('bob', 1, 'unlock-gone');
    expect(shop.test.said()).toEqual(['@ANN enjoy Neon!', '@BOB sorry: the skin "gone" is not available on this channel.']);
  });

  it('leaves signing the viewer in to the host: a viewer who never chatted gets the skin without registerViewer', async () => {
    let registerCalls = 0;
    const counting = (client: OverlayStyleClient): OverlayStyleClient => ({
      ...client,
      registerViewer: (viewer) => {
        registerCalls++;
        return client.registerViewer(viewer);
      },
    });
    const shop = await open(undefined, counting);
    expect(await shop.redeem('newbie')).toBe('fulfill');
    expect(registerCalls).toBe(0);
    expect(await shop.harness.service.findViewer('newbie')).toMatchObject({ twitchUsername: 'newbie', displayName: 'NEWBIE' });
  });

  it('with a remote service (no sign-in there) still unlocks for a viewer the service knows', async () => {
    const remoteLike = (client: OverlayStyleClient): OverlayStyleClient => ({
      ...client,
      registerViewer: () => Promise.reject(new OverlayStyleError({ status: 0, kind: 'unsupported', message: 'no spec endpoint' })),
    });
    const shop = await open(undefined, remoteLike, true);
    await shop.harness.service.registerViewer({ twitchUserId: stableNumericId('bob'), login: 'bob' });
    expect(await shop.redeem('bob')).toBe('fulfill');
    // Unknown to the service: refunded with the service's reason.
    expect(await shop.redeem('ann')).toBe('refund');
    expect(shop.test.said()).toEqual([
      '@BOB the Neon skin is yours!',
      '@ANN the overlay service does not know you yet. Your points were refunded.',
    ]);
  });

  it('retries a failing service, then refunds', async () => {
    let calls = 0;
    const flaky = (client: OverlayStyleClient): OverlayStyleClient => ({
      ...client,
      unlockSkin: async (request) => {
        calls++;
        if (calls < 3) throw new OverlayStyleError({ status: 0, kind: 'network', message: 'ECONNREFUSED' });
        return client.unlockSkin(request);
      },
    });
    const shop = await open({ rewards: { 'unlock-neon': 'neon' }, attempts: 3, retryDelayMs: 0 }, flaky);
    expect(await shop.redeem('ann')).toBe('fulfill');
    expect(calls).toBe(3);
    calls = -10;
    expect(await shop.redeem('bob')).toBe('refund');
    expect(shop.test.said().at(-1)).toBe('@BOB the skin could not be unlocked: the overlay service is not answering; try again in a moment. Your points were refunded.');
  });

  it('refuses bad settings with the path', async () => {
    const shop = await open({ rewards: { 'unlock-neon': 'Not A Slug' } });
    expect(shop.test.host.plugins[0]).toMatchObject({ state: 'failed', error: expect.stringContaining('rewards.unlock-neon') });
  });

  it('refuses a reward that is neither a slug nor { skinId: <id> }, saying what it may be', async () => {
    const cases: [unknown, string][] = [
      [{ skinId: 0 }, 'rewards.unlock-neon.skinId: must be a skin id (a whole number above 0)'],
      [{ skinId: 2.5 }, 'rewards.unlock-neon: must be { skinId: <skin id> }: the one key skinId, a whole number above 0'],
      [{ skinId: '7' }, 'rewards.unlock-neon: must be { skinId: <skin id> }: the one key skinId'],
      [{ skinId: 7, slug: 'neon' }, 'rewards.unlock-neon: unknown key "slug"'],
      [7, 'rewards.unlock-neon: must be a skin slug (the channel\'s own skin) or { skinId: <skin id> }'],
    ];
    for (const [target, message] of cases) {
      const shop = await open({ rewards: { 'unlock-neon': target } });
      expect(shop.test.host.plugins[0]).toMatchObject({ state: 'failed', error: expect.stringContaining(message) });
    }
  });
});

describe('skin-shop: a reward by skin id (global platform skins too)', () => {
  const byId = (skin: keyof SkinIds) => (skins: SkinIds) => ({ rewards: { 'unlock-neon': { skinId: skins[skin] } } });

  it('unlocks a global skin, which GET /skins does not list, named as the service names it', async () => {
    const shop = await open(byId('classic'));
    expect((await shop.harness.service.listSkins(shop.accountId)).map((skin) => skin.slug)).not.toContain('classic');
    expect(await shop.redeem('ann')).toBe('fulfill');
    expect(await shop.harness.service.listViewerSkins(shop.accountId, 'ann')).toEqual([{ id: shop.skins.classic, name: 'Classic', slug: 'classic' }]);
    expect(await shop.redeem('ann')).toBe('refund');
    expect(await shop.redeem('ann', 2)).toBe('fulfill');
    expect(shop.test.said()).toEqual([
      '@ANN the Classic skin is yours!',
      '@ANN you already have the Classic skin. Your points were refunded.',
      '@ANN the Classic skin is yours!',
    ]);
  });

  it('also takes the channel\'s own skin by id', async () => {
    const shop = await open(byId('neon'));
    expect(await shop.redeem('ann')).toBe('fulfill');
    expect(shop.test.said()).toEqual(['@ANN the Neon skin is yours!']);
  });

  it('refunds an id the channel may not unlock (unknown, another channel\'s) and an inactive skin, saying why', async () => {
    const shop = await open((skins) => ({
      rewards: { unknown: { skinId: 999_999 }, foreign: { skinId: skins.foreign }, inactive: { skinId: skins.vintage } },
    }));
    expect(await shop.redeem('ann', 1, 'unknown')).toBe('refund');
    expect(await shop.redeem('ann', 1, 'foreign')).toBe('refund');
    expect(await shop.redeem('ann', 1, 'inactive')).toBe('refund');
    expect(await shop.harness.service.listViewerSkins(shop.accountId, 'ann')).toEqual([]);
    expect(shop.test.said()).toEqual([
      '@ANN the skin #999999 is not available on this channel. Your points were refunded.',
      `@ANN the skin #${shop.skins.foreign} is not available on this channel. Your points were refunded.`,
      `@ANN the skin #${shop.skins.vintage} is not available right now. Your points were refunded.`,
    ]);
  });

  it('with a remote-like client (no sign-in) tells an unknown viewer from an unknown skin', async () => {
    const remoteLike = (client: OverlayStyleClient): OverlayStyleClient => ({
      ...client,
      registerViewer: () => Promise.reject(new OverlayStyleError({ status: 0, kind: 'unsupported', message: 'no spec endpoint' })),
    });
    const shop = await open((skins) => ({ rewards: { 'unlock-neon': { skinId: skins.classic }, unknown: { skinId: 999_999 } } }), remoteLike, true);
    await shop.harness.service.registerViewer({ twitchUserId: stableNumericId('bob'), login: 'bob' });
    expect(await shop.redeem('bob')).toBe('fulfill');
    expect(await shop.redeem('bob', 1, 'unknown')).toBe('refund');
    expect(await shop.redeem('ann')).toBe('refund');
    expect(shop.test.said()).toEqual([
      '@BOB the Classic skin is yours!',
      '@BOB the skin #999999 is not available on this channel. Your points were refunded.',
      '@ANN the overlay service does not know you yet. Your points were refunded.',
    ]);
  });

  it('works over HTTP against the bundled API server (a remote service)', async () => {
    const world = await httpWorld();
    closers.push(() => world.close());
    const test = await startTestHost({
      builtInPluginDir: BUILT_IN_PLUGIN_DIR, overlayClient: world.client,
      config: { plugins: { 'skin-shop': { rewards: { global: { skinId: world.globalSkin.id }, foreign: { skinId: world.foreignSkinId } }, retryDelayMs: 0 } } },
    });
    let next = 0;
    const redeem = async (rewardKey: string, user: { id: string; login: string }) => {
      const event = { id: `h${next++}`, rewardKey, channel: 'streamer', user: { ...user, displayName: user.login.toUpperCase() }, input: '', attempt: 1 };
      const { outcome } = await redeemed(test.host.handleRedemption(event));
      await settle();
      return outcome;
    };
    const known = { id: world.viewer.userId, login: world.viewer.login };
    expect(await redeem('global', known)).toBe('fulfill');
    expect((await world.client.listViewerSkins(world.viewer.login)).map((skin) => skin.id)).toEqual([world.globalSkin.id]);
    expect(await redeem('foreign', known)).toBe('refund');
    expect(await redeem('global', { id: stableNumericId('stranger'), login: 'stranger' })).toBe('refund');
    expect(test.said()).toEqual([
      `@VIEWER_ONE the ${world.globalSkin.name} skin is yours!`,
      `@VIEWER_ONE the skin #${world.foreignSkinId} is not available on this channel. Your points were refunded.`,
      '@STRANGER the overlay service does not know you yet. Your points were refunded.',
    ]);
  });

  /**
   * skin-shop in a test host whose HTTP client reaches the bundled API server through the
   * answer-dropping proxy; `client` the HTTP client's options, `shop` skin-shop's settings beside
   * the reward of the global skin.
   */
  async function proxiedShop(client: { maxRetries: number; backoff?: { baseDelayMs: number; maxDelayMs: number } }, shop: Settings = {}) {
    const world = await httpWorld();
    closers.push(() => world.close());
    const proxy = await startAnswerDroppingProxy(world.baseUrl);
    closers.push(() => proxy.close());
    const agent = new Agent();
    closers.push(() => agent.close());
    const overlayClient = createHttpClient({ baseUrl: proxy.baseUrl, apiKey: world.apiKey, dispatcher: agent, ...client });
    const test = await startTestHost({
      builtInPluginDir: BUILT_IN_PLUGIN_DIR, overlayClient,
      config: { plugins: { 'skin-shop': { rewards: { global: { skinId: world.globalSkin.id } }, retryDelayMs: 0, ...shop } } },
    });
    closers.push(() => test.host.stop());
    const user = { id: world.viewer.userId, login: world.viewer.login, displayName: 'Viewer_One' };
    return { world, proxy, test, user };
  }

  // The service made the grant, then the connection dropped before its answer came: the repeat
  // (the client's, or skin-shop's own try after the client gave up) hears "already held". That
  // grant is this redemption's: refunding it would give the skin away and the points back.
  it.each([
    ['the client sends the unlock again', 2],
    ['skin-shop tries the unlock again after the client gave up', 0],
  ])('over HTTP, fulfils an unlock whose answer was lost on the way back (%s), once, without a refund', async (_name, maxRetries) => {
    const { world, proxy, test, user } = await proxiedShop({ maxRetries, backoff: { baseDelayMs: 1, maxDelayMs: 1 } });
    proxy.dropNextAnswer('POST /api/v1/viewers/unlock-skin ');
    const { outcome } = await redeemed(test.host.handleRedemption({ id: 'lost-answer', rewardKey: 'global', channel: 'streamer', user, input: '', attempt: 1 }));
    await settle();
    expect(proxy.dropped).toBe(1);
    expect(outcome).toBe('fulfill');
    expect(test.said()).toEqual([`@Viewer_One the ${world.globalSkin.name} skin is yours!`]);
    expect((await world.client.listViewerSkins(world.viewer.login)).map((skin) => skin.id)).toEqual([world.globalSkin.id]);
    // A viewer who already held the skin before is still refunded.
    const again = await redeemed(test.host.handleRedemption({ id: 'second', rewardKey: 'global', channel: 'streamer', user, input: '', attempt: 1 }));
    await settle();
    expect(again.outcome).toBe('refund');
  });

  it('over HTTP, fulfils an unlock when every try lost its answer but the grant was made (the viewer\'s grants show it)', async () => {
    const { world, proxy, test, user } = await proxiedShop({ maxRetries: 0 }, { attempts: 2 });
    for (let i = 0; i < 2; i++) proxy.dropNextAnswer('POST /api/v1/viewers/unlock-skin ');
    const { outcome } = await redeemed(test.host.handleRedemption({ id: 'all-lost', rewardKey: 'global', channel: 'streamer', user, input: '', attempt: 1 }));
    await settle();
    expect(proxy.dropped).toBe(2);
    expect(outcome).toBe('fulfill');
    expect(test.said()).toEqual([`@Viewer_One the ${world.globalSkin.name} skin is yours!`]);
  });

  // The client's first attempt made the grant and lost its answer; its repeat met the service
  // refusing (503: another program held the database), and the client gave up with that 503. A
  // 503 alone changed nothing, but the call as a whole may have: the grant is this redemption's.
  it('over HTTP, fulfils an unlock whose first attempt lost its answer and whose repeat the service refused (503)', async () => {
    // The repeat waits 150 to 300 ms: time to take the database's write lock before it.
    const { world, proxy, test, user } = await proxiedShop({ maxRetries: 1, backoff: { baseDelayMs: 300, maxDelayMs: 300 } }, { attempts: 1 });
    const holder = new DatabaseSync(world.dbPath);
    closers.push(async () => {
      if (holder.isTransaction) holder.exec('ROLLBACK');
      holder.close();
    });
    proxy.dropNextAnswer('POST /api/v1/viewers/unlock-skin ');
    const handled = test.host.handleRedemption({ id: 'lost-then-busy', rewardKey: 'global', channel: 'streamer', user, input: '', attempt: 1 });
    await vi.waitFor(() => expect(proxy.dropped).toBe(1), { timeout: 5_000, interval: 1 });
    holder.exec('BEGIN IMMEDIATE');
    const { outcome } = await redeemed(handled);
    holder.exec('ROLLBACK');
    await settle();
    expect(outcome).toBe('fulfill');
    expect(test.said()).toEqual([`@Viewer_One the ${world.globalSkin.name} skin is yours!`]);
    expect((await world.client.listViewerSkins(world.viewer.login)).map((skin) => skin.id)).toEqual([world.globalSkin.id]);
  });
});
