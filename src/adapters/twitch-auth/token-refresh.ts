// Refreshing a stored token at id.twitch.tv (through twurple, so TWURPLE_MOCK_API_PORT points it at
// a fake in tests), and the stored token a refresh makes. A refresh Twitch refuses (a revoked
// refresh token, a wrong client secret) needs a new authorization; any other failure (the
// network, Twitch's 5xx, no answer within twitch.httpTimeoutSeconds: twitch-http-timeout.ts) may
// pass on a later try.
import { refreshUserToken } from '@twurple/auth';
import type { AccessToken } from '@twurple/auth';
import type { StoredTwitchToken } from './token-file.ts';
import { describeTwitchError, isHttpStatusError } from './twitch-error.ts';

/** A refresh that failed; the message is safe to log (no URL, no query, no token). */
export class TokenRefreshError extends Error {
  /** Twitch said no: only a new authorization helps. False: a later try may work. */
  readonly refused: boolean;
  constructor(message: string, refused: boolean) {
    super(message);
    this.name = 'TokenRefreshError';
    this.refused = refused;
  }
}

/** The same account and application, with what the refresh gave. */
export function storedTokenAfterRefresh(stored: StoredTwitchToken, refreshed: AccessToken): StoredTwitchToken {
  return {
    ...stored,
    accessToken: refreshed.accessToken,
    // Twitch may hand out a new refresh token; the old one may then stop working.
    refreshToken: refreshed.refreshToken ?? stored.refreshToken,
    scope: [...refreshed.scope],
    expiresIn: refreshed.expiresIn,
    obtainmentTimestamp: refreshed.obtainmentTimestamp,
  };
}

/** Twitch's answers to a refresh that no retry changes: bad request (the refresh token), unauthorized, forbidden (the client). */
const REFUSED_STATUSES = new Set([400, 401, 403]);

/** Whether a failed refresh was Twitch saying no (only a new authorization helps), not a fault that may pass. */
export function isRefreshRefusal(error: unknown): boolean {
  return isHttpStatusError(error) && REFUSED_STATUSES.has(error.statusCode);
}

export async function refreshStoredToken(stored: StoredTwitchToken, clientSecret: string): Promise<StoredTwitchToken> {
  let refreshed: AccessToken;
  try {
    refreshed = await refreshUserToken(stored.clientId, clientSecret, stored.refreshToken);
  } catch (error) {
    // twurple's own message quotes the request URL, whose query holds the secret and the refresh token.
    const { message } = describeTwitchError(error);
    throw new TokenRefreshError(message, isRefreshRefusal(error));
  }
  return storedTokenAfterRefresh(stored, refreshed);
}
