// One submitted value checked against its catalog entry and brought to its stored form
// (DESIGN.md "Setting values"). Messages name the key and say what is allowed.
import type { SettingSpec, SettingValue } from './catalog.ts';
import { normalizeColor } from './color.ts';
import { findFontFamily } from './fonts.ts';
import { normalizeGradient } from './gradient.ts';

export type SettingValueResult = { ok: true; value: SettingValue } | { ok: false; error: string };

export function normalizeSettingValue(spec: SettingSpec, raw: unknown): SettingValueResult {
  switch (spec.type) {
    case 'integer': return normalizeInteger(spec, raw);
    case 'color': return normalizeColorSetting(spec, raw);
    case 'select': return normalizeSelect(spec, raw);
    case 'toggle': return normalizeToggle(spec, raw);
    case 'string': return normalizeFontFamily(spec, raw);
    case 'gradient': return normalizeGradientSetting(spec, raw);
  }
}

function normalizeInteger(spec: SettingSpec, raw: unknown): SettingValueResult {
  const min = spec.min ?? Number.MIN_SAFE_INTEGER;
  const max = spec.max ?? Number.MAX_SAFE_INTEGER;
  // Strings such as "12" are refused on purpose: the API takes JSON numbers only.
  if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < min || raw > max) {
    return refuse(`The ${spec.key} must be an integer between ${min} and ${max}.`);
  }
  return { ok: true, value: raw === 0 ? 0 : raw }; // no -0
}

function normalizeColorSetting(spec: SettingSpec, raw: unknown): SettingValueResult {
  const color = typeof raw === 'string' ? normalizeColor(raw) : undefined;
  if (color === undefined) {
    return refuse(`The ${spec.key} must be a colour: #rgb, #rgba, #rrggbb, #rrggbbaa or transparent.`);
  }
  return { ok: true, value: color };
}

function normalizeSelect(spec: SettingSpec, raw: unknown): SettingValueResult {
  const options = spec.options ?? [];
  // font-weight options are numbers written as strings; the JSON number is taken too.
  const candidate = spec.property === 'font-weight' && typeof raw === 'number' ? String(raw) : raw;
  if (typeof candidate !== 'string' || !options.includes(candidate)) {
    return refuse(`The ${spec.key} must be one of: ${options.join(', ')}.`);
  }
  return { ok: true, value: candidate };
}

function normalizeToggle(spec: SettingSpec, raw: unknown): SettingValueResult {
  if (typeof raw !== 'boolean') return refuse(`The ${spec.key} must be true or false.`);
  return { ok: true, value: raw };
}

/** `string` settings are font families: the catalog has no other kind. */
function normalizeFontFamily(spec: SettingSpec, raw: unknown): SettingValueResult {
  const entry = typeof raw === 'string' ? findFontFamily(raw) : undefined;
  if (entry === undefined) {
    return refuse(`The ${spec.key} must be a font family from the font catalog (Google Fonts, common system fonts or a generic family such as sans-serif).`);
  }
  return { ok: true, value: entry.family };
}

function normalizeGradientSetting(spec: SettingSpec, raw: unknown): SettingValueResult {
  if (typeof raw !== 'string') {
    return refuse(`The ${spec.key} must be a CSS linear or radial gradient, or "" for none.`);
  }
  const result = normalizeGradient(raw);
  if (!result.ok) {
    return refuse(`The ${spec.key} must be a CSS linear or radial gradient, or "" for none: ${result.error}.`);
  }
  return result;
}

function refuse(error: string): SettingValueResult {
  return { ok: false, error };
}
