import { describe, expect, it } from 'vitest';
import type { ReplyOutcome } from '../../src/host/plugin-api.ts';
import { botUserstate } from './irc-tags.ts';
import { LEVEL } from './log-capture.ts';
import { settle } from './manual-clock.ts';
import { MODERATOR_LIMIT, SPACING_MS, USER_LIMIT, WINDOW_MS, holdLine, replyQueueSetup as setup, spaced } from './reply-queue-fixture.ts';

describe('reply queue: Twitch limits (sliding 30 s window)', () => {
  it('sends at most 20 messages per window, the minimum spacing apart, to a channel where the bot is not a moderator', async () => {
    const { queue, clock, sentAt } = setup();
    for (let index = 0; index < USER_LIMIT + 5; index++) void queue.enqueue('streamer', `message ${index}`);
    await clock.advance(0);
    expect(sentAt).toEqual([0]);
    await clock.advance(WINDOW_MS - 1);
    // One per minimum spacing, 20 in the first window.
    expect(sentAt).toEqual(spaced(USER_LIMIT));
    await clock.advance(1);
    expect(sentAt).toHaveLength(USER_LIMIT + 1);
    expect(sentAt[USER_LIMIT]).toBe(WINDOW_MS);
    await clock.advance(4 * SPACING_MS);
    expect(sentAt).toEqual([...spaced(USER_LIMIT), ...spaced(5, WINDOW_MS)]);
  });

  it('shares the freed places among channels in turn, so one busy channel does not starve another', async () => {
    const { queue, clock, transport } = setup();
    queue.setBotState('streamer', botUserstate(true));
    // 300 replies to a channel where the bot is a moderator fill the shared 100 per 30 s.
    for (let index = 0; index < 300; index++) void queue.enqueue('streamer', `busy ${index}`);
    await clock.advance(WINDOW_MS - 5_000);
    expect(transport.sent).toHaveLength(MODERATOR_LIMIT);
    void queue.enqueue('other', 'waiting');
    // The first place freed (a window after the first lines) goes to the channel that had not sent.
    await clock.advance(5_000);
    const other = transport.sent.findIndex((line) => line.channel === 'other');
    expect(other).toBe(MODERATOR_LIMIT);
  });

  it('no window ever holds more than 20 messages, however they arrive', async () => {
    const { queue, clock, sentAt } = setup();
    for (let round = 0; round < 6; round++) {
      for (let index = 0; index < 9; index++) void queue.enqueue('streamer', `r${round} m${index}`);
      await clock.advance(7_300);
    }
    await clock.advance(120_000);
    expect(sentAt).toHaveLength(54);
    for (const [index, at] of sentAt.entries()) {
      expect(sentAt.filter((other) => other > at - WINDOW_MS && other <= at).length, `window ending at message ${index}`).toBeLessThanOrEqual(USER_LIMIT);
    }
  });

  it('after a USERSTATE with the moderator badge: 100 per window and no minimum spacing', async () => {
    const { queue, clock, sentAt } = setup();
    queue.setBotState('#streamer', botUserstate(true));
    expect(queue.isModerator('streamer')).toBe(true);
    for (let index = 0; index < MODERATOR_LIMIT + 30; index++) void queue.enqueue('streamer', `message ${index}`);
    await clock.advance(0);
    expect(sentAt).toHaveLength(MODERATOR_LIMIT);
    expect(sentAt.every((at) => at === 0)).toBe(true);
    await clock.advance(WINDOW_MS - 1);
    expect(sentAt).toHaveLength(MODERATOR_LIMIT);
    await clock.advance(1);
    expect(sentAt).toHaveLength(MODERATOR_LIMIT + 30);
  });

  it('a USERSTATE without moderator status brings back the 20 per window and the minimum spacing', async () => {
    const { queue, clock, sentAt } = setup();
    queue.setBotState('streamer', botUserstate(true));
    for (let index = 0; index < 30; index++) void queue.enqueue('streamer', `fast ${index}`);
    await clock.advance(0);
    expect(sentAt).toHaveLength(30);
    queue.setBotState('streamer', botUserstate(false));
    expect(queue.isModerator('streamer')).toBe(false);
    for (let index = 0; index < USER_LIMIT + 1; index++) void queue.enqueue('streamer', `slow ${index}`);
    await clock.advance(SPACING_MS + WINDOW_MS - 1);
    // The moderator-only lines used the 100 bucket alone; the ordinary 20 start afresh, the minimum
    // spacing after the channel's last line and that far apart.
    expect(sentAt.slice(30)).toEqual(spaced(USER_LIMIT, SPACING_MS));
    // The 21st waits for the first of them to leave the window.
    await clock.advance(1);
    expect(sentAt.slice(30 + USER_LIMIT)).toEqual([SPACING_MS + WINDOW_MS]);
  });

  it('the ordinary 20 are shared by every channel where the bot is not a moderator; a moderator channel has its own room', async () => {
    const { queue, clock, transport } = setup();
    queue.setBotState('other', botUserstate(true));
    for (let index = 0; index < 15; index++) void queue.enqueue('streamer', `s${index}`);
    for (let index = 0; index < 10; index++) void queue.enqueue('other', `o${index}`);
    await clock.advance(WINDOW_MS - 1);
    const streamerSent = transport.sent.filter((line) => line.channel === 'streamer').length;
    expect(transport.sent.filter((line) => line.channel === 'other')).toHaveLength(10);
    expect(streamerSent).toBe(15);
  });

  it('spaces lines the minimum apart from when the transport sent them, so a line held back is not followed at once', async () => {
    const { queue, clock, transport, sentAt } = setup();
    // The first line waits in the transport (as one does for its channel to be rejoined).
    const { release } = holdLine(transport, 'held');
    void queue.enqueue('streamer', 'held');
    void queue.enqueue('streamer', 'next');
    await clock.advance(5_000);
    expect(sentAt).toEqual([]);
    release();
    await clock.advance(SPACING_MS - 1);
    expect(sentAt).toEqual([5_000]);
    await clock.advance(1);
    expect(sentAt).toEqual([5_000, 5_000 + SPACING_MS]);
  });

  it('counts a line in flight as taking a place in the window, and a held line from when it was sent', async () => {
    const { queue, clock, transport, sentAt } = setup();
    queue.setBotState('streamer', botUserstate(true));
    queue.setBotState('other', botUserstate(true));
    const { release } = holdLine(transport, 'held');
    void queue.enqueue('streamer', 'held');
    for (let index = 0; index < 200; index++) void queue.enqueue('other', `o${index}`);
    await clock.advance(0);
    // 100 per window in all: the held line keeps one place.
    const others = MODERATOR_LIMIT - 1;
    expect(sentAt).toHaveLength(others);
    await clock.advance(20_000);
    release();
    await clock.advance(0);
    expect(sentAt.at(-1)).toBe(20_000);
    await clock.advance(WINDOW_MS - 20_000);
    // The 99 lines of 0 s have left the window; the held line, sent at 20 s, has not.
    expect(sentAt.filter((at) => at === WINDOW_MS)).toHaveLength(others);
    await clock.advance(20_000 - 1);
    expect(sentAt).toHaveLength(others + 1 + others);
    await clock.advance(1);
    expect(sentAt.slice(others + 1 + others)).toEqual([20_000 + WINDOW_MS]);
  });

  it('a transport without limits (local chat) sends at once', async () => {
    const { queue, clock, sentAt } = setup({ limits: null });
    for (let index = 0; index < 150; index++) void queue.enqueue('streamer', `m${index}`);
    await clock.advance(0);
    expect(sentAt).toHaveLength(150);
    expect(sentAt.every((at) => at === 0)).toBe(true);
  });
});

