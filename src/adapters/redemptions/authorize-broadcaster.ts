// `chatskin twitch auth`: obtains the broadcaster's token with the scopes redemptions need
// (authorize-account.ts does the device flow and the checks) and saves it to
// twitch.broadcaster.tokenFile, where the redemptions pick it up.
import { redemptionSettings } from '../../config/config-schema.ts';
import { authorizeAccount, enabledTwitch } from '../twitch-auth/authorize-account.ts';
import type { AuthorizedAccount, TwitchAuthOptions } from '../twitch-auth/authorize-account.ts';
import { BROADCASTER_SCOPE_NEEDS } from './scopes.ts';

export { TwitchAuthError } from '../twitch-auth/twitch-auth-error.ts';

export type AuthorizeBroadcasterOptions = TwitchAuthOptions;
export type AuthorizedBroadcaster = AuthorizedAccount;

export async function authorizeBroadcaster(options: AuthorizeBroadcasterOptions): Promise<AuthorizedBroadcaster> {
  const { config, print } = options;
  const twitch = enabledTwitch(config);
  const tokenFile = redemptionSettings(twitch).broadcaster.tokenFile;
  const channel = config.channel.login;

  print(`Authorizing chatskin to manage channel-point rewards of the Twitch channel "${channel}".`);
  const authorized = await authorizeAccount({
    ...options,
    twitch,
    login: channel,
    scopeNeeds: BROADCASTER_SCOPE_NEEDS,
    wrongAccount: (approvedAs) => `You approved the code as "${approvedAs}", but the config's channel.login is "${channel}". `
      + `Rewards can only be managed with the channel owner's token: sign in to Twitch as "${channel}" and run the command again.`,
    tokenFile,
  });
  print(`Saved the token of "${authorized.login}" to ${tokenFile} (readable by you only).`);
  print('Start chatskin to create the rewards and handle redemptions; a chatskin already handling them takes the new token over within seconds.');
  return authorized;
}
