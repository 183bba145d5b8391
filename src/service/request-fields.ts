// Body fields of the spec's write requests, checked before anything is read or written. Each
// reader adds its refusals to a shared FieldErrors, so one 422 names every bad field; unknown
// extra fields are ignored.
import type { FieldErrors, Scope } from './types.ts';
import { SCOPES, ServiceError, validationError } from './types.ts';

export type RequestBody = Record<string, unknown>;

/** The body as a plain object; 422 on `body` otherwise (the HTTP layer checks this first too). */
export function requestBody(body: unknown): RequestBody {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw validationError({ body: ['The request body must be a JSON object.'] });
  }
  return body as RequestBody;
}

export function throwIfErrors(errors: FieldErrors): void {
  if (Object.keys(errors).length > 0) throw validationError(errors);
}

function isAbsent(value: unknown): boolean {
  return value === undefined || value === null || value === '';
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * `values`: required, a non-empty object (its keys are checked against the template later). `{}`
 * counts as missing, as the reference service's `required` rule has it (docs/architecture.md).
 */
export function readValuesField(body: RequestBody, errors: FieldErrors): Record<string, unknown> | undefined {
  const values = body.values;
  if (isAbsent(values) || (isPlainObject(values) && Object.keys(values).length === 0)) {
    errors.values = ['The values field is required.'];
    return undefined;
  }
  if (!isPlainObject(values)) {
    errors.values = ['The values field must be an object.'];
    return undefined;
  }
  return values;
}

export function readScopeField(body: RequestBody, errors: FieldErrors): Scope | undefined {
  const scope = body.scope;
  if (isAbsent(scope)) {
    errors.scope = [`The scope field is required. Use one of: ${SCOPES.join(', ')}.`];
    return undefined;
  }
  if (typeof scope !== 'string' || !(SCOPES as readonly string[]).includes(scope)) {
    errors.scope = [`The selected scope is invalid. Use one of: ${SCOPES.join(', ')}.`];
    return undefined;
  }
  return scope as Scope;
}

function isInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value);
}

/**
 * The refusal of an id field that is not a positive integer: the same 422 (field and message) a
 * query or path id gets (http/request-input.ts), so 0 or -3 is a malformed field, never a lookup
 * that answers 404. Only a well-formed id that names nothing of the caller's is a 404.
 */
function notPositiveInteger(field: 'preset_id' | 'skin_id'): string[] {
  return [`The ${field} field must be a positive integer.`];
}

/** `preset_id`: optional (null counts as left out), a positive integer. */
export function readPresetIdField(body: RequestBody, errors: FieldErrors): number | undefined {
  const presetId = body.preset_id;
  if (presetId === undefined || presetId === null) return undefined;
  const id = positiveId(presetId);
  if (id === undefined) errors.preset_id = notPositiveInteger('preset_id');
  return id;
}

/** `skin_id`: required, a positive integer. */
export function readSkinIdField(body: RequestBody, errors: FieldErrors): number | undefined {
  const skinId = body.skin_id;
  if (isAbsent(skinId)) {
    errors.skin_id = ['The skin_id field is required.'];
    return undefined;
  }
  const id = positiveId(skinId);
  if (id === undefined) errors.skin_id = notPositiveInteger('skin_id');
  return id;
}

export interface ViewerIdentifiers {
  twitchUsername?: string;
  twitchUserId?: string;
}

/** `twitch_username` / `twitch_user_id`: strings, at least one of the two. */
export function readViewerIdentifierFields(body: RequestBody, errors: FieldErrors): ViewerIdentifiers | undefined {
  const identifiers: ViewerIdentifiers = {};
  let ok = true;
  const username = body.twitch_username;
  if (!isAbsent(username)) {
    if (typeof username !== 'string') {
      errors.twitch_username = ['The twitch_username field must be a string.'];
      ok = false;
    } else {
      identifiers.twitchUsername = username;
    }
  }
  const userId = body.twitch_user_id;
  if (!isAbsent(userId)) {
    if (typeof userId !== 'string') {
      errors.twitch_user_id = ['The twitch_user_id field must be a string.'];
      ok = false;
    } else if (!/^[0-9]+$/.test(userId)) {
      errors.twitch_user_id = ['The twitch_user_id field must contain only digits.'];
      ok = false;
    } else {
      identifiers.twitchUserId = userId;
    }
  }
  if (ok && identifiers.twitchUsername === undefined && identifiers.twitchUserId === undefined) {
    errors.twitch_username = ['The twitch_username field is required when twitch_user_id is not present.'];
    errors.twitch_user_id = ['The twitch_user_id field is required when twitch_username is not present.'];
    return undefined;
  }
  return ok ? identifiers : undefined;
}

/** A positive safe integer id handed in by a caller (path, query or in-process), else undefined. */
export function positiveId(value: unknown): number | undefined {
  return isInteger(value) && value > 0 ? value : undefined;
}

export function notFound(message: string): ServiceError {
  return new ServiceError(404, message);
}
