// What a Twitch refusal of the bot's line (NOTICE msg_*, or unrecognized_cmd and its kin for a
// line Twitch took for a command: notices.ts) needs for the same line to pass when the reply
// queue sends it again. Slow mode, the rate limit and a short timeout pass with a wait; a
// duplicate passes with a different text. The rest (banned, suspended, followers-, subscribers-
// or emote-only, a verified phone or e-mail required, a long timeout, a command) would only be
// refused again, so those lines are logged and not re-sent.
import type { RefusalRemedy } from '../../host/chat-transport.ts';

/** Twitch says the wait in whole seconds; one more covers its rounding. */
const ROUNDING_MS = 1_000;
/** Slow mode without the seconds in the notice's text: as long as most slow modes. */
const SLOW_MODE_FALLBACK_MS = 30_000;
/** A timeout longer than this is a moderator's "stop talking": the line is not kept for after it. */
const LONGEST_TIMEOUT_WAIT_MS = 60_000;

/** "... talk again in 7 seconds." / "You are timed out for 42 more seconds." -> 7 / 42. */
function secondsIn(notice: string): number | null {
  const found = /(\d+) (?:more )?seconds?\b/.exec(notice);
  return found ? Number(found[1]) : null;
}

export function refusalRemedy(msgId: string, notice: string, rateLimitPauseMs: number): RefusalRemedy {
  switch (msgId) {
    case 'msg_ratelimit':
      // The adapter holds every line that long too (send-pause.ts).
      return { kind: 'wait', ms: rateLimitPauseMs };
    case 'msg_slowmode': {
      const seconds = secondsIn(notice);
      return { kind: 'wait', ms: seconds === null ? SLOW_MODE_FALLBACK_MS : seconds * 1000 + ROUNDING_MS };
    }
    case 'msg_timedout': {
      const seconds = secondsIn(notice);
      const ms = seconds === null ? Infinity : seconds * 1000 + ROUNDING_MS;
      return ms <= LONGEST_TIMEOUT_WAIT_MS ? { kind: 'wait', ms } : { kind: 'none' };
    }
    case 'msg_duplicate':
      return { kind: 'differ' };
    default:
      return { kind: 'none' };
  }
}
