// An error as a log line holds it (its `err` field): pino's standard serializer, whose `message`
// adds each cause's message after a colon, less the causes the message already says. An error
// that wraps another and quotes it (a plugin's "index.ts could not be loaded: Cannot find module
// ...") would otherwise say the cause twice; the cause's own stack stays under `stack`.
import { pino } from 'pino';
import { errorText } from './error-text.ts';

/** Anything may be logged under `err` (a plugin throws what it likes); what is no error is left as it is. */
export function serializeLoggedError(error: unknown): unknown {
  // One that throws when read (a message getter that throws, a Proxy) must not make the log call throw.
  try {
    return serialize(error);
  } catch {
    return { type: 'unreadable', message: errorText(error) };
  }
}

function serialize(error: unknown): unknown {
  const serialized: unknown = pino.stdSerializers.err(error as Error);
  if (typeof serialized !== 'object' || serialized === null || typeof (error as { message?: unknown } | null)?.message !== 'string') return serialized;
  let message = (error as Error).message;
  const seen = new Set<unknown>([error]);
  for (let cause = causeOf(error as Error); cause !== undefined && !seen.has(cause); cause = causeOf(cause)) {
    seen.add(cause);
    if (!message.includes(cause.message)) message += `: ${cause.message}`;
  }
  (serialized as { message: string }).message = message;
  return serialized;
}

function causeOf(error: { cause?: unknown }): { message: string; cause?: unknown } | undefined {
  const cause = error.cause;
  return typeof cause === 'object' && cause !== null && typeof (cause as { message?: unknown }).message === 'string'
    ? cause as { message: string; cause?: unknown }
    : undefined;
}
