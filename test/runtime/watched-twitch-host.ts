// A whole chatskin (startChatskin) for one describe block, on real time: its Twitch chat the fake
// server driven by the real tmi.js, joined to `channels`, and the push socket of the account's
// default overlay open. Started in beforeAll, closed in afterAll. (twitch-host.ts has one on a
// manual clock, for cooldowns and reply pacing.)
import { pino } from 'pino';
import { afterAll, beforeAll } from 'vitest';
import { watchDefaultOverlay } from './overlay-socket.ts';
import type { OverlaySocket } from './overlay-socket.ts';
import { twitchHostConfig } from './twitch-host-config.ts';
import { startChatskin } from '../../src/runtime/start-chatskin.ts';
import type { RunningChatskin } from '../../src/runtime/start-chatskin.ts';
import { FakeTwitchIrc } from '../fakes/fake-twitch-irc.ts';

export interface WatchedTwitchHost {
  irc: FakeTwitchIrc;
  running: RunningChatskin;
  overlay: OverlaySocket;
}

/** `dirPrefix`: the temp folder's name prefix (the database lives there); `channels`: twitch.channels, alice's own first. */
export function watchedTwitchHostForSuite(dirPrefix: string, channels: string[] = ['alice']): WatchedTwitchHost {
  const world = {} as WatchedTwitchHost;
  beforeAll(async () => {
    world.irc = await FakeTwitchIrc.start();
    const config = twitchHostConfig(world.irc, dirPrefix, {}, { channels });
    world.running = await startChatskin(config, { logger: pino({ level: 'silent' }), stdin: null });
    for (const channel of channels) await world.irc.waitForJoin(channel);
    world.overlay = await watchDefaultOverlay(world.running);
  });
  afterAll(async () => {
    world.overlay?.socket.close();
    await world.running?.close();
    await world.irc?.close();
  });
  return world;
}
