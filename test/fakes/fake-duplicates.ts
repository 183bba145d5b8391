/**
 * Twitch's duplicate rule for FakeTwitchIrc: a chatter who is neither broadcaster nor moderator
 * may not send a line identical to their previous delivered one in a channel within 30 s (the
 * line gets NOTICE msg_duplicate). Twitch compares the line as it would deliver it: since August
 * 2025 it drops tag characters (U+E0000..U+E007F), which clients used to make a repeat differ
 * (Chatterino and 7TV moved to U+034F), and surrounding spaces do not count.
 *
 *   const duplicates = new FakeDuplicates();
 *   duplicates.isRepeat('#chan', 'bot', deliveredText(text), false, now) // true: refuse
 *   duplicates.delivered('#chan', 'bot', deliveredText(text), now)       // after delivering it
 */
export const DUPLICATE_WINDOW_MS = 30_000;

/** A chat line as Twitch delivers it: tag characters dropped, surrounding spaces trimmed. */
export function deliveredText(text: string): string {
  return text.replace(/[\u{E0000}-\u{E007F}]/gu, '').trim();
}

export class FakeDuplicates {
  /** `${channel} ${login}` -> that chatter's last delivered line there, and when. */
  readonly #last = new Map<string, { text: string; at: number }>();

  isRepeat(channel: string, login: string, text: string, exempt: boolean, now: number): boolean {
    const last = this.#last.get(`${channel} ${login}`);
    return !exempt && last !== undefined && last.text === text && now - last.at < DUPLICATE_WINDOW_MS;
  }

  delivered(channel: string, login: string, text: string, now: number): void {
    this.#last.set(`${channel} ${login}`, { text, at: now });
  }
}

/** Twitch's NOTICE text for a line refused as a duplicate. */
export const DUPLICATE_NOTICE = 'Your message was not sent because it is identical to the previous one you sent, less than 30 seconds ago.';
