// The order one HTTP client's calls go to the service in, and its view of the service's rate
// limit. The service limits each key to 30 requests a minute in fixed windows, and once it has
// answered 429 with Retry-After it refuses every request until then. Calls sent side by side
// reach it in no set order, and a call's own wait for Retry-After ended with everyone else's, so
// a burst of `!style` commands took effect in whatever order their requests happened to be
// handled, not the order typed.
//
// So the calls form a line, by the order they were made:
// - They are sent one at a time, each once the one before it has its answer. A plugin makes its
//   next call after the answer to its last, so the calls of commands typed one after another go
//   in the order typed, and with them the changes. At 30 requests a minute, one at a time costs
//   no throughput; against a slow service a call waits for those before it at most `holdMs` (2 s,
//   or the client's per-attempt timeout if shorter), then goes anyway.
// - A 429 closes the line until its Retry-After has passed, for at most maxClosureMs (a minute,
//   the spec's window: retry-policy.ts rateLimitClosureMs): nothing is sent (it would only be
//   refused). A call waiting then pays one of its retries for that wait, as if it had been
//   answered 429 itself; one with no retry left, or for which the wait is longer than
//   maxRetryAfterMs, is refused at once with the 429, unsent. When the line opens, it goes on in
//   order, one at a time, so a further 429 stops it before the next call is sent.
// - When a call gets no answer or a 5xx, order is moot: the service is away or failing. Everyone
//   waiting goes at once, and calls go side by side until one is answered again or none is under
//   way, so a service that hangs costs each call its own timeout, not the sum of those before it.
//   A call made when nothing is under way starts the line in order again: the first burst of
//   commands after the service came back takes effect in the order typed.

/** A call's turn: it may be sent now. */
export interface LineTurn {
  refused: false;
  /** Closures of the line this call waited through (each one is one of its retries). */
  waited: number;
  /**
   * How the call's attempt ended, letting the next call go: `answered` (any answer but a 5xx; a
   * 429 closes the line with close() before this), or `failed` (no answer, or a 5xx).
   */
  done(outcome: 'answered' | 'failed'): void;
}

/** The call is not to be sent: it fails with the 429. */
export interface LineRefusal {
  refused: true;
  /** How long the line stays closed, at least 1 s: the refusal's Retry-After. */
  retryAfterSeconds: number;
}

interface Waiter {
  order: number;
  /** Closures it may still wait through. */
  allowance: number;
  waited: number;
  /** Its wait for the calls before it, while the line is open; then it goes anyway. */
  holdTimer: NodeJS.Timeout | undefined;
  settle(outcome: LineTurn | LineRefusal): void;
}

export interface CallLineOptions {
  /** How the line waits out a 429 (the client's sleep, so tests can record the waits). */
  sleep: (ms: number) => Promise<void>;
  /** Longest closure a call waits out (maxRetryAfterMs). */
  maxWaitMs: number;
  /** How long a 429 with a Retry-After closes the line (rateLimitClosureMs). */
  closureMs: (retryAfterMs: number) => number;
  /** Longest a call waits for the calls before it while the line is open. */
  holdMs: number;
  now?: () => number;
}

export class CallLine {
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #maxWaitMs: number;
  readonly #closureMs: (retryAfterMs: number) => number;
  readonly #holdMs: number;
  readonly #now: () => number;
  /** Until when the service refuses, by the clock (0: it does not, as far as the line knows). */
  #until = 0;
  /** The generation of the wait for the line to open, or null when none is under way. */
  #opening: number | null = null;
  #generation = 0;
  /** Waiting calls, by the order they were made. */
  readonly #waiting: Waiter[] = [];
  /** Calls sent that the line waits for (one, unless some went on after their hold). */
  #sent = 0;
  /** False after a call got no answer or a 5xx: calls go side by side until one is answered. */
  #paced = true;

  constructor(options: CallLineOptions) {
    this.#sleep = options.sleep;
    this.#maxWaitMs = options.maxWaitMs;
    this.#closureMs = options.closureMs;
    this.#holdMs = options.holdMs;
    this.#now = options.now ?? Date.now;
  }

