// How a command answers in one chat line: what its work returned, a refusal meant for the
// chatter, or a short line for an overlay service error (logged when it is not the caller's fault).
import { overlayErrorLine } from '../client/overlay-error-line.ts';
import { isOverlayStyleError, isServiceSideError, wasLogged } from '../client/overlay-style-error.ts';
import type { OverlayStyleError } from '../client/overlay-style-error.ts';
import type { CommandInvocation } from './plugin-api.ts';

/** Thrown inside a command's work: its message is the reply, and nothing is logged. */
export class ChatRefusal extends Error {
  override name = 'ChatRefusal';
}

export interface AnswerOptions {
  logger: { warn(obj: object, msg: string): void };
  /** A plugin's own line for some service errors; undefined falls back to the standard line. */
  describe?: (error: OverlayStyleError) => string | undefined;
}

/** Replies with `work`'s line; other errors propagate, so the host reports the command as failed. */
export async function answerInChat(call: Pick<CommandInvocation, 'reply'> & Partial<Pick<CommandInvocation, 'command'>>, work: () => Promise<string>, options: AnswerOptions): Promise<void> {
  let line: string;
  try {
    line = await work();
  } catch (error) {
    if (error instanceof ChatRefusal) line = error.message;
    else if (isOverlayStyleError(error)) line = options.describe?.(error) ?? standardLine(error, options.logger, call.command);
    else throw error;
  }
  await call.reply(line);
}

function standardLine(error: OverlayStyleError, logger: AnswerOptions['logger'], command: string | undefined): string {
  // An outage the client has logged already (once, saying what to do) is not logged per command.
  if (isServiceSideError(error) && !wasLogged(error)) logger.warn({ err: error, command }, 'overlay service call failed');
  return overlayErrorLine(error);
}
