// `chatskin twitch auth` against a fake id.twitch.tv device flow that issues FakeHelix tokens: the
// token saved (0600) is one the host then runs with; the wrong account, a refusal, slow_down and
// an expired code are handled with clear messages.
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { authorizeBroadcaster, TwitchAuthError } from '../../../src/adapters/redemptions/authorize-broadcaster.ts';
import { DeviceCodeFlowError, runDeviceCodeFlow } from '../../../src/adapters/twitch-auth/device-code-flow.ts';
import { readTokenFile } from '../../../src/adapters/twitch-auth/token-file.ts';
import { parseConfig } from '../../../src/config/load-config.ts';
import type { Config } from '../../../src/config/config-schema.ts';
import { FakeHelix } from '../../fakes/fake-helix.ts';
import { FakeDeviceAuthorization } from '../../fakes/fake-device-authorization.ts';
import type { FakeDeviceOptions } from '../../fakes/fake-device-authorization.ts';

const CLIENT_ID = 'chatskinclientid';
const CLIENT_SECRET = 'chatskinclientsecret';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Setup {
  helix: FakeHelix;
  device: FakeDeviceAuthorization;
  tokenFile: string;
  config: Config;
  lines: string[];
  /** Every wait the flow asked for, in ms. */
  sleeps: number[];
  /** The user code the flow printed, once it did. */
  userCode(): string;
}

