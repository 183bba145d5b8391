// The error every refusal of the Twitch chat comes as (bad options, a refused login, a line that
// could not be sent), so callers can tell the chat's own refusals from any other failure.

export class TwitchChatError extends Error {
  override name = 'TwitchChatError';
}

/** The bot's token could not be had or renewed; the message says why and what to do. */
export class ChatTokenError extends TwitchChatError {
  override name = 'ChatTokenError';
  /** Only a new token saved to the file helps. False: a later try may work (the network, Twitch's 5xx). */
  readonly final: boolean;
  constructor(message: string, final: boolean) {
    super(message);
    this.final = final;
  }
}
