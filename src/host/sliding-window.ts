// A sliding-window counter of send times. Twitch refills its chat buckets on a schedule the bot
// cannot see; assuming the refill happened exactly one window ago never exceeds the limit.

export class SlidingWindow {
  readonly windowMs: number;
  readonly #times: number[] = [];

  constructor(windowMs: number) {
    this.windowMs = windowMs;
  }

  /** Sends still inside the window at `now` (a send exactly one window old has left it). */
  count(now: number): number {
    const cutoff = now - this.windowMs;
    let drop = 0;
    while (drop < this.#times.length && this.#times[drop]! <= cutoff) drop++;
    if (drop > 0) this.#times.splice(0, drop);
    return this.#times.length;
  }

  /**
   * Drops the sends that left the window first, so a window only written to (the reply queue's
   * on a transport without limits never asks for a count) stays as small as one that is read.
   */
  record(now: number): void {
    this.count(now);
    this.#times.push(now);
  }

  /** Send times kept (what the window costs in memory). */
  get held(): number {
    return this.#times.length;
  }

  /** The earliest time at which one more send keeps the window at or under `limit`. */
  nextFreeAt(now: number, limit: number): number {
    const count = this.count(now);
    if (count < limit) return now;
    return this.#times[count - limit]! + this.windowMs;
  }
}
