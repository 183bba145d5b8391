// The broadcaster's token at run time: a twurple RefreshingAuthProvider loaded from the token
// file, which refreshes the access token when Twitch says it expired (or before it does) and
// writes every refreshed token back to the file, so a restart starts from the newest one. A
// refresh Twitch refuses is logged as an error saying what to do and shows in the status; it is
// never swallowed (twurple then refuses the user's calls until the token is replaced). One that
// failed for a passing fault (the network, Twitch's 5xx) is a warning, and is tried again.
//
// Replaced by whom: `chatskin twitch auth`, run while the host runs, writes a new token to the same
// file. The file is looked at every few seconds (its mtime, size and inode; read only when one
// changed) and after every refused refresh; a token there that this process neither loaded nor
// wrote itself, of the same application and broadcaster, with the needed scopes, is taken over:
// twurple forgets the refused refresh and uses it from the next call on. No restart. A refresh of
// the token before may still be under way at that moment; if Twitch refuses it, twurple would
// refuse the new token's calls too, so that one refusal after a takeover is excused: the token
// taken over is put back, and only a refusal of its own counts. Every token read or refreshed is
// added to the logger's secrets.
//
// Twitch asks every app to check its tokens at id.twitch.tv/oauth2/validate hourly (the calls to
// Twitch, and EventSub's revocation notice, find most troubles sooner). The token in use is
// checked every validateIntervalMs on the clock: one Twitch no longer accepts is refreshed through
// the provider (one refresh at a time), so an expired one is replaced before a call is refused,
// and a revoked one (its refresh token goes with it) ends as any refused refresh: 'refresh-failed',
// with what to do. A check Twitch does not answer changes nothing; the next one tells.
import { ApiClient } from '@twurple/api';
import type { AccessToken, RefreshingAuthProvider } from '@twurple/auth';
import type { Logger } from 'pino';
import { systemClock } from '../../host/clock.ts';
import type { Clock, ScheduledTimer } from '../../host/clock.ts';
import { addLogSecrets } from '../../host/logger.ts';
import { errorText } from '../../host/error-text.ts';
import { OneRefreshAuthProvider } from './one-refresh-auth-provider.ts';
import { missingScopes } from './scopes.ts';
import type { StoredTwitchToken } from '../twitch-auth/token-file.ts';
import { knownTokens } from '../twitch-auth/known-tokens.ts';
import { isTokenFileSeen, readTokenFile } from '../twitch-auth/token-file.ts';
import { createTokenFileWatch } from '../twitch-auth/token-file-watch.ts';
import { createRefreshedTokenSaver } from '../twitch-auth/refreshed-token-saver.ts';
import { isRefreshRefusal, storedTokenAfterRefresh } from '../twitch-auth/token-refresh.ts';
import { DEFAULT_TWITCH_HTTP_TIMEOUT_MS } from '../twitch-auth/twitch-http-timeout.ts';
import { isTokenValid } from '../twitch-auth/validate-token.ts';
import { describeTwitchError } from '../twitch-auth/twitch-error.ts';
import { twurpleLoggerOptions } from './twurple-logger.ts';

export type BroadcasterAuthState = 'ok' | 'refresh-failed' | 'save-failed';

export interface BroadcasterAuthStatus {
  state: BroadcasterAuthState;
  login: string;
  userId: string;
  scopes: string[];
  /** ISO time of the last successful refresh in this process. */
  lastRefreshAt: string | null;
  refreshes: number;
  /** Tokens taken over from the token file while running (written there by `chatskin twitch auth`). */
  reloads: number;
  /** What went wrong and what to do, when state is not ok. */
  error: string | null;
}

export interface BroadcasterAuth {
  readonly authProvider: RefreshingAuthProvider;
  readonly apiClient: ApiClient;
  readonly userId: string;
  readonly login: string;
  status(): BroadcasterAuthStatus;
  /**
   * Looks at the token file now (the timer does every `tokenFileCheckMs`): takes over a new token
   * another process saved there. True when it did.
   */
  checkTokenFile(): Promise<boolean>;
  /** Stops looking at the token file. */
  stop(): void;
  /** Waits until every refreshed token has been written (and a look at the file under way is over). */
  flush(): Promise<void>;
}

export interface BroadcasterAuthOptions {
  clientId: string;
  clientSecret: string;
  tokenFile: string;
  token: StoredTwitchToken;
  logger: Logger;
  /** How often the token file is looked at for a token written by `chatskin twitch auth` (config twitch.redemptions.tokenFileCheckSeconds). */
  tokenFileCheckMs: number;
  clock?: Clock;
  /** After a token from the file was taken over (e.g. to subscribe again, or send owed statuses). */
  onTokenReloaded?: () => void;
  /** id.twitch.tv's OAuth base (twitch.oauth.url, or the mock API port's /auth): where the token is checked; absent: it is not. */
  oauthUrl?: string;
  /** How often the token in use is checked at /validate, as Twitch asks (hourly). Default one hour. */
  validateIntervalMs?: number;
  /** twitch.httpTimeoutSeconds: a check Twitch has not answered by then tells nothing. Default 30 s. */
  httpTimeoutMs?: number;
}

