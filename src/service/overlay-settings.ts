// An overlay's settings as the spec's template read shows them (DESIGN.md "Overlays"):
// effective values = template defaults, then the sync source's values, then the overrides.
import { resolveValues } from './settings/resolve-values.ts';
import type { Template } from './settings/templates.ts';
import type { OverlayRecord } from './store/records.ts';
import type { TemplateSettingsView } from './types.ts';
import { pickTemplateKeys } from './values-patch.ts';

export function templateSettingsView(template: Template, overlay: OverlayRecord, source: OverlayRecord | null): TemplateSettingsView {
  const head = { template_id: template.id, template_name: template.name, template_slug: template.slug };
  if (source === null) {
    const settings = resolveValues(template, overlay.values);
    return {
      ...head,
      settings_values: settings,
      // The same object: nothing is layered under the overlay's own values (the PUT answer
      // serialises it once for both; the cached view is frozen).
      source_values: settings,
      override_values: {},
      overridden_keys: [],
      sync_source_preset_id: null,
      preset_id: overlay.id,
      preset_name: overlay.name,
    };
  }
  const overrides = pickTemplateKeys(template, overlay.values);
  return {
    ...head,
    settings_values: resolveValues(template, source.values, overlay.values),
    source_values: resolveValues(template, source.values),
    override_values: overrides,
    overridden_keys: Object.keys(overrides),
    sync_source_preset_id: source.id,
    preset_id: overlay.id,
    preset_name: overlay.name,
  };
}
