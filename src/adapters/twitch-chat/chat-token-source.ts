// Where the chat's login token comes from: asked before every (re)connect. A fixed
// twitch.bot.token never changes, so Twitch refusing it is final; a token file's can be renewed
// (bot-token-file.ts).
//
// Twitch asks every chatbot to check its token at id.twitch.tv/oauth2/validate at start and
// hourly. A fixed token is checked before its first login: one Twitch does not accept (expired,
// revoked), of another account or without a scope the chat needs stops the chat there with what
// to do, rather than as a refused login; a check Twitch does not answer lets the login tell. While
// the chat is connected it is checked every validateIntervalMs (the token file's machinery in
// twitch-chat-transport.ts): once Twitch no longer accepts it, validate() rejects for good (it
// cannot be renewed) and the chat ends its session.
import type { Logger } from 'pino';
import { errorText } from '../../host/error-text.ts';
import { oauthBaseUrl } from '../twitch-auth/twitch-endpoints.ts';
import { DEFAULT_TWITCH_HTTP_TIMEOUT_MS, noAnswerText } from '../twitch-auth/twitch-http-timeout.ts';
import { acceptedToken, isTokenValid } from '../twitch-auth/validate-token.ts';
import { missingBotScopes } from './bot-scopes.ts';
import { createBotTokenFile, DEFAULT_VALIDATE_INTERVAL_MS } from './bot-token-file.ts';
import { ChatTokenError } from './twitch-chat-error.ts';
import type { FixedTokenCheck, TwitchChatIdentity } from './twitch-chat-options.ts';

/** How a refused token was replaced: a newer one saved to the file, or Twitch refreshed it. */
export type TokenRenewal = 'from-file' | 'refreshed';

export interface ChatTokenSource {
  /** False: a refused login is final (a fixed token). */
  readonly renewable: boolean;
  /** The token to log in with now (no "oauth:"); rejects with a ChatTokenError saying what to do when there is none. */
  current(): Promise<string>;
  /** Twitch refused `refused`: replaces it. Rejects with a ChatTokenError, `final` when only a new authorization helps. */
  renew(refused: string): Promise<TokenRenewal>;
  /** How often validate() is due while the chat is connected; null: never (a fixed token given no check). */
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

/** What to do about a fixed token Twitch does not take: only the operator can get another. */
export function fixedTokenHint(login: string): string {
  return `put a new user access token of ${login} with chat:read and chat:edit in twitch.bot.token and restart chatskin, `
    + 'or use twitch.bot.tokenFile with `chatskin twitch auth --bot` instead, whose token is renewed without a restart';
}

/** twitch.bot.token: the same token for every login; checked at `check`'s /validate when given. */
export function fixedChatToken(token: string, login: string, check: FixedTokenCheck | undefined, logger: Logger): ChatTokenSource {
  const bare = token.replace(/^oauth:/i, '');
  const log = logger.child({ component: 'twitch-bot-token' });
  const oauthUrl = check === undefined ? null : oauthBaseUrl(check.oauthUrl ?? null, check.mockServerPort ?? null);
  const timeoutMs = check?.httpTimeoutMs ?? DEFAULT_TWITCH_HTTP_TIMEOUT_MS;
  let checkedAtStart = false;

  /** Before the first login: rejects with a final ChatTokenError when the token cannot serve. */
  async function checkAtStart(url: string): Promise<void> {
    let accepted: Awaited<ReturnType<typeof acceptedToken>>;
    try {
      accepted = await acceptedToken(url, bare, timeoutMs);
    } catch (error) {
      const why = isNoAnswer(error) ? `${noAnswerText(timeoutMs)} at id.twitch.tv/oauth2/validate (twitch.httpTimeoutSeconds)` : errorText(error);
      log.warn(`the bot's token could not be checked at start (${why}); logging in with it tells`);
      return;
    }
    const missing = accepted === null ? [] : missingBotScopes(accepted.scopes);
    const why = accepted === null
      ? 'Twitch does not accept twitch.bot.token (id.twitch.tv/oauth2/validate: it expired or was revoked)'
      : accepted.login !== null && accepted.login.toLowerCase() !== login
        ? `twitch.bot.token belongs to "${accepted.login}", not twitch.bot.login "${login}"`
        : missing.length > 0 ? `twitch.bot.token lacks ${missing.join(', ')}` : null;
    if (why !== null) throw new ChatTokenError(`${why}; ${fixedTokenHint(login)}`, true);
  }

  return {
    renewable: false,
    async current() {
      if (!checkedAtStart && oauthUrl !== null) {
        checkedAtStart = true;
        await checkAtStart(oauthUrl);
      }
      return bare;
    },
    renew: () => Promise.reject(new ChatTokenError('twitch.bot.token is fixed: it cannot be renewed', true)),
    validateIntervalMs: oauthUrl === null ? null : (check?.validateIntervalMs ?? DEFAULT_VALIDATE_INTERVAL_MS),
    async validate() {
      if (oauthUrl === null) return;
      let accepted: boolean;
      try {
        accepted = await isTokenValid(oauthUrl, bare, timeoutMs);
      } catch (error) {
        log.debug(`the bot's token could not be checked (${errorText(error)}); the next check tells`);
        return;
      }
      if (!accepted) throw new ChatTokenError(`twitch.bot.token is a fixed token, which chatskin cannot renew; ${fixedTokenHint(login)}`, true);
    },
    awaitNewToken: () => {},
    stop: async () => {},
  };
}

export function chatTokenSource(identity: TwitchChatIdentity, logger: Logger): ChatTokenSource {
  return 'tokenFile' in identity
    ? createBotTokenFile({ ...identity.tokenFile, login: identity.login }, logger)
    : fixedChatToken(identity.token, identity.login, identity.check, logger);
}

/** The check's own deadline ran out (AbortSignal.timeout: no answer, or not all of it, in time). */
function isNoAnswer(error: unknown): boolean {
  return error instanceof Error && error.name === 'TimeoutError';
}
