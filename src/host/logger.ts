// The host's structured logger (pino, JSON lines). Every line is scrubbed before it is written:
// values under secret-looking keys (token, clientSecret, apiKey, authorization, ...), bearer and
// OAuth tokens, chatskin API keys, and the config's own secret values wherever they appear (an
// error message, a URL, a library's output).
import { pino } from 'pino';
import type { DestinationStream, Level, Logger } from 'pino';

export interface LoggerOptions {
  level: Level | 'silent';
  /** Known secret values (config secrets), scrubbed wherever they appear. */
  secrets?: readonly string[];
  /** Where lines go; default stdout. */
  destination?: { write(line: string): unknown };
}

export const REDACTED = '[redacted]';

const SECRET_KEYS = [
  'token', 'accessToken', 'access_token', 'refreshToken', 'refresh_token', 'clientSecret', 'client_secret',
  'apiKey', 'api_key', 'apikey', 'x-api-key', 'password', 'secret', 'authorization', 'cookie', 'set-cookie',
];
// "key":"value" in the JSON line, for any secret key at any depth (case-insensitive).
const SECRET_KEY_VALUE = new RegExp(`("(?:${SECRET_KEYS.map((key) => key.replace(/[-]/g, '\\-')).join('|')})":)"(?:[^"\\\\]|\\\\.)*"`, 'gi');
const TOKEN_SHAPES = [
  /oauth:[A-Za-z0-9]+/g,
  /\b(Bearer|OAuth)\s+[A-Za-z0-9._~+/=-]+/g,
  /csk_[A-Za-z0-9_-]{8,}/g,
];

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Scrubs one serialized line. Exported for tests and for other writers of the same logs. */
export function createScrubber(secrets: readonly string[] = []): (line: string) => string {
  const known = secrets.filter((secret) => secret.length >= 4)
    // As it appears inside a JSON string.
    .map((secret) => JSON.stringify(secret).slice(1, -1))
    .sort((a, b) => b.length - a.length);
  const knownPattern = known.length > 0 ? new RegExp(known.map(escapeRegExp).join('|'), 'g') : null;
  return (line) => {
    let out = line.replace(SECRET_KEY_VALUE, `$1"${REDACTED}"`);
    if (knownPattern) out = out.replace(knownPattern, REDACTED);
    for (const shape of TOKEN_SHAPES) {
      out = out.replace(shape, (match, scheme?: string) => (typeof scheme === 'string' && !match.startsWith('oauth:') ? `${scheme} ${REDACTED}` : REDACTED));
    }
    return out;
  };
}

export function createLogger(options: LoggerOptions): Logger {
  const scrub = createScrubber(options.secrets);
  const target = options.destination ?? process.stdout;
  const destination: DestinationStream = { write: (line: string) => target.write(scrub(line)) };
  return pino({ level: options.level, base: { name: 'chatskin' } }, destination);
}
