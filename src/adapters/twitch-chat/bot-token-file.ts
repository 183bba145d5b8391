// The bot's chat token from twitch.bot.tokenFile, which `chatskin twitch auth --bot` writes (the
// broadcaster's token file format, token-file.ts). Before every login the file is looked at (a
// stat; read only when it changed), so a token saved there meanwhile is used from the next login.
// When Twitch refuses the token (it expired: Twitch's user tokens last a few hours) it is refreshed
// with the application's credentials and the new one saved back, so a restart starts from it.
//
// A refresh Twitch refuses (a revoked refresh token, a changed client secret) cannot be helped
// here: the chat then waits for `chatskin twitch auth --bot`, looking at the file every few
// seconds as the redemptions do, and connects again with the first usable token saved there.
// A token in the file is usable when it is of twitch.bot.login, issued to twitch.clientId (the
// refresh needs the same application) and has chat:read and chat:edit. Every token read or
// refreshed is added to the logger's secrets at once.
//
// Twitch's chat keeps a connection up however its token fares, and Twitch asks every chatbot to
// check its token at id.twitch.tv/oauth2/validate hourly, and to end its sessions once the token
// is revoked (the account disconnected the app, changed its password). validate() does that
// check: an expired token is renewed (and saved) with the session kept; one that cannot be
// renewed rejects, and the chat ends its session (twitch-chat-transport.ts).
import type { Logger } from 'pino';
import { withDeadline } from '../../host/deadline.ts';
import { addLogSecrets } from '../../host/logger.ts';
import { errorText } from '../../host/error-text.ts';
import { readTokenFile, TokenFileError } from '../twitch-auth/token-file.ts';
import type { StoredTwitchToken } from '../twitch-auth/token-file.ts';
import { knownTokens } from '../twitch-auth/known-tokens.ts';
import { createTokenFileWatch } from '../twitch-auth/token-file-watch.ts';
import { createRefreshedTokenSaver } from '../twitch-auth/refreshed-token-saver.ts';
import { refreshStoredToken, TokenRefreshError } from '../twitch-auth/token-refresh.ts';
import { applyTwurpleMockPort, oauthBaseUrl } from '../twitch-auth/twitch-endpoints.ts';
import { boundTwitchHttp, DEFAULT_TWITCH_HTTP_TIMEOUT_MS } from '../twitch-auth/twitch-http-timeout.ts';
import { isTokenValid } from '../twitch-auth/validate-token.ts';
import { missingBotScopes } from './bot-scopes.ts';
import type { ChatTokenSource, TokenRenewal } from './chat-token-source.ts';
import { REAUTHORIZE_BOT_HINT } from './refused-login.ts';
import { ChatTokenError } from './twitch-chat-error.ts';
import type { BotTokenFile } from './twitch-chat-options.ts';

export interface BotTokenFileOptions extends BotTokenFile {
  /** twitch.bot.login, lower case: the token must be this account's. */
  login: string;
}

const AUTH_COMMAND = 'chatskin twitch auth --bot';
/** For a file that cannot be read as a token file: its error already says to run the command. */
const WATCHED_HINT = 'the running chatskin picks a usable token up from there within seconds and connects the chat again (no restart needed)';
const DEFAULT_CHECK_INTERVAL_MS = 5_000;
const DEFAULT_REFRESH_WAIT_MS = 30_000;
/** Twitch asks a chatbot to check its token hourly. */
export const DEFAULT_VALIDATE_INTERVAL_MS = 3_600_000;

