// A skin as GET /skins shows it: its effective settings are the template defaults with its
// stored overrides on top (DESIGN.md "Skins").
import type { SettingsValues } from './settings/catalog.ts';
import { resolveValues } from './settings/resolve-values.ts';
import type { Template } from './settings/templates.ts';
import type { SkinRecord } from './store/records.ts';
import type { SkinView } from './types.ts';
import { pickTemplateKeys } from './values-patch.ts';

export function skinView(template: Template, skin: SkinRecord): SkinView {
  return {
    id: skin.id,
    name: skin.name,
    slug: skin.slug,
    description: skin.description,
    availability: skin.availability,
    settings_values: resolveValues(template, skin.overrides),
    is_active: skin.isActive,
  };
}

/** The skin's effective settings and its overrides alone (template keys, catalog order). */
export function skinSettings(template: Template, skin: SkinRecord): { settings: SettingsValues; overrides: SettingsValues } {
  return { settings: resolveValues(template, skin.overrides), overrides: pickTemplateKeys(template, skin.overrides) };
}

/** A skin the channel may use: one of its own, or a global platform skin. */
export function isUsableSkin(skin: SkinRecord | null, accountId: number): skin is SkinRecord {
  return skin !== null && (skin.accountId === null || skin.accountId === accountId);
}