/** Twitch asks apps to check their tokens hourly. */
const DEFAULT_VALIDATE_INTERVAL_MS = 3_600_000;

/** For a host without a token: it watches the token file and starts the redemptions once one is there. */
export const AUTHORIZE_HINT = 'run `chatskin twitch auth`; the running chatskin picks the token up within seconds and starts the redemptions (no restart needed)';
/** For a host whose token cannot be used: it watches the token file and starts the redemptions once a usable one is there. */
export const REAUTHORIZE_HINT = 'run `chatskin twitch auth` to authorize the channel again; the running chatskin picks the new token up within seconds and starts the redemptions (no restart needed)';
/** For a running host, which watches the token file and takes a new token over. */
export const REAUTHORIZE_RUNNING_HINT = 'run `chatskin twitch auth` to authorize the channel again; the running chatskin takes the new token over within seconds';

export function createBroadcasterAuth(options: BroadcasterAuthOptions): BroadcasterAuth {
  const { token, logger } = options;
  const clock = options.clock ?? systemClock;
  const log = logger.child({ component: 'twitch-auth', broadcaster: token.login });
  /** The token in use; refreshed ones are saved on top of it. */
  let current: StoredTwitchToken = token;
  /** The access tokens this process loaded, refreshed or took over (the newest of them): the file holding one of them is not news. */
  const known = knownTokens();
  known.add(token.accessToken);
  // One refresh at a time: calls Twitch refuses together must not spend a one-use refresh token twice.
  const authProvider = new OneRefreshAuthProvider({ clientId: options.clientId, clientSecret: options.clientSecret });
  authProvider.addUser(token.userId, accessTokenOf(token));
  const apiClient = new ApiClient({ authProvider, logger: twurpleLoggerOptions(logger) });
  /** As status() answers it, but for a refreshed token not saved yet (the saver's, read at status()). */
  const status: BroadcasterAuthStatus = {
    state: 'ok', login: token.login, userId: token.userId, scopes: [...token.scope], lastRefreshAt: null, refreshes: 0, reloads: 0, error: null,
  };
  // A refreshed token that could not be saved is tried again every tokenFileCheckMs.
  const saver = createRefreshedTokenSaver({
    file: options.tokenFile, whose: 'broadcaster', retryMs: options.tokenFileCheckMs, log: log.child({ tokenFile: options.tokenFile }), clock,
  });
  let stopped = false;
  const watch = createTokenFileWatch({
    file: options.tokenFile,
    intervalMs: options.tokenFileCheckMs,
    clock,
    // Gone or unreadable for now: the token in use stays.
    ignore: (fingerprint) => !isTokenFileSeen(fingerprint),
    changed: takeOverFromFile,
    failed: (error) => log.warn({ err: error }, `looking at the token file failed: ${errorText(error)}`),
  });
  /** A token was taken over and has not been refreshed since: a refusal now may be of the one before. */
  let takenOverUnrefreshed = false;

  authProvider.onRefresh((userId: string, refreshed: AccessToken) => {
    if (userId !== token.userId) return;
    takenOverUnrefreshed = false;
    status.refreshes++;
    status.lastRefreshAt = new Date().toISOString();
    status.scopes = [...refreshed.scope];
    known.add(refreshed.accessToken);
    const stored = storedTokenAfterRefresh(current, refreshed);
    addLogSecrets(logger, [stored.accessToken, stored.refreshToken]);
    current = stored;
    void saver.save(stored);
  });

  authProvider.onRefreshFailure((userId: string, error: Error) => {
    if (userId !== token.userId) return;
    if (takenOverUnrefreshed) {
      // Once: if it was the new token's own refresh, the next one is refused again and counts.
      takenOverUnrefreshed = false;
      authProvider.addUser(token.userId, accessTokenOf(current));
      log.warn(`Twitch refused a refresh right after the new token was taken over (${describeTwitchError(error).message}); `
        + 'it was most likely of the token before, so the new one stays in use');
      return;
    }
    // Only the status and Twitch's message: the error's own text quotes the refresh URL and its secrets.
    const { message } = describeTwitchError(error);
    if (!isRefreshRefusal(error)) {
      // The network or Twitch's 5xx: twurple would refuse every later call for good, so the same
      // token is put back (which makes it forget the failure) and the next call refreshes again.
      authProvider.addUser(token.userId, accessTokenOf(current));
      log.warn(`refreshing the broadcaster's token failed (${message}); it is tried again on the next call to Twitch`);
      return;
    }
    status.state = 'refresh-failed';
    status.error = `Twitch refused to refresh the broadcaster's token (${message}); ${REAUTHORIZE_RUNNING_HINT}`;
    log.error(status.error);
    // `chatskin twitch auth` may have saved a new token already.
    void checkTokenFile();
  });

  /** Why a token found in the file cannot be used, or null when it can. */
  function unusable(found: StoredTwitchToken): string | null {
    if (found.clientId !== options.clientId) return `it was issued to the client id ${found.clientId}, not twitch.clientId`;
    if (found.userId !== token.userId) return `it belongs to "${found.login}", not the broadcaster "${token.login}"`;
    const missing = missingScopes(found.scope);
    if (missing.length > 0) return `it lacks ${missing.join(', ')}`;
    return null;
  }

  /** The token file changed: takes over a new, usable token there. True when it did. */
  async function takeOverFromFile(): Promise<boolean> {
    let found: StoredTwitchToken | null;
    try {
      found = await readTokenFile(options.tokenFile);
    } catch (error) {
      log.warn({ tokenFile: options.tokenFile }, `the token file changed but cannot be used (${errorText(error)}); the token in use stays`);
      return false;
    }
    if (found === null || stopped) return false;
    addLogSecrets(logger, [found.accessToken, found.refreshToken]);
    if (known.has(found.accessToken)) {
      log.debug({ tokenFile: options.tokenFile }, 'the token file holds a token this process already has');
      return false;
    }
    const why = unusable(found);
    if (why !== null) {
      log.warn({ tokenFile: options.tokenFile }, `the token file holds a new token, but ${why}; the token in use stays`);
      return false;
    }
    known.add(found.accessToken);
    current = found;
    saver.superseded();
    // Replaces the token and forgets a refused refresh, so the next call uses it.
    authProvider.addUser(token.userId, accessTokenOf(found));
    takenOverUnrefreshed = true;
    const recovered = status.state === 'refresh-failed';
    status.reloads++;
    status.scopes = [...found.scope];
    // The file holds a working token again, whatever failed before.
    status.state = 'ok';
    status.error = null;
    log.info({ tokenFile: options.tokenFile, recovered },
      'took over the new broadcaster token saved by `chatskin twitch auth`' + (recovered ? '; the refused refresh no longer matters' : ''));
    options.onTokenReloaded?.();
    return true;
  }

  function checkTokenFile(): Promise<boolean> {
    return stopped ? Promise.resolve(false) : watch.look();
  }
  // What the file holds now is the token just loaded.
  void checkTokenFile().finally(() => watch.repeat());

  /** The token's regular check (validateIntervalMs), armed anew after each. */
  let validateTimer: ScheduledTimer | null = null;
  const validateIntervalMs = options.validateIntervalMs ?? DEFAULT_VALIDATE_INTERVAL_MS;
  function scheduleValidation(): void {
    if (stopped || options.oauthUrl === undefined) return;
    validateTimer = clock.schedule(() => {
      validateTimer = null;
      void validate(options.oauthUrl!).finally(scheduleValidation);
    }, validateIntervalMs);
  }
  async function validate(oauthUrl: string): Promise<void> {
    // Refused for good already: only a new token in the file helps, and the watch takes it.
    const refused = (): boolean => status.state === 'refresh-failed';
    if (stopped || refused()) return;
    const checked = current.accessToken;
    try {
      if (await isTokenValid(oauthUrl, checked, options.httpTimeoutMs ?? DEFAULT_TWITCH_HTTP_TIMEOUT_MS)) return;
    } catch (error) {
      log.debug(`the broadcaster's token could not be checked (${errorText(error)}); the next check tells`);
      return;
    }
    // Refreshed or taken over meanwhile: that one is checked next time.
    if (stopped || current.accessToken !== checked || refused()) return;
    log.info('Twitch no longer accepts the broadcaster\'s token (its hourly check): refreshing it');
    // A refusal is reported by onRefreshFailure (refused: 'refresh-failed'; a passing fault: tried again).
    await authProvider.refreshAccessTokenForUser(token.userId).catch(() => {});
  }
  scheduleValidation();

  return {
    authProvider,
    apiClient,
    userId: token.userId,
    login: token.login,
    status() {
      const unsaved = status.state === 'ok' ? saver.failure() : null;
      return unsaved === null
        ? { ...status, scopes: [...status.scopes] }
        : { ...status, state: 'save-failed', error: unsaved, scopes: [...status.scopes] };
    },
    checkTokenFile,
    stop() {
      stopped = true;
      validateTimer?.cancel();
      validateTimer = null;
      saver.stop();
      void watch.stop();
    },
    flush: async () => {
      await watch.idle();
      await saver.flush();
    },
  };
}

/** A stored token as twurple's AccessToken. */
function accessTokenOf(stored: StoredTwitchToken): AccessToken {
  return {
    accessToken: stored.accessToken,
    refreshToken: stored.refreshToken,
    scope: stored.scope,
    expiresIn: stored.expiresIn,
    obtainmentTimestamp: stored.obtainmentTimestamp,
  };
}
