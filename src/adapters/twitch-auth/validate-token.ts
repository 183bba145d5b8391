// id.twitch.tv's /validate: whose token this is and what it may do. The device flow's answer says
// neither the account nor (always) the scopes, so `chatskin twitch auth` asks before saving.
import { TwitchAuthError } from './twitch-auth-error.ts';
import { DEFAULT_TWITCH_HTTP_TIMEOUT_MS, noAnswerText } from './twitch-http-timeout.ts';

export interface TokenValidation {
  clientId: string;
  /** null for an app token. */
  login: string | null;
  userId: string | null;
  scopes: string[];
}

/** GET {oauthUrl}/validate, waiting at most `timeoutMs` for the answer (twitch.httpTimeoutSeconds). */
export async function validateToken(oauthUrl: string, accessToken: string, timeoutMs = DEFAULT_TWITCH_HTTP_TIMEOUT_MS): Promise<TokenValidation> {
  const deadline = AbortSignal.timeout(timeoutMs);
  let response: Response;
  let body: Record<string, unknown>;
  try {
    response = await fetch(`${oauthUrl}/validate`, { headers: { Authorization: `OAuth ${accessToken}` }, signal: deadline });
    body = (await response.json().catch((error: unknown) => {
      if (deadline.aborted) throw error;
      return {};
    })) as Record<string, unknown>;
  } catch (error) {
    if (!deadline.aborted) throw error;
    throw new TwitchAuthError(`${noAnswerText(timeoutMs)} when asked whose the new token is. Run the command again.`, { cause: error });
  }
  if (response.status !== 200) throw new TwitchAuthError(`Twitch did not accept the new token (${response.status}: ${String(body['message'] ?? '')}).`);
  return tokenValidationOf(body);
}

/**
 * Whether Twitch still accepts the token (GET {oauthUrl}/validate: 200, or 401 once it expired or
 * was revoked), asked at most `timeoutMs`. Rejects when it cannot tell: no answer, another status.
 */
export async function isTokenValid(oauthUrl: string, accessToken: string, timeoutMs = DEFAULT_TWITCH_HTTP_TIMEOUT_MS): Promise<boolean> {
  return (await acceptedToken(oauthUrl, accessToken, timeoutMs)) !== null;
}

/**
 * What Twitch says of the token (as validateToken), or null once it no longer accepts it (401:
 * expired or revoked), asked at most `timeoutMs`. Rejects when it cannot tell: no answer, another status.
 */
export async function acceptedToken(oauthUrl: string, accessToken: string, timeoutMs = DEFAULT_TWITCH_HTTP_TIMEOUT_MS): Promise<TokenValidation | null> {
  const response = await fetch(`${oauthUrl}/validate`, { headers: { Authorization: `OAuth ${accessToken}` }, signal: AbortSignal.timeout(timeoutMs) });
  if (response.status === 401) {
    await response.body?.cancel();
    return null;
  }
  if (response.status !== 200) {
    await response.body?.cancel();
    throw new Error(`Twitch answered ${response.status}`);
  }
  // An answer cut off is no answer: it rejects (the caller cannot tell).
  const body = (await response.json()) as Record<string, unknown>;
  return tokenValidationOf(body);
}

/** /validate's 200 body as a TokenValidation. */
function tokenValidationOf(body: Record<string, unknown>): TokenValidation {
  return {
    clientId: String(body['client_id'] ?? ''),
    login: typeof body['login'] === 'string' ? body['login'] : null,
    userId: typeof body['user_id'] === 'string' ? body['user_id'] : null,
    scopes: Array.isArray(body['scopes']) ? body['scopes'].map(String) : [],
  };
}
