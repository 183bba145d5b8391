import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SendPause } from '../../../src/adapters/twitch-chat/send-pause.ts';

beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('holding lines after a rate-limit refusal', () => {
  it('holds nothing until told, and lets a wait through at once', async () => {
    const pause = new SendPause();
    expect(pause.holding(0)).toBe(false);
    await expect(pause.over(0)).resolves.toBeUndefined();
  });

  it('holds until the pause is over, and keeps a longer pause already on', async () => {
    const pause = new SendPause();
    pause.hold(1_000, 0);
    pause.hold(100, 0);
    expect(pause.holding(999)).toBe(true);
    let over = false;
    void pause.over(0).then(() => {
      over = true;
    });
    await vi.advanceTimersByTimeAsync(999);
    expect(over).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(over).toBe(true);
    expect(pause.holding(1_000)).toBe(false);
  });

  it('rejects every wait when cancelled', async () => {
    const pause = new SendPause();
    pause.hold(1_000, 0);
    const waiting = pause.over(0);
    pause.cancel(new Error('stopped'));
    await expect(waiting).rejects.toThrow('stopped');
    expect(vi.getTimerCount()).toBe(0);
  });
});