async function setUp(options: FakeDeviceOptions = {}): Promise<Setup> {
  const previous = process.env['TWURPLE_MOCK_API_PORT'];
  cleanups.push(() => {
    if (previous === undefined) delete process.env['TWURPLE_MOCK_API_PORT'];
    else process.env['TWURPLE_MOCK_API_PORT'] = previous;
  });
  const helix = await FakeHelix.start();
  cleanups.push(() => helix.close());
  helix.registerClient(CLIENT_ID, CLIENT_SECRET);
  const device = await FakeDeviceAuthorization.start(helix, options);
  cleanups.push(() => device.close());
  const dir = mkdtempSync(path.join(tmpdir(), 'chatskin-auth-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const tokenFile = path.join(dir, 'secrets', 'broadcaster.json');
  const config = parseConfig({
    channel: { login: 'SomeChannel' },
    twitch: {
      clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, bot: { login: 'bot', token: 'oauth:x' },
      helix: { mockServerPort: helix.port }, oauth: { url: device.oauthUrl }, broadcaster: { tokenFile },
    },
  });
  const lines: string[] = [];
  const setup: Setup = {
    helix, device, tokenFile, config, lines, sleeps: [],
    userCode() {
      const match = lines.map((line) => /enter the code (\w+)/.exec(line)).find(Boolean);
      if (!match) throw new Error(`no code printed yet: ${lines.join('\n')}`);
      return match[1]!;
    },
  };
  return setup;
}

/** Runs the command; `onPoll(n)` acts as the person between polls (n = 1 before the first poll). */
function authorize(setup: Setup, onPoll: (n: number) => void) {
  return authorizeBroadcaster({
    config: setup.config,
    print: (line) => setup.lines.push(line),
    sleep: async (ms) => {
      setup.sleeps.push(ms);
      onPoll(setup.sleeps.length);
    },
  });
}

describe('chatskin twitch auth (device code flow)', () => {
  it('shows where to enter the code, waits while pending, and saves the approved token (0600)', async () => {
    const setup = await setUp();
    const result = await authorize(setup, (n) => {
      if (n === 3) setup.device.approve(setup.userCode(), 'somechannel');
    });

    expect(result).toMatchObject({ login: 'somechannel', scopes: ['channel:read:redemptions', 'channel:manage:redemptions'], tokenFile: setup.tokenFile });
    expect(setup.lines).toContain('  channel:read:redemptions: receive redemptions live (EventSub) and list the UNFULFILLED ones missed while the host was offline');
    expect(setup.lines).toContain('  channel:manage:redemptions: create and update the rewards in the config, and mark their redemptions FULFILLED or CANCELED (refunded)');
    expect(setup.lines.some((line) => line.includes(`https://www.twitch.tv/activate?device-code=${setup.userCode()}`))).toBe(true);
    expect(setup.sleeps).toEqual([5000, 5000, 5000]);

    const [started, ...polls] = setup.device.requests.filter((r) => r.path !== '/oauth2/validate');
    expect(started).toEqual({ path: '/oauth2/device', form: { client_id: CLIENT_ID, scopes: 'channel:read:redemptions channel:manage:redemptions' } });
    expect(polls).toHaveLength(3);
    expect(polls[0]?.form).toMatchObject({ client_id: CLIENT_ID, client_secret: CLIENT_SECRET, grant_type: 'urn:ietf:params:oauth:grant-type:device_code' });

    const saved = await readTokenFile(setup.tokenFile);
    expect(saved).toMatchObject({ version: 1, clientId: CLIENT_ID, login: 'somechannel', userId: result.userId, scope: result.scopes });
    expect(setup.helix.tokens.find((t) => t.accessToken === saved?.accessToken)).toMatchObject({ userId: result.userId, clientId: CLIENT_ID });
    expect(statSync(setup.tokenFile).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(setup.tokenFile)).mode & 0o777).toBe(0o700);
  });

  it('refuses a token approved by another account than channel.login, and saves nothing', async () => {
    const setup = await setUp();
    const failure = authorize(setup, () => setup.device.approve(setup.userCode(), 'somebodyelse'));
    await expect(failure).rejects.toThrow(TwitchAuthError);
    await expect(failure).rejects.toThrow('You approved the code as "somebodyelse", but the config\'s channel.login is "somechannel"');
    expect(existsSync(setup.tokenFile)).toBe(false);
  });

  it('says so when the authorization is declined', async () => {
    const setup = await setUp();
    await expect(authorize(setup, () => setup.device.deny(setup.userCode()))).rejects.toThrow('The authorization was declined on Twitch.');
  });

  it('waits 5 s longer after slow_down', async () => {
    const setup = await setUp({ slowDownOnce: true });
    await authorize(setup, (n) => {
      if (n === 2) setup.device.approve(setup.userCode(), 'somechannel');
    });
    expect(setup.sleeps).toEqual([5000, 10_000]);
  });

  it('needs an enabled twitch section', async () => {
    const failure = authorizeBroadcaster({ config: parseConfig({}), print: () => {} });
    await expect(failure).rejects.toThrow(/no enabled twitch section.*docs\/twitch-setup\.md/);
  });

  it('gives up when the code expires before it is approved', async () => {
    const helix = await FakeHelix.start();
    cleanups.push(() => helix.close());
    helix.registerClient(CLIENT_ID, CLIENT_SECRET);
    const device = await FakeDeviceAuthorization.start(helix, { expiresIn: 60 });
    cleanups.push(() => device.close());
    let now = 1_000_000;
    const flow = runDeviceCodeFlow({
      clientId: CLIENT_ID, scopes: ['channel:read:redemptions'], oauthUrl: device.oauthUrl, onCode: () => {},
      now: () => now, sleep: async (ms) => { now += ms * 20; },
    });
    await expect(flow).rejects.toThrow(DeviceCodeFlowError);
    await expect(flow).rejects.toThrow('The code expired before it was approved. Run the command again.');
  });

  it('explains a refused start', async () => {
    // FakeHelix's id.twitch.tv has no device flow: it answers 404, as an OAuth server without it would.
    const helix = await FakeHelix.start();
    cleanups.push(() => helix.close());
    const flow = runDeviceCodeFlow({ clientId: 'x', scopes: [], oauthUrl: `${helix.baseUrl}/auth`, onCode: () => {}, sleep: async () => {} });
    await expect(flow).rejects.toThrow(
      'Twitch refused to start the device flow (404: No route for POST /oauth2/device). Check twitch.clientId, and that the application on dev.twitch.tv may use the device flow.',
    );
  });
});
