// A refund the host could not give: the redemption was no longer UNFULFILLED on Twitch when its
// CANCELED went out (a moderator resolved it meanwhile, or its reward was deleted, which makes
// Twitch mark it FULFILLED). Twitch answers 404; the ledger settles it, and the log says the
// viewer's points were not refunded, instead of "redemption refunded". Unless Twitch has it CANCELED
// after all (a moderator canceled it, or our own CANCELED went through and its answer was lost): the
// points did come back, and a warning would send the operator to refund them a second time by hand.
import { describe, expect, it, onTestFinished } from 'vitest';
import type { OverlayStyleClient } from '../../src/client/overlay-style-client.ts';
import type { FakeHelix } from '../fakes/fake-helix.ts';
import { useRunningRedemptionWorlds } from './redemption-world.ts';

const running = useRunningRedemptionWorlds();

/** A skin-shop lookup during which a moderator resolves every UNFULFILLED redemption as `status`. */
function moderatorDuringHandler(status: 'FULFILLED' | 'CANCELED', helix: () => FakeHelix | null) {
  return (client: OverlayStyleClient): OverlayStyleClient => ({
    ...client,
    async listSkins() {
      for (const r of helix()?.redemptions ?? []) if (r.status === 'UNFULFILLED') helix()!.resolveOnDashboard(r.id, status);
      return client.listSkins();
    },
  });
}

function linesOf(world: { logs: Array<{ level: number; msg?: unknown } & Record<string, unknown>> }, redemptionId: string): string[] {
  return world.logs.filter((l) => l['redemption'] === redemptionId && l.level >= 30).map((l) => `${l.level} ${String(l.msg)}`);
}

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
    // Logged once Twitch was asked whether it is CANCELED after all (it is not).
    await expect.poll(() => linesOf(world, redemption.id).some((line) => line.includes('not refunded')), { timeout: 5000, interval: 5 }).toBe(true);
    const mine = linesOf(world, redemption.id);
    expect(mine).not.toContain('30 redemption refunded');
    expect(mine).toContain('40 redemption not refunded: Twitch no longer had it UNFULFILLED (resolved in the request queue, or its reward deleted), so the viewer\'s points stay spent');
    expect(world.redemptions!.status().counters).toMatchObject({ refunded: 0 });
  });

  // Found by redemption-properties.test.ts: a refund delayed by a 429 while a moderator canceled it.
  // The chat line of a refund is the host's to say once Twitch settled the status: before, the
  // handler said "Your points were refunded" while Twitch went on to keep them.
  it('fulfilled on the dashboard before the refund: chat never says the points were refunded, but that Twitch did not refund them', async () => {
    let helix: FakeHelix | null = null;
    const world = await running({ overlayClient: moderatorDuringHandler('FULFILLED', () => helix) });
    helix = world.helix;
    const { redemption } = world.helix.fireRedemption({ rewardId: await world.rewardId('unlock-ghost'), user: { login: 'fan' } });
    await expect.poll(() => world.said(), { timeout: 5000, interval: 5 }).toHaveLength(1);
    expect(world.said()).toEqual([
      '@fan the skin "ghost" is not available on this channel. Twitch did not refund your points; a moderator can make it up to you.',
    ]);
    expect(world.helix.redemptions.find((r) => r.id === redemption.id)?.status).toBe('FULFILLED');
  });

  it('fulfilled on the dashboard, and Twitch cannot say what it has: neither line is said (either may be untrue)', async () => {
    let helix: FakeHelix | null = null;
    const world = await running({ overlayClient: moderatorDuringHandler('FULFILLED', () => helix) });
    helix = world.helix;
    // The refund's 404 is followed by a lookup of the redemption's status, which fails (400: not retried).
    world.helix.failNext({ status: 400, method: 'GET', path: '/channel_points/custom_rewards/redemptions', message: 'injected' });
    const { redemption } = world.helix.fireRedemption({ rewardId: await world.rewardId('unlock-ghost'), user: { login: 'fan' } });
    await expect.poll(() => linesOf(world, redemption.id).some((line) => line.includes('asking Twitch for its status failed')), { timeout: 5000, interval: 5 }).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(world.said()).toEqual([]);
  });

  it('the refund line waits for Twitch to take the CANCELED', async () => {
    const world = await running();
    const held = world.helix.holdNext({ method: 'PATCH', path: '/channel_points/custom_rewards/redemptions' });
    let released = false;
    const release = (): void => {
      if (!released) held.release();
      released = true;
    };
    onTestFinished(release);
    const { redemption } = world.helix.fireRedemption({ rewardId: await world.rewardId('unlock-ghost'), user: { login: 'fan' } });
    await held.arrived;
    await expect.poll(async () => (await world.service.findRedemptionEntry(world.accountId, redemption.id))?.state, { timeout: 5000, interval: 5 }).toBe('effect-done');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(world.said()).toEqual([]);
    release();
    await expect.poll(() => world.said(), { timeout: 5000, interval: 5 })
      .toEqual(['@fan the skin "ghost" is not available on this channel. Your points were refunded.']);
  });

  it('canceled by a moderator meanwhile: the points came back, so it is "redemption refunded", not a warning', async () => {
    let helix: FakeHelix | null = null;
    const world = await running({ overlayClient: moderatorDuringHandler('CANCELED', () => helix) });
    helix = world.helix;
    const { redemption } = world.helix.fireRedemption({ rewardId: await world.rewardId('unlock-ghost'), user: { login: 'fan' } });
    await expect.poll(async () => (await world.service.findRedemptionEntry(world.accountId, redemption.id))?.state, { timeout: 5000, interval: 5 }).toBe('status-sent');
    expect(world.helix.redemptionChanges.filter((c) => c.redemptionId === redemption.id).map((c) => [c.to, c.clientId])).toEqual([['CANCELED', null]]);
    await expect.poll(() => linesOf(world, redemption.id), { timeout: 5000, interval: 5 }).toContain('30 redemption refunded');
    const mine = linesOf(world, redemption.id);
    expect(mine.filter((line) => line.includes('not refunded'))).toEqual([]);
    expect(world.redemptions!.status().counters).toMatchObject({ refunded: 1 });
    expect(world.said()).toEqual(['@fan the skin "ghost" is not available on this channel. Your points were refunded.']);
  });

  it('our CANCELED taken but its answer lost (the retry hears 404): "redemption refunded", not a warning', async () => {
    const world = await running({ httpTimeoutSeconds: 1 });
    world.helix.holdNext({ method: 'PATCH', path: '/channel_points/custom_rewards/redemptions' });
    const { redemption } = world.helix.fireRedemption({ rewardId: await world.rewardId('unlock-ghost'), user: { login: 'fan' } });
    await expect.poll(async () => (await world.service.findRedemptionEntry(world.accountId, redemption.id))?.state, { timeout: 10_000, interval: 5 }).toBe('status-sent');
    expect(world.helix.redemptionChanges.filter((c) => c.redemptionId === redemption.id).map((c) => c.to)).toEqual(['CANCELED']);
    await expect.poll(() => linesOf(world, redemption.id), { timeout: 5000, interval: 5 }).toContain('30 redemption refunded');
    const mine = linesOf(world, redemption.id);
    expect(mine.filter((line) => line.includes('not refunded'))).toEqual([]);
  });
});
