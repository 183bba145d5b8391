// The reply queue sending again a line the chat refused for a reason that passes: after the wait
// (slow mode, rate limit), or made to differ (a duplicate), ahead of the replies queued after it,
// at most twice; a refusal nothing will pass is left to the transport's log.
import { describe, expect, it } from 'vitest';
import { botUserstate } from './irc-tags.ts';
import { LEVEL } from './log-capture.ts';
import { SPACING_MS, USER_LIMIT, WINDOW_MS, replyQueueSetup as setup, spaced } from './reply-queue-fixture.ts';

const SLOW = { kind: 'wait', ms: 5_000 } as const;

describe('reply queue: lines the chat refused', () => {
  it('sends a line refused for slow mode again after the wait, ahead of the lines queued after it', async () => {
    const { queue, clock, transport, sentAt } = setup();
    const outcome = queue.enqueue('streamer', 'a');
    void queue.enqueue('streamer', 'b');
    void queue.enqueue('streamer', 'c');
    await clock.advance(0);
    expect(await outcome).toEqual({ status: 'sent', parts: 1 });
    queue.refused('streamer', 'a', 'msg_slowmode', SLOW);
    await clock.advance(4_999);
    expect(transport.sent.map((line) => line.text)).toEqual(['a']);
    await clock.advance(1 + 2 * SPACING_MS);
    expect(transport.sent.map((line) => line.text)).toEqual(['a', 'a', 'b', 'c']);
    expect(sentAt).toEqual([0, ...spaced(3, 5_000)]);
  });

  it('lifts a slow-mode wait when the bot becomes a moderator, but not a rate-limit wait', async () => {
    const { queue, clock, transport, sentAt } = setup();
    void queue.enqueue('streamer', 'a');
    await clock.advance(0);
    queue.refused('streamer', 'a', 'msg_slowmode', { kind: 'wait', ms: 30_000 });
    await clock.advance(2_000);
    expect(transport.sent.map((line) => line.text)).toEqual(['a']);
    queue.setBotState('streamer', botUserstate(true));
    await clock.advance(0);
    expect(transport.sent.map((line) => line.text)).toEqual(['a', 'a']);
    expect(sentAt).toEqual([0, 2_000]);

    queue.refused('streamer', 'a', 'msg_ratelimit', { kind: 'wait', ms: 30_000 });
    await clock.advance(29_999);
    expect(transport.sent).toHaveLength(2);
    await clock.advance(1);
    expect(transport.sent).toHaveLength(3);
  });

  it('sends a line again at most twice, then logs it as dropped with the reason', async () => {
    const { queue, clock, transport, logs } = setup();
    void queue.enqueue('streamer', 'a');
    for (let refusal = 0; refusal < 3; refusal++) {
      await clock.advance(10_000);
      queue.refused('streamer', 'a', 'msg_ratelimit', { kind: 'wait', ms: 1_000 });
    }
    await clock.advance(60_000);
    expect(transport.sent.map((line) => line.text)).toEqual(['a', 'a', 'a']);
    expect(logs.filter((entry) => /sending it again/.test(entry.msg ?? ''))).toHaveLength(2);
    expect(logs.find((entry) => entry.level === LEVEL.warn && /dropped/.test(entry.msg ?? ''))).toMatchObject({
      channel: 'streamer', reason: 'msg_ratelimit', resends: 2, text: 'a',
      msg: 'reply line dropped: the chat refused it 3 times, the last for msg_ratelimit',
    });
  });

  it('does not send again a line nothing will pass (followers-only, banned...)', async () => {
    const { queue, clock, transport } = setup();
    void queue.enqueue('streamer', 'a');
    await clock.advance(0);
    queue.refused('streamer', 'a', 'msg_followersonly', { kind: 'none' });
    await clock.advance(60_000);
    expect(transport.sent.map((line) => line.text)).toEqual(['a']);
    expect(queue.pending()).toBe(0);
  });

  it('sends a duplicate again made to differ, and one that already had the suffix without it', async () => {
    const { queue, clock, transport } = setup();
    void queue.enqueue('streamer', 'same');
    await clock.advance(0);
    queue.refused('streamer', 'same', 'msg_duplicate', { kind: 'differ' });
    await clock.advance(SPACING_MS);
    queue.refused('streamer', 'same \u034F', 'msg_duplicate', { kind: 'differ' });
    await clock.advance(SPACING_MS);
    expect(transport.sent.map((line) => line.text)).toEqual(['same', 'same \u034F', 'same']);
  });

  it('keeps the order of lines refused one after the other', async () => {
    const { queue, clock, transport } = setup();
    for (const text of ['a', 'b', 'c']) void queue.enqueue('streamer', text);
    await clock.advance(SPACING_MS);
    expect(transport.sent.map((line) => line.text)).toEqual(['a', 'b']);
    queue.refused('streamer', 'a', 'msg_slowmode', SLOW);
    queue.refused('streamer', 'b', 'msg_slowmode', SLOW);
    await clock.advance(10_000);
    expect(transport.sent.map((line) => line.text)).toEqual(['a', 'b', 'a', 'b', 'c']);
  });

  it('counts a line sent again against the 20 per window', async () => {
    const { queue, clock, sentAt } = setup();
    for (let index = 0; index < USER_LIMIT; index++) void queue.enqueue('streamer', `m${index}`);
    await clock.advance((USER_LIMIT - 1) * SPACING_MS);
    expect(sentAt).toHaveLength(USER_LIMIT);
    queue.refused('streamer', `m${USER_LIMIT - 1}`, 'msg_slowmode', { kind: 'wait', ms: 0 });
    await clock.advance(WINDOW_MS - 1 - (USER_LIMIT - 1) * SPACING_MS);
    expect(sentAt).toHaveLength(USER_LIMIT);
    await clock.advance(1);
    expect(sentAt.at(-1)).toBe(WINDOW_MS);
  });

  it('after stop, neither sends again nor fails', async () => {
    const { queue, clock, transport } = setup();
    void queue.enqueue('streamer', 'a');
    await clock.advance(0);
    queue.refused('streamer', 'a', 'msg_slowmode', SLOW);
    queue.stop();
    queue.refused('streamer', 'a', 'msg_slowmode', SLOW);
    await clock.advance(60_000);
    expect(transport.sent.map((line) => line.text)).toEqual(['a']);
  });
});