export function createBotTokenFile(options: BotTokenFileOptions, logger: Logger): ChatTokenSource {
  const file = options.path;
  const checkIntervalMs = options.checkIntervalMs ?? DEFAULT_CHECK_INTERVAL_MS;
  const log = logger.child({ component: 'twitch-bot-token', tokenFile: file });
  applyTwurpleMockPort(options.mockServerPort ?? null);
  const httpTimeoutMs = options.httpTimeoutMs ?? DEFAULT_TWITCH_HTTP_TIMEOUT_MS;
  boundTwitchHttp(httpTimeoutMs);
  const oauthUrl = oauthBaseUrl(options.oauthUrl ?? null, options.mockServerPort ?? null);

  /** The token in use; null until the file held a usable one. */
  let token: StoredTwitchToken | null = null;
  /** The access tokens this process loaded, refreshed or saved (the newest of them): the file holding one of them is no news. */
  const known = knownTokens();
  /** Why there is no usable token in the file, with what to do. */
  let problem = `there is no bot token at ${file}; ${REAUTHORIZE_BOT_HINT}`;
  let renewing: Promise<unknown> = Promise.resolve();
  /** A refresh still waiting for Twitch; a renewal meanwhile waits for the same one, never a second. */
  let refreshing: Promise<TokenRenewal> | null = null;
  // A refreshed token that could not be saved is tried again every checkIntervalMs.
  const saver = createRefreshedTokenSaver({ file, whose: 'bot', retryMs: checkIntervalMs, log });
  // Looked at before every login and while waiting for a new token; a look that fails (the file system) changes nothing.
  const watch = createTokenFileWatch({
    file,
    intervalMs: checkIntervalMs,
    changed: takeFromFile,
    failed: (error) => log.warn(`looking at the bot's token file failed: ${errorText(error)}`),
  });

  /** Why a token found in the file cannot be used, or null when it can. */
  function unusable(found: StoredTwitchToken): string | null {
    if (found.login !== options.login) return `belongs to "${found.login}", not twitch.bot.login "${options.login}"`;
    if (found.clientId !== options.clientId) return `was issued to the client id ${found.clientId}, not twitch.clientId`;
    const missing = missingBotScopes(found.scope);
    return missing.length > 0 ? `lacks ${missing.join(', ')}` : null;
  }

  /** The file changed: takes a usable token there this process did not have. True when it did. */
  async function takeFromFile(_fingerprint: string, previous: string | null): Promise<boolean> {
    const first = previous === null;
    let found: StoredTwitchToken | null;
    try {
      found = await readTokenFile(file, {
        authCommand: AUTH_COMMAND,
        onLoosePermissions: (mode) => log.warn({ mode: mode.toString(8) }, 'the bot\'s token file was readable by others; its permissions are now 600'),
      });
    } catch (error) {
      if (!(error instanceof TokenFileError)) throw error;
      return cannotUse(`${error.message}; ${WATCHED_HINT}`, first);
    }
    // A removed file is no news worth a warning: the token in use, if any, stays.
    if (found === null) return cannotUse(`there is no bot token at ${file}; ${REAUTHORIZE_BOT_HINT}`, true);
    addLogSecrets(logger, [found.accessToken, found.refreshToken]);
    if (known.has(found.accessToken)) return false;
    const why = unusable(found);
    if (why !== null) return cannotUse(`the token in ${file} ${why}; ${REAUTHORIZE_BOT_HINT}`, first);
    known.add(found.accessToken);
    token = found;
    saver.superseded();
    if (!first) log.info('took the new bot token saved by `chatskin twitch auth --bot`');
    return true;
  }

  /** The file holds nothing usable: said as a warning unless `quiet` (the chat says it itself). */
  function cannotUse(why: string, quiet: boolean): false {
    problem = why;
    if (!quiet) log.warn(`the bot's token file changed, but it cannot be used: ${why}`);
    return false;
  }

  async function refresh(current: StoredTwitchToken): Promise<TokenRenewal> {
    let refreshed: StoredTwitchToken;
    try {
      refreshed = await refreshStoredToken(current, options.clientSecret);
    } catch (error) {
      const message = error instanceof TokenRefreshError ? error.message : errorText(error);
      if (!(error instanceof TokenRefreshError) || !error.refused) throw new ChatTokenError(`refreshing the bot's token failed (${message})`, false);
      // `chatskin twitch auth --bot` may have saved a new token meanwhile.
      if (await watch.look()) return 'from-file';
      throw new ChatTokenError(`Twitch refused to refresh the bot's token (${message}); ${REAUTHORIZE_BOT_HINT}`, true);
    }
    addLogSecrets(logger, [refreshed.accessToken, refreshed.refreshToken]);
    known.add(refreshed.accessToken);
    token = refreshed;
    // Saved even when stopping: Twitch may have replaced the refresh token, and the old one then stops working.
    await saver.save(refreshed);
    return 'refreshed';
  }

  /**
   * Twitch's answer, or a passing failure after refreshWaitMs: the login is then tried again (and
   * renews again). The refresh itself goes on, so a late answer is still saved and used; one with
   * no answer at all ends after httpTimeoutMs (a passing failure too), and the next renewal refreshes afresh.
   */
  function waitAtMost(refresh: Promise<TokenRenewal>): Promise<TokenRenewal> {
    const waitMs = options.refreshWaitMs ?? DEFAULT_REFRESH_WAIT_MS;
    return withDeadline(refresh, waitMs, () => new ChatTokenError(`Twitch did not answer the bot's token refresh within ${waitMs} ms`, false));
  }

  /** Twitch refused `refused`: replaces it (from the file, or a refresh; one refresh at a time). */
  function renew(refused: string): Promise<TokenRenewal> {
    const renewal = (async (): Promise<TokenRenewal> => {
      await watch.look();
      if (token === null) throw new ChatTokenError(problem, true);
      // Saved to the file since that login (by `chatskin twitch auth --bot`): no refresh needed.
      if (token.accessToken !== refused) return 'from-file';
      refreshing ??= refresh(token).finally(() => { refreshing = null; });
      return waitAtMost(refreshing);
    })();
    renewing = renewal.catch(() => {});
    return renewal;
  }

  return {
    renewable: true,
    validateIntervalMs: options.validateIntervalMs ?? DEFAULT_VALIDATE_INTERVAL_MS,

    async validate() {
      // A token `chatskin twitch auth --bot` saved meanwhile is the one in use from now on.
      await watch.look();
      if (token === null) return;
      const checked = token.accessToken;
      let valid: boolean;
      try {
        valid = await isTokenValid(oauthUrl, checked, httpTimeoutMs);
      } catch (error) {
        log.debug(`the bot's token could not be checked (${errorText(error)}); the next check tells`);
        return;
      }
      if (valid) return;
      log.info('Twitch no longer accepts the bot\'s token (its hourly check): renewing it; the chat stays connected meanwhile');
      try {
        await renew(checked);
      } catch (error) {
        if (error instanceof ChatTokenError && error.final) throw error;
        // A passing fault: the next check (or the next login Twitch refuses) renews it.
        log.warn(`renewing the bot's token after its hourly check failed (${errorText(error)}); it is tried again at the next check or login`);
      }
    },

    async current() {
      await watch.look();
      if (token === null) throw new ChatTokenError(problem, true);
      return token.accessToken;
    },

    renew,

    awaitNewToken(onToken) {
      watch.repeat((found) => {
        if (found) onToken();
        return !found;
      });
    },

    async stop() {
      saver.stop();
      await watch.stop();
      await renewing;
    },
  };
}
