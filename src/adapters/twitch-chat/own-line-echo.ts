// Pairs the lines the bot sent with Twitch's answer to each: a USERSTATE carrying the new
// message's id (accepted) or a NOTICE msg_* (refused: duplicate, rate limit, slow mode...).
// Twitch answers a connection's PRIVMSGs to one channel in order, so the oldest line waiting in
// that channel is the one answered. Lines left unanswered expire, so a later answer is never
// paired with a stale line; those still waiting when the connection is lost are handed back, to
// be sent again (Twitch never said it took them).

interface WaitingLine {
  text: string;
  sentAt: number;
}

export class OwnLineEcho {
  readonly #maxAgeMs: number;
  readonly #waiting = new Map<string, WaitingLine[]>();

  constructor(maxAgeMs = 10_000) {
    this.#maxAgeMs = maxAgeMs;
  }

  sent(channel: string, text: string, now: number): void {
    let lines = this.#waiting.get(channel);
    if (!lines) {
      lines = [];
      this.#waiting.set(channel, lines);
    }
    lines.push({ text, sentAt: now });
  }

  /** The oldest line still waiting for an answer in `channel`, taken off the list; null if none. */
  answered(channel: string, now: number): string | null {
    const lines = this.#waiting.get(channel);
    if (!lines) return null;
    while (lines.length > 0 && now - lines[0]!.sentAt > this.#maxAgeMs) lines.shift();
    const line = lines.shift() ?? null;
    if (lines.length === 0) this.#waiting.delete(channel);
    return line?.text ?? null;
  }

  waiting(channel: string): number {
    return this.#waiting.get(channel)?.length ?? 0;
  }

  /** The connection is gone: its lines will never be answered. Returns those still waiting, oldest first per channel. */
  clear(): Array<{ channel: string; text: string }> {
    const unanswered = [...this.#waiting].flatMap(([channel, lines]) => lines.map((line) => ({ channel, text: line.text })));
    this.#waiting.clear();
    return unanswered;
  }
}
