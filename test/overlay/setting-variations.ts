// Shared by the CSS tests (text and computed style): for each catalog key, settings where the
// key is in effect and a valid value other than the one it has.
import { CATALOG_DEFAULTS } from '../../src/service/settings/catalog.ts';
import type { SettingSpec, SettingsValues, SettingValue } from '../../src/service/settings/catalog.ts';
import { advancedGroupOf } from '../../src/overlay/advanced-keys.ts';

/** A valid value of `spec` other than `current`. */
export function otherValue(spec: SettingSpec, current: SettingValue): SettingValue {
  switch (spec.type) {
    case 'integer': return Number(current) + 1 <= spec.max! ? Number(current) + 1 : Number(current) - 1;
    case 'color': return current === '#123456' ? '#654321' : '#123456';
    case 'select': return spec.options!.find((option) => option !== current)!;
    case 'toggle': return !current;
    case 'string': return current === 'Roboto' ? 'Lato' : 'Roboto';
    case 'gradient': return current === '' ? 'linear-gradient(90deg, #ff0000 0%, #0000ff 100%)' : '';
  }
}

/**
 * Catalog defaults arranged so `key` is in effect: its advanced toggle on for per-part keys,
 * and distinct uniform and part values so flipping a toggle is visible.
 */
export function baseFor(key: string): SettingsValues {
  const base: SettingsValues = { ...CATALOG_DEFAULTS };
  const group = advancedGroupOf(key);
  if (group !== undefined) {
    base[group.uniform] = 7;
    group.parts.forEach((part, i) => { base[part] = i + 1; });
    if (group.parts.includes(key)) base[group.toggle] = true;
  }
  return base;
}
