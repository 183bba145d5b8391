// How often a chatter is told a command's usage: once per command per window. Each wrong line
// would otherwise draw a reply, and a viewer retyping a bad line could spend the bot's whole
// reply budget (20 lines per 30 s on Twitch) that everyone else's answers need.

/** Expired entries are swept once the map grows past this. */
const SWEEP_AT = 1000;

export class UsageNotices {
  readonly #windowMs: number;
  readonly #until = new Map<string, number>();

  constructor(windowMs: number) {
    this.#windowMs = windowMs;
  }

  /** Whether `userId` may be told `command`'s usage at `now`; if so, the window starts. */
  allow(command: string, userId: string, now: number): boolean {
    const key = `${command}\n${userId}`;
    if ((this.#until.get(key) ?? -Infinity) > now) return false;
    this.#until.set(key, now + this.#windowMs);
    if (this.#until.size > SWEEP_AT) {
      for (const [entry, until] of this.#until) if (until <= now) this.#until.delete(entry);
    }
    return true;
  }
}
