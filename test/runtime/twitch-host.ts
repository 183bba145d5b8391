// A whole chatskin (startChatskin) for one describe block: its Twitch chat the fake server driven
// by the real tmi.js, time a manual clock (cooldowns, reply pacing and the fake's slow mode, rate
// limits and `at` stamps move only when told), the bot's badges in each USERSTATE chosen by the
// test. The fake enforces Twitch's rate limits, so a line the host sends too fast is refused.
// Started in beforeAll, closed in afterAll.
import { pino } from 'pino';
import { afterAll, beforeAll, expect } from 'vitest';
import { twitchHostConfig } from './twitch-host-config.ts';
import { startChatskin } from '../../src/runtime/start-chatskin.ts';
import type { RunningChatskin } from '../../src/runtime/start-chatskin.ts';
import type { ChatTransportEvent } from '../../src/host/chat-transport.ts';
import { FakeTwitchIrc } from '../fakes/fake-twitch-irc.ts';
import type { Badges, ChatUser, ClientPrivmsg } from '../fakes/fake-twitch-irc.ts';
import { ManualClock } from '../host/manual-clock.ts';

export const BOT = 'chatskinbot';
export const MOD: ChatUser = { login: 'modguy', mod: true };

export interface TwitchHostOptions {
  /** Temp folder name prefix (the database lives there). */
  dirPrefix: string;
  /** Further top-level config sections (`commands`, `plugins`...). */
  config?: Record<string, unknown>;
  /** The bot's badges in #alice, read at each USERSTATE. Default none: not a moderator. */
  botBadges?: () => Badges;
  /** #alice's slow mode from the start (the ROOMSTATE on join says so). Default off. */
  slowSeconds?: number;
}

export class TwitchHost {
  irc!: FakeTwitchIrc;
  running!: RunningChatskin;
  readonly clock = new ManualClock();
  /** Chat lines from others the host has received so far. */
  received = 0;
  /** The Twitch transport's other events so far (USERSTATE, ROOMSTATE, refused lines), once the host has had them. */
  readonly events: Exclude<ChatTransportEvent, { type: 'message' }>[] = [];

  /** The bot's lines (from index `since` of `irc.privmsgs`). */
  botLines = (since = 0): ClientPrivmsg[] => this.irc.privmsgs.slice(since).filter((m) => m.login === BOT);

  /** The first bot line from index `since` on that matches (a string: the whole line). */
  botSaid = (pattern: RegExp | string, since: number): Promise<ClientPrivmsg> =>
    this.irc.waitForPrivmsg((m) => m.login === BOT && (typeof pattern === 'string' ? m.text === pattern : pattern.test(m.text)), { since });

  /** Sends `count` moderator commands (`!style show`) and waits until the host has them all. */
  async sendCommands(count: number): Promise<void> {
    const target = this.received + count;
    for (let i = 0; i < count; i += 1) this.irc.sendPrivmsg('#alice', MOD, '!style show bubble.width');
    await expect.poll(() => this.received, { timeout: 10_000 }).toBe(target);
  }
}

export function twitchHostForSuite(options: TwitchHostOptions): TwitchHost {
  const world = new TwitchHost();
  beforeAll(async () => {
    const botBadges = options.botBadges ?? (() => ({}));
    // The fake judges slow mode and Twitch's rate limits on the host's own (manual) clock.
    world.irc = await FakeTwitchIrc.start({ userBadges: (login) => (login === BOT ? botBadges() : {}), now: () => world.clock.now(), rateLimits: true });
    if (options.slowSeconds !== undefined) world.irc.setSlowMode('alice', options.slowSeconds);
    const config = twitchHostConfig(world.irc, options.dirPrefix, options.config);
    world.running = await startChatskin(config, { logger: pino({ level: 'silent' }), stdin: null, clock: world.clock });
    await world.irc.waitForJoin('alice');
    // Subscribed after the host, so the host has handled each event before the test sees it.
    world.running.transports.twitch!.subscribe((event) => {
      if (event.type !== 'message') world.events.push(event);
      else if (!event.self) world.received += 1;
    });
  });
  afterAll(async () => {
    await world.running?.close();
    await world.irc?.close();
  });
  return world;
}
