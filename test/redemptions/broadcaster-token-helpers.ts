// Saving a broadcaster token the way `chatskin twitch auth` does, for tests of a host that picks a
// token up while it runs: directly (saveBroadcasterToken), or through the real CLI in a child
// process against the device-flow fake (runTwitchAuth).
import { writeTokenFile } from '../../src/adapters/twitch-auth/token-file.ts';
import type { CliResult } from '../cli/cli-process.ts';
import { runTwitchAuthCli } from '../cli/twitch-auth-process.ts';
import { CHANNEL, CLIENT_ID, CLIENT_SECRET, SCOPES } from './redemption-world.ts';
import type { RedemptionWorld } from './redemption-world.ts';

/** A new token of the broadcaster, issued by Twitch (the fake), saved where the host looks; its access token. */
export async function saveBroadcasterToken(world: RedemptionWorld, scopes: string[] = SCOPES): Promise<string> {
  const token = world.helix.issueUserToken({ clientId: CLIENT_ID, userId: world.broadcaster.id, scopes });
  await writeTokenFile(world.tokenFile, {
    version: 1, clientId: CLIENT_ID, userId: world.broadcaster.id, login: CHANNEL, accessToken: token.accessToken,
    refreshToken: token.refreshToken!, scope: token.scope, expiresIn: token.expiresIn, obtainmentTimestamp: token.obtainmentTimestamp,
  });
  return token.accessToken;
}

/** `chatskin twitch auth` in a child process, approved on the (fake) twitch.tv/activate as the broadcaster. */
export function runTwitchAuth(world: RedemptionWorld): Promise<CliResult> {
  return runTwitchAuthCli({
    helix: world.helix,
    dir: world.dir,
    channel: CHANNEL,
    twitch: { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, bot: { login: 'chatskinbot', token: 'oauth:unused' }, broadcaster: { tokenFile: world.tokenFile } },
    approveAs: CHANNEL,
  });
}
