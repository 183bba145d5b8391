// A first-come-first-served async lock. One node:sqlite connection runs one transaction at a
// time; while a transaction awaits between statements, everyone else waits their turn here.

export class TurnLock {
  #held = false;
  readonly #waiting: Array<() => void> = [];

  get held(): boolean {
    return this.#held;
  }

  /** Resolves with the release function once the lock is ours. */
  acquire(): Promise<() => void> {
    if (!this.#held) {
      this.#held = true;
      return Promise.resolve(this.#releaser());
    }
    return new Promise((resolve) => this.#waiting.push(() => resolve(this.#releaser())));
  }

  #releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#waiting.shift();
      if (next === undefined) this.#held = false;
      else next(); // handed straight over: held stays true
    };
  }
}
