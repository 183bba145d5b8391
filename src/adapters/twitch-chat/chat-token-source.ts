// Where the chat's login token comes from: asked before every (re)connect. A fixed
// twitch.bot.token never changes, so Twitch refusing it is final; a token file's can be renewed
// (bot-token-file.ts).
import type { Logger } from 'pino';
import { createBotTokenFile } from './bot-token-file.ts';
import { ChatTokenError } from './twitch-chat-error.ts';
import type { TwitchChatIdentity } from './twitch-chat-options.ts';

/** How a refused token was replaced: a newer one saved to the file, or Twitch refreshed it. */
export type TokenRenewal = 'from-file' | 'refreshed';

export interface ChatTokenSource {
  /** False: a refused login is final (a fixed token). */
  readonly renewable: boolean;
  /** The token to log in with now (no "oauth:"); rejects with a ChatTokenError saying what to do when there is none. */
  current(): Promise<string>;
  /** Twitch refused `refused`: replaces it. Rejects with a ChatTokenError, `final` when only a new authorization helps. */
  renew(refused: string): Promise<TokenRenewal>;
  /** How often validate() is due while the chat is connected; null: never (a fixed token). */
  readonly validateIntervalMs: number | null;
  /**
   * Checks the token in use at id.twitch.tv/oauth2/validate, as Twitch asks of a chatbot: resolves
   * when Twitch accepts it, when it had expired and was renewed, or when it cannot tell (the next
   * check tells); rejects with a final ChatTokenError when Twitch no longer accepts it and it
   * cannot be renewed (revoked: the app was disconnected, the password changed).
   */
  validate(): Promise<void>;
  /** After a final refusal: calls `onToken` once a usable new token was saved to the file, then stops looking. */
  awaitNewToken(onToken: () => void): void;
  /** Stops looking at the file; waits for a renewal under way and its token to be saved. */
  stop(): Promise<void>;
}

/** twitch.bot.token: the same token for every login. */
export function fixedChatToken(token: string): ChatTokenSource {
  const bare = token.replace(/^oauth:/i, '');
  return {
    renewable: false,
    current: () => Promise.resolve(bare),
    renew: () => Promise.reject(new ChatTokenError('twitch.bot.token is fixed: it cannot be renewed', true)),
    validateIntervalMs: null,
    validate: async () => {},
    awaitNewToken: () => {},
    stop: async () => {},
  };
}

export function chatTokenSource(identity: TwitchChatIdentity, logger: Logger): ChatTokenSource {
  return 'tokenFile' in identity
    ? createBotTokenFile({ ...identity.tokenFile, login: identity.login }, logger)
    : fixedChatToken(identity.token);
}
