// A token of another broadcaster saved to the token file while the host runs is not taken over
// (docs/redemptions.md: only the same application's and broadcaster's, else a warning and the old
// token stays). Real twurple, host, skin-shop and store against the Twitch fakes.
import { afterEach, describe, expect, it } from 'vitest';
import { writeTokenFile } from '../../src/adapters/twitch-auth/token-file.ts';
import { LEVEL } from '../host/log-capture.ts';
import { CLIENT_ID, SCOPES, openRedemptionWorld } from '../redemptions/redemption-world.ts';
import type { RedemptionWorld } from '../redemptions/redemption-world.ts';

const worlds: RedemptionWorld[] = [];
afterEach(async () => {
  for (const world of worlds.splice(0)) await world.close();
});

describe('a running host\'s token file', () => {
  it('holding a token of another broadcaster: not taken over, a warning, the token in use stays', async () => {
    const world = await openRedemptionWorld({ tokenFileCheckMs: 20 });
    worlds.push(world);
    await world.start();
    await world.settled();
    const other = world.helix.addUser({ login: 'otherchannel' });
    const token = world.helix.issueUserToken({ clientId: CLIENT_ID, userId: other.id, scopes: SCOPES });
    await writeTokenFile(world.tokenFile, {
      version: 1, clientId: CLIENT_ID, userId: other.id, login: 'otherchannel', accessToken: token.accessToken,
      refreshToken: token.refreshToken!, scope: token.scope, expiresIn: token.expiresIn, obtainmentTimestamp: token.obtainmentTimestamp,
    });
    const warning = 'the token file holds a new token, but it belongs to "otherchannel", not the broadcaster "somechannel"; the token in use stays';
    await expect.poll(() => world.logs.filter((l) => l['component'] === 'twitch-auth' && l.level === LEVEL.warn).map((l) => String(l.msg)),
      { timeout: 5000, interval: 5 }).toEqual([warning]);
    expect(world.redemptions!.status().auth).toMatchObject({ state: 'ok', reloads: 0 });

    const mark = world.helix.calls.length;
    await world.redemptions!.reconcile();
    expect(world.helix.calls.slice(mark).map((c) => c.accessToken)).not.toContain(token.accessToken);
  });
});
