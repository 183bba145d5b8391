// A login Twitch refused. tmi.js reports it only as the reason of a disconnect. With a fixed token
// Twitch would refuse every further attempt too, so the chat gives up instead of retrying, and
// says which settings to check. A token file's token is renewed first (bot-token-file.ts); only
// when that cannot be done does the chat give up, saying to authorize the bot again, and it
// takes up a new token saved to the file.
import type { TwitchChatIdentity } from './twitch-chat-options.ts';

/** tmi.js reasons after which Twitch will refuse every further attempt with the same token too. */
const REFUSED_LOGIN = ['Login authentication failed', 'Login unsuccessful', 'Error logging in', 'Improperly formatted auth', 'Invalid NICK'];

/** What to do when no token of twitch.bot.tokenFile can log in; meanwhile the chat looks at the file. */
export const REAUTHORIZE_BOT_HINT = 'run `chatskin twitch auth --bot`: the running chatskin picks the new token up from twitch.bot.tokenFile '
  + 'within seconds and connects the chat again (no restart needed)';

export function isRefusedLogin(reason: string): boolean {
  return REFUSED_LOGIN.some((text) => reason.includes(text));
}

/** A fixed token (or the anonymous login) refused: final until a restart. */
export function refusedLoginMessage(reason: string, identity: TwitchChatIdentity | null): string {
  const who = identity === null ? 'the anonymous login' : `the bot's login as ${identity.login}`;
  return `Twitch refused ${who} (${reason}). Check twitch.bot.login and twitch.bot.token: a user access token `
    + 'of that account with the chat:read and chat:edit scopes that has not expired or been revoked. Twitch chat stays off until restart.';
}

/** A token file's token refused, and renewing it failed for good (`why` says what to do). */
export function unrenewableLoginMessage(reason: string, login: string, why: string): string {
  return `Twitch refused the bot's login as ${login} (${reason}) and its token could not be renewed: ${why}`;
}

/** A token just renewed (refreshed, or new in the file) refused too: renewing once more would not help. */
export function refusedRenewedLoginMessage(reason: string, login: string): string {
  return `Twitch refused the bot's login as ${login} (${reason}) again, with a token just renewed: `
    + `the account may not chat with it; ${REAUTHORIZE_BOT_HINT}`;
}

/** The regular check found the token no longer valid, and renewing it failed for good (`why` says what to do). */
export function revokedTokenMessage(why: string): string {
  return `Twitch no longer accepts the bot's token (found by its hourly check at id.twitch.tv/oauth2/validate) and it could not be renewed: ${why}`;
}

/** No token to log in with (no token file yet, or none that can be used). */
export function noLoginTokenMessage(why: string): string {
  return `Twitch chat cannot log in: ${why}`;
}
