// The error every refusal of the Twitch chat comes as (bad options, a refused login, a line that
// could not be sent), so callers can tell the chat's own refusals from any other failure.

export class TwitchChatError extends Error {
  override name = 'TwitchChatError';
}
