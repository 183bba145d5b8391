// The `values` object of a write request, checked key by key against the catalog and one
// template. Each value comes back in its stored form; every refusal is a field error keyed
// `values.<key>`, as DESIGN.md asks.
import type { FieldErrors } from '../types.ts';
import { SETTINGS_BY_KEY } from './catalog.ts';
import type { SettingValue } from './catalog.ts';
import { normalizeSettingValue } from './setting-value.ts';
import type { Template } from './templates.ts';

/** More keys than this is refused outright (the catalog has far fewer), so no input costs much. */
export const MAX_VALUES_KEYS = 500;

export interface ValidatedValues {
  /** Normalised values; `null` (only with allowNull) means "remove this key". */
  values: Record<string, SettingValue | null>;
  /** Empty when everything was accepted. */
  errors: FieldErrors;
}

export function validateSettingsValues(
  template: Template,
  input: unknown,
  options: { allowNull: boolean },
): ValidatedValues {
  // Only catalog keys are ever written to `values`, and error keys all start with "values.",
  // so neither object can receive `__proto__` or another Object.prototype name.
  const values: Record<string, SettingValue | null> = {};
  const errors: FieldErrors = {};
  if (!isPlainObject(input)) {
    errors.values = ['The values field must be an object.'];
    return { values, errors };
  }
  const keys = Object.keys(input);
  if (keys.length > MAX_VALUES_KEYS) {
    errors.values = [`The values field may have at most ${MAX_VALUES_KEYS} settings.`];
    return { values, errors };
  }
  for (const key of keys) {
    const field = `values.${key}`;
    const spec = SETTINGS_BY_KEY.get(key);
    if (spec === undefined) {
      errors[field] = [`The ${shown(key)} is not a known setting.`];
      continue;
    }
    if (!template.keySet.has(key)) {
      errors[field] = [`The ${key} is not part of the ${template.slug} template.`];
      continue;
    }
    const raw = input[key];
    if (raw === null) {
      if (options.allowNull) values[key] = null;
      else errors[field] = [`The ${key} must have a value; null is not allowed here.`];
      continue;
    }
    const result = normalizeSettingValue(spec, raw);
    if (result.ok) values[key] = result.value;
    else errors[field] = [result.error];
  }
  return { values, errors };
}

function isPlainObject(input: unknown): input is Record<string, unknown> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return false;
  const proto: unknown = Object.getPrototypeOf(input);
  return proto === Object.prototype || proto === null;
}

/** Unknown keys are echoed in messages, cut short so a long key cannot bloat the answer. */
function shown(key: string): string {
  // "The  is not a known setting." would show no key at all.
  if (key.trim() === '') return `key ${JSON.stringify(key)}`;
  if (key.length <= 80) return key;
  // Never cut between the two halves of a character outside the BMP (an emoji): a lone surrogate.
  const end = /[\uD800-\uDBFF]/.test(key[79]!) ? 79 : 80;
  return `${key.slice(0, end)}…`;
}
