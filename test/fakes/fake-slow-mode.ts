/**
 * Slow mode for FakeTwitchIrc, as Twitch enforces it: in a channel in slow mode a chatter who is
 * neither broadcaster, moderator nor VIP may send one line per N seconds, counted from their last
 * line that was delivered (a refused one does not count). Times come from the fake's clock.
 *
 *   const slow = new FakeSlowMode();
 *   slow.set('#chan', 10);
 *   slow.waitMs('#chan', 'bot', false, now) // 0: deliver (and it counts from now); > 0: refuse
 */
export class FakeSlowMode {
  readonly #seconds = new Map<string, number>();
  /** `${channel} ${login}` -> when that chatter's last line there was delivered. */
  readonly #lastDelivered = new Map<string, number>();

  set(channel: string, seconds: number): void {
    this.#seconds.set(channel, seconds);
  }

  secondsOf(channel: string): number {
    return this.#seconds.get(channel) ?? 0;
  }

  /** How long `login` must still wait before a line to `channel` is delivered; 0 delivers it, and it counts. */
  waitMs(channel: string, login: string, exempt: boolean, now: number): number {
    const key = `${channel} ${login}`;
    const last = this.#lastDelivered.get(key);
    const intervalMs = exempt ? 0 : this.secondsOf(channel) * 1000;
    if (last !== undefined && now - last < intervalMs) return last + intervalMs - now;
    this.#lastDelivered.set(key, now);
    return 0;
  }
}

/** Twitch's NOTICE text for a line refused by slow mode. */
export function slowModeNotice(waitMs: number): string {
  const seconds = Math.max(1, Math.ceil(waitMs / 1000));
  return `This room is in slow mode and you are sending messages too quickly. You will be able to talk again in ${seconds} second${seconds === 1 ? '' : 's'}.`;
}