describe('reply queue: splitting and line hygiene', () => {
  it('splits an over-long reply into messages of at most 500 characters on word boundaries, in order', async () => {
    const { queue, clock, transport } = setup({ limits: null });
    const words = Array.from({ length: 100 }, (_, index) => `word${index}`).join(' ');
    expect(words.length).toBeGreaterThan(500);
    const outcome = queue.enqueue('streamer', words);
    await clock.advance(0);
    expect(await outcome).toEqual({ status: 'sent', parts: 2 });
    expect(transport.sent.map((line) => line.text.length).every((length) => length <= 500)).toBe(true);
    expect(transport.sent.map((line) => line.text).join(' ')).toBe(words);
  });

  it('a reply is one line: line breaks become spaces', async () => {
    const { queue, clock, transport } = setup({ limits: null });
    void queue.enqueue('#Streamer', 'one\ntwo\r\nthree');
    await clock.advance(0);
    expect(transport.sent).toEqual([{ channel: 'streamer', text: 'one two three' }]);
  });

  it('keeps at most maxPartsPerReply parts of a huge reply, and logs it', async () => {
    const { queue, clock, transport, logs } = setup({ limits: null, maxPartsPerReply: 3 });
    const outcome = queue.enqueue('streamer', 'word '.repeat(1000));
    await clock.advance(0);
    expect(await outcome).toEqual({ status: 'sent', parts: 3 });
    expect(transport.sent).toHaveLength(3);
    expect(logs.find((entry) => entry.level === LEVEL.warn && /too long/.test(entry.msg ?? ''))).toMatchObject({ parts: 10, kept: 3 });
  });

  it('makes a repeat of the last line differ, since Twitch drops an identical line within 30 s unseen', async () => {
    const { queue, clock, transport } = setup();
    void queue.enqueue('streamer', 'same');
    void queue.enqueue('streamer', 'same');
    void queue.enqueue('streamer', 'same');
    await clock.advance(5_000);
    // U+034F: Twitch drops the tag character U+E0000 clients used before (since August 2025).
    expect(transport.sent.map((line) => line.text)).toEqual(['same', 'same \u034F', 'same']);
  });

  it('counts a repeat within 30 s plus the arrival margin as a repeat: 30.05 s after, it still differs; 30.1 s after, it goes as is', async () => {
    const { queue, clock, transport } = setup();
    void queue.enqueue('streamer', 'same');
    await clock.advance(30_050);
    void queue.enqueue('streamer', 'same');
    await clock.advance(30_100);
    void queue.enqueue('streamer', 'same \u034F');
    await clock.advance(1_000);
    // The first line held up on the way by under 100 ms would reach Twitch within 30 s of the second.
    expect(transport.sent.map((line) => line.text)).toEqual(['same', 'same \u034F', 'same \u034F']);
  });

  it('splits replies into parts of at most 498 characters, so a repeat is made to differ whole', async () => {
    const { queue, clock, transport } = setup();
    const line = `${'word '.repeat(98)}last`.padEnd(498, 'x');
    void queue.enqueue('streamer', line);
    void queue.enqueue('streamer', line);
    const longer = `${'word '.repeat(98)}last`.padEnd(499, 'x');
    void queue.enqueue('streamer', longer);
    await clock.advance(10_000);
    const sent = transport.sent.map((item) => item.text);
    expect(sent[0]).toBe(line);
    // Nothing cut: the suffix fits beside the whole line.
    expect(sent[1]).toBe(`${line} \u034F`);
    expect(sent[1]!.length).toBe(500);
    // 499 characters go as two parts, each with room for the suffix.
    expect(sent.slice(2)).toEqual([`${'word '.repeat(97)}word`, 'lastxxxxx']);
    expect(sent.slice(2).join(' ')).toBe(longer);
  });

  it('keeps the room for the suffix between graphemes, never halving a character', async () => {
    const { queue, clock, transport } = setup();
    // 249 emoji of two UTF-16 units each: 498 units fit with the suffix; 250 are split.
    const line = '\u{1F600}'.repeat(249);
    void queue.enqueue('streamer', line);
    void queue.enqueue('streamer', line);
    void queue.enqueue('streamer', '\u{1F600}'.repeat(250));
    await clock.advance(10_000);
    const sent = transport.sent.map((item) => item.text);
    expect(sent[1]).toBe(`${line} \u034F`);
    expect(sent.slice(2)).toEqual([line, '\u{1F600}']);
    expect(sent.every((text) => text.isWellFormed() && text.length <= 500)).toBe(true);
  });

  it('splits at 500 where no limits apply (the local chat)', async () => {
    const { queue, clock, transport } = setup({ limits: null });
    const line = `${'word '.repeat(99)}last`.padEnd(500, 'x');
    void queue.enqueue('streamer', line);
    await clock.advance(0);
    expect(transport.sent.map((item) => item.text)).toEqual([line]);
  });

  it('does not alter a repeat where the bot is a moderator', async () => {
    const { queue, clock, transport } = setup();
    queue.setBotState('streamer', botUserstate(true));
    void queue.enqueue('streamer', 'same');
    void queue.enqueue('streamer', 'same');
    await clock.advance(0);
    expect(transport.sent.map((line) => line.text)).toEqual(['same', 'same']);
  });
});

