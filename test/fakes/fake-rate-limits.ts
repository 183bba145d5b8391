/**
 * Twitch's chat rate limits for FakeTwitchIrc, judged at a line's arrival (the fake's `at`), as
 * Twitch judges them: it sees when a line arrives, not when the client wrote it.
 *
 * - 20 PRIVMSGs per 30 s from a login to channels where it is neither broadcaster nor moderator,
 *   and 100 per 30 s in all. These are Twitch's documented limits (dev.twitch.tv/docs/chat,
 *   "Rate limits"; they name only moderators and the broadcaster, so a VIP counts as a viewer
 *   here). The window slides: a line is refused when the last 30 s (a line exactly 30 s older has
 *   left) already hold the limit. Every line the limits let through counts, delivered or not (a
 *   duplicate, a command, slow mode: Twitch counts those too, per pajbot's notes below); a line
 *   they refuse does not.
 * - One PRIVMSG per second per channel where the login is neither broadcaster nor moderator,
 *   counted from its last line delivered there. Twitch does not document this rule: it is from
 *   third-party notes, pajbot's github.com/pajbot/tmi-rate-limits ("Per-Channel Minimum
 *   Slowmode: all channels have a minimum slow-mode of 1 second"), which give its answer too.
 *
 * A line past either gets NOTICE msg_ratelimit ("Your message was not sent because you are
 * sending messages too quickly.") and is not delivered.
 *
 *   const limits = new FakeRateLimits();
 *   limits.admit('#chan', 'bot', false, at) // false: refuse with msg_ratelimit; true: it counts
 *   limits.delivered('#chan', 'bot', at)    // after delivering it
 */
export const RATE_WINDOW_MS = 30_000;
/** PRIVMSGs per window to channels where the login is neither broadcaster nor moderator. */
export const USER_LINES_PER_WINDOW = 20;
/** PRIVMSGs per window in all. */
export const ALL_LINES_PER_WINDOW = 100;
/** Least time between a login's lines to one channel where it is neither broadcaster nor moderator. */
export const MIN_LINE_INTERVAL_MS = 1_000;

/** Twitch's NOTICE text for msg_ratelimit. */
export const RATE_LIMIT_NOTICE = 'Your message was not sent because you are sending messages too quickly.';

export class FakeRateLimits {
  /** login -> arrival times of its counted lines (all of them; `#user`: those to channels where it is not privileged). */
  readonly #all = new Map<string, number[]>();
  readonly #user = new Map<string, number[]>();
  /** `${channel} ${login}` -> when that login's last line there was delivered. */
  readonly #lastDelivered = new Map<string, number>();

  /**
   * Whether a line from `login` to `channel` arriving at `at` is within the limits; if it is, it
   * counts. `privileged`: the login is the channel's broadcaster or a moderator there.
   */
  admit(channel: string, login: string, privileged: boolean, at: number): boolean {
    const all = inWindow(this.#all, login, at);
    const user = inWindow(this.#user, login, at);
    if (all.length >= ALL_LINES_PER_WINDOW) return false;
    if (!privileged) {
      if (user.length >= USER_LINES_PER_WINDOW) return false;
      const last = this.#lastDelivered.get(`${channel} ${login}`);
      if (last !== undefined && at - last < MIN_LINE_INTERVAL_MS) return false;
      user.push(at);
    }
    all.push(at);
    return true;
  }

  delivered(channel: string, login: string, at: number): void {
    this.#lastDelivered.set(`${channel} ${login}`, at);
  }
}

/** The login's counted arrival times still in the window ending at `at`. */
function inWindow(windows: Map<string, number[]>, login: string, at: number): number[] {
  const kept = (windows.get(login) ?? []).filter((time) => time > at - RATE_WINDOW_MS);
  windows.set(login, kept);
  return kept;
}
