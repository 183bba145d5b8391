// `chatskin twitch auth` (with --bot or not) in a child process, the way a person runs it: the
// device flow at a fake id.twitch.tv that issues FakeHelix's tokens, approved on the (fake)
// twitch.tv/activate as `approveAs` once the code is printed.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { FakeDeviceAuthorization } from '../fakes/fake-device-authorization.ts';
import type { FakeHelix } from '../fakes/fake-helix.ts';
import { MAIN } from './cli-process.ts';
import type { CliResult } from './cli-process.ts';

export interface TwitchAuthRun {
  helix: FakeHelix;
  /** Where the config file is written. */
  dir: string;
  /** channel.login. */
  channel: string;
  /** The twitch section; helix.mockServerPort and oauth.url are added. */
  twitch: Record<string, unknown>;
  /** After `twitch auth`, e.g. ['--bot']. */
  args?: string[];
  approveAs: string;
}

export async function runTwitchAuthCli(run: TwitchAuthRun): Promise<CliResult> {
  const device = await FakeDeviceAuthorization.start(run.helix, { interval: 0 });
  try {
    const config = path.join(run.dir, 'auth-config.yaml');
    writeFileSync(config, JSON.stringify({
      channel: { login: run.channel },
      twitch: { ...run.twitch, helix: { mockServerPort: run.helix.port }, oauth: { url: device.oauthUrl } },
    }));
    const child = spawn(process.execPath, ['--no-warnings', MAIN, 'twitch', 'auth', ...(run.args ?? []), '--config', config], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
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
        device.approve(code, run.approveAs);
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
