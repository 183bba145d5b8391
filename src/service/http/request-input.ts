// Checks of request input that belong to HTTP rather than to the service: path and query
// integers, and that a write body is a JSON object at all.
import { validationError } from '../types.ts';
import { BODY_MESSAGES, bodyError } from './json-body.ts';

const POSITIVE_INTEGER = /^[1-9][0-9]{0,15}$/;

/**
 * A positive integer from a path or query string value; 422 on `field` otherwise.
 * Undefined stays undefined (an optional query parameter that was left out).
 */
export function positiveIntegerParam(field: string, raw: unknown): number | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw === 'string' && POSITIVE_INTEGER.test(raw)) {
    const value = Number(raw);
    if (Number.isSafeInteger(value)) return value;
  }
  throw validationError({ [field]: [`The ${field} field must be a positive integer.`] });
}

/** The body of a write request as a plain JSON object; 422 on `body` otherwise. */
export function jsonObjectBody(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw bodyError(BODY_MESSAGES.notObject);
  return body as Record<string, unknown>;
}
