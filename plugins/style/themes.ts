// Themes: named sets of setting values in the style plugin's config, checked when the plugin
// loads (an unknown key or a bad value fails the plugin with the config path), and kept in the
// stored form the service would answer with. A `null` value resets that key to inherited.
import { checkSettingValue, coerceChatValue, findSetting, z } from '../../src/sdk.ts';
import type { SettingsPatch } from '../../src/sdk.ts';

const THEME_NAME = /^[a-z0-9][a-z0-9_-]{0,31}$/;

const themeValue = z.union([z.string(), z.number(), z.boolean(), z.null()]);

export const themesSchema = z.record(z.string(), z.record(z.string(), themeValue))
  .superRefine((themes, ctx) => {
    for (const [name, values] of Object.entries(themes)) {
      if (!THEME_NAME.test(name)) {
        ctx.addIssue({ code: 'custom', path: [name], message: 'a theme name is 1 to 32 lowercase letters, digits, - or _, starting with a letter or digit' });
      }
      if (Object.keys(values).length === 0) {
        ctx.addIssue({ code: 'custom', path: [name], message: 'a theme needs at least one setting' });
      }
      for (const [key, value] of Object.entries(values)) {
        const problem = themeValueProblem(key, value);
        if (problem !== undefined) ctx.addIssue({ code: 'custom', path: [name, key], message: problem });
      }
    }
  })
  .transform((themes) => new Map(Object.entries(themes).map(([name, values]) => [name, storedValues(values)])));

export type Themes = ReadonlyMap<string, SettingsPatch>;

/** A string in the YAML is read like chat text (`320px`, `red`, `on`), so themes are written as loosely as commands. */
function typed(key: string, value: string | number | boolean): string | number | boolean {
  return typeof value === 'string' ? coerceChatValue(key, value) : value;
}

function themeValueProblem(key: string, value: string | number | boolean | null): string | undefined {
  if (findSetting(key) === undefined) return `"${key}" is not a setting key; the allowed keys are listed in docs/settings.md`;
  if (value === null) return undefined;
  const checked = checkSettingValue(key, typed(key, value));
  return checked.ok ? undefined : checked.error;
}

function storedValues(values: Record<string, string | number | boolean | null>): SettingsPatch {
  const stored: SettingsPatch = {};
  for (const [key, value] of Object.entries(values)) {
    const checked = value === null ? null : checkSettingValue(key, typed(key, value));
    stored[key] = checked === null ? null : checked.ok ? checked.value : value;
  }
  return stored;
}
