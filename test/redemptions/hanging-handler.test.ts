// A redemption handler that never settles (docs/plugins.md, "When a plugin fails": a plugin is
// isolated in what it leaves hanging). Real twurple, host, skin-shop and store against the Twitch
// fakes; the skin-shop's first unlock never answers.
import { afterEach, describe, expect, it } from 'vitest';
import { openRedemptionWorld } from './redemption-world.ts';
import type { RedemptionWorld } from './redemption-world.ts';

const worlds: RedemptionWorld[] = [];
afterEach(async () => {
  for (const world of worlds.splice(0)) await world.close();
});

describe('a redemption handler that never settles', () => {
  it('holds up neither the reconciliation, the other redemptions nor the stop; the next start runs it again', async () => {
    let hanging = true;
    let reached!: () => void;
    const underWay = new Promise<void>((resolve) => (reached = resolve));
    const world = await openRedemptionWorld({
      handlerWaitMs: 300,
      stopWaitMs: 300,
      overlayClient: (client) => ({
        ...client,
        unlockSkin(request) {
          if (!hanging) return client.unlockSkin(request);
          hanging = false;
          reached();
          return new Promise(() => {});
        },
      }),
    });
    worlds.push(world);
    await world.start();
    await world.settled();
    const rewardId = await world.rewardId('unlock-neon');
    const stuck = world.helix.fireRedemption({ rewardId, user: { login: 'fan', displayName: 'Fan' } }).redemption;
    await underWay;
    const missed = world.helix.addOfflineRedemption({ rewardId, user: { login: 'other', displayName: 'Other' } });

    const report = await world.redemptions!.reconcile();
    expect(report).toMatchObject({
      listed: 2, handled: 1,
      failures: [`redemption ${stuck.id}: its handler has not finished after 0.3 s (its outcome is recorded and sent when it does)`],
    });
    await world.helix.waitForRedemptionStatus(missed.id, 'FULFILLED', { timeoutMs: 5000 });

    // The handler never settles: the stop returning at all, after the configured 0.3 s, is the rule.
    await world.stop();
    expect(world.logs.find((entry) => entry.msg?.startsWith('stopping: 1 redemption(s) still under way'))).toMatchObject({
      redemptions: [stuck.id], msg: 'stopping: 1 redemption(s) still under way after 0.3 s: left for the next start, which runs their handlers again',
    });
    expect(world.helix.redemptions.find((r) => r.id === stuck.id)?.status).toBe('UNFULFILLED');

    // As after a crash during the effect: the handler runs again (attempt 2), now answered.
    await world.start();
    await world.settled();
    await world.helix.waitForRedemptionStatus(stuck.id, 'FULFILLED', { timeoutMs: 5000 });
    expect(await world.service.findRedemptionEntry(world.accountId, stuck.id)).toMatchObject({ state: 'status-sent', outcome: 'fulfill', attempts: 2 });
  });
});
