/**
 * Promise-based "wait until this becomes true" for the fakes' helpers
 * (`waitForJoin`, `waitForPrivmsg`, `waitForSubscription`...).
 *
 *   const waiters = new Waiters();
 *   const found = await waiters.waitFor(() => history.find(pred), 'a PRIVMSG to #chan', 5000);
 *   // ...whenever state changes:
 *   waiters.check();
 *
 * `probe` returns the awaited value, or undefined while not there yet. It runs at
 * once (so past events count) and again on every `check()`. The timeout is a guard
 * against a hung test, not an assertion on speed: it rejects with an error naming
 * what was awaited.
 */

interface PendingWait {
  probe: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

export const DEFAULT_WAIT_MS = 10_000;

export class Waiters {
  readonly #pending = new Set<PendingWait>();

  waitFor<T>(probe: () => T | undefined, what: string, timeoutMs: number = DEFAULT_WAIT_MS): Promise<T> {
    const now = probe();
    if (now !== undefined) return Promise.resolve(now);
    return new Promise<T>((resolve, reject) => {
      const entry: PendingWait = {
        probe,
        resolve: resolve as (value: unknown) => void,
        reject,
        timer: setTimeout(() => {
          this.#pending.delete(entry);
          reject(new Error(`fake Twitch: timed out after ${timeoutMs} ms waiting for ${what}`));
        }, timeoutMs),
      };
      this.#pending.add(entry);
    });
  }

  /** Re-runs every pending probe; call after each state change. */
  check(): void {
    for (const entry of this.#pending) {
      let value: unknown;
      try {
        value = entry.probe();
      } catch (error) {
        clearTimeout(entry.timer);
        this.#pending.delete(entry);
        entry.reject(error instanceof Error ? error : new Error(String(error)));
        continue;
      }
      if (value !== undefined) {
        clearTimeout(entry.timer);
        this.#pending.delete(entry);
        entry.resolve(value);
      }
    }
  }

  /** Rejects everything still waiting (used by `close()`). */
  cancelAll(reason: string): void {
    for (const entry of this.#pending) {
      clearTimeout(entry.timer);
      entry.reject(new Error(`fake Twitch: ${reason}`));
    }
    this.#pending.clear();
  }
}
