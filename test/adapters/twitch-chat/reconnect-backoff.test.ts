import { describe, expect, it } from 'vitest';
import { DEFAULT_RECONNECT_BACKOFF, reconnectDelayMs, resolveReconnectBackoff } from '../../../src/adapters/twitch-chat/reconnect-backoff.ts';

const noJitter = { initialDelayMs: 1_000, maxDelayMs: 30_000, factor: 2, jitter: 0 };

describe('reconnect back-off', () => {
  it('starts at the first delay and grows by the factor per attempt', () => {
    expect([1, 2, 3, 4, 5].map((attempt) => reconnectDelayMs(attempt, noJitter))).toEqual([1_000, 2_000, 4_000, 8_000, 16_000]);
  });

  it('never waits longer than the cap, however many attempts', () => {
    expect(reconnectDelayMs(6, noJitter)).toBe(30_000);
    expect(reconnectDelayMs(10_000, noJitter)).toBe(30_000);
    expect(reconnectDelayMs(50, DEFAULT_RECONNECT_BACKOFF, () => 1)).toBe(30_000);
  });

  it('spreads each wait by the jitter fraction either way', () => {
    const backoff = { ...noJitter, jitter: 0.2 };
    expect(reconnectDelayMs(2, backoff, () => 0)).toBe(1_600);
    expect(reconnectDelayMs(2, backoff, () => 0.5)).toBe(2_000);
    expect(reconnectDelayMs(2, backoff, () => 1)).toBe(2_400);
  });

  it('fills in defaults and refuses settings that make no sense', () => {
    expect(resolveReconnectBackoff({ initialDelayMs: 50 })).toEqual({ ...DEFAULT_RECONNECT_BACKOFF, initialDelayMs: 50 });
    expect(() => resolveReconnectBackoff({ initialDelayMs: -1 })).toThrow('initialDelayMs must be 0 or more');
    expect(() => resolveReconnectBackoff({ initialDelayMs: 5_000, maxDelayMs: 1_000 })).toThrow('maxDelayMs must be at least initialDelayMs');
    expect(() => resolveReconnectBackoff({ factor: 0.5 })).toThrow('factor must be 1 or more');
    expect(() => resolveReconnectBackoff({ jitter: 2 })).toThrow('jitter must be from 0 to 1');
  });
});
