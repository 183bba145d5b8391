// Reading and describing one overlay's settings for chat: which scope a write from chat uses,
// and how a value is shown (with where it comes from: overridden here, or inherited).
import { shortened, templateDefault } from '../../src/sdk.ts';
import type { Scope, SettingValue, TemplateSettingsView } from '../../src/sdk.ts';

/**
 * A write from chat changes what this overlay shows: an overlay synced to another gets an
 * override (the source and its other overlays stay as they are); an independent overlay is
 * written itself (overlays synced to it follow, unless they override the key).
 */
export function writeScopeFor(view: TemplateSettingsView): Scope {
  return view.sync_source_preset_id === null ? 'independent' : 'override';
}

/** A value as chat shows it; the empty gradient is "none"; a long one (a gradient) cut short, so the reply stays one line. */
export function shownValue(value: SettingValue | null | undefined): string {
  if (value === '' || value === null || value === undefined) return 'none';
  return shortened(String(value));
}

/** `bubble.width is 320 (overridden on this overlay; the sync source has 400).` */
export function describeSetting(view: TemplateSettingsView, key: string): string {
  const value = shownValue(view.settings_values[key]);
  if (view.sync_source_preset_id !== null) {
    if (view.overridden_keys.includes(key)) {
      return `${key} is ${value} (overridden on this overlay; the sync source has ${shownValue(view.source_values[key])}).`;
    }
    return `${key} is ${value} (inherited from the sync source).`;
  }
  // An independent overlay's read does not say which values it stores; its template's default does.
  const fallback = templateDefault(view.template_slug, key);
  if (fallback === undefined) return `${key} is ${value}.`;
  if (view.settings_values[key] === fallback) return `${key} is ${value} (inherited: the template default).`;
  return `${key} is ${value} (set on this overlay; the template default is ${shownValue(fallback)}).`;
}

/** What a reset did, from the read before it and the values after it. */
export function describeReset(before: TemplateSettingsView, after: Record<string, SettingValue>, key: string): string {
  const now = shownValue(after[key]);
  if (before.sync_source_preset_id !== null) {
    return before.overridden_keys.includes(key)
      ? `${key} reset: now ${now}, inherited from the sync source.`
      : `${key} was not overridden; it is ${now}, inherited from the sync source.`;
  }
  return before.settings_values[key] === after[key]
    ? `${key} is already the template default: ${now}.`
    : `${key} reset to the template default: ${now}.`;
}
