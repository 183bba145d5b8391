// A refund the host could not give: the redemption was no longer UNFULFILLED on Twitch when its
// CANCELED went out (a moderator resolved it meanwhile, or its reward was deleted, which makes
// Twitch mark it FULFILLED). Twitch answers 404; the ledger settles it, and the log says the
// viewer's points were not refunded, instead of "redemption refunded".
import { describe, expect, it } from 'vitest';
import type { OverlayStyleClient } from '../../src/client/overlay-style-client.ts';
import type { FakeHelix } from '../fakes/fake-helix.ts';
import { useRunningRedemptionWorlds } from './redemption-world.ts';

const running = useRunningRedemptionWorlds();

describe('a refund Twitch no longer takes', () => {
  it('is logged as not given (a warning naming the viewer), not as "redemption refunded"', async () => {
    let helix: FakeHelix | null = null;
    // While the handler looks the skin up, a moderator fulfils the redemption in the request queue.
    const overlayClient = (client: OverlayStyleClient): OverlayStyleClient => ({
      ...client,
      async listSkins() {
        for (const r of helix?.redemptions ?? []) if (r.status === 'UNFULFILLED') helix!.resolveOnDashboard(r.id, 'FULFILLED');
        return client.listSkins();
      },
    });
    const world = await running({ overlayClient });
    helix = world.helix;
    const { redemption } = world.helix.fireRedemption({ rewardId: await world.rewardId('unlock-ghost'), user: { login: 'fan' } });
    await expect.poll(async () => (await world.service.findRedemptionEntry(world.accountId, redemption.id))?.state, { timeout: 5000, interval: 5 }).toBe('status-sent');
    expect(world.helix.redemptions.find((r) => r.id === redemption.id)?.status).toBe('FULFILLED');
    const mine = world.logs.filter((l) => l['redemption'] === redemption.id && l.level >= 30).map((l) => `${l.level} ${String(l.msg)}`);
    expect(mine).not.toContain('30 redemption refunded');
    expect(mine).toContain('40 redemption not refunded: Twitch no longer had it UNFULFILLED (resolved in the request queue, or its reward deleted), so the viewer\'s points stay spent');
    expect(world.redemptions!.status().counters).toMatchObject({ refunded: 0 });
  });
});
