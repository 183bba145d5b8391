import { describe, expect, it } from 'vitest';
import { FixedWindowLimiter } from '../../../src/service/http/fixed-window-limiter.ts';

function limiterAt(start: number, limit = 3) {
  const clock = { now: start };
  const limiter = new FixedWindowLimiter({ limit, windowMs: 60_000, now: () => clock.now });
  return { clock, limiter };
}

describe('FixedWindowLimiter', () => {
  it('allows `limit` hits in a window and counts remaining down', () => {
    const { limiter } = limiterAt(1_000_000);
    expect(limiter.hit('k').remaining).toBe(2);
    expect(limiter.hit('k').remaining).toBe(1);
    const third = limiter.hit('k');
    expect(third).toEqual({ allowed: true, limit: 3, remaining: 0, resetAt: 1_060_000 });
    expect(limiter.hit('k')).toEqual({ allowed: false, limit: 3, remaining: 0, resetAt: 1_060_000, firstRefusal: true });
    // Only the window's first refusal is marked (the one worth a log line).
    expect(limiter.hit('k')).toEqual({ allowed: false, limit: 3, remaining: 0, resetAt: 1_060_000, firstRefusal: false });
  });

  it('opens a fresh window once the old one has ended', () => {
    const { clock, limiter } = limiterAt(0);
    for (let i = 0; i < 3; i++) limiter.hit('k');
    clock.now = 59_999;
    expect(limiter.hit('k').allowed).toBe(false);
    clock.now = 60_000;
    expect(limiter.hit('k')).toEqual({ allowed: true, limit: 3, remaining: 2, resetAt: 120_000 });
  });

  it('keeps keys apart', () => {
    const { limiter } = limiterAt(0, 1);
    expect(limiter.hit('a').allowed).toBe(true);
    expect(limiter.hit('a').allowed).toBe(false);
    expect(limiter.hit('b').allowed).toBe(true);
  });

  it('peeks without counting', () => {
    const { limiter } = limiterAt(0, 2);
    expect(limiter.peek('k').remaining).toBe(2);
    limiter.hit('k');
    expect(limiter.peek('k').remaining).toBe(1);
    expect(limiter.peek('k').remaining).toBe(1);
    limiter.hit('k');
    expect(limiter.peek('k').allowed).toBe(false);
  });

  it('keeps at most maxKeys windows, dropping the oldest first', () => {
    const clock = { now: 0 };
    const limiter = new FixedWindowLimiter({ limit: 1, windowMs: 60_000, now: () => clock.now, maxKeys: 100 });
    for (let i = 0; i < 10_000; i++) {
      clock.now = i;
      limiter.hit(`client-${i}`);
    }
    expect(limiter.size).toBe(100);
    // The last hundred are remembered, the first ones forgotten.
    expect(limiter.peek('client-9999').allowed).toBe(false);
    expect(limiter.peek('client-9900').allowed).toBe(false);
    expect(limiter.peek('client-9899').allowed).toBe(true);
  });

  it('moves a key whose window opened again to the back', () => {
    const clock = { now: 0 };
    const limiter = new FixedWindowLimiter({ limit: 1, windowMs: 10, now: () => clock.now, maxKeys: 2 });
    limiter.hit('a');
    clock.now = 5;
    limiter.hit('b');
    clock.now = 10;
    limiter.hit('a'); // a new window for a: now newer than b's
    clock.now = 12;
    limiter.hit('c'); // b goes, not a
    expect(limiter.peek('a').allowed).toBe(false);
    expect(limiter.peek('b').allowed).toBe(true);
    expect(limiter.peek('c').allowed).toBe(false);
  });
});
