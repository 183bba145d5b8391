// Twitch judges the bot's lines when they arrive; the reply queue paces them by when it sent them.
// A line held up on the way arrives closer to the next one than it was sent, and one counted by
// the queue just outside a window can still be inside Twitch's. Twitch answers msg_ratelimit, and
// the adapter then holds every line in every channel for 30 s. The queue keeps a margin over
// Twitch's numbers for that: here the fake server (which enforces them on arrival, on the host's
// manual clock) holds the bot's first line up by less than the margin, and Twitch takes every line.
import { describe, expect, it } from 'vitest';
import { TWITCH_CHAT_LIMITS } from '../../src/host/chat-transport.ts';
import { MIN_LINE_INTERVAL_MS, RATE_WINDOW_MS, USER_LINES_PER_WINDOW } from '../fakes/fake-rate-limits.ts';
import type { ClientPrivmsg } from '../fakes/fake-twitch-irc.ts';
import { BOT, twitchHostForSuite } from './twitch-host.ts';
import type { TwitchHost } from './twitch-host.ts';

const { minIntervalMs: SPACING_MS, windowMs: WINDOW_MS, userMessages: USER_LIMIT } = TWITCH_CHAT_LIMITS;
/** How long the bot's first line is held up on the way: a few tens of milliseconds, a busy network's jitter. */
const JITTER_MS = 50;

/** Holds the bot's first line up by JITTER_MS; the rest go straight through. */
function delayFirstBotLine(world: TwitchHost): void {
  let delayed = false;
  world.irc.privmsgDelay = ({ login }) => {
    if (login !== BOT || delayed) return 0;
    delayed = true;
    return JITTER_MS;
  };
}

/** Sends `count` commands and steps the clock until `lines` bot lines in all went out. */
async function answered(world: TwitchHost, count: number, lines: number): Promise<void> {
  await world.sendCommands(count);
  await expect.poll(async () => { await world.clock.advance(0); return world.botLines().length; }, { timeout: 10_000 }).toBe(lines);
}

function refusals(world: TwitchHost): ClientPrivmsg[] {
  return world.botLines().filter((line) => line.refused !== null);
}

describe('reply pacing under delivery jitter: the minimum spacing', () => {
  const world = twitchHostForSuite({ dirPrefix: 'chatskin-jitter-spacing-' });

  it('keeps two lines to a channel at least Twitch\'s 1 s apart on arrival when the first was held up on the way', async () => {
    const { clock } = world;
    delayFirstBotLine(world);
    await answered(world, 3, 1);
    await clock.advance(SPACING_MS);
    await expect.poll(() => world.botLines().length, { timeout: 5_000 }).toBe(2);
    // Twitch would have refused the second (msg_ratelimit), and the adapter held every line 30 s.
    expect(refusals(world).map((line) => line.refused)).toEqual([]);
    await clock.advance(SPACING_MS);
    await expect.poll(() => world.botLines().length, { timeout: 5_000 }).toBe(3);
    expect(refusals(world).map((line) => line.refused)).toEqual([]);
    const arrivals = world.botLines().map((line) => line.at);
    expect(arrivals[1]! - arrivals[0]!).toBe(SPACING_MS - JITTER_MS);
    expect(arrivals.slice(1).map((at, index) => at - arrivals[index]!).every((gap) => gap >= MIN_LINE_INTERVAL_MS)).toBe(true);
  });
});

describe('reply pacing under delivery jitter: the 20 per 30 s window', () => {
  const world = twitchHostForSuite({ dirPrefix: 'chatskin-jitter-window-' });

  it('sends the 21st line only once Twitch has the first out of its window, though the first arrived late', async () => {
    const { clock } = world;
    delayFirstBotLine(world);
    const start = clock.now();
    await answered(world, 1, 1);
    // The rest come later, so the minimum spacing is not what holds them: only the window.
    await clock.advance(2 * SPACING_MS);
    await answered(world, USER_LIMIT, 2);
    for (let line = 3; line <= USER_LIMIT; line += 1) {
      await clock.advance(SPACING_MS);
      await expect.poll(() => world.botLines().length, { timeout: 5_000 }).toBe(line);
    }
    // The 21st is due a window after the first line was sent: the clock stops there, so the fake
    // stamps its arrival then.
    await clock.advance(start + WINDOW_MS - 1 - clock.now());
    expect(world.botLines()).toHaveLength(USER_LIMIT);
    await clock.advance(1);
    await expect.poll(() => world.botLines().length, { timeout: 5_000 }).toBe(USER_LIMIT + 1);

    // Twitch would have refused the 21st (msg_ratelimit), and the adapter held every line 30 s.
    expect(refusals(world).map((line) => line.refused)).toEqual([]);
    const arrivals = world.botLines().map((line) => line.at);
    expect(arrivals[0]).toBe(start + JITTER_MS);
    // No 30 s of arrivals (a line exactly 30 s older has left) holds more than Twitch's 20.
    for (const at of arrivals) {
      expect(arrivals.filter((other) => other > at - RATE_WINDOW_MS && other <= at).length).toBeLessThanOrEqual(USER_LINES_PER_WINDOW);
    }
  });
});
