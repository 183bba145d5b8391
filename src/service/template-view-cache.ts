// GET /template answers kept in memory per overlay, each with the version stamp it was built
// from. Building a view reads and parses the stored values and resolves three settings maps
// (most of a read's cost); checking a stamp is one small indexed read. The caller reads the
// current stamp from the database on every request and uses an entry only when it matches, so
// a change made by another process (the CLI) on the same database is never answered stale.
// Bounded: the least recently used entry goes first.
import type { OverlayVersionRecord } from './store/records.ts';
import type { TemplateSettingsView } from './types.ts';

export const DEFAULT_TEMPLATE_VIEW_CACHE_ENTRIES = 256;

export interface CachedTemplateView {
  /** Deeply frozen: shared by every caller until the overlay changes. */
  readonly view: TemplateSettingsView;
  /** encode(view), kept while the same `encode` asks again (one slot: HTTP is the one user). */
  encoded<T>(encode: (view: TemplateSettingsView) => T): T;
}

class Entry implements CachedTemplateView {
  readonly stamp: OverlayVersionRecord;
  readonly view: TemplateSettingsView;
  #encode: ((view: TemplateSettingsView) => unknown) | undefined;
  #encoded: unknown;

  constructor(stamp: OverlayVersionRecord, view: TemplateSettingsView) {
    this.stamp = { ...stamp };
    this.view = deepFreeze(view);
  }

  encoded<T>(encode: (view: TemplateSettingsView) => T): T {
    if (this.#encode !== encode) {
      this.#encoded = encode(this.view);
      this.#encode = encode;
    }
    return this.#encoded as T;
  }
}

function sameStamp(a: OverlayVersionRecord, b: OverlayVersionRecord): boolean {
  return a.version === b.version && a.sourceVersion === b.sourceVersion && a.syncSourceId === b.syncSourceId
    && a.templateId === b.templateId && a.name === b.name && a.id === b.id;
}

/**
 * Freezes `value` and everything it holds. An object frozen already is still walked (a frozen
 * outer object may hold unfrozen ones); `seen` stops at objects met before, so cycles end.
 */
function deepFreeze<T>(value: T, seen = new Set<object>()): T {
  if (typeof value === 'object' && value !== null && !seen.has(value)) {
    seen.add(value);
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner, seen);
  }
  return value;
}

export class TemplateViewCache {
  readonly #maxEntries: number;
  /** Map order is use order: the first key is the least recently used. */
  readonly #entries = new Map<number, Entry>();

  constructor(maxEntries = DEFAULT_TEMPLATE_VIEW_CACHE_ENTRIES) {
    if (!Number.isSafeInteger(maxEntries) || maxEntries < 0) {
      throw new TypeError(`The template view cache size must be a non-negative integer, got ${String(maxEntries)}`);
    }
    this.#maxEntries = maxEntries;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The view built from exactly this stamp, or undefined. */
  get(stamp: OverlayVersionRecord): CachedTemplateView | undefined {
    const entry = this.#entries.get(stamp.id);
    if (entry === undefined || !sameStamp(entry.stamp, stamp)) return undefined;
    this.#entries.delete(stamp.id);
    this.#entries.set(stamp.id, entry);
    return entry;
  }

  /** `view` in the cache's shape, frozen alike, without keeping it. */
  uncached(stamp: OverlayVersionRecord, view: TemplateSettingsView): CachedTemplateView {
    return new Entry(stamp, view);
  }

  /** Keeps `view` (built from `stamp`) in place of the overlay's older one; freezes it. */
  set(stamp: OverlayVersionRecord, view: TemplateSettingsView): CachedTemplateView {
    const entry = new Entry(stamp, view);
    if (this.#maxEntries === 0) return entry;
    this.#entries.delete(stamp.id);
    this.#entries.set(stamp.id, entry);
    if (this.#entries.size > this.#maxEntries) this.#entries.delete(this.#entries.keys().next().value!);
    return entry;
  }
}
