// The offline font catalog behind the `font-family` settings: Google Fonts and common system
// fonts from @capsizecss/metrics, a few more common system fonts it has no metrics for, and the
// CSS generic families. Names match without regard to case and answer in the catalog's spelling.
import { createRequire } from 'node:module';

export type FontSource = 'google' | 'system' | 'generic';

export interface FontEntry {
  /** The family name as the catalog spells it. */
  family: string;
  /** `google`: the overlay loads it from Google Fonts; `system` and `generic`: the browser has it. */
  source: FontSource;
  /** serif, sans-serif, monospace, display or handwriting; absent for generic families. */
  category?: string;
}

/** CSS generic font families (CSS Fonts 4). */
export const GENERIC_FONT_FAMILIES: readonly string[] = Object.freeze([
  'serif', 'sans-serif', 'monospace', 'cursive', 'fantasy', 'system-ui', 'math', 'emoji', 'fangsong',
  'ui-serif', 'ui-sans-serif', 'ui-monospace', 'ui-rounded',
]);

/**
 * System fonts: the ones @capsizecss/metrics measured from operating systems (its data does not
 * mark them, so they are named here) plus common ones it lacks. Everything else it lists is a
 * Google font.
 */
export const SYSTEM_FONT_FAMILIES: ReadonlyArray<{ family: string; category: string }> = Object.freeze([
  // In @capsizecss/metrics.
  { family: '-apple-system', category: 'sans-serif' },
  { family: 'Arial', category: 'sans-serif' },
  { family: 'BlinkMacSystemFont', category: 'sans-serif' },
  { family: 'Brush Script', category: 'handwriting' },
  { family: 'Courier New', category: 'monospace' },
  { family: 'Georgia', category: 'serif' },
  { family: 'Helvetica', category: 'sans-serif' },
  { family: 'Helvetica Neue', category: 'sans-serif' },
  { family: 'Lucida Grande', category: 'sans-serif' },
  { family: 'Segoe UI', category: 'sans-serif' },
  { family: 'Tahoma', category: 'sans-serif' },
  { family: 'Times New Roman', category: 'serif' },
  { family: 'Trebuchet MS', category: 'sans-serif' },
  { family: 'Verdana', category: 'sans-serif' },
  // Common on Windows and macOS, not measured by @capsizecss/metrics.
  { family: 'Arial Black', category: 'sans-serif' },
  { family: 'Calibri', category: 'sans-serif' },
  { family: 'Cambria', category: 'serif' },
  { family: 'Comic Sans MS', category: 'handwriting' },
  { family: 'Consolas', category: 'monospace' },
  { family: 'Courier', category: 'monospace' },
  { family: 'Impact', category: 'display' },
  { family: 'Lucida Console', category: 'monospace' },
  { family: 'Menlo', category: 'monospace' },
  { family: 'Monaco', category: 'monospace' },
  { family: 'Palatino Linotype', category: 'serif' },
  { family: 'Times', category: 'serif' },
]);

/** Longer names are not looked up at all. */
const MAX_FAMILY_LENGTH = 100;

interface CapsizeFontMetrics { familyName: string; category?: string }

let catalog: Map<string, FontEntry> | undefined;

/** The catalog entry for `name` (case and repeated blanks ignored), or undefined. */
export function findFontFamily(name: string): FontEntry | undefined {
  if (name.length > MAX_FAMILY_LENGTH) return undefined;
  return loadFontCatalog().get(lookupKey(name));
}

/**
 * Builds the catalog on first use (the metrics collection is a 4 MB module, so nothing loads it
 * until a font is looked up). Call it at start-up to pay that cost before the first request.
 */
export function loadFontCatalog(): ReadonlyMap<string, FontEntry> {
  catalog ??= buildCatalog();
  return catalog;
}

function buildCatalog(): Map<string, FontEntry> {
  const entries = new Map<string, FontEntry>();
  const systemFamilies = new Set(SYSTEM_FONT_FAMILIES.map((f) => lookupKey(f.family)));
  const require = createRequire(import.meta.url);
  const collection = (require('@capsizecss/metrics/entireMetricsCollection') as {
    entireMetricsCollection: Record<string, CapsizeFontMetrics>;
  }).entireMetricsCollection;
  for (const metrics of Object.values(collection)) {
    const key = lookupKey(metrics.familyName);
    if (systemFamilies.has(key)) continue;
    entries.set(key, freezeEntry(metrics.familyName, 'google', metrics.category));
  }
  for (const { family, category } of SYSTEM_FONT_FAMILIES) {
    entries.set(lookupKey(family), freezeEntry(family, 'system', category));
  }
  for (const family of GENERIC_FONT_FAMILIES) {
    entries.set(family, freezeEntry(family, 'generic', undefined));
  }
  return entries;
}

function freezeEntry(family: string, source: FontSource, category: string | undefined): FontEntry {
  return Object.freeze(category === undefined ? { family, source } : { family, source, category });
}

function lookupKey(name: string): string {
  return name.trim().replace(/\s+/g, ' ').toLowerCase();
}
