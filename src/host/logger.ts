// The host's structured logger (pino, JSON lines). Every line is scrubbed before it is written:
// values under secret-looking keys (token, clientSecret, apiKey, authorization, ...), bearer and
// OAuth tokens, chatskin API keys, and the config's own secret values wherever they appear (an
// error message, a URL, a library's output). Secrets that only turn up while running (a token
// read from a token file, a refreshed one) are added with addLogSecrets.
import { pino } from 'pino';
import type { DestinationStream, Level, Logger } from 'pino';
import { isSecretKey, REDACTED } from '../config/secret-key.ts';
import { serializeLoggedError } from './logged-error.ts';
import { RecentSet } from './recent-set.ts';

export interface LoggerOptions {
  level: Level | 'silent';
  /** Known secret values (config secrets), scrubbed wherever they appear. */
  secrets?: readonly string[];
  /** Where lines go; default stdout. */
  destination?: { write(line: string): unknown };
}

export { REDACTED };

// "key":"string" in the JSON line, at any depth.
const STRING_FIELD = /"((?:[^"\\]|\\.)*)":"(?:[^"\\]|\\.)*"/g;
const TOKEN_SHAPES = [
  /oauth:[A-Za-z0-9]+/g,
  /\b(Bearer|OAuth)\s+[A-Za-z0-9._~+/=-]+/gi,
  /csk_[A-Za-z0-9_-]{8,}/g,
];
/** `name=value` as in a URL's query or a message; its value is scrubbed when the name is a secret key's. */
const PARAMETER = /\b([A-Za-z][\w-]*)=([^&\s"'\\]+)/g;

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
    let out = line.replace(STRING_FIELD, (field, key: string) => (isSecretKey(key) ? `"${key}":"${REDACTED}"` : field));
    out = out.replace(PARAMETER, (parameter, name: string) => (isSecretKey(name) ? `${name}=${REDACTED}` : parameter));
    if (knownPattern) out = out.replace(knownPattern, REDACTED);
    for (const shape of TOKEN_SHAPES) {
      out = out.replace(shape, (match, scheme?: string) => (typeof scheme === 'string' && !match.toLowerCase().startsWith('oauth:') ? `${scheme} ${REDACTED}` : REDACTED));
    }
    return out;
  };
}

/** Where createLogger's destination takes more secrets; children share their root's destination. */
const LEARN_SECRETS = Symbol('chatskin.learnSecrets');

interface ScrubbingDestination extends DestinationStream {
  [LEARN_SECRETS](secrets: readonly string[]): void;
}

/**
 * Secrets learned while running that are kept, the newest taught: every token refresh teaches two,
 * and the scrubber runs over every line, so a host up for a year must not check thousands of
 * retired tokens. A token this many refreshes old has long expired (Twitch's live a few hours); one
 * taught again (a refresh token kept across refreshes) counts as new.
 */
export const MAX_LEARNED_SECRETS = 64;

export function createLogger(options: LoggerOptions): Logger {
  const configured = options.secrets ?? [];
  const learned = new RecentSet<string>(MAX_LEARNED_SECRETS);
  let scrub = createScrubber([...configured]);
  const target = options.destination ?? process.stdout;
  const destination: ScrubbingDestination = {
    write: (line: string) => target.write(scrub(line)),
    [LEARN_SECRETS](more) {
      let changed = false;
      // One taught again is still in use (a refresh token Twitch hands back unchanged at every
      // refresh): renewed as the newest, or the refreshes' new access tokens pushed it out.
      for (const secret of more) if (!configured.includes(secret) && learned.renew(secret)) changed = true;
      if (changed) scrub = createScrubber([...configured, ...learned]);
    },
  };
  return pino({ level: options.level, base: { name: 'chatskin' }, serializers: { err: serializeLoggedError } }, destination);
}

/**
 * Scrubs `secrets` from every later line of `logger`'s root logger and all its children. A logger
 * createLogger did not make (a test's silent pino) is left alone: it has no scrubber to teach.
 */
export function addLogSecrets(logger: Logger, secrets: readonly string[]): void {
  const stream = (logger as unknown as Record<symbol, unknown>)[pino.symbols.streamSym] as Partial<ScrubbingDestination> | undefined;
  stream?.[LEARN_SECRETS]?.(secrets);
}
