// The skin-shop plugin in the real host over a memory chat, against the bundled service on SQLite
// (the Twitch side is in test/redemptions). Redemptions come in through host.handleRedemption, as
// the redemption pipeline hands them over.
import { afterEach, describe, expect, it } from 'vitest';
import { createInProcessClient } from '../../src/client/in-process-client.ts';
import { OverlayStyleError } from '../../src/client/overlay-style-error.ts';
import type { OverlayStyleClient } from '../../src/client/overlay-style-client.ts';
import { BUILT_IN_PLUGIN_DIR } from '../../src/host/plugin-loader.ts';
import { applySeed } from '../../src/service/seed.ts';
import { startTestHost } from '../../test/host/host-fixture.ts';
import type { TestHost } from '../../test/host/host-fixture.ts';
import { stableNumericId } from '../../test/fakes/stable-id.ts';
import { settle } from '../../test/host/manual-clock.ts';
import { openHarness } from '../../test/service/core/service-harness.ts';
import type { Harness } from '../../test/service/core/service-harness.ts';

const harnesses: Harness[] = [];
afterEach(async () => {
  for (const harness of harnesses.splice(0)) await harness.close();
});

interface Shop {
  test: TestHost;
  harness: Harness;
  accountId: number;
  redeem(login: string, attempt?: number, rewardKey?: string): Promise<string>;
}

async function open(settings: Record<string, unknown> = { rewards: { 'unlock-neon': 'neon' } }, wrap?: (c: OverlayStyleClient) => OverlayStyleClient): Promise<Shop> {
  const harness = await openHarness();
  harnesses.push(harness);
  const ids = await applySeed(harness.service, {
    accounts: [{
      login: 'streamer', overlays: [{ name: 'Main', template: 'bubbles', default: true, values: {} }],
      skins: [{ slug: 'neon', name: 'Neon', template: 'bubbles', availability: 'purchase', values: {} }],
    }],
  });
  const accountId = ids.accounts['streamer']!.id;
  const client = createInProcessClient(harness.service, accountId);
  const test = await startTestHost({
    builtInPluginDir: BUILT_IN_PLUGIN_DIR, overlayClient: wrap ? wrap(client) : client, config: { plugins: { 'skin-shop': settings } },
  });
  let next = 0;
  return {
    test, harness, accountId,
    async redeem(login, attempt = 1, rewardKey = 'unlock-neon') {
      const event = { id: `r${next++}`, rewardKey, channel: 'streamer', user: { id: stableNumericId(login), login, displayName: login.toUpperCase() }, input: '', attempt };
      const result = await test.host.handleRedemption(event);
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

  it('with a remote service (no sign-in there) still unlocks for a viewer the service knows', async () => {
    const remoteLike = (client: OverlayStyleClient): OverlayStyleClient => ({
      ...client,
      registerViewer: () => Promise.reject(new OverlayStyleError({ status: 0, kind: 'unsupported', message: 'no spec endpoint' })),
    });
    const shop = await open(undefined, remoteLike);
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
});
