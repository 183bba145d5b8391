// One command's cooldowns: a global one (nobody may use it again for a while) and a per-user one.
// A blocked use is ignored silently, except that the first blocked attempt in each window gets
// one "cooling down" notice: per chatter for their own cooldown, once in all for the global one.
// So a crowd spamming a command during its global cooldown draws a single notice.
// A use that only showed something may be given back (its cooldowns taken back), once per chatter
// in the length of the longer cooldown, so showing cannot be spammed past the cooldown either.

export type CooldownCheck =
  | { state: 'ready' }
  | { state: 'cooling'; remainingMs: number; notice: boolean };

/** Expired per-user entries are swept once the map grows past this. */
const SWEEP_AT = 1000;

/** One use's start: what it replaced, so it can be given back. */
export interface CooldownUse {
  readonly userId: string;
  readonly at: number;
  readonly globalUntil: number;
  readonly userUntil: number;
  readonly previousGlobalUntil: number;
  readonly previousUserUntil: number | undefined;
}

export class CommandCooldown {
  readonly #globalMs: number;
  readonly #userMs: number;
  #globalUntil = -Infinity;
  #globalNoticedUntil = -Infinity;
  readonly #userUntil = new Map<string, number>();
  readonly #userNoticedUntil = new Map<string, number>();
  readonly #givenBackUntil = new Map<string, number>();

  constructor(globalSeconds = 0, userSeconds = 0) {
    this.#globalMs = globalSeconds * 1000;
    this.#userMs = userSeconds * 1000;
  }

  get active(): boolean {
    return this.#globalMs > 0 || this.#userMs > 0;
  }

  /** Chatters' entries kept in all (what the cooldown costs in memory). */
  get remembered(): number {
    return this.#userUntil.size + this.#userNoticedUntil.size + this.#givenBackUntil.size;
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
  start(userId: string, now: number): CooldownUse {
    const previousGlobalUntil = this.#globalUntil;
    const previousUserUntil = this.#userUntil.get(userId);
    if (this.#globalMs > 0) this.#globalUntil = now + this.#globalMs;
    if (this.#userMs > 0) {
      this.#userUntil.set(userId, now + this.#userMs);
      if (this.#userUntil.size > SWEEP_AT) this.#sweep(now);
    }
    return {
      userId, at: now, globalUntil: this.#globalUntil, userUntil: this.#userUntil.get(userId) ?? -Infinity,
      previousGlobalUntil, previousUserUntil,
    };
  }

  /**
   * Takes back the cooldowns `use` started (those no later use has started again), unless its
   * chatter already gave a use back within the longer cooldown's length: then the use counts.
   * Whether it was given back.
   */
  giveBack(use: CooldownUse, now: number): boolean {
    const { userId } = use;
    if ((this.#givenBackUntil.get(userId) ?? -Infinity) > use.at) return false;
    this.#givenBackUntil.set(userId, use.at + Math.max(this.#globalMs, this.#userMs));
    if (this.#globalMs > 0 && this.#globalUntil === use.globalUntil) this.#globalUntil = use.previousGlobalUntil;
    if (this.#userMs > 0 && this.#userUntil.get(userId) === use.userUntil) {
      if (use.previousUserUntil === undefined) {
        this.#userUntil.delete(userId);
        // A notice of the window taken back would otherwise outlive it: the sweep goes by #userUntil.
        this.#userNoticedUntil.delete(userId);
      } else {
        this.#userUntil.set(userId, use.previousUserUntil);
      }
    }
    if (this.#givenBackUntil.size > SWEEP_AT) {
      for (const [id, until] of this.#givenBackUntil) if (until <= now) this.#givenBackUntil.delete(id);
    }
    return true;
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
