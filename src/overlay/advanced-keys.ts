// The `-advanced` toggles of the catalog and the keys they switch between (spec "Advanced
// toggles"): `E.X-advanced` true renders the per-part keys `E.X-<part>`, false renders the
// uniform key `E.X`. Derived from the catalog by name, so a new toggle needs no list here.
import { SETTINGS, SETTINGS_BY_KEY } from '../service/settings/catalog.ts';

export interface AdvancedGroup {
  /** The toggle key, e.g. `bubble.border-radius-advanced`. */
  toggle: string;
  /** The key in effect while the toggle is false, e.g. `bubble.border-radius`. */
  uniform: string;
  /** The keys in effect while the toggle is true, in catalog order. */
  parts: readonly string[];
}

const SUFFIX = '-advanced';

export const ADVANCED_GROUPS: readonly AdvancedGroup[] = Object.freeze(
  SETTINGS.filter((s) => s.type === 'toggle' && s.key.endsWith(SUFFIX)).map((toggle) => {
    const uniform = toggle.key.slice(0, -SUFFIX.length);
    if (!SETTINGS_BY_KEY.has(uniform)) throw new Error(`catalog: ${toggle.key} has no uniform key ${uniform}`);
    const parts = SETTINGS.map((s) => s.key).filter((k) => k.startsWith(`${uniform}-`) && k !== toggle.key);
    return Object.freeze({ toggle: toggle.key, uniform, parts: Object.freeze(parts) });
  }),
);

/** The group `key` belongs to (as toggle, uniform or part), if any. */
export function advancedGroupOf(key: string): AdvancedGroup | undefined {
  return ADVANCED_GROUPS.find((g) => g.toggle === key || g.uniform === key || g.parts.includes(key));
}
