// The host's replies over the real tmi.js keep under Twitch's chat limits and are never dropped:
// in a channel where the bot is not a moderator, at most 20 lines per 30 s (one a second); the
// rest wait their turn. Time is a manual clock, so nothing sleeps.
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { twitchHostConfig } from './twitch-host-config.ts';
import { startChatskin } from '../../src/runtime/start-chatskin.ts';
import type { RunningChatskin } from '../../src/runtime/start-chatskin.ts';
import { FakeTwitchIrc } from '../fakes/fake-twitch-irc.ts';
import { ManualClock } from '../host/manual-clock.ts';

const COMMANDS = 25;

describe('reply limits over the real tmi.js', () => {
  let irc: FakeTwitchIrc;
  let running: RunningChatskin;
  const clock = new ManualClock();

  beforeAll(async () => {
    irc = await FakeTwitchIrc.start();
    const config = twitchHostConfig(irc, 'chatskin-limits-');
    running = await startChatskin(config, { logger: pino({ level: 'silent' }), stdin: null, clock });
    await irc.waitForJoin('alice');
  });

  afterAll(async () => {
    await running?.close();
    await irc?.close();
  });

  const botLines = () => irc.privmsgs.filter((m) => m.login === 'chatskinbot');

  it('sends 20 lines in the first 30 s, one a second, then the rest: none dropped', async () => {
    let received = 0;
    running.transports.twitch!.subscribe((event) => { if (event.type === 'message' && !event.self) received += 1; });
    for (let i = 0; i < COMMANDS; i += 1) irc.sendPrivmsg('#alice', { login: 'modguy', mod: true }, '!style show bubble.width');
    await expect.poll(() => received, { timeout: 10_000 }).toBe(COMMANDS);

    // Let the handlers answer (they read the service), then step time a second at a time.
    await expect.poll(async () => { await clock.advance(0); return botLines().length; }, { timeout: 10_000 }).toBe(1);
    for (let second = 1; second < 30; second += 1) {
      await clock.advance(1_000);
      await expect.poll(() => botLines().length, { timeout: 5_000 }).toBe(Math.min(second + 1, 20));
    }
    expect(botLines()).toHaveLength(20);

    await clock.advance(60_000);
    await expect.poll(() => botLines().length, { timeout: 5_000 }).toBe(COMMANDS);
    expect(botLines().every((m) => m.joined)).toBe(true);
  });
});
