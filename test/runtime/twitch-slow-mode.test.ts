// Slow mode over the real tmi.js: where the bot is neither moderator nor VIP, its replies go at least the
// channel's slow mode apart, learnt from Twitch's ROOMSTATE (on join, or when a moderator changes
// it), and a line Twitch refuses for slow mode anyway is sent again after the wait it names. The
// fake enforces slow mode on the same manual clock as the host's pacing, so nothing sleeps, and
// every reply reaches the chat once, delivered.
import { describe, expect, it } from 'vitest';
import { TWITCH_CHAT_LIMITS } from '../../src/host/chat-transport.ts';
import { twitchHostForSuite } from './twitch-host.ts';
import type { TwitchHost } from './twitch-host.ts';
import type { ClientPrivmsg } from '../fakes/fake-twitch-irc.ts';

const SLOW_MS = 10_000;
/** The queue's least time between two lines to a channel, where no slow mode holds the bot. */
const SPACING_MS = TWITCH_CHAT_LIMITS.minIntervalMs;

const delivered = (world: TwitchHost): ClientPrivmsg[] => world.botLines().filter((line) => line.refused === null);

function gaps(lines: readonly ClientPrivmsg[]): number[] {
  return lines.slice(1).map((line, index) => line.at - lines[index]!.at);
}

/** Sends `count` commands and lets their replies be queued: the first goes out at once. */
async function commandsAnswered(world: TwitchHost, count: number): Promise<void> {
  await world.sendCommands(count);
  await expect.poll(async () => { await world.clock.advance(0); return world.botLines().length; }, { timeout: 10_000 }).toBe(1);
}

describe('slow mode over the real tmi.js, on from the join, the bot not a moderator', () => {
  const world = twitchHostForSuite({ dirPrefix: 'chatskin-slow-', slowSeconds: SLOW_MS / 1000 });

  it('sends each reply 10 s after the last, not the minimum spacing: all reach the chat, none refused', async () => {
    const { clock } = world;
    await commandsAnswered(world, 4);
    for (let second = 1; second <= 30; second += 1) {
      await clock.advance(1_000);
      await expect.poll(() => world.botLines().length, { timeout: 5_000 }).toBe(1 + Math.floor(second / 10));
    }
    expect(world.botLines()).toHaveLength(4);
    expect(world.botLines().every((line) => line.refused === null)).toBe(true);
    expect(gaps(world.botLines())).toEqual([SLOW_MS, SLOW_MS, SLOW_MS]);
  });
});

describe('slow mode over the real tmi.js, the bot a VIP', () => {
  // Twitch exempts VIPs from slow mode but names only moderators for the higher rate limit.
  const world = twitchHostForSuite({ dirPrefix: 'chatskin-slow-vip-', slowSeconds: SLOW_MS / 1000, botBadges: () => ({ vip: '1' }) });

  it('sends replies the minimum spacing apart as a viewer would without slow mode: all reach the chat, none refused', async () => {
    const { clock } = world;
    await commandsAnswered(world, 4);
    for (let step = 1; step <= 3; step += 1) {
      await clock.advance(SPACING_MS);
      await expect.poll(() => world.botLines().length, { timeout: 5_000 }).toBe(1 + step);
    }
    expect(world.botLines().every((line) => line.refused === null)).toBe(true);
    expect(gaps(world.botLines())).toEqual([SPACING_MS, SPACING_MS, SPACING_MS]);
  });
});

describe('slow mode over the real tmi.js, switched on while replies wait', () => {
  const world = twitchHostForSuite({ dirPrefix: 'chatskin-slow-on-' });

  it('goes from the minimum spacing to 10 s apart once a ROOMSTATE says slow=10, counted from the last line', async () => {
    const { clock, irc } = world;
    await commandsAnswered(world, 5);
    await clock.advance(SPACING_MS);
    await expect.poll(() => world.botLines().length, { timeout: 5_000 }).toBe(2);

    irc.setSlowMode('alice', SLOW_MS / 1000);
    await expect.poll(() => world.events.find((event) => event.type === 'room-state' && event.slowSeconds === 10), { timeout: 5_000 }).toBeDefined();
    for (let second = 1; second <= 30; second += 1) {
      await clock.advance(1_000);
      // The third line is due 10 s after the second, then every 10 s.
      await expect.poll(() => world.botLines().length, { timeout: 5_000 }).toBe(2 + Math.floor(second / 10));
    }
    expect(world.botLines()).toHaveLength(5);
    expect(world.botLines().every((line) => line.refused === null)).toBe(true);
    expect(gaps(world.botLines())).toEqual([SPACING_MS, SLOW_MS, SLOW_MS, SLOW_MS]);
  });
});

describe('slow mode over the real tmi.js, which the bot was never told of', () => {
  const world = twitchHostForSuite({ dirPrefix: 'chatskin-slow-unsaid-' });
  const refusals = () => world.events.filter((event) => event.type === 'line-refused');

  it('sends a line Twitch refused with msg_slowmode again after the wait the notice names, and it arrives', async () => {
    const { clock, irc } = world;
    // As if the bot had missed the ROOMSTATE: it paces lines the minimum spacing apart (1 to 2 s),
    // the fake wants 10 s.
    expect(SPACING_MS >= 1_000 && SPACING_MS < 2_000, 'the waits below are counted for a spacing of 1 to 2 s').toBe(true);
    irc.setSlowMode('alice', SLOW_MS / 1000, { announce: false });
    await commandsAnswered(world, 3);

    // The second reply goes the minimum spacing later and is refused: "talk again in 9 seconds".
    await clock.advance(SPACING_MS);
    await expect.poll(() => refusals().length, { timeout: 5_000 }).toBe(1);
    const [first, second] = world.botLines();
    expect([first!.refused, second!.refused]).toEqual([null, 'msg_slowmode']);

    // Sent again 9 s + 1 s (Twitch's rounding) after the refusal, ahead of the third reply.
    await clock.advance(9_000);
    expect(world.botLines()).toHaveLength(2);
    await clock.advance(1_000);
    await expect.poll(() => world.botLines().length, { timeout: 5_000 }).toBe(3);
    expect(world.botLines()[2]).toMatchObject({ text: second!.text, refused: null });

    // The third reply, the minimum spacing after that, is refused too and sent again the same way.
    await clock.advance(SPACING_MS);
    await expect.poll(() => refusals().length, { timeout: 5_000 }).toBe(2);
    const third = world.botLines()[3]!;
    expect(third.refused).toBe('msg_slowmode');
    await clock.advance(10_000);
    await expect.poll(() => world.botLines().length, { timeout: 5_000 }).toBe(5);
    expect(world.botLines()[4]).toMatchObject({ text: third.text, refused: null });

    // Three replies, each delivered once, at least the slow mode apart.
    expect(delivered(world)).toHaveLength(3);
    expect(gaps(delivered(world)).every((gap) => gap >= SLOW_MS)).toBe(true);
  });
});
