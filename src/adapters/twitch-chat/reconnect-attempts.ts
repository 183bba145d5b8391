// Counts the attempts to bring something back up (the chat connection, one channel) and gives
// the back-off wait before each. Coming back up does not reset the count by itself: a server
// that accepts the login and drops the connection at once would then be retried at the first
// delay forever. Only having stayed up for `stableAfterMs` does.
import { reconnectDelayMs } from './reconnect-backoff.ts';
import type { ReconnectBackoff } from './reconnect-backoff.ts';

export interface NextAttempt {
  /** 1 for the first attempt after a stable period. */
  attempt: number;
  delayMs: number;
}

export class ReconnectAttempts {
  readonly #backoff: ReconnectBackoff;
  readonly #stableAfterMs: number;
  readonly #random: () => number;
  #count = 0;
  #upSince: number | null = null;

  constructor(backoff: ReconnectBackoff, stableAfterMs: number, random: () => number = Math.random) {
    this.#backoff = backoff;
    this.#stableAfterMs = stableAfterMs;
    this.#random = random;
  }

  /** Attempts since the last stable period. */
  get count(): number {
    return this.#count;
  }

  /** It came up at `now`. */
  up(now: number): void {
    this.#upSince = now;
  }

  /** It went down, or an attempt failed, at `now`: the next attempt and the wait before it. */
  down(now: number): NextAttempt {
    if (this.#upSince !== null && now - this.#upSince >= this.#stableAfterMs) this.#count = 0;
    this.#upSince = null;
    this.#count += 1;
    return { attempt: this.#count, delayMs: reconnectDelayMs(this.#count, this.#backoff, this.#random) };
  }
}
