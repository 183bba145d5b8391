// No HTTP call to Twitch waits longer than twitch.httpTimeoutSeconds for an answer: twurple's token
// refresh and Helix calls (through the global fetch, bounded at the global dispatcher) and our own
// device flow and /validate calls (each with its own deadline). Against FakeHelix over a real
// socket, holding a request it accepted and never answering it: the call fails saying so, as a
// fault that may pass, and the next call works. Nothing here times how fast that is.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, setGlobalDispatcher } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { DeviceCodeFlowError, runDeviceCodeFlow } from '../../../src/adapters/twitch-auth/device-code-flow.ts';
import type { StoredTwitchToken } from '../../../src/adapters/twitch-auth/token-file.ts';
import { refreshStoredToken, TokenRefreshError } from '../../../src/adapters/twitch-auth/token-refresh.ts';
import { TwitchAuthError } from '../../../src/adapters/twitch-auth/twitch-auth-error.ts';
import { boundTwitchHttp, DEFAULT_TWITCH_HTTP_TIMEOUT_MS } from '../../../src/adapters/twitch-auth/twitch-http-timeout.ts';
import { validateToken } from '../../../src/adapters/twitch-auth/validate-token.ts';
import { FakeHelix } from '../../fakes/fake-helix.ts';
import { twurpleAgainstFakes } from '../../fakes/twurple-against-fakes.ts';

const BOUND_MS = 200;
const NO_ANSWER = 'Twitch did not answer within 0.2 s';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function fakeHelix(): Promise<FakeHelix> {
  const helix = await FakeHelix.start();
  cleanups.push(() => helix.close());
  return helix;
}

/** twurple against `helix`, every call bounded to BOUND_MS. */
async function boundedTwurple() {
  const helix = await fakeHelix();
  const twurple = twurpleAgainstFakes(helix, { login: 'somechannel' });
  cleanups.push(twurple.restoreEnv);
  boundTwitchHttp(BOUND_MS);
  cleanups.push(() => boundTwitchHttp(DEFAULT_TWITCH_HTTP_TIMEOUT_MS));
  const stored: StoredTwitchToken = {
    version: 1, clientId: twurple.clientId, userId: twurple.broadcaster.id, login: 'somechannel',
    accessToken: twurple.token.accessToken, refreshToken: twurple.token.refreshToken!, scope: twurple.token.scope,
    expiresIn: twurple.token.expiresIn, obtainmentTimestamp: twurple.token.obtainmentTimestamp,
  };
  return { helix, ...twurple, stored };
}

function refreshes(helix: FakeHelix): number {
  return helix.calls.filter((call) => call.path === '/auth/token').length;
}

describe('twurple\'s calls to Twitch (the global fetch)', () => {
  it('a token refresh Twitch takes and never answers fails after the bound, as a fault that may pass; the next one works', async () => {
    const { helix, stored, clientSecret } = await boundedTwurple();
    const held = helix.holdNext({ path: '/auth/token' });
    cleanups.push(() => held.release());

    const failure = refreshStoredToken(stored, clientSecret);
    await held.arrived;
    await expect(failure).rejects.toThrow(TokenRefreshError);
    await expect(failure).rejects.toMatchObject({ message: NO_ANSWER, refused: false });

    const refreshed = await refreshStoredToken(stored, clientSecret);
    expect(refreshed.accessToken).not.toBe(stored.accessToken);
    expect(refreshes(helix)).toBe(2);
  });

  it('a Helix call Twitch never answers fails after the bound, and twurple\'s own retry gets the answer', async () => {
    const { helix, apiClient, broadcaster } = await boundedTwurple();
    const held = helix.holdNext({ method: 'GET', path: '/channel_points/custom_rewards' });
    cleanups.push(() => held.release());

    const rewards = await apiClient.channelPoints.getCustomRewards(broadcaster.id);
    expect(rewards).toEqual([]);
    expect(helix.calls.filter((call) => call.path === '/channel_points/custom_rewards').map((call) => call.status)).toEqual([200, 200]);
  });

  it('stays bounded when something else replaced the global dispatcher meanwhile: the next boundTwitchHttp wraps the new one', async () => {
    const { helix, stored, clientSecret } = await boundedTwurple();
    setGlobalDispatcher(new Agent());
    boundTwitchHttp(BOUND_MS);
    const held = helix.holdNext({ path: '/auth/token' });
    cleanups.push(() => held.release());
    await expect(refreshStoredToken(stored, clientSecret)).rejects.toMatchObject({ message: NO_ANSWER, refused: false });
  });

  it('leaves requests elsewhere alone: an answer that comes after the bound still arrives', async () => {
    await boundedTwurple();
    // Well past the bound: undici looks at its timeouts about every half second.
    const server = createServer((_request, response) => {
      setTimeout(() => response.end('late but fine'), 1500);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const { port } = server.address() as AddressInfo;
    const response = await fetch(`http://127.0.0.1:${port}/`);
    expect(await response.text()).toBe('late but fine');
  });
});

describe('our own calls to id.twitch.tv (`chatskin twitch auth`)', () => {
  it('a device flow request Twitch never answers ends the command after the bound, saying so', async () => {
    const helix = await fakeHelix();
    const held = helix.holdNext({ path: '/auth/device' });
    cleanups.push(() => held.release());
    const flow = runDeviceCodeFlow({
      clientId: 'x', scopes: [], oauthUrl: `${helix.baseUrl}/auth`, onCode: () => {}, sleep: async () => {}, timeoutMs: BOUND_MS,
    });
    await expect(flow).rejects.toThrow(DeviceCodeFlowError);
    await expect(flow).rejects.toThrow(`${NO_ANSWER} (POST ${helix.baseUrl}/auth/device). Run the command again.`);
  });

  it('a token check (/validate) Twitch never answers ends the command after the bound, saying so', async () => {
    const helix = await fakeHelix();
    const held = helix.holdNext({ path: '/auth/validate' });
    cleanups.push(() => held.release());
    const check = validateToken(`${helix.baseUrl}/auth`, 'sometoken', BOUND_MS);
    await expect(check).rejects.toThrow(TwitchAuthError);
    await expect(check).rejects.toThrow(`${NO_ANSWER} when asked whose the new token is. Run the command again.`);
  });
});
