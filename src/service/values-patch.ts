// Merging a validated `values` patch into stored values (DESIGN.md: partial updates; `null`
// removes a key), and the small comparisons the write paths need.
import type { SettingsValues, SettingValue } from './settings/catalog.ts';
import type { Template } from './settings/templates.ts';
import type { StoredValues } from './store/records.ts';

/** `stored` with `patch` applied: a value sets its key, null removes it. A new object. */
export function applyValuesPatch(stored: Readonly<StoredValues>, patch: Readonly<Record<string, SettingValue | null>>): StoredValues {
  const next: StoredValues = { ...stored };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete next[key];
    else next[key] = value;
  }
  return next;
}

/** Same keys with the same values (order does not matter). */
export function sameValues(a: Readonly<StoredValues>, b: Readonly<StoredValues>): boolean {
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((key) => Object.hasOwn(b, key) && b[key] === a[key]);
}

/** Only the template's keys of `values`, in catalog order. */
export function pickTemplateKeys(template: Template, values: Readonly<StoredValues>): SettingsValues {
  const picked: SettingsValues = {};
  for (const key of template.keys) if (Object.hasOwn(values, key)) picked[key] = values[key]!;
  return picked;
}
