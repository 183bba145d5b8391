// A deadline around a promise: its outcome, or `late()`'s error once `ms` passed first. The work
// itself goes on (a promise cannot be cancelled); whoever needs its late outcome keeps the promise.
import { systemClock } from './clock.ts';
import type { Clock } from './clock.ts';

export function withDeadline<T>(promise: Promise<T>, ms: number, late: () => Error, clock: Clock = systemClock): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = clock.schedule(() => reject(late()), ms);
    promise.then(
      (value) => {
        timer.cancel();
        resolve(value);
      },
      (error: unknown) => {
        timer.cancel();
        reject(error);
      },
    );
  });
}
