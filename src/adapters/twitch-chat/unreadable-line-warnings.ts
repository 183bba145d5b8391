// The warnings for lines tmi.js could not read (parsed-line-tap.ts skips them): a server
// sending thousands of them must not flood the log.
import type { Logger } from 'pino';
import type { Clock, ScheduledTimer } from '../../host/clock.ts';
import { FixedWindowLimiter } from '../../service/http/fixed-window-limiter.ts';

/** At most one warning per this many ms of the lines tmi.js could not read (a flood of them would flood the log). */
export const UNREADABLE_LINE_WARNING_MS = 60_000;

/**
 * The warnings for lines tmi.js could not read (parsed-line-tap.ts), at most one per
 * UNREADABLE_LINE_WARNING_MS (the window of a FixedWindowLimiter of 1): the first names its
 * command; the lines after it in its window are counted, and told in one warning when the window
 * ends (the next one's warning: while they keep coming, one a window).
 */
export function unreadableLineWarnings(logger: Logger, clock: Clock): { skipped(error: unknown, command: string): void; stop(): void } {
  const windows = new FixedWindowLimiter({ limit: 1, windowMs: UNREADABLE_LINE_WARNING_MS, now: () => clock.now(), maxKeys: 1 });
  /** Lines skipped since the last warning, the last one's command and error. */
  let unreported = 0;
  let last: { command: string; error: unknown } = { command: '', error: null };
  let timer: ScheduledTimer | null = null;
  const summarize = (): void => {
    if (unreported === 0) return;
    const lines = unreported === 1 ? '1 more line' : `${unreported} more lines`;
    logger.warn({ err: last.error, command: last.command, skipped: unreported },
      `Twitch sent ${lines} tmi.js could not read since the last such warning (the last a ${last.command}): skipped ${unreported === 1 ? 'it' : 'them'}`);
    unreported = 0;
  };
  const windowEnded = (): void => {
    // Takes the next window, so that a line still coming in it is counted, not warned of at once.
    const state = windows.hit('');
    if (state.allowed) {
      timer = null;
      summarize();
    } else {
      timer = clock.schedule(windowEnded, Math.max(1, state.resetAt - clock.now()));
    }
  };
  return {
    skipped(error, command) {
      const state = windows.hit('');
      if (state.allowed) {
        logger.warn({ err: error, command },
          `Twitch sent a ${command} line tmi.js could not read: skipped it (more such lines are counted and told at most once a minute)`);
        return;
      }
      unreported += 1;
      last = { command, error };
      if (timer === null) timer = clock.schedule(windowEnded, Math.max(1, state.resetAt - clock.now()));
    },
    stop() {
      timer?.cancel();
      timer = null;
      summarize();
    },
  };
}
