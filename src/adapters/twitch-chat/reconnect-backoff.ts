// How long the Twitch chat waits before each reconnect attempt: exponential from a first delay,
// capped, with some jitter so many bots dropped by one outage do not all come back at once.

export interface ReconnectBackoff {
  /** Wait before the first attempt after a drop. */
  initialDelayMs: number;
  /** Longest wait between attempts. */
  maxDelayMs: number;
  /** Each further attempt waits this many times longer. */
  factor: number;
  /** Fraction (0 to 1) by which a wait is randomly shortened or lengthened. */
  jitter: number;
}

export const DEFAULT_RECONNECT_BACKOFF: Readonly<ReconnectBackoff> = Object.freeze({
  initialDelayMs: 1_000,
  maxDelayMs: 30_000,
  factor: 2,
  jitter: 0.2,
});

/** The wait before attempt number `attempt` (1 for the first after a drop); never over `maxDelayMs`. */
export function reconnectDelayMs(attempt: number, backoff: ReconnectBackoff, random: () => number = Math.random): number {
  const exponent = Math.max(0, Math.floor(attempt) - 1);
  const base = Math.min(backoff.maxDelayMs, backoff.initialDelayMs * backoff.factor ** exponent);
  const jitter = Math.min(1, Math.max(0, backoff.jitter));
  const spread = 1 - jitter + 2 * jitter * random();
  return Math.round(Math.min(backoff.maxDelayMs, Math.max(0, base * spread)));
}

/** Fills in defaults and refuses values that would make no sense (negative, a factor under 1). */
export function resolveReconnectBackoff(partial: Partial<ReconnectBackoff> = {}): ReconnectBackoff {
  const backoff = { ...DEFAULT_RECONNECT_BACKOFF, ...partial };
  const problems: string[] = [];
  if (!Number.isFinite(backoff.initialDelayMs) || backoff.initialDelayMs < 0) problems.push('initialDelayMs must be 0 or more');
  if (!Number.isFinite(backoff.maxDelayMs) || backoff.maxDelayMs < backoff.initialDelayMs) problems.push('maxDelayMs must be at least initialDelayMs');
  if (!Number.isFinite(backoff.factor) || backoff.factor < 1) problems.push('factor must be 1 or more');
  if (!Number.isFinite(backoff.jitter) || backoff.jitter < 0 || backoff.jitter > 1) problems.push('jitter must be from 0 to 1');
  if (problems.length > 0) throw new RangeError(`Twitch chat reconnect back-off: ${problems.join('; ')}`);
  return backoff;
}
