// One command's cooldowns: a global one (nobody may use it again for a while) and a per-user one.
// A blocked use is ignored silently, except that the first blocked attempt in each window gets
// one "cooling down" notice: per chatter for their own cooldown, once in all for the global one.
// So a crowd spamming a command during its global cooldown draws a single notice.

export type CooldownCheck =
  | { state: 'ready' }
  | { state: 'cooling'; remainingMs: number; notice: boolean };

/** Expired per-user entries are swept once the map grows past this. */
const SWEEP_AT = 1000;

export class CommandCooldown {
  readonly #globalMs: number;
  readonly #userMs: number;
  #globalUntil = -Infinity;
  #globalNoticedUntil = -Infinity;
  readonly #userUntil = new Map<string, number>();
  readonly #userNoticedUntil = new Map<string, number>();

  constructor(globalSeconds = 0, userSeconds = 0) {
    this.#globalMs = globalSeconds * 1000;
    this.#userMs = userSeconds * 1000;
  }

  get active(): boolean {
    return this.#globalMs > 0 || this.#userMs > 0;
  }

  /** Whether `userId` may use the command at `now`; records that a notice is due, if one is. */
  check(userId: string, now: number): CooldownCheck {
    const userUntil = this.#userUntil.get(userId) ?? -Infinity;
    if (userUntil > now && userUntil >= this.#globalUntil) {
      const notice = (this.#userNoticedUntil.get(userId) ?? -Infinity) !== userUntil;
      if (notice) this.#userNoticedUntil.set(userId, userUntil);
      return { state: 'cooling', remainingMs: userUntil - now, notice };
    }
    if (this.#globalUntil > now) {
      const notice = this.#globalNoticedUntil !== this.#globalUntil;
      if (notice) this.#globalNoticedUntil = this.#globalUntil;
      return { state: 'cooling', remainingMs: this.#globalUntil - now, notice };
    }
    return { state: 'ready' };
  }

  /** A use by `userId` at `now` starts both cooldowns. */
  start(userId: string, now: number): void {
    if (this.#globalMs > 0) this.#globalUntil = now + this.#globalMs;
    if (this.#userMs > 0) {
      this.#userUntil.set(userId, now + this.#userMs);
      if (this.#userUntil.size > SWEEP_AT) this.#sweep(now);
    }
  }

  #sweep(now: number): void {
    for (const [userId, until] of this.#userUntil) {
      if (until <= now) {
        this.#userUntil.delete(userId);
        this.#userNoticedUntil.delete(userId);
      }
    }
  }
}
