// The reply queue under a channel's slow mode: where the bot is not a moderator its lines go at
// least the slow mode apart (the minimum spacing when that is longer); a moderator is exempt, and so
// is a VIP, who otherwise keeps a viewer's pacing.
import { describe, expect, it } from 'vitest';
import { botUserstate, botVipUserstate } from './irc-tags.ts';
import { LEVEL } from './log-capture.ts';
import { SPACING_MS, USER_LIMIT, WINDOW_MS, replyQueueSetup as setup, spaced } from './reply-queue-fixture.ts';

describe('reply queue: slow mode', () => {
  it('spaces lines by the slow mode where the bot is not a moderator', async () => {
    const { queue, clock, sentAt } = setup();
    queue.setSlowMode('#Streamer', 10);
    for (let index = 0; index < 4; index++) void queue.enqueue('streamer', `line ${index}`);
    await clock.advance(9_999);
    expect(sentAt).toEqual([0]);
    await clock.advance(30_000);
    expect(sentAt).toEqual([0, 10_000, 20_000, 30_000]);
  });

  it('does not hold back a moderator (Twitch exempts them)', async () => {
    const { queue, clock, sentAt } = setup();
    queue.setBotState('streamer', botUserstate(true));
    queue.setSlowMode('streamer', 30);
    for (let index = 0; index < 4; index++) void queue.enqueue('streamer', `line ${index}`);
    await clock.advance(0);
    expect(sentAt).toEqual([0, 0, 0, 0]);
  });

  it('does not hold back a VIP either, who still goes the minimum spacing apart and 20 per window', async () => {
    const { queue, clock, sentAt } = setup();
    queue.setBotState('streamer', botVipUserstate());
    queue.setSlowMode('streamer', 30);
    for (let index = 0; index < USER_LIMIT + 2; index++) void queue.enqueue('streamer', `line ${index}`);
    await clock.advance(3 * SPACING_MS);
    expect(sentAt).toEqual(spaced(4));
    await clock.advance(WINDOW_MS - 1 - 3 * SPACING_MS);
    expect(sentAt).toHaveLength(USER_LIMIT);
    await clock.advance(1);
    expect(sentAt).toHaveLength(USER_LIMIT + 1);
    expect(sentAt[USER_LIMIT]).toBe(WINDOW_MS);
  });

  it('lifts a slow-mode wait when the bot becomes a VIP', async () => {
    const { queue, clock, transport } = setup();
    void queue.enqueue('streamer', 'a');
    await clock.advance(0);
    queue.refused('streamer', 'a', 'msg_slowmode', { kind: 'wait', ms: 30_000 });
    await clock.advance(2_000);
    expect(transport.sent.map((line) => line.text)).toEqual(['a']);
    queue.setBotState('streamer', botVipUserstate());
    await clock.advance(0);
    expect(transport.sent.map((line) => line.text)).toEqual(['a', 'a']);
  });

  it('applies a slow mode switched on from the last line sent, and the minimum spacing once it is off', async () => {
    const { queue, clock, sentAt } = setup();
    for (let index = 0; index < 6; index++) void queue.enqueue('streamer', `line ${index}`);
    await clock.advance(SPACING_MS);
    expect(sentAt).toEqual([0, SPACING_MS]);
    queue.setSlowMode('streamer', 5);
    await clock.advance(10_000);
    const slow = [0, SPACING_MS, SPACING_MS + 5_000, SPACING_MS + 10_000];
    expect(sentAt).toEqual(slow);
    queue.setSlowMode('streamer', 0);
    await clock.advance(2 * SPACING_MS);
    expect(sentAt).toEqual([...slow, ...spaced(2, slow.at(-1)! + SPACING_MS)]);
  });

  it('is per channel: another channel keeps the minimum spacing', async () => {
    const { queue, clock, transport } = setup();
    queue.setSlowMode('streamer', 20);
    for (let index = 0; index < 3; index++) {
      void queue.enqueue('streamer', `s${index}`);
      void queue.enqueue('other', `o${index}`);
    }
    await clock.advance(2 * SPACING_MS);
    expect(transport.sent.filter((line) => line.channel === 'other')).toHaveLength(3);
    expect(transport.sent.filter((line) => line.channel === 'streamer')).toHaveLength(1);
  });

  it('logs a change of slow mode once, saying whether it holds the bot back', () => {
    const { queue, logs } = setup();
    queue.setSlowMode('streamer', 0);
    queue.setSlowMode('streamer', 30);
    queue.setSlowMode('streamer', 30);
    queue.setBotState('other', botUserstate(true));
    queue.setSlowMode('other', 30);
    queue.setBotState('third', botVipUserstate());
    queue.setSlowMode('third', 30);
    queue.setSlowMode('streamer', 0);
    const slow = logs.filter((entry) => /^slow mode/.test(entry.msg ?? ''));
    expect(slow.map((entry) => [entry.level, entry.channel, entry.msg])).toEqual([
      [LEVEL.info, 'streamer', "slow mode of 30 s in #streamer: the bot's lines there go at least 30 s apart"],
      [LEVEL.info, 'other', 'slow mode of 30 s in #other: the bot is a moderator there, so it does not wait for it'],
      [LEVEL.info, 'third', 'slow mode of 30 s in #third: the bot is a VIP there, so it does not wait for it'],
      [LEVEL.info, 'streamer', 'slow mode is off in #streamer'],
    ]);
  });
});
