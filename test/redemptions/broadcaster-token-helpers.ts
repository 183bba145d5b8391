// Saving a broadcaster token the way `chatskin twitch auth` does, for tests of a host that picks a
// token up while it runs: directly (saveBroadcasterToken), or through the real CLI in a child
// process against the device-flow fake (runTwitchAuth).
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { writeBroadcasterToken } from '../../src/adapters/redemptions/token-file.ts';
import { FakeDeviceAuthorization } from '../adapters/redemptions/fake-device-authorization.ts';
import { MAIN } from '../cli/cli-process.ts';
import { CHANNEL, CLIENT_ID, CLIENT_SECRET, SCOPES } from './redemption-world.ts';
import type { RedemptionWorld } from './redemption-world.ts';

/** A new token of the broadcaster, issued by Twitch (the fake), saved where the host looks; its access token. */
export async function saveBroadcasterToken(world: RedemptionWorld, scopes: string[] = SCOPES): Promise<string> {
  const token = world.helix.issueUserToken({ clientId: CLIENT_ID, userId: world.broadcaster.id, scopes });
  await writeBroadcasterToken(world.tokenFile, {
    version: 1, clientId: CLIENT_ID, userId: world.broadcaster.id, login: CHANNEL, accessToken: token.accessToken,
    refreshToken: token.refreshToken!, scope: token.scope, expiresIn: token.expiresIn, obtainmentTimestamp: token.obtainmentTimestamp,
  });
  return token.accessToken;
}

/** `chatskin twitch auth` in a child process, approved on the (fake) twitch.tv/activate as the broadcaster. */
export async function runTwitchAuth(world: RedemptionWorld): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const device = await FakeDeviceAuthorization.start(world.helix, { interval: 0 });
  try {
    const config = path.join(world.dir, 'auth-config.yaml');
    writeFileSync(config, JSON.stringify({
      channel: { login: CHANNEL },
      twitch: {
        clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, bot: { login: 'chatskinbot', token: 'oauth:unused' },
        helix: { mockServerPort: world.helix.port }, oauth: { url: device.oauthUrl }, broadcaster: { tokenFile: world.tokenFile },
      },
    }));
    const child = spawn(process.execPath, ['--no-warnings', MAIN, 'twitch', 'auth', '--config', config], { stdio: ['ignore', 'pipe', 'pipe'] });
    // A guard against hanging the suite, not a speed check.
    const guard = setTimeout(() => child.kill('SIGKILL'), 25_000);
    let stdout = '';
    let stderr = '';
    let approved = false;
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const code = /enter the code (\w+)/.exec(stdout)?.[1];
      if (code && !approved) {
        approved = true;
        device.approve(code, CHANNEL);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', (exitCode) => resolve(exitCode)));
    clearTimeout(guard);
    return { code, stdout, stderr };
  } finally {
    await device.close();
  }
}
