import { describe, expect, it } from 'vitest';
import { ReconnectAttempts } from '../../../src/adapters/twitch-chat/reconnect-attempts.ts';

const backoff = { initialDelayMs: 1_000, maxDelayMs: 30_000, factor: 2, jitter: 0 };

describe('reconnect attempts', () => {
  it('waits longer after each failed attempt', () => {
    const attempts = new ReconnectAttempts(backoff, 30_000);
    expect([0, 1, 2].map((now) => attempts.down(now))).toEqual([
      { attempt: 1, delayMs: 1_000 }, { attempt: 2, delayMs: 2_000 }, { attempt: 3, delayMs: 4_000 },
    ]);
  });

  it('keeps counting when it comes up and goes down again before it is stable', () => {
    const attempts = new ReconnectAttempts(backoff, 30_000);
    attempts.down(0);
    attempts.up(1_000);
    expect(attempts.down(29_999)).toEqual({ attempt: 2, delayMs: 2_000 });
    attempts.up(32_000);
    expect(attempts.down(32_001)).toEqual({ attempt: 3, delayMs: 4_000 });
  });

  it('starts again from the first delay once it has stayed up for the stable period', () => {
    const attempts = new ReconnectAttempts(backoff, 30_000);
    attempts.down(0);
    attempts.down(1);
    attempts.up(10_000);
    expect(attempts.down(40_000)).toEqual({ attempt: 1, delayMs: 1_000 });
    expect(attempts.count).toBe(1);
  });

  it('keeps counting the failed attempts after a short-lived connection, however long they go on', () => {
    // Up only a second, then the server is away: every attempt fails, the last time up far behind.
    const attempts = new ReconnectAttempts(backoff, 30_000);
    attempts.up(0);
    expect(attempts.down(1_000)).toEqual({ attempt: 1, delayMs: 1_000 });
    expect(attempts.down(40_000)).toEqual({ attempt: 2, delayMs: 2_000 });
    expect(attempts.down(80_000)).toEqual({ attempt: 3, delayMs: 4_000 });
  });
});
