// What the reply queue keeps stays bounded however many lines it sends: a long-running host
// answers commands for days. The sliding windows of send times are the queue's only per-line
// memory; on a transport without chat limits (the local chat) nothing ever reads them.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SlidingWindow } from '../../src/host/sliding-window.ts';
import { WINDOW_MS, replyQueueSetup as setup } from './reply-queue-fixture.ts';

/** Every SlidingWindow that records a send from now on. */
function watchWindows(): Set<SlidingWindow> {
  const windows = new Set<SlidingWindow>();
  const record = SlidingWindow.prototype.record;
  vi.spyOn(SlidingWindow.prototype, 'record').mockImplementation(function (this: SlidingWindow, now: number) {
    windows.add(this);
    return record.call(this, now);
  });
  return windows;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('reply queue: memory stays bounded', () => {
  it('on a transport without limits (local chat), 2,000 lines leave no send times behind', async () => {
    const windows = watchWindows();
    const { queue, clock, transport } = setup({ limits: null });
    for (let index = 0; index < 2_000; index++) {
      void queue.enqueue('streamer', `answer ${index}`);
      await clock.advance(1_000);
    }
    expect(transport.sent).toHaveLength(2_000);
    for (const window of windows) expect(window.held).toBeLessThanOrEqual(1);
  });

  it('with Twitch limits, a window holds at most the sends of its last window length', async () => {
    const windows = watchWindows();
    const { queue, clock, transport } = setup();
    for (let index = 0; index < 200; index++) {
      void queue.enqueue('streamer', `answer ${index}`);
      await clock.advance(5_000);
    }
    expect(transport.sent).toHaveLength(200);
    expect(windows.size).toBeGreaterThan(0);
    // A window's worth of lines 5 s apart, and the one just sent.
    for (const window of windows) expect(window.held).toBeLessThanOrEqual(Math.floor(WINDOW_MS / 5_000) + 1);
  });

  it('a window that is only written to drops the send times that left it', () => {
    const window = new SlidingWindow(1_000);
    for (let index = 0; index < 10_000; index++) window.record(index * 10);
    expect(window.held).toBeLessThanOrEqual(101);
    expect(window.count(99_990)).toBe(100);
  });
});
