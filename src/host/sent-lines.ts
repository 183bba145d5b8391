// The last lines the reply queue sent to one channel, each with how often it had already been
// sent again after a refusal (and whether the last was a lost connection), so that a refusal
// coming back for a line (the transport names it by its text) counts against that line's re-sends. A chat answers within moments, so a few lines
// of memory cover it; a line no refusal comes for (it was delivered) is pushed out by later ones
// rather than kept.

export interface SentLine {
  text: string;
  resends: number;
  /** Sent again because the connection it first went into was lost before the chat answered. */
  afterLostConnection: boolean;
}

export class SentLines {
  readonly #lines: SentLine[] = [];
  readonly #size: number;

  constructor(size = 16) {
    this.#size = size;
  }

  sent(line: SentLine): void {
    this.#lines.push(line);
    if (this.#lines.length > this.#size) this.#lines.shift();
  }

  /** The last send of `text` (taken off); for a line not among them, one sent once. */
  take(text: string): SentLine {
    for (let index = this.#lines.length - 1; index >= 0; index -= 1) {
      if (this.#lines[index]!.text !== text) continue;
      return this.#lines.splice(index, 1)[0]!;
    }
    return { text, resends: 0, afterLostConnection: false };
  }
}
