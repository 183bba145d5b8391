// A fixed-window counter per key: a window opens at a key's first hit and lasts `windowMs`;
// once `limit` hits are used, further hits are refused until the window ends. In memory, per
// process: the bundled service runs one API process.
//
// Bounded: keys come from clients (an address per failed authentication), so at most `maxKeys`
// windows are kept. The map is kept in the order windows opened, so the oldest is first: a new
// key that finds the map full drops the oldest window (an ended one, or else the client that has
// waited longest starts afresh: dropping it takes `maxKeys` new addresses, which an attacker who
// has that many could use to guess with anyway).
import type { Clock } from './options.ts';

export interface LimiterState {
  /** Whether this hit is within the limit. */
  allowed: boolean;
  limit: number;
  /** Hits left in the window after this one. */
  remaining: number;
  /** When the window ends, ms since the epoch. */
  resetAt: number;
  /** This hit is the window's first refused one (for a log line once per window, not per refusal). */
  firstRefusal?: boolean;
}

interface Window {
  count: number;
  resetAt: number;
  refused: boolean;
}

/** Windows kept at most, by default: some 100 bytes each with an address as the key. */
export const DEFAULT_MAX_KEYS = 100_000;

export class FixedWindowLimiter {
  readonly limit: number;
  readonly windowMs: number;
  readonly maxKeys: number;
  readonly #now: Clock;
  /** In the order the windows opened (oldest first). */
  readonly #windows = new Map<string, Window>();
  #nextSweep = 0;

  constructor(options: { limit: number; windowMs: number; now: Clock; maxKeys?: number }) {
    this.limit = options.limit;
    this.windowMs = options.windowMs;
    this.maxKeys = options.maxKeys ?? DEFAULT_MAX_KEYS;
    this.#now = options.now;
  }

  /** How many keys have a window (for tests and stats). */
  get size(): number {
    return this.#windows.size;
  }

  /** Counts one hit for `key` unless the window is already used up. */
  hit(key: string): LimiterState {
    const now = this.#now();
    this.#sweep(now);
    let window = this.#windows.get(key);
    if (window === undefined || window.resetAt <= now) {
      // A new window goes last, so the map stays in opening order.
      this.#windows.delete(key);
      this.#makeRoom();
      window = { count: 0, resetAt: now + this.windowMs, refused: false };
      this.#windows.set(key, window);
    }
    if (window.count >= this.limit) {
      const firstRefusal = !window.refused;
      window.refused = true;
      return { allowed: false, limit: this.limit, remaining: 0, resetAt: window.resetAt, firstRefusal };
    }
    window.count += 1;
    return { allowed: true, limit: this.limit, remaining: this.limit - window.count, resetAt: window.resetAt };
  }

  /** The state for `key` without counting a hit. */
  peek(key: string): LimiterState {
    const now = this.#now();
    const window = this.#windows.get(key);
    if (window === undefined || window.resetAt <= now) {
      return { allowed: true, limit: this.limit, remaining: this.limit, resetAt: now + this.windowMs };
    }
    return {
      allowed: window.count < this.limit,
      limit: this.limit,
      remaining: Math.max(0, this.limit - window.count),
      resetAt: window.resetAt,
    };
  }

  /** Drops ended windows, at most once per window length, so the map stays small. */
  #sweep(now: number): void {
    if (now < this.#nextSweep) return;
    this.#nextSweep = now + this.windowMs;
    for (const [key, window] of this.#windows) {
      if (window.resetAt <= now) this.#windows.delete(key);
    }
  }

  /** Room for one more window: the oldest go first (ended ones, being older, before live ones). */
  #makeRoom(): void {
    for (const key of this.#windows.keys()) {
      if (this.#windows.size < this.maxKeys) return;
      this.#windows.delete(key);
    }
  }
}
