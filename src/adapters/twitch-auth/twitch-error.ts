// twurple's errors, as one short line that is safe to log and show: twurple's HttpStatusCodeError
// message carries the whole request URL, and a failed token refresh's URL carries the client
// secret and the refresh token in its query. Only the status and Twitch's own message are kept.
import { errorText } from '../../host/error-text.ts';
import { isTwitchHttpTimeout, noAnswerText, twitchHttpTimeoutMs } from './twitch-http-timeout.ts';

/** twurple's HttpStatusCodeError (from @twurple/api-call, not a direct dependency), read by shape. */
interface HttpStatusCodeErrorShape {
  statusCode: number;
  body: string;
  url: string;
}

export function isHttpStatusError(error: unknown): error is Error & HttpStatusCodeErrorShape {
  return error instanceof Error && typeof (error as Partial<HttpStatusCodeErrorShape>).statusCode === 'number';
}

/** Whether the failed request was id.twitch.tv's token endpoint (a refresh), not Helix. */
export function isTokenEndpointError(error: unknown): boolean {
  return isHttpStatusError(error) && /(?:^|\/)token(?:\?|$)/.test(String(error.url ?? ''));
}

function bodyMessage(body: string): string {
  try {
    const parsed = JSON.parse(body) as { message?: unknown };
    if (typeof parsed.message === 'string') return parsed.message;
  } catch {
    // not JSON
  }
  return body.slice(0, 200);
}

/**
 * The HTTP status (0 when none: no answer, or none in time) and a message with no URL, query or
 * body beyond Twitch's message.
 */
export function describeTwitchError(error: unknown): { status: number; message: string } {
  if (isHttpStatusError(error)) {
    return { status: error.statusCode, message: `Twitch answered ${error.statusCode}: ${bodyMessage(error.body)}` };
  }
  // fetch's own words for it are "fetch failed" or "terminated".
  if (isTwitchHttpTimeout(error)) return { status: 0, message: noAnswerText(twitchHttpTimeoutMs()) };
  const text = errorText(error);
  // Whatever else may quote a URL: drop query strings.
  return { status: 0, message: text.replace(/\?[^\s"']*/g, '?…').split('\n')[0]!.slice(0, 300) };
}
