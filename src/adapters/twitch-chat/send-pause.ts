// Holds the bot's lines back for a while after Twitch said it sends too fast (NOTICE
// msg_ratelimit). The reply queue paces lines by its own count, so a refusal means that count
// was wrong (another client chatting as the bot, a moderator status Twitch has taken away):
// sending on would only have more lines refused, so the window is treated as full instead.

interface PauseWaiter {
  resolve: () => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

export class SendPause {
  #until = 0;
  readonly #waiters = new Set<PauseWaiter>();

  /** Holds lines until `now + ms` (a longer pause already on is kept). */
  hold(ms: number, now: number): void {
    this.#until = Math.max(this.#until, now + ms);
  }

  /** Whether lines are held at `now`. */
  holding(now: number): boolean {
    return now < this.#until;
  }

  /** Resolves once the pause that is on at `now` is over (at once if none is); cancel() rejects it. */
  over(now: number): Promise<void> {
    if (!this.holding(now)) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const waiter: PauseWaiter = {
        resolve,
        reject,
        timer: setTimeout(() => {
          this.#waiters.delete(waiter);
          resolve();
        }, this.#until - now),
      };
      this.#waiters.add(waiter);
    });
  }

  /** Rejects every wait (the chat is stopping). */
  cancel(error: Error): void {
    for (const waiter of this.#waiters) {
      clearTimeout(waiter.timer);
      waiter.reject(error);
    }
    this.#waiters.clear();
  }
}