describe('reply queue: never drops silently', () => {
  it('a full queue refuses a new reply with a reason and a warning that gives the count', async () => {
    const { queue, logs } = setup({ maxQueued: 5 });
    const outcomes: Promise<ReplyOutcome>[] = [];
    for (let index = 0; index < 7; index++) outcomes.push(queue.enqueue('streamer', `m${index}`));
    await settle();
    // m0 went out at once; m1..m5 wait (5); m6 does not fit.
    expect(queue.pending('streamer')).toBe(5);
    expect(await outcomes[6]).toEqual({ status: 'refused', reason: 'reply queue full (5 waiting)' });
    expect(logs.find((entry) => entry.level === LEVEL.warn && entry.msg === 'reply queue full: reply refused')).toMatchObject({ channel: 'streamer', queued: 5, max: 5 });
  });

  it('a full queue coalesces a reply identical to one already waiting, and logs it', async () => {
    const { queue, logs, clock } = setup({ maxQueued: 3 });
    for (const text of ['a', 'b', 'c', 'd']) void queue.enqueue('streamer', text);
    expect(await queue.enqueue('streamer', 'c')).toEqual({ status: 'coalesced' });
    expect(logs.some((entry) => entry.level === LEVEL.warn && /coalesced/.test(entry.msg ?? ''))).toBe(true);
    await clock.advance(10_000);
    expect(queue.pending()).toBe(0);
  });

  it('a plugin past its share coalesces a reply identical to one already waiting, as a full queue does', async () => {
    const { queue } = setup({ maxQueued: 10, maxQueuedPerPlugin: 3 });
    for (const text of ['a', 'b', 'c', 'd']) void queue.enqueue('streamer', text, { plugin: 'loop' });
    expect(await queue.enqueue('streamer', 'c', { plugin: 'loop' })).toEqual({ status: 'coalesced' });
    expect(await queue.enqueue('streamer', 'e', { plugin: 'loop' })).toMatchObject({ status: 'refused' });
  });

  it('a line sent again after a refusal takes its place even in a full queue, ahead of the replies waiting', async () => {
    const { queue, clock, transport } = setup({ maxQueued: 3 });
    for (const text of ['a', 'b', 'c', 'd']) void queue.enqueue('streamer', text);
    await clock.advance(0);
    expect(queue.pending('streamer')).toBe(3);
    queue.refused('streamer', 'a', 'msg_slowmode', { kind: 'wait', ms: 2_000 });
    expect(queue.pending('streamer')).toBe(4);
    await clock.advance(2_000 + 3 * SPACING_MS);
    expect(transport.sent.map((line) => line.text)).toEqual(['a', 'a', 'b', 'c', 'd']);
  });

  it('an empty reply is refused and logged', async () => {
    const { queue, logs } = setup();
    expect(await queue.enqueue('streamer', ' \n ')).toEqual({ status: 'refused', reason: 'empty reply' });
    expect(logs.some((entry) => entry.level === LEVEL.warn && /empty/.test(entry.msg ?? ''))).toBe(true);
  });

  it('a transport failure settles the reply as failed, withdraws its other parts, and logs the error', async () => {
    const { queue, clock, transport, logs } = setup({ limits: null });
    transport.failSends = new Error('not connected');
    const outcome = queue.enqueue('streamer', 'word '.repeat(300));
    await clock.advance(0);
    expect(await outcome).toEqual({ status: 'failed', reason: 'not connected' });
    expect(queue.pending()).toBe(0);
    expect(transport.sent).toEqual([]);
    expect(logs.find((entry) => entry.level === LEVEL.error)).toMatchObject({ channel: 'streamer', withdrawnParts: 3 - 1 });
    transport.failSends = null;
    expect(await queue.enqueue('streamer', 'back')).toEqual({ status: 'sent', parts: 1 });
  });

  it('stop settles waiting replies as failed with a warning, and refuses new ones', async () => {
    const { queue, logs } = setup();
    void queue.enqueue('streamer', 'first');
    const waiting = queue.enqueue('streamer', 'second');
    await settle();
    queue.stop();
    expect(await waiting).toEqual({ status: 'failed', reason: 'the host stopped before it was sent' });
    expect(logs.find((entry) => entry.level === LEVEL.warn && /stopping/.test(entry.msg ?? ''))).toMatchObject({ parts: 1 });
    expect(await queue.enqueue('streamer', 'late')).toEqual({ status: 'refused', reason: 'the host is stopping' });
  });
});

describe('reply queue: a transport that throws synchronously', () => {
  it('is handled like a rejection: the reply fails, logged, and the queue goes on', async () => {
    const { queue, transport, clock, logs } = setup({ limits: null });
    const say = transport.say;
    transport.say = () => {
      throw new Error('socket gone');
    };
    expect(await queue.enqueue('streamer', 'hello')).toEqual({ status: 'failed', reason: 'socket gone' });
    expect(logs.some((entry) => entry.level === LEVEL.error)).toBe(true);
    transport.say = say;
    const next = queue.enqueue('streamer', 'again');
    await clock.advance(0);
    expect(await next).toEqual({ status: 'sent', parts: 1 });
  });
});