  #closed(): boolean {
    return this.#opening !== null || this.#until > this.#now();
  }

  #remainingMs(): number {
    return Math.max(0, this.#until - this.#now());
  }

  #refusal(): LineRefusal {
    return { refused: true, retryAfterSeconds: Math.max(1, Math.ceil(this.#remainingMs() / 1000)) };
  }

  #turn(waited: number): LineTurn {
    this.#sent += 1;
    let finished = false;
    return {
      refused: false,
      waited,
      done: (outcome) => {
        if (finished) return;
        finished = true;
        this.#sent -= 1;
        if (outcome === 'failed') {
          this.#paced = false;
          this.#releaseAll();
          return;
        }
        this.#paced = true;
        this.#releaseNext();
      },
    };
  }

  /**
   * Waits for the call's turn. `order` is when the call was made (smaller goes first);
   * `allowance` the retries it has left; `paid` that the closure under way is the one its own 429
   * started or extended (already counted as a retry). `onWait` is told, before the wait, how long
   * the closure under way holds up a call that did not close the line itself.
   */
  enter(order: number, allowance: number, paid: boolean, onWait?: (waitMs: number) => void): Promise<LineTurn | LineRefusal> | LineTurn | LineRefusal {
    // Nothing under way: the failure that let calls go side by side is over (the service may be
    // back), so the calls made from now on go in order again, until one fails.
    if (!this.#paced && this.#sent === 0) this.#paced = true;
    const closed = this.#closed();
    if (!closed && (!this.#paced || (this.#waiting.length === 0 && this.#sent === 0))) return this.#turn(0);
    let waited = 0;
    let left = allowance;
    if (closed) {
      if (this.#remainingMs() > this.#maxWaitMs) return this.#refusal();
      if (!paid) {
        if (left < 1) return this.#refusal();
        left -= 1;
        waited = 1;
        onWait?.(this.#remainingMs());
      }
    }
    return new Promise<LineTurn | LineRefusal>((settle) => {
      const waiter: Waiter = { order, allowance: left, waited, holdTimer: undefined, settle };
      const at = this.#waiting.findIndex((other) => other.order > order);
      this.#waiting.splice(at === -1 ? this.#waiting.length : at, 0, waiter);
      if (closed) {
        this.#startOpening(this.#remainingMs(), false);
      } else {
        this.#hold(waiter);
        this.#releaseNext();
      }
    });
  }

  /**
   * A 429 told the line to close for `waitMs` (its Retry-After, or the back-off without one).
   * `closerWaits`: the call that got it will wait and go again (so the wait starts now, exactly).
   */
  close(waitMs: number, closerWaits: boolean): void {
    const closure = this.#closureMs(waitMs);
    const until = this.#now() + closure;
    const wasClosed = this.#closed();
    if (wasClosed && until <= this.#until) return;
    this.#until = until;
    for (const waiter of [...this.#waiting]) {
      clearTimeout(waiter.holdTimer);
      waiter.holdTimer = undefined;
      // A new closure: everyone waiting pays one retry for it, or is refused; as is everyone when
      // the wait is longer than they would wait.
      if (waitMs > this.#maxWaitMs || (!wasClosed && waiter.allowance < 1)) {
        this.#drop(waiter);
      } else if (!wasClosed) {
        waiter.allowance -= 1;
        waiter.waited += 1;
      }
    }
    if (closerWaits || this.#waiting.length > 0 || this.#opening !== null) this.#startOpening(closure, true);
  }

  #drop(waiter: Waiter): void {
    this.#waiting.splice(this.#waiting.indexOf(waiter), 1);
    waiter.settle(this.#refusal());
  }

  /** A waiter that has waited `holdMs` for the calls before it goes anyway. */
  #hold(waiter: Waiter): void {
    waiter.holdTimer = setTimeout(() => {
      waiter.holdTimer = undefined;
      const at = this.#waiting.indexOf(waiter);
      if (at === -1 || this.#closed()) return;
      this.#waiting.splice(at, 1);
      waiter.settle(this.#turn(waiter.waited));
    }, this.#holdMs);
  }

  /** Sleeps out the closure, then lets the line go on; a later closure's wait replaces this one. */
  #startOpening(waitMs: number, replace: boolean): void {
    if (this.#opening !== null && !replace) return;
    const generation = ++this.#generation;
    this.#opening = generation;
    const opened = (): void => {
      if (this.#opening !== generation) return;
      this.#opening = null;
      this.#until = 0;
      for (const waiter of this.#waiting) this.#hold(waiter);
      this.#releaseNext();
    };
    this.#sleep(waitMs).then(opened, opened);
  }

  #releaseNext(): void {
    if (this.#closed()) return;
    if (!this.#paced) {
      this.#releaseAll();
      return;
    }
    if (this.#sent > 0) return;
    const next = this.#waiting.shift();
    if (next === undefined) return;
    clearTimeout(next.holdTimer);
    next.settle(this.#turn(next.waited));
  }

  /** Everyone waiting goes at once, unless the line is closed. */
  #releaseAll(): void {
    if (this.#closed()) return;
    for (const waiter of this.#waiting.splice(0)) {
      clearTimeout(waiter.holdTimer);
      waiter.settle(this.#turn(waiter.waited));
    }
  }
}
