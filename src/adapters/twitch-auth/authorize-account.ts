// What `chatskin twitch auth` does for any account (the broadcaster's, or with --bot the bot's):
// runs the device code flow (no browser on the host, no redirect URL) asking for the scopes
// needed, checks whose token came back and that it carries them, and saves it to the token file
// (0600), where the host picks it up (a running host too: it looks at the file every few seconds).
import type { Config, TwitchConfig } from '../../config/config-schema.ts';
import { redemptionSettings } from '../../config/config-schema.ts';
import { runDeviceCodeFlow } from './device-code-flow.ts';
import type { DeviceCodeFlowOptions } from './device-code-flow.ts';
import { lackingScopes } from './scope-needs.ts';
import type { ScopeNeed } from './scope-needs.ts';
import { writeTokenFile } from './token-file.ts';
import { TwitchAuthError } from './twitch-auth-error.ts';
import { applyTwurpleMockPort, oauthBaseUrl } from './twitch-endpoints.ts';
import { validateToken } from './validate-token.ts';

/** What every `chatskin twitch auth` takes. */
export interface TwitchAuthOptions {
  config: Config;
  /** One line for the person at the terminal. */
  print(line: string): void;
  signal?: AbortSignal;
  /** For tests: the wait between polls. */
  sleep?: DeviceCodeFlowOptions['sleep'];
}

export interface AuthorizeAccountOptions extends Omit<TwitchAuthOptions, 'config'> {
  twitch: TwitchConfig;
  /** The account the token must be of (lower case). */
  login: string;
  scopeNeeds: readonly ScopeNeed[];
  /** Why a token approved as `approvedAs` will not do, and what to do instead. */
  wrongAccount(approvedAs: string): string;
  tokenFile: string;
}

export interface AuthorizedAccount {
  login: string;
  userId: string;
  scopes: string[];
  tokenFile: string;
}

/** The config's twitch section, which authorizing needs switched on. */
export function enabledTwitch(config: Config): TwitchConfig {
  if (!config.twitch.enabled) {
    throw new TwitchAuthError(
      // `chatskin twitch auth` says more (which of the two, in which file) before it gets here.
      'The config has no enabled twitch section: set twitch.enabled: true, with twitch.clientId and twitch.clientSecret'
      + ' (see docs/twitch-setup.md), then run this again.',
    );
  }
  return config.twitch;
}

export async function authorizeAccount(options: AuthorizeAccountOptions): Promise<AuthorizedAccount> {
  const { twitch, login, print } = options;
  applyTwurpleMockPort(twitch.helix.mockServerPort);
  const oauthUrl = oauthBaseUrl(redemptionSettings(twitch).oauth.url, twitch.helix.mockServerPort);
  const scopes = options.scopeNeeds.map((need) => need.scope);
  const timeoutMs = twitch.httpTimeoutSeconds * 1000;

  print('It asks for these permissions:');
  for (const need of options.scopeNeeds) print(`  ${need.scope}: ${need.why}`);

  const token = await runDeviceCodeFlow({
    clientId: twitch.clientId,
    clientSecret: twitch.clientSecret,
    scopes,
    oauthUrl,
    timeoutMs,
    onCode: (code) => {
      print('');
      print(`Signed in to Twitch as "${login}", open ${code.verificationUri}`);
      print(`and enter the code ${code.userCode} (valid ${Math.round(code.expiresInSeconds / 60)} minutes). Waiting...`);
    },
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.sleep ? { sleep: options.sleep } : {}),
  }).catch((error: unknown) => {
    throw error instanceof Error && error.name === 'DeviceCodeFlowError' ? new TwitchAuthError(error.message, { cause: error }) : error;
  });

  const validation = await validateToken(oauthUrl, token.accessToken, timeoutMs);
  if (validation.userId === null || validation.login === null) {
    throw new TwitchAuthError('Twitch returned an app token, not a user token. Run the command again.');
  }
  if (validation.login.toLowerCase() !== login) throw new TwitchAuthError(options.wrongAccount(validation.login));
  const granted = token.scope.length > 0 ? token.scope : validation.scopes;
  const missing = lackingScopes(granted, scopes);
  if (missing.length > 0) {
    throw new TwitchAuthError(`The token lacks ${missing.join(', ')}. Run the command again and approve every permission.`);
  }
  await writeTokenFile(options.tokenFile, {
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
  return { login: validation.login.toLowerCase(), userId: validation.userId, scopes: granted, tokenFile: options.tokenFile };
}
