/** A refusal the CLI prints as one line on stderr (no stack trace), exiting 1. */
export class CliError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CliError';
  }
}

/**
 * A word from the command line as a message shows it: a control character (an escape sequence
 * that would recolour, retitle or clear the terminal, a newline that would split the one line)
 * written as `\x1b`, `\n`, so that what was typed is seen, not acted on.
 */
export function shownArg(text: string): string {
  return text.replace(/[\x00-\x1f\x7f-\x9f]/g, (c) => CONTROL_NAMES[c] ?? `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

const CONTROL_NAMES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };
