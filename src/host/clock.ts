// Time for the host's cooldowns and reply pacing, injectable so tests check limits without
// sleeping (test/host/manual-clock.ts).

export interface ScheduledTimer {
  cancel(): void;
}

export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  schedule(callback: () => void, delayMs: number): ScheduledTimer;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  schedule(callback, delayMs) {
    const timer = setTimeout(callback, Math.max(0, delayMs));
    return { cancel: () => clearTimeout(timer) };
  },
};
