// Effective settings from layers (DESIGN.md "Overlays" and "Skins"): template defaults, then
// each layer in turn, restricted to the template's keys and listed in catalog order.
import type { SettingsValues, SettingValue } from './catalog.ts';
import type { Template } from './templates.ts';

export function resolveValues(template: Template, ...layers: ReadonlyArray<Readonly<Record<string, SettingValue>>>): SettingsValues {
  const resolved: SettingsValues = {};
  for (const key of template.keys) {
    let value = template.defaults[key]!;
    for (const layer of layers) {
      if (Object.hasOwn(layer, key)) value = layer[key]!;
    }
    resolved[key] = value;
  }
  return resolved;
}

/**
 * The overrides worth storing for a skin: the template's keys whose value differs from the
 * template default, in catalog order. Keys outside the template are dropped too.
 */
export function dropDefaults(template: Template, overrides: Readonly<Record<string, SettingValue>>): SettingsValues {
  const kept: SettingsValues = {};
  for (const key of template.keys) {
    if (Object.hasOwn(overrides, key) && overrides[key] !== template.defaults[key]) kept[key] = overrides[key]!;
  }
  return kept;
}
