// Twitch's OAuth device code grant flow (RFC 8628), for a host without a browser or a redirect
// URL: ask id.twitch.tv for a code, show the person where to enter it, and poll until they
// approved it (or it expired). twurple has no helper for this flow, so it is plain fetch here.
//
//   POST {oauthUrl}/device  client_id, scopes          -> device_code, user_code, verification_uri, interval, expires_in
//   POST {oauthUrl}/token   client_id, [client_secret], scopes, device_code,
//                           grant_type=urn:ietf:params:oauth:grant-type:device_code
//                           -> 400 {message: "authorization_pending" | "slow_down" | ...} until approved,
//                              then access_token, refresh_token, expires_in, scope
//
// `oauthUrl` is https://id.twitch.tv/oauth2 on Twitch; tests point it at a local fake.
import type { AccessToken } from '@twurple/auth';
import { DEFAULT_TWITCH_HTTP_TIMEOUT_MS, noAnswerText } from './twitch-http-timeout.ts';

export const TWITCH_OAUTH_URL = 'https://id.twitch.tv/oauth2';
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

export interface DeviceCode {
  /** What the person types at the verification URL. */
  userCode: string;
  /** Where they go (Twitch's carries the code already). */
  verificationUri: string;
  expiresInSeconds: number;
}

export interface DeviceCodeFlowOptions {
  clientId: string;
  /** Sent with the token request for a confidential client. */
  clientSecret?: string;
  scopes: readonly string[];
  /** id.twitch.tv's OAuth base; default https://id.twitch.tv/oauth2. */
  oauthUrl?: string;
  /** Called once with the code to show. */
  onCode(code: DeviceCode): void;
  signal?: AbortSignal;
  /** Longest wait for each answer (twitch.httpTimeoutSeconds); default 30 s. */
  timeoutMs?: number;
  /** Waits between polls (tests pass a quicker one). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Clock for the code's expiry. */
  now?: () => number;
}

/** The flow ended without a token; the message says why and what to do. */
export class DeviceCodeFlowError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DeviceCodeFlowError';
  }
}

function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

async function postForm(
  url: string, form: Record<string, string>, timeoutMs: number, signal?: AbortSignal,
): Promise<{ status: number; body: Record<string, unknown> }> {
  // Without a deadline of its own, a server that never answers holds the command for undici's 300 s.
  const deadline = AbortSignal.timeout(timeoutMs);
  let text: string;
  let status: number;
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
      body: new URLSearchParams(form).toString(),
      signal: signal ? AbortSignal.any([signal, deadline]) : deadline,
    });
    status = response.status;
    text = await response.text();
  } catch (error) {
    if (signal?.aborted) throw error;
    if (deadline.aborted) throw new DeviceCodeFlowError(`${noAnswerText(timeoutMs)} (POST ${url}). Run the command again.`, { cause: error });
    throw new DeviceCodeFlowError(`Could not reach ${url}: ${unreachableText(error)}`, { cause: error });
  }
  let body: Record<string, unknown> = {};
  try {
    const parsed: unknown = text === '' ? {} : JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null) body = parsed as Record<string, unknown>;
  } catch {
    body = { message: text.slice(0, 200) };
  }
  return { status, body };
}

/**
 * fetch's "fetch failed" with its cause's reason (`connect ECONNREFUSED 127.0.0.1:443`, `getaddrinfo
 * ENOTFOUND id.twitch.tv`): alone, it gave no clue whether Twitch, the name or the network was at fault.
 */
function unreachableText(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const cause = error instanceof Error ? error.cause : undefined;
  if (!(cause instanceof Error)) return message;
  const code = (cause as { code?: unknown }).code;
  const reason = cause.message !== '' ? cause.message : typeof code === 'string' ? code : '';
  return reason === '' || message.includes(reason) ? message : `${message} (${reason})`;
}

function messageOf(body: Record<string, unknown>): string {
  const message = body['message'] ?? body['error_description'] ?? body['error'];
  return typeof message === 'string' ? message : JSON.stringify(body);
}

/** Runs the whole flow; resolves with the token once the person approved it. */
export async function runDeviceCodeFlow(options: DeviceCodeFlowOptions): Promise<AccessToken> {
  const base = (options.oauthUrl ?? TWITCH_OAUTH_URL).replace(/\/+$/, '');
  const sleep = options.sleep ?? defaultSleep;
  const now = options.now ?? Date.now;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TWITCH_HTTP_TIMEOUT_MS;
  const scopes = options.scopes.join(' ');

  const started = await postForm(`${base}/device`, { client_id: options.clientId, scopes }, timeoutMs, options.signal);
  if (started.status !== 200) {
    throw new DeviceCodeFlowError(
      `Twitch refused to start the device flow (${started.status}: ${messageOf(started.body)}). `
      + 'Check twitch.clientId, and that the application on dev.twitch.tv may use the device flow.',
    );
  }
  const deviceCode = started.body['device_code'];
  const userCode = started.body['user_code'];
  const verificationUri = started.body['verification_uri'];
  if (typeof deviceCode !== 'string' || typeof userCode !== 'string' || typeof verificationUri !== 'string') {
    throw new DeviceCodeFlowError(`Twitch's answer to the device request is missing its codes: ${JSON.stringify(started.body)}`);
  }
  const expiresInSeconds = typeof started.body['expires_in'] === 'number' ? started.body['expires_in'] : 1800;
  let intervalMs = (typeof started.body['interval'] === 'number' ? started.body['interval'] : 5) * 1000;
  const deadline = now() + expiresInSeconds * 1000;
  options.onCode({ userCode, verificationUri, expiresInSeconds });

  const tokenForm: Record<string, string> = { client_id: options.clientId, scopes, device_code: deviceCode, grant_type: DEVICE_GRANT };
  if (options.clientSecret) tokenForm['client_secret'] = options.clientSecret;

  for (;;) {
    await sleep(intervalMs, options.signal);
    if (now() > deadline) throw new DeviceCodeFlowError('The code expired before it was approved. Run the command again.');
    const polled = await postForm(`${base}/token`, tokenForm, timeoutMs, options.signal);
    if (polled.status === 200) {
      const accessToken = polled.body['access_token'];
      const refreshToken = polled.body['refresh_token'];
      if (typeof accessToken !== 'string' || typeof refreshToken !== 'string') {
        throw new DeviceCodeFlowError('Twitch answered without an access token and a refresh token.');
      }
      const scope = polled.body['scope'];
      return {
        accessToken,
        refreshToken,
        scope: Array.isArray(scope) ? scope.filter((s): s is string => typeof s === 'string') : [],
        expiresIn: typeof polled.body['expires_in'] === 'number' ? polled.body['expires_in'] : null,
        obtainmentTimestamp: now(),
      };
    }
    const reason = messageOf(polled.body);
    if (reason === 'authorization_pending') continue;
    if (reason === 'slow_down') {
      intervalMs += 5000;
      continue;
    }
    if (/invalid device code|expired/i.test(reason)) throw new DeviceCodeFlowError('The code expired before it was approved. Run the command again.');
    if (/denied/i.test(reason)) throw new DeviceCodeFlowError('The authorization was declined on Twitch.');
    throw new DeviceCodeFlowError(`Twitch refused the token request (${polled.status}: ${reason}).`);
  }
}
