// A fixed-window counter per key: a window opens at a key's first hit and lasts `windowMs`;
// once `limit` hits are used, further hits are refused until the window ends. In memory, per
// process: the bundled service runs one API process.
import type { Clock } from './options.ts';

export interface LimiterState {
  /** Whether this hit is within the limit. */
  allowed: boolean;
  limit: number;
  /** Hits left in the window after this one. */
  remaining: number;
  /** When the window ends, ms since the epoch. */
  resetAt: number;
}

interface Window {
  count: number;
  resetAt: number;
}

export class FixedWindowLimiter {
  readonly limit: number;
  readonly windowMs: number;
  readonly #now: Clock;
  readonly #windows = new Map<string, Window>();
  #nextSweep = 0;

  constructor(options: { limit: number; windowMs: number; now: Clock }) {
    this.limit = options.limit;
    this.windowMs = options.windowMs;
    this.#now = options.now;
  }

  /** Counts one hit for `key` unless the window is already used up. */
  hit(key: string): LimiterState {
    const now = this.#now();
    this.#sweep(now);
    let window = this.#windows.get(key);
    if (window === undefined || window.resetAt <= now) {
      window = { count: 0, resetAt: now + this.windowMs };
      this.#windows.set(key, window);
    }
    if (window.count >= this.limit) {
      return { allowed: false, limit: this.limit, remaining: 0, resetAt: window.resetAt };
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
}
