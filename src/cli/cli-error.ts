/** A refusal the CLI prints as one line on stderr (no stack trace), exiting 1. */
export class CliError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CliError';
  }
}
