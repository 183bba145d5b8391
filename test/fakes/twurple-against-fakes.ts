/**
 * Wires the real twurple clients to a FakeHelix in one call, for tests:
 *
 *   const helix = await FakeHelix.start();
 *   const bot = twurpleAgainstFakes(helix, { login: 'somechannel' });
 *   // bot.apiClient, bot.authProvider, bot.broadcaster, bot.token, bot.clientId
 *   const listener = new EventSubWsListener({ apiClient: bot.apiClient, logger: QUIET_TWURPLE_LOGGER });
 *   ...
 *   bot.restoreEnv();   // in afterEach, with helix.close()
 *
 * It registers a client id/secret, adds the broadcaster, issues a user token with
 * the channel-points scopes (or `scopes`), sets TWURPLE_MOCK_API_PORT to the fake's
 * port (twurple reads it per request; see fake-helix.ts) and builds a
 * RefreshingAuthProvider + ApiClient exactly as production code would.
 */
import { ApiClient } from '@twurple/api';
import { RefreshingAuthProvider } from '@twurple/auth';
import type { FakeHelix, HelixUser, IssuedToken } from './fake-helix.ts';

/** Keeps twurple's own logging out of test output. */
export const QUIET_TWURPLE_LOGGER = { minLevel: 'critical' as const };

export const CHANNEL_POINTS_SCOPES = ['channel:read:redemptions', 'channel:manage:redemptions'];

export interface TwurpleAgainstFakes {
  clientId: string;
  clientSecret: string;
  broadcaster: HelixUser;
  token: IssuedToken;
  authProvider: RefreshingAuthProvider;
  apiClient: ApiClient;
  restoreEnv: () => void;
}

export function twurpleAgainstFakes(
  helix: FakeHelix,
  options: { login: string; clientId?: string; clientSecret?: string; scopes?: string[]; expiresInSeconds?: number },
): TwurpleAgainstFakes {
  const clientId = options.clientId ?? 'chatskinclientid';
  const clientSecret = options.clientSecret ?? 'chatskinclientsecret';
  helix.registerClient(clientId, clientSecret);
  const broadcaster = helix.addUser({ login: options.login });
  const token = helix.issueUserToken({
    clientId,
    userId: broadcaster.id,
    scopes: options.scopes ?? CHANNEL_POINTS_SCOPES,
    ...(options.expiresInSeconds === undefined ? {} : { expiresInSeconds: options.expiresInSeconds }),
  });
  const restoreEnv = helix.applyTwurpleMockPort();
  const authProvider = new RefreshingAuthProvider({ clientId, clientSecret });
  authProvider.addUser(broadcaster.id, token);
  const apiClient = new ApiClient({ authProvider, logger: QUIET_TWURPLE_LOGGER });
  return { clientId, clientSecret, broadcaster, token, authProvider, apiClient, restoreEnv };
}
