// A bot that joins more channels than the account's own (real tmi.js against the fake Twitch
// chat): roles count only in the account's channel, so a moderator or the broadcaster of another
// channel cannot restyle this account's overlay, and other channels' chat stays off the overlay.
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { watchDefaultOverlay } from './overlay-socket.ts';
import type { OverlaySocket } from './overlay-socket.ts';
import { twitchHostConfig } from './twitch-host-config.ts';
import { startChatskin } from '../../src/runtime/start-chatskin.ts';
import type { RunningChatskin } from '../../src/runtime/start-chatskin.ts';
import type { ServerFrame } from '../../src/service/push/protocol.ts';
import { FakeTwitchIrc } from '../fakes/fake-twitch-irc.ts';

const ALICE_MOD = { login: 'alicemod', mod: true };
const BOB_MOD = { login: 'bobmod', mod: true };
const BOB = { login: 'bob', broadcaster: true };

describe('host joined to another channel besides its own (real tmi.js against the fake server)', () => {
  let irc: FakeTwitchIrc;
  let running: RunningChatskin;
  let overlay: OverlaySocket;

  beforeAll(async () => {
    irc = await FakeTwitchIrc.start();
    const config = twitchHostConfig(irc, 'chatskin-channels-');
    if (!config.twitch.enabled) throw new Error('twitchHostConfig turns Twitch chat on');
    config.twitch.channels = ['alice', 'bob'];
    running = await startChatskin(config, { logger: pino({ level: 'silent' }), stdin: null });
    await irc.waitForJoin('alice');
    await irc.waitForJoin('bob');
    overlay = await watchDefaultOverlay(running);
  });

  afterAll(async () => {
    overlay?.socket.close();
    await running?.close();
    await irc?.close();
  });

  const width = async () => (await running.service.getTemplate(running.account.id)).settings_values['bubble.width'];
  const botLines = (since: number, channel: string) => irc.privmsgs.slice(since).filter((m) => m.login === 'chatskinbot' && m.channel === channel);

  it("does not let another channel's moderator or broadcaster restyle the overlay", async () => {
    const before = await width();
    const since = irc.privmsgs.length;
    irc.sendPrivmsg('#bob', BOB_MOD, '!style bubble.width 123');
    irc.sendPrivmsg('#bob', BOB, '!style bubble.width 222');
    // Lines are handled in order: once alice's moderator is answered, bob's lines were handled.
    irc.sendPrivmsg('#alice', ALICE_MOD, '!style show bubble.width');
    await irc.waitForPrivmsg((m) => m.login === 'chatskinbot' && m.channel === '#alice' && /bubble\.width/.test(m.text), { since });
    expect(await width()).toBe(before);
    expect(botLines(since, '#bob')).toEqual([]);
  });

  it("still lets the account's own moderator restyle it", async () => {
    const since = irc.privmsgs.length;
    irc.sendPrivmsg('#alice', ALICE_MOD, '!style bubble.width 321');
    await irc.waitForPrivmsg((m) => m.login === 'chatskinbot' && m.channel === '#alice' && /321/.test(m.text), { since });
    expect(await width()).toBe(321);
  });

  it('answers commands anyone may use in the other channel, in that channel', async () => {
    const since = irc.privmsgs.length;
    irc.sendPrivmsg('#bob', { login: 'someviewer', userId: '4242' }, '!skins');
    const answer = await irc.waitForPrivmsg((m) => m.login === 'chatskinbot' && /someviewer/i.test(m.text), { since });
    expect(answer.channel).toBe('#bob');
  });

  it("keeps the other channel's chat off the overlay", async () => {
    const from = overlay.frames.length;
    irc.sendPrivmsg('#bob', { login: 'bobfan' }, 'only in bob');
    irc.sendPrivmsg('#alice', { login: 'alicefan' }, 'only in alice');
    const isChat = (text: string) => (f: ServerFrame) => f.type === 'chat' && f.event.type === 'message' && f.event.text === text;
    // Lines are handled in order: once alice's line is shown, bob's was handled.
    await overlay.waitFor(isChat('only in alice'), from);
    expect(overlay.frames.slice(from).some(isChat('only in bob'))).toBe(false);
  });
});
