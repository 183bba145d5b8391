// The host's replies over the real tmi.js keep under Twitch's chat limits and are never dropped:
// in a channel where the bot is not a moderator, at most 20 lines per window (the minimum spacing
// apart); where it is one (Twitch says so in the bot's USERSTATE, sent on join and after each of
// its lines), up to 100 per window, unpaced. The rest wait their turn. Time is a manual clock, so
// nothing sleeps. The spacing and the window are the queue's (TWITCH_CHAT_LIMITS).
import { describe, expect, it } from 'vitest';
import { TWITCH_CHAT_LIMITS } from '../../src/host/chat-transport.ts';
import { twitchHostForSuite } from './twitch-host.ts';
import type { ReplyOutcome } from '../../src/host/plugin-api.ts';
import type { Badges } from '../fakes/fake-twitch-irc.ts';

const { minIntervalMs: SPACING_MS, windowMs: WINDOW_MS, userMessages: USER_LIMIT, moderatorMessages: MODERATOR_LIMIT } = TWITCH_CHAT_LIMITS;

describe('reply limits over the real tmi.js', () => {
  const world = twitchHostForSuite({ dirPrefix: 'chatskin-limits-' });
  const COMMANDS = 25;

  it('sends 20 lines in the first window, the minimum spacing apart, then the rest: none dropped', async () => {
    const { clock, botLines } = world;
    await world.sendCommands(COMMANDS);

    // Let the handlers answer (they read the service), then step time a spacing at a time.
    await expect.poll(async () => { await clock.advance(0); return botLines().length; }, { timeout: 10_000 }).toBe(1);
    for (let step = 1; step * SPACING_MS < WINDOW_MS; step += 1) {
      await clock.advance(SPACING_MS);
      await expect.poll(() => botLines().length, { timeout: 5_000 }).toBe(Math.min(step + 1, USER_LIMIT));
    }
    expect(botLines()).toHaveLength(USER_LIMIT);

    await clock.advance(60_000);
    await expect.poll(() => botLines().length, { timeout: 5_000 }).toBe(COMMANDS);
    expect(botLines().every((m) => m.joined)).toBe(true);
  });
});

describe('reply limits over the real tmi.js, the bot a moderator from its join', () => {
  // Twitch's USERSTATE on join carries the bot's moderator badge (and mod=1).
  const world = twitchHostForSuite({ dirPrefix: 'chatskin-limits-mod-', botBadges: () => ({ moderator: '1' }) });

  it('answers 30 commands at once without the one-a-second pacing, then stops at 100 lines per 30 s: none dropped', async () => {
    const { clock, botLines, running } = world;
    const start = clock.now();
    await world.sendCommands(30);
    // The clock never moves here: a paced (non-moderator) bot would send one line and wait.
    await expect.poll(() => botLines().length, { timeout: 10_000 }).toBe(30);
    expect(clock.now()).toBe(start);

    // Fill the rest of the window through the host's own say (queued at once, so the count is exact);
    // batches stay under the 50 lines a channel's queue holds.
    const outcomes: (ReplyOutcome | undefined)[] = [];
    const say = (count: number) => {
      for (let i = 0; i < count; i += 1) {
        const index = outcomes.push(undefined) - 1;
        void running.host.say('alice', `line ${index}`).then((outcome) => { outcomes[index] = outcome; });
      }
    };
    const sentCount = () => outcomes.filter((outcome) => outcome?.status === 'sent').length;
    say(40);
    await expect.poll(() => botLines().length, { timeout: 10_000 }).toBe(70);
    say(40);
    await expect.poll(() => botLines().length, { timeout: 10_000 }).toBe(MODERATOR_LIMIT);

    // A window from the first line: until then the last 10 wait, unsent and not dropped.
    await clock.advance(WINDOW_MS - 1);
    expect(sentCount()).toBe(70);
    expect(outcomes.filter((outcome) => outcome === undefined)).toHaveLength(10);
    expect(botLines()).toHaveLength(MODERATOR_LIMIT);

    await clock.advance(1);
    await expect.poll(() => botLines().length, { timeout: 10_000 }).toBe(110);
    await expect.poll(sentCount).toBe(80);
    expect(botLines().slice(100).map((m) => m.text)).toEqual(Array.from({ length: 10 }, (_, i) => `line ${70 + i}`));
  });
});

describe('reply limits over the real tmi.js, the bot made a moderator while replies wait', () => {
  let botIsModerator = false;
  const world = twitchHostForSuite({ dirPrefix: 'chatskin-limits-promoted-', botBadges: (): Badges => (botIsModerator ? { moderator: '1' } : {}) });

  it('lifts the pacing as soon as the USERSTATE answering its next line says moderator', async () => {
    const { clock, botLines } = world;
    await world.sendCommands(10);
    await expect.poll(() => botLines().length, { timeout: 10_000 }).toBe(1);

    // Made a moderator now: the USERSTATE that answered the first line said otherwise, the one
    // answering the second line (due after the minimum spacing) says so.
    botIsModerator = true;
    await clock.advance(SPACING_MS);
    await expect.poll(() => botLines().length, { timeout: 10_000 }).toBe(10);
  });
});
