// Checks both clients make before a request leaves them, so the in-process client refuses
// exactly what the HTTP API refuses (same status, message and field) and the HTTP client never
// builds a URL or body the service would have to guess at.
import { DEFAULT_BODY_LIMIT_BYTES } from '../service/http/options.ts';
import { positiveIntegerParam } from '../service/http/request-input.ts';
import { ServiceError, validationError } from '../service/types.ts';

/** `preset_id` / `skin_id`: a positive integer, or (optional only) undefined; 422 on `field` as the API answers. */
export function checkIdParam(field: string, value: number | undefined): number | undefined {
  // The API sees the decimal text of the number, so 1.5, -1, NaN and 1e21 are refused the same way.
  return positiveIntegerParam(field, value === undefined ? undefined : String(value));
}

export const IDENTIFIER_REQUIRED = 'The identifier field is required.';

/** The path identifier of GET /viewers/{identifier}/skins: a non-empty string. */
export function checkIdentifier(identifier: unknown): string {
  if (typeof identifier !== 'string' || identifier === '') {
    throw validationError({ identifier: [IDENTIFIER_REQUIRED] });
  }
  return identifier;
}

/**
 * One path segment, percent-encoded. Dots are encoded too: a raw `.` or `..` segment would be
 * collapsed by URL parsing (or a proxy) into another route, and the server decodes `%2E` back.
 * A lone surrogate (a JavaScript string that is not well-formed UTF-16) has no UTF-8 form, and
 * encodeURIComponent throws a URIError on it: it is sent as U+FFFD, as any UTF-8 encoder writes
 * it, so the call is answered like any unknown name (as the in-process client answers it).
 */
export function encodePathSegment(segment: string): string {
  return encodeURIComponent(segment.toWellFormed()).replaceAll('.', '%2E');
}

/**
 * A write body as the JSON text that goes on the wire (undefined fields dropped, as
 * JSON.stringify does), refused when it cannot be encoded or is over the API's body limit.
 */
export function encodeJsonBody(body: object, limitBytes = DEFAULT_BODY_LIMIT_BYTES): string {
  // JSON has no NaN or Infinity: JSON.stringify writes null, which would reset a setting the
  // caller meant to set (a plugin's Number('abc')).
  const nonFinite = findNonFiniteNumber(body);
  if (nonFinite !== null) {
    throw validationError({ [nonFinite.path]: [`The ${nonFinite.key} must be a number, not ${nonFinite.value}.`] });
  }
  let text: string | undefined;
  try {
    text = JSON.stringify(body);
  } catch (error) {
    throw validationError({ body: [`The request body cannot be encoded as JSON: ${(error as Error).message}`] });
  }
  if (text === undefined) throw validationError({ body: ['The request body must be a JSON object.'] });
  if (Buffer.byteLength(text, 'utf8') > limitBytes) {
    // The same answer the HTTP layer gives for an oversized body.
    throw new ServiceError(413, `Payload Too Large: the request body is over ${limitBytes} bytes.`);
  }
  return text;
}

/** The first NaN or ±Infinity inside `body`, with its path as the API names fields (`values.bubble.width`). */
function findNonFiniteNumber(body: object): { path: string; key: string; value: number } | null {
  const pending: Array<{ value: unknown; path: string[] }> = [{ value: body, path: [] }];
  // A cycle is JSON.stringify's to refuse; each object is looked into once.
  const seen = new Set<object>();
  while (pending.length > 0) {
    const { value, path } = pending.pop()!;
    if (typeof value === 'number' && !Number.isFinite(value)) return { path: path.join('.'), key: path.at(-1) ?? 'body', value };
    if (typeof value !== 'object' || value === null || seen.has(value)) continue;
    seen.add(value);
    for (const [key, child] of Object.entries(value)) pending.push({ value: child, path: [...path, key] });
  }
  return null;
}
