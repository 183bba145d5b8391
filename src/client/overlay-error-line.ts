// An OverlayStyleError as one short line a person can read in chat: what to fix for a refusal,
// what to wait for when the service is busy or away. No status codes, no stack, no URLs.
import { isStoreUnwritable } from './overlay-style-error.ts';
import type { OverlayStyleError } from './overlay-style-error.ts';

/** Longer lines are cut: a chat reply should stay one line. */
const MAX_LINE = 200;

/** "The bubble.width must be ..." -> "bubble.width must be ...": the key leads, as a chatter typed it. */
function withoutLeadingThe(message: string): string {
  return message.replace(/^The ([a-z]+\.[a-z0-9-]+) /, '$1 ');
}

function shortened(line: string): string {
  return line.length > MAX_LINE ? `${line.slice(0, MAX_LINE - 1)}…` : line;
}

/**
 * One line for chat: a refusal's first field error (a 422 names what was wrong with which value)
 * or its message; for the service being away, busy or misconfigured, a line saying so.
 */
export function overlayErrorLine(error: OverlayStyleError): string {
  switch (error.kind) {
    case 'unsupported':
      return 'that needs the bundled overlay service; the remote overlay API cannot do it.';
    case 'timeout':
    case 'network':
      return 'the overlay service is not answering; try again in a moment.';
    case 'tls':
      return 'the bot cannot connect to the overlay service securely; the streamer should check the service settings.';
    case 'redirect':
    case 'invalid_response':
      return 'the overlay service gave an answer the bot cannot read; the streamer should check the service settings.';
    case 'service':
      break;
  }
  // 503 of a database that cannot be written (full or read-only disk): only its operator can mend it.
  if (isStoreUnwritable(error)) {
    return 'the overlay service cannot save changes now; the streamer should check its log.';
  }
  // An earlier attempt's answer was lost, so the change may be done although this attempt was
  // refused for being busy: "nothing changed" would be untrue (a second try is harmless).
  if (error.afterLostAnswer && (error.status === 429 || error.status >= 500)) {
    return 'the overlay service did not confirm it, but it may have been done; check, or try again in a moment.';
  }
  if (error.status === 429) return `the overlay service is busy; try again in ${error.retryAfter ?? 60} s.`;
  // 503: another program holds the service's database; the write can simply be sent again.
  if (error.status === 503) return 'the overlay service is busy; try again in a moment.';
  if (error.status === 401) return 'the overlay service does not accept the bot\'s API key.';
  if (error.status >= 500) return 'the overlay service failed; try again later.';
  const firstFieldError = Object.values(error.errors ?? {}).flat()[0];
  return shortened(withoutLeadingThe(firstFieldError ?? error.message));
}
