// The default of a setting on one of the bundled templates (config/templates), for callers that
// see an overlay only through the API: GET /template tells the template's slug and the effective
// values, not what a key falls back to when an overlay has no value of its own.
import { SETTINGS_BY_KEY } from './catalog.ts';
import type { SettingValue } from './catalog.ts';
import { DEFAULT_TEMPLATES_DIR, loadTemplates } from './templates.ts';
import type { Template } from './templates.ts';

let bundled: ReadonlyMap<string, Template> | undefined;

/** Read once, on first use. */
function bundledTemplates(): ReadonlyMap<string, Template> {
  bundled ??= new Map(loadTemplates(DEFAULT_TEMPLATES_DIR).map((template) => [template.slug, template]));
  return bundled;
}

/**
 * What `key` falls back to on the template `templateSlug`: the template's own default, or the
 * catalog's for a template that is not bundled (a remote service's own). undefined when the key
 * is not in the catalog, or not part of a bundled template.
 */
export function templateDefault(templateSlug: string, key: string): SettingValue | undefined {
  const template = bundledTemplates().get(templateSlug);
  if (template !== undefined) return template.keySet.has(key) ? template.defaults[key] : undefined;
  return SETTINGS_BY_KEY.get(key)?.default;
}
