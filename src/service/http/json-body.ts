// Request bodies of the API: JSON only, at most `bodyLimitBytes`. Fastify counts the bytes as
// they stream in and stops reading at the limit (413), also for chunked bodies with no
// Content-Length, and refuses a declared Content-Length over the limit before reading at all.
// Malformed JSON, other content types, encoded (compressed) bodies and prototype-poisoning keys
// are 422 on `errors.body`.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { validationError } from '../types.ts';

export const BODY_MESSAGES = {
  notObject: 'The request body must be a JSON object.',
  invalidJson: 'The request body is not valid JSON.',
  notJson: 'The request body must be JSON sent with Content-Type: application/json.',
  poisoned: 'The request body must not contain "__proto__" or "constructor.prototype" keys.',
  encoded: 'The request body must be sent as is: no Content-Encoding (gzip, deflate, br) is taken.',
} as const;

/** Whether the body says it is compressed (or otherwise encoded): it is never decoded, so never read as JSON. */
function isEncoded(request: FastifyRequest): boolean {
  const encoding = request.headers['content-encoding'];
  return encoding !== undefined && encoding.trim().toLowerCase() !== 'identity' && encoding.trim() !== '';
}

export function bodyError(message: string) {
  return validationError({ body: [message] });
}

// The same cheap gates secure-json-parse uses: only a text that spells one of the keys
// (possibly with \u escapes) is walked.
const SUSPECT_PROTO =
  /"(?:_|\\u005[Ff])(?:_|\\u005[Ff])(?:p|\\u0070)(?:r|\\u0072)(?:o|\\u006[Ff])(?:t|\\u0074)(?:o|\\u006[Ff])(?:_|\\u005[Ff])(?:_|\\u005[Ff])"\s*:/;
const SUSPECT_CONSTRUCTOR =
  /"(?:c|\\u0063)(?:o|\\u006[Ff])(?:n|\\u006[Ee])(?:s|\\u0073)(?:t|\\u0074)(?:r|\\u0072)(?:u|\\u0075)(?:c|\\u0063)(?:t|\\u0074)(?:o|\\u006[Ff])(?:r|\\u0072)"\s*:/;

/** Whether a parsed JSON value holds an own `__proto__` key or a `constructor` with `prototype`. */
export function hasPoisonedKey(root: unknown): boolean {
  // Iterative, so a deeply nested body cannot overflow the stack.
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value !== 'object' || value === null) continue;
    if (Array.isArray(value)) {
      for (const item of value) pending.push(item);
      continue;
    }
    for (const key of Object.keys(value)) {
      const child = (value as Record<string, unknown>)[key];
      if (key === '__proto__') return true;
      if (key === 'constructor' && typeof child === 'object' && child !== null && Object.hasOwn(child, 'prototype')) {
        return true;
      }
      pending.push(child);
    }
  }
  return false;
}

/** Parses a JSON body text, refusing what the API does not take, with 422 errors on `body`. */
export function parseJsonBody(text: string): unknown {
  if (text.trim() === '') throw bodyError(BODY_MESSAGES.notObject);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw bodyError(BODY_MESSAGES.invalidJson);
  }
  if ((SUSPECT_PROTO.test(text) || SUSPECT_CONSTRUCTOR.test(text)) && hasPoisonedKey(parsed)) {
    throw bodyError(BODY_MESSAGES.poisoned);
  }
  return parsed;
}

/** Replaces the parsers of this (encapsulated) context with the API's. */
export function registerJsonBodyParsers(app: FastifyInstance, bodyLimitBytes: number): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'string', bodyLimit: bodyLimitBytes },
    (request: FastifyRequest, body: string | Buffer, done: (err: Error | null, body?: unknown) => void) => {
      if (isEncoded(request)) return done(bodyError(BODY_MESSAGES.encoded));
      try {
        done(null, parseJsonBody(typeof body === 'string' ? body : body.toString('utf8')));
      } catch (error) {
        done(error as Error);
      }
    },
  );
  // Any other content type is still read within the limit (so 413 wins for a huge body), then refused.
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: bodyLimitBytes }, (_request, _body, done) => {
    done(bodyError(BODY_MESSAGES.notJson));
  });
}
