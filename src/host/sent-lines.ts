// The last lines the reply queue sent to one channel, each with how often it had already been
// sent again after a refusal, so that a refusal coming back for a line (the transport names it by
// its text) counts against that line's re-sends. A chat answers within moments, so a few lines
// of memory cover it; a line no refusal comes for (it was delivered) is pushed out by later ones
// rather than kept.

interface SentLine {
  text: string;
  resends: number;
}

export class SentLines {
  readonly #lines: SentLine[] = [];
  readonly #size: number;

  constructor(size = 16) {
    this.#size = size;
  }

  sent(text: string, resends: number): void {
    this.#lines.push({ text, resends });
    if (this.#lines.length > this.#size) this.#lines.shift();
  }

  /** How often `text` had been re-sent when last sent (that send is taken off); 0 for a line not among them. */
  take(text: string): number {
    for (let index = this.#lines.length - 1; index >= 0; index -= 1) {
      if (this.#lines[index]!.text !== text) continue;
      return this.#lines.splice(index, 1)[0]!.resends;
    }
    return 0;
  }
}
