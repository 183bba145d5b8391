// Reading one effective setting for rendering. The server validated every value already; this
// check only keeps a bad value (an old store row, a hand-made test input) from reaching the CSS
// text, where it could break out of its declaration. A value that fails falls back to the
// catalog default. Browser-safe: imports the catalog only.
import { maskHides, SETTINGS_BY_KEY } from '../service/settings/catalog.ts';
import type { SettingSpec, SettingValue } from '../service/settings/catalog.ts';

const COLOR = /^(?:transparent|#(?:[0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8}))$/i;
// The normal form the settings layer stores: lowercase, hex colours, numbers, `%`, `deg`, `px`.
const GRADIENT = /^(?:repeating-)?(?:linear|radial)-gradient\([a-z0-9#%., -]*\)$/;
const FONT_FAMILY = /^[^"\\\n\r\f;{}<>]{1,100}$/;

export function isRenderableValue(spec: SettingSpec, value: unknown): value is SettingValue {
  switch (spec.type) {
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value)
        && value >= (spec.min ?? -Infinity) && value <= (spec.max ?? Infinity);
    case 'color': return typeof value === 'string' && COLOR.test(value);
    case 'select': return typeof value === 'string' && (spec.options ?? []).includes(value);
    case 'toggle': return typeof value === 'boolean';
    case 'string': return typeof value === 'string' && FONT_FAMILY.test(value.trim());
    case 'gradient': return value === '' || (typeof value === 'string' && GRADIENT.test(value));
  }
}

/** The value of `key` in `values`, or the catalog default when absent or not renderable. */
export function readSetting(values: Readonly<Record<string, unknown>>, key: string): SettingValue {
  const spec = SETTINGS_BY_KEY.get(key);
  if (spec === undefined) throw new Error(`readSetting: ${key} is not a catalog key`);
  const value = Object.hasOwn(values, key) ? values[key] : undefined;
  return isRenderableValue(spec, value) ? value : spec.default;
}

/** A skin's settings as the page draws them, and which of them the skin sets itself. */
export interface SkinLayer {
  values: Record<string, unknown>;
  /** Keys whose value is the skin's own override (not the overlay's, nor pulled in by a mask). */
  skinKeys: ReadonlySet<string>;
}

/**
 * A skin's settings as the page draws them: the overlay's settings with the skin's overrides on
 * top, taking only keys the overlay has (skins span templates) and values it can render. A value
 * that fails leaves the overlay's own in place, not the catalog default: the skin sits on top of
 * the overlay.
 *
 * The skin's visible intent wins for what it styles: where a key the skin leaves alone hides,
 * at the overlay's value, a key the skin sets (the catalog's `hiddenWhen`: the overlay's gradient
 * over the skin's background colour, the overlay's `border-style: none` under the skin's border
 * width), that key is drawn at the skin's own value (its `settings`: the template default, as
 * GET /skins shows it) instead. This is the one place skins are layered on the overlay.
 */
export function skinLayer(
  settings: Readonly<Record<string, unknown>>,
  skin: { readonly settings: Readonly<Record<string, unknown>>; readonly overrides: Readonly<Record<string, unknown>> },
): SkinLayer {
  const values: Record<string, unknown> = { ...settings };
  const skinKeys = new Set<string>();
  for (const [key, value] of Object.entries(skin.overrides)) {
    const spec = SETTINGS_BY_KEY.get(key);
    if (spec !== undefined && Object.hasOwn(settings, key) && isRenderableValue(spec, value)) {
      values[key] = value;
      skinKeys.add(key);
    }
  }
  for (const key of skinKeys) {
    const spec = SETTINGS_BY_KEY.get(key)!;
    for (const mask of spec.hiddenWhen ?? []) {
      const hiding = `${spec.element}.${mask.property}`;
      if (skinKeys.has(hiding) || !Object.hasOwn(values, hiding)) continue;
      if (!maskHides(mask, readSetting(values, hiding))) continue;
      const own = Object.hasOwn(skin.settings, hiding) ? skin.settings[hiding] : undefined;
      values[hiding] = isRenderableValue(SETTINGS_BY_KEY.get(hiding)!, own) ? own : SETTINGS_BY_KEY.get(hiding)!.default;
    }
  }
  return { values, skinKeys };
}
