// `chatskin twitch auth`: obtains the broadcaster's token with the scopes redemptions need,
// through the device code flow (no browser on the host, no redirect URL), checks whose token it
// is, and saves it to twitch.broadcaster.tokenFile (0600), where the host picks it up (a running
// host too: it looks at the file every few seconds).
import type { Config } from '../../config/config-schema.ts';
import { redemptionSettings } from '../../config/config-schema.ts';
import { runDeviceCodeFlow } from './device-code-flow.ts';
import type { DeviceCodeFlowOptions } from './device-code-flow.ts';
import { BROADCASTER_SCOPE_NEEDS, BROADCASTER_SCOPES, missingScopes } from './scopes.ts';
import { writeBroadcasterToken } from './token-file.ts';
import { applyTwurpleMockPort, oauthBaseUrl } from './twitch-endpoints.ts';

export interface AuthorizeBroadcasterOptions {
  config: Config;
  /** One line for the person at the terminal. */
  print(line: string): void;
  signal?: AbortSignal;
  /** For tests: the wait between polls. */
  sleep?: DeviceCodeFlowOptions['sleep'];
}

export interface AuthorizedBroadcaster {
  login: string;
  userId: string;
  scopes: string[];
  tokenFile: string;
}

/** Why authorizing failed, worded for the terminal. */
export class TwitchAuthError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TwitchAuthError';
  }
}

interface TokenValidation {
  clientId: string;
  login: string | null;
  userId: string | null;
  scopes: string[];
}

/** GET {oauthUrl}/validate: whose token this is and what it may do. */
export async function validateToken(oauthUrl: string, accessToken: string): Promise<TokenValidation> {
  const response = await fetch(`${oauthUrl}/validate`, { headers: { Authorization: `OAuth ${accessToken}` } });
  const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (response.status !== 200) throw new TwitchAuthError(`Twitch did not accept the new token (${response.status}: ${String(body['message'] ?? '')}).`);
  return {
    clientId: String(body['client_id'] ?? ''),
    login: typeof body['login'] === 'string' ? body['login'] : null,
    userId: typeof body['user_id'] === 'string' ? body['user_id'] : null,
    scopes: Array.isArray(body['scopes']) ? body['scopes'].map(String) : [],
  };
}

export async function authorizeBroadcaster(options: AuthorizeBroadcasterOptions): Promise<AuthorizedBroadcaster> {
  const { config, print } = options;
  const twitch = config.twitch;
  if (!twitch.enabled) {
    throw new TwitchAuthError(
      'The config has no enabled twitch section. Add twitch.clientId and twitch.clientSecret (see docs/twitch-setup.md), then run this again.',
    );
  }
  const settings = redemptionSettings(twitch);
  applyTwurpleMockPort(twitch.helix.mockServerPort);
  const oauthUrl = oauthBaseUrl(settings.oauth.url, twitch.helix.mockServerPort);
  const channel = config.channel.login;

  print(`Authorizing chatskin to manage channel-point rewards of the Twitch channel "${channel}".`);
  print('It asks for these permissions:');
  for (const need of BROADCASTER_SCOPE_NEEDS) print(`  ${need.scope}: ${need.why}`);

  const token = await runDeviceCodeFlow({
    clientId: twitch.clientId,
    clientSecret: twitch.clientSecret,
    scopes: BROADCASTER_SCOPES,
    oauthUrl,
    onCode: (code) => {
      print('');
      print(`Signed in to Twitch as "${channel}", open ${code.verificationUri}`);
      print(`and enter the code ${code.userCode} (valid ${Math.round(code.expiresInSeconds / 60)} minutes). Waiting...`);
    },
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.sleep ? { sleep: options.sleep } : {}),
  }).catch((error: unknown) => {
    throw error instanceof Error && error.name === 'DeviceCodeFlowError' ? new TwitchAuthError(error.message, { cause: error }) : error;
  });

  const validation = await validateToken(oauthUrl, token.accessToken);
  if (validation.userId === null || validation.login === null) {
    throw new TwitchAuthError('Twitch returned an app token, not a user token. Run the command again.');
  }
  if (validation.login.toLowerCase() !== channel) {
    throw new TwitchAuthError(
      `You approved the code as "${validation.login}", but the config's channel.login is "${channel}". `
      + `Rewards can only be managed with the channel owner's token: sign in to Twitch as "${channel}" and run the command again.`,
    );
  }
  const granted = token.scope.length > 0 ? token.scope : validation.scopes;
  const missing = missingScopes(granted);
  if (missing.length > 0) {
    throw new TwitchAuthError(`The token lacks ${missing.join(', ')}. Run the command again and approve every permission.`);
  }
  await writeBroadcasterToken(settings.broadcaster.tokenFile, {
    version: 1,
    clientId: twitch.clientId,
    userId: validation.userId,
    login: validation.login.toLowerCase(),
    accessToken: token.accessToken,
    refreshToken: token.refreshToken!,
    scope: granted,
    expiresIn: token.expiresIn,
    obtainmentTimestamp: token.obtainmentTimestamp,
  });
  print(`Saved the token of "${validation.login}" to ${settings.broadcaster.tokenFile} (readable by you only).`);
  print('Start chatskin to create the rewards and handle redemptions; a chatskin already handling them takes the new token over within seconds.');
  return { login: validation.login.toLowerCase(), userId: validation.userId, scopes: granted, tokenFile: settings.broadcaster.tokenFile };
}
