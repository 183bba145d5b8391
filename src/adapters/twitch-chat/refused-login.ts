// A login Twitch refused. tmi.js reports it only as the reason of a disconnect; with the same
// credentials Twitch would refuse every further attempt too, so the chat gives up instead of
// retrying, and says which settings to check.
import type { TwitchChatIdentity } from './twitch-chat-options.ts';

/** tmi.js reasons after which Twitch will refuse every further attempt too. */
const REFUSED_LOGIN = ['Login authentication failed', 'Login unsuccessful', 'Error logging in', 'Improperly formatted auth', 'Invalid NICK'];

export function isRefusedLogin(reason: string): boolean {
  return REFUSED_LOGIN.some((text) => reason.includes(text));
}

export function refusedLoginMessage(reason: string, identity: TwitchChatIdentity | null): string {
  const who = identity === null ? 'the anonymous login' : `the bot's login as ${identity.login}`;
  return `Twitch refused ${who} (${reason}). Check twitch.bot.login and twitch.bot.token: a user access token `
    + 'of that account with the chat:read and chat:edit scopes that has not expired or been revoked. Twitch chat stays off until restart.';
}
