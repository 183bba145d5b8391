// The broadcaster's token at run time: a twurple RefreshingAuthProvider loaded from the token
// file, which refreshes the access token when Twitch says it expired (or before it does) and
// writes every refreshed token back to the file, so a restart starts from the newest one. A
// refresh that fails is logged as an error saying what to do and shows in the status; it is never
// swallowed (twurple then refuses the user's calls until the token is replaced).
import { ApiClient } from '@twurple/api';
import { RefreshingAuthProvider } from '@twurple/auth';
import type { AccessToken } from '@twurple/auth';
import type { Logger } from 'pino';
import { errorText } from '../../host/redemptions/channel-points.ts';
import type { StoredBroadcasterToken } from './token-file.ts';
import { writeBroadcasterToken } from './token-file.ts';
import { describeTwitchError } from './twitch-error.ts';
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
  /** What went wrong and what to do, when state is not ok. */
  error: string | null;
}

export interface BroadcasterAuth {
  readonly authProvider: RefreshingAuthProvider;
  readonly apiClient: ApiClient;
  readonly userId: string;
  readonly login: string;
  status(): BroadcasterAuthStatus;
  /** Waits until every refreshed token has been written. */
  flush(): Promise<void>;
}

export interface BroadcasterAuthOptions {
  clientId: string;
  clientSecret: string;
  tokenFile: string;
  token: StoredBroadcasterToken;
  logger: Logger;
}

export const REAUTHORIZE_HINT = 'run `chatskin twitch auth` to authorize the channel again, then restart chatskin';

export function createBroadcasterAuth(options: BroadcasterAuthOptions): BroadcasterAuth {
  const { token, logger } = options;
  const log = logger.child({ component: 'twitch-auth', broadcaster: token.login });
  const authProvider = new RefreshingAuthProvider({ clientId: options.clientId, clientSecret: options.clientSecret });
  authProvider.addUser(token.userId, {
    accessToken: token.accessToken,
    refreshToken: token.refreshToken,
    scope: token.scope,
    expiresIn: token.expiresIn,
    obtainmentTimestamp: token.obtainmentTimestamp,
  });
  const apiClient = new ApiClient({ authProvider, logger: twurpleLoggerOptions(logger) });
  const status: BroadcasterAuthStatus = {
    state: 'ok', login: token.login, userId: token.userId, scopes: [...token.scope], lastRefreshAt: null, refreshes: 0, error: null,
  };
  let saving: Promise<void> = Promise.resolve();

  authProvider.onRefresh((userId: string, refreshed: AccessToken) => {
    if (userId !== token.userId) return;
    status.refreshes++;
    status.lastRefreshAt = new Date().toISOString();
    status.scopes = [...refreshed.scope];
    const stored: StoredBroadcasterToken = {
      ...token,
      accessToken: refreshed.accessToken,
      // Twitch may hand out a new refresh token; the old one may then stop working.
      refreshToken: refreshed.refreshToken ?? token.refreshToken,
      scope: [...refreshed.scope],
      expiresIn: refreshed.expiresIn,
      obtainmentTimestamp: refreshed.obtainmentTimestamp,
    };
    saving = saving.then(async () => {
      try {
        await writeBroadcasterToken(options.tokenFile, stored);
        if (status.state === 'save-failed') status.state = 'ok';
        status.error = null;
        log.info({ tokenFile: options.tokenFile }, 'refreshed the broadcaster\'s Twitch token and saved it');
      } catch (error) {
        status.state = 'save-failed';
        status.error = `the refreshed token could not be saved to ${options.tokenFile}: ${errorText(error)}; after a restart the old one may no longer work`;
        log.error({ err: error }, `Twitch token refreshed but not saved: ${status.error}`);
      }
    });
  });

  authProvider.onRefreshFailure((userId: string, error: Error) => {
    if (userId !== token.userId) return;
    status.state = 'refresh-failed';
    // Only the status and Twitch's message: the error's own text quotes the refresh URL and its secrets.
    status.error = `Twitch refused to refresh the broadcaster's token (${describeTwitchError(error).message}); ${REAUTHORIZE_HINT}`;
    log.error(status.error);
  });

  return {
    authProvider,
    apiClient,
    userId: token.userId,
    login: token.login,
    status: () => ({ ...status, scopes: [...status.scopes] }),
    flush: () => saving,
  };
}
