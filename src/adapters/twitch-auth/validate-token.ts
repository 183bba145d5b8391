// id.twitch.tv's /validate: whose token this is and what it may do. The device flow's answer says
// neither the account nor (always) the scopes, so `chatskin twitch auth` asks before saving.
import { TwitchAuthError } from './twitch-auth-error.ts';

export interface TokenValidation {
  clientId: string;
  /** null for an app token. */
  login: string | null;
  userId: string | null;
  scopes: string[];
}

/** GET {oauthUrl}/validate. */
export async function validateToken(oauthUrl: string, accessToken: string): Promise<TokenValidation> {
  const response = await fetch(`${oauthUrl}/validate`, { headers: { Authorization: `OAuth ${accessToken}` } });
  const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (response.status !== 200) throw new TwitchAuthError(`Twitch did not accept the new token (${response.status}: ${String(body['message'] ?? '')}).`);
  return {
    clientId: String(body['client_id'] ?? ''),
    login: typeof body['login'] === 'string' ? body['login'] : null,
    userId: typeof body['user_id'] === 'string' ? body['user_id'] : null,
    scopes: Array.isArray(body['scopes']) ? body['scopes'].map(String) : [],
  };
}
