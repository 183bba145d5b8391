// Effective settings from layers (DESIGN.md "Overlays" and "Skins"): template defaults, then
// each layer in turn, restricted to the template's keys and listed in catalog order.
import type { SettingsValues, SettingValue } from './catalog.ts';
import type { Template } from './templates.ts';

export function resolveValues(template: Template, ...layers: ReadonlyArray<Readonly<Record<string, SettingValue>>>): SettingsValues {
  // A copy of the defaults already has every key in catalog order (and copies in one go, where
  // adding ~130 keys one by one costs ~30x more and leaves a slow dictionary-mode object).
  // Overwriting a key keeps its place, so only each layer's own keys need visiting.
  const resolved: SettingsValues = { ...template.defaults };
  for (const layer of layers) {
    for (const key of Object.keys(layer)) {
      if (template.keySet.has(key)) resolved[key] = layer[key]!;
    }
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
