// A Clock that moves only when told: `advance` runs due timers in time order and lets the
// promise chains they start settle, so reply pacing and cooldowns are tested without sleeping.
import type { Clock, ScheduledTimer } from '../../src/host/clock.ts';

interface PendingTimer {
  at: number;
  order: number;
  callback: () => void;
  cancelled: boolean;
}

/** Lets every queued promise reaction run (microtasks drain before the next macrotask). */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

export class ManualClock implements Clock {
  #now: number;
  #order = 0;
  #timers: PendingTimer[] = [];

  constructor(start = 1_700_000_000_000) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  schedule(callback: () => void, delayMs: number): ScheduledTimer {
    const timer: PendingTimer = { at: this.#now + Math.max(0, delayMs), order: this.#order++, callback, cancelled: false };
    this.#timers.push(timer);
    return { cancel: () => { timer.cancelled = true; } };
  }

  /** Moves time forward by `ms`, firing each due timer at its own time. */
  async advance(ms: number): Promise<void> {
    const target = this.#now + ms;
    await settle();
    for (;;) {
      this.#timers = this.#timers.filter((timer) => !timer.cancelled);
      const due = this.#timers.filter((timer) => timer.at <= target).sort((a, b) => a.at - b.at || a.order - b.order)[0];
      if (!due) break;
      this.#timers.splice(this.#timers.indexOf(due), 1);
      this.#now = Math.max(this.#now, due.at);
      due.callback();
      await settle();
    }
    this.#now = target;
    await settle();
  }

  /** Timers still waiting. */
  get pendingTimers(): number {
    return this.#timers.filter((timer) => !timer.cancelled).length;
  }
}
