// The viewer who redeemed is signed in to the bundled service before the handler runs, as a chat
// line of theirs would sign them in (src/runtime/viewer-registrations.ts): a viewer who never chatted
// is a viewer for the plugin, and a renamed one is known by the new login. Real twurple against
// the Twitch fakes, the real host and store, a plugin whose handler names the viewer to the service.
import { afterEach, describe, expect, it } from 'vitest';
import { createPluginFolders } from '../host/plugin-folders.ts';
import type { PluginFolders } from '../host/plugin-folders.ts';
import { DEFAULT_REWARDS, openRedemptionWorld } from './redemption-world.ts';
import type { RedemptionWorld } from './redemption-world.ts';
import { SKINS_COUNT_PLUGIN } from '../support/skins-count-plugin.ts';


const worlds: RedemptionWorld[] = [];
const folders: PluginFolders[] = [];
afterEach(async () => {
  for (const world of worlds.splice(0)) await world.close();
  for (const folder of folders.splice(0)) folder.remove();
});

async function running(): Promise<RedemptionWorld> {
  const plugins = createPluginFolders();
  folders.push(plugins);
  plugins.add('skins-count', SKINS_COUNT_PLUGIN);
  const world = await openRedemptionWorld({
    pluginDirs: [plugins.dir],
    extraPlugins: { 'skins-count': {} },
    rewards: { ...DEFAULT_REWARDS, 'skins-count': { title: 'Count my skins', cost: 10 } },
  });
  worlds.push(world);
  await world.start();
  await world.settled();
  return world;
}

describe('the viewer who redeemed, signed in before the handler runs', () => {
  it('is a viewer for a handler that reads their skins, though they never chatted', async () => {
    const world = await running();
    const rewardId = await world.rewardId('skins-count');
    expect(await world.service.findViewer('newbie')).toBeNull();
    const { redemption } = world.helix.fireRedemption({ rewardId, user: { login: 'newbie', displayName: 'Newbie' } });

    await world.helix.waitForRedemptionStatus(redemption.id, 'FULFILLED');
    await expect.poll(() => world.said(), { timeout: 5000, interval: 5 }).toContain('@Newbie you hold 0 skins.');
    expect(await world.service.findViewer(redemption.user_id))
      .toMatchObject({ twitchUserId: redemption.user_id, twitchUsername: 'newbie', displayName: 'Newbie' });
  });

  it('is known by their new login after a rename, as a chat line would make them', async () => {
    const world = await running();
    const rewardId = await world.rewardId('skins-count');
    // Signed in under the old login (a chat line of theirs, or an earlier redemption).
    await world.service.registerViewer({ twitchUserId: '7007', login: 'oldname', displayName: 'OldName' });
    const { redemption } = world.helix.fireRedemption({ rewardId, user: { id: '7007', login: 'newname', displayName: 'NewName' } });

    await world.helix.waitForRedemptionStatus(redemption.id, 'FULFILLED');
    await expect.poll(() => world.said(), { timeout: 5000, interval: 5 }).toContain('@NewName you hold 0 skins.');
    expect(await world.service.findViewer('7007')).toMatchObject({ twitchUsername: 'newname', displayName: 'NewName' });
    expect(await world.service.findViewer('oldname')).toBeNull();
  });
});
