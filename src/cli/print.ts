// Writing a command's answer to stdout, and knowing whether it got there. A write that fails
// (EPIPE: the program it was piped to has exited; ENOSPC: it goes to a full disk) is otherwise
// an 'error' event nobody listens to, which ends the process with a stack trace after the
// command's change was made.
import { errorText } from '../host/error-text.ts';
import { CliError } from './cli-error.ts';

/** Resolves once `text` is written; rejects with the write's error. */
export function print(text: string, stream: NodeJS.WritableStream = process.stdout): Promise<void> {
  return new Promise((resolve, reject) => {
    // Kept until the stream has said how the write went: the error event comes after the callback.
    const onError = (error: Error): void => reject(error);
    stream.on('error', onError);
    stream.write(text, (error) => {
      if (error) reject(error);
      else {
        stream.off('error', onError);
        resolve();
      }
    });
  });
}

/**
 * Prints a command's answer; one that cannot be written is a one-line refusal saying what was
 * `done` all the same (`premium is on for alice`), so the user knows not to look for a failure.
 */
export async function printAnswer(text: string, done: string): Promise<void> {
  try {
    await print(text);
  } catch (error) {
    throw new CliError(`${done}, but the answer could not be printed (${errorText(error)}).`);
  }
}
