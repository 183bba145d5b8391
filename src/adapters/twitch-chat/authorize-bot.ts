// `chatskin twitch auth --bot`: obtains the bot account's chat token (chat:read, chat:edit;
// authorize-account.ts does the device flow and the checks) and saves it to twitch.bot.tokenFile,
// where the Twitch chat takes it from and refreshes it (bot-token-file.ts).
import { authorizeAccount, enabledTwitch } from '../twitch-auth/authorize-account.ts';
import type { AuthorizedAccount, TwitchAuthOptions } from '../twitch-auth/authorize-account.ts';
import { TwitchAuthError } from '../twitch-auth/twitch-auth-error.ts';
import { BOT_SCOPE_NEEDS } from './bot-scopes.ts';

export async function authorizeBot(options: TwitchAuthOptions): Promise<AuthorizedAccount> {
  const { print } = options;
  const twitch = enabledTwitch(options.config);
  const { bot } = twitch;
  if (!('tokenFile' in bot)) {
    throw new TwitchAuthError(
      'twitch.bot.tokenFile is not set, so there is nowhere to save the bot\'s token. In the config, under twitch.bot, '
      + 'replace token with tokenFile: ./data/twitch-bot-token.json (see docs/chat.md), then run this again.',
    );
  }
  print(`Authorizing chatskin to chat as the bot account "${bot.login}".`);
  const authorized = await authorizeAccount({
    ...options,
    twitch,
    login: bot.login,
    scopeNeeds: BOT_SCOPE_NEEDS,
    wrongAccount: (approvedAs) => `You approved the code as "${approvedAs}", but the config's twitch.bot.login is "${bot.login}". `
      + `The bot chats with its own account's token: sign in to Twitch as "${bot.login}" (a private browser window keeps you `
      + 'signed in as yourself elsewhere) and run the command again.',
    tokenFile: bot.tokenFile,
  });
  print(`Saved the token of "${authorized.login}" to ${bot.tokenFile} (readable by you only).`);
  print('Start chatskin to chat as the bot; a running chatskin uses the new token from its next login, '
    + 'and one whose chat stopped for a refused token connects again within seconds.');
  return authorized;
}
