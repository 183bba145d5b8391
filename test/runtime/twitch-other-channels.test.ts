// A bot that joins more channels than the account's own (real tmi.js against the fake Twitch
// chat): roles count only in the account's channel, so a moderator or the broadcaster of another
// channel cannot restyle this account's overlay, and other channels' chat stays off the overlay.
// A channel listed twice (in other case) is joined once, a suspended one does not keep the others
// from being served, and each channel's replies are paced by the bot's status there.
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { twitchHostConfig } from './twitch-host-config.ts';
import { BOT } from './twitch-host.ts';
import { watchedTwitchHostForSuite } from './watched-twitch-host.ts';
import { startChatskin } from '../../src/runtime/start-chatskin.ts';
import type { RunningChatskin } from '../../src/runtime/start-chatskin.ts';
import type { ServerFrame } from '../../src/service/push/protocol.ts';
import { FakeTwitchIrc } from '../fakes/fake-twitch-irc.ts';
import { captureLogs, LEVEL } from '../host/log-capture.ts';
import type { Badges } from '../fakes/fake-twitch-irc.ts';

const ALICE_MOD = { login: 'alicemod', mod: true };
const BOB_MOD = { login: 'bobmod', mod: true };
const BOB = { login: 'bob', broadcaster: true };

describe('host joined to another channel besides its own (real tmi.js against the fake server)', () => {
  const world = watchedTwitchHostForSuite('chatskin-channels-', ['alice', 'bob']);

  const width = async () => (await world.running.service.getTemplate(world.running.account.id)).settings_values['bubble.width'];
  const botLines = (since: number, channel: string) => world.irc.privmsgs.slice(since).filter((m) => m.login === 'chatskinbot' && m.channel === channel);

  it("does not let another channel's moderator or broadcaster restyle the overlay", async () => {
    const before = await width();
    const since = world.irc.privmsgs.length;
    world.irc.sendPrivmsg('#bob', BOB_MOD, '!style bubble.width 123');
    world.irc.sendPrivmsg('#bob', BOB, '!style bubble.width 222');
    // Lines are handled in order: once alice's moderator is answered, bob's lines were handled.
    world.irc.sendPrivmsg('#alice', ALICE_MOD, '!style show bubble.width');
    await world.irc.waitForPrivmsg((m) => m.login === 'chatskinbot' && m.channel === '#alice' && /bubble\.width/.test(m.text), { since });
    expect(await width()).toBe(before);
    expect(botLines(since, '#bob')).toEqual([]);
  });

  it("still lets the account's own moderator restyle it", async () => {
    const since = world.irc.privmsgs.length;
    world.irc.sendPrivmsg('#alice', ALICE_MOD, '!style bubble.width 321');
    await world.irc.waitForPrivmsg((m) => m.login === 'chatskinbot' && m.channel === '#alice' && /321/.test(m.text), { since });
    expect(await width()).toBe(321);
  });

  it('answers commands anyone may use in the other channel, in that channel', async () => {
    const since = world.irc.privmsgs.length;
    world.irc.sendPrivmsg('#bob', { login: 'someviewer', userId: '4242' }, '!skins');
    const answer = await world.irc.waitForPrivmsg((m) => m.login === 'chatskinbot' && /someviewer/i.test(m.text), { since });
    expect(answer.channel).toBe('#bob');
  });

  it("counts a command's cooldowns across the channels: a listing in one holds the chatter's next in another", async () => {
    // Past the 3 s that any earlier listing holds !skins for everyone.
    await new Promise((resolve) => setTimeout(resolve, 3_100));
    const since = world.irc.privmsgs.length;
    world.irc.sendPrivmsg('#bob', { login: 'crosser' }, '!skins');
    await world.irc.waitForPrivmsg((m) => m.login === 'chatskinbot' && m.channel === '#bob' && m.text.startsWith('@crosser '), { since });
    world.irc.sendPrivmsg('#alice', { login: 'crosser' }, '!skins');
    const notice = await world.irc.waitForPrivmsg((m) => m.login === 'chatskinbot' && m.channel === '#alice' && m.text.startsWith('@crosser '), { since });
    expect(notice.text).toMatch(/^@crosser !skins is cooling down, try again in (29|30) s\.$/);
  });

  it("keeps the other channel's chat off the overlay", async () => {
    const from = world.overlay.frames.length;
    world.irc.sendPrivmsg('#bob', { login: 'bobfan' }, 'only in bob');
    world.irc.sendPrivmsg('#alice', { login: 'alicefan' }, 'only in alice');
    const isChat = (text: string) => (f: ServerFrame) => f.type === 'chat' && f.event.type === 'message' && f.event.text === text;
    // Lines are handled in order: once alice's line is shown, bob's was handled.
    await world.overlay.waitFor(isChat('only in alice'), from);
    expect(world.overlay.frames.slice(from).some(isChat('only in bob'))).toBe(false);
  });
});

describe('host joined to several channels, one listed twice in other case and one suspended (real tmi.js against the fake server)', () => {
  let irc: FakeTwitchIrc;
  let running: RunningChatskin;
  beforeAll(async () => {
    // The bot moderates #alice only: its lines there go unpaced, those to #bob 1 s apart.
    irc = await FakeTwitchIrc.start({ rateLimits: true, userBadges: (login, channel): Badges => (login === BOT && channel === 'alice' ? { moderator: '1' } : {}) });
    irc.suspendedChannels.add('carol');
    const config = twitchHostConfig(irc, 'chatskin-channels-suspended-', {}, { channels: ['alice', 'carol', 'BOB', 'bob', 'Alice'] });
    running = await startChatskin(config, { logger: pino({ level: 'silent' }), stdin: null });
    await irc.waitForJoin('alice');
    await irc.waitForJoin('bob');
  });
  afterAll(async () => {
    await running?.close();
    await irc?.close();
  });

  it('joins each channel once, and answers in each served channel while the suspended one is refused', async () => {
    const since = irc.privmsgs.length;
    irc.sendPrivmsg('#bob', { login: 'bob_viewer' }, '!skins');
    irc.sendPrivmsg('#alice', { login: 'alice_viewer' }, '!skins');
    await irc.waitForPrivmsg((m) => m.login === BOT && m.channel === '#bob' && m.text.startsWith('@bob_viewer '), { since });
    await irc.waitForPrivmsg((m) => m.login === BOT && m.channel === '#alice' && m.text.startsWith('@alice_viewer '), { since });
    const joins = irc.sent.filter((line) => line.message.command === 'JOIN').map((line) => line.message.params[0]);
    expect(joins.filter((channel) => channel === '#alice')).toHaveLength(1);
    expect(joins.filter((channel) => channel === '#bob')).toHaveLength(1);
    expect(running.transports.twitch!.joinedChannels.toSorted()).toEqual(['alice', 'bob']);
  });

  it("paces each channel by the bot's status there (its USERSTATE): unpaced where it moderates, 1 s apart elsewhere", async () => {
    const since = irc.privmsgs.length;
    const outcomes = await Promise.all([
      ...['a1', 'a2', 'a3'].map((text) => running.host.say('alice', text)),
      ...['b1', 'b2'].map((text) => running.host.say('#BOB', text)),
    ]);
    expect(outcomes.every((outcome) => outcome.status === 'sent')).toBe(true);
    const b2 = await irc.waitForPrivmsg((m) => m.text === 'b2', { since });
    const lines = irc.privmsgs.slice(since).filter((m) => m.login === BOT);
    expect(lines.every((m) => m.refused === null)).toBe(true);
    const at = (text: string) => lines.find((m) => m.text === text)!.at;
    // Paced 1 s apart, a3 would come at least 2 s after a1; the margin is for a loaded machine.
    expect(at('a3') - at('a1')).toBeLessThan(2_000);
    expect(b2.at - at('b1')).toBeGreaterThanOrEqual(1_000);
  });
});

describe('a channel list that leaves out the account\'s own channel', () => {
  let irc: FakeTwitchIrc;
  let running: RunningChatskin | undefined;
  afterAll(async () => {
    await running?.close();
    await irc?.close();
  });

  it('says at start that the overlay will show no chat, and what to add', async () => {
    irc = await FakeTwitchIrc.start();
    const logs = captureLogs();
    running = await startChatskin(twitchHostConfig(irc, 'chatskin-channels-without-own-', {}, { channels: ['bob'] }), { logger: logs.logger, stdin: null });
    const warning = logs.entries.find((entry) => entry.level === LEVEL.warn && /twitch\.channels leaves out channel\.login/.test(entry.msg ?? ''));
    expect(warning?.msg).toBe('twitch.channels leaves out channel.login (alice): its chat is not read, so the overlay shows no chat and its moderators cannot use the commands; add it to twitch.channels');
  });

  it('says nothing of the kind when the list holds it, in any case', async () => {
    const logs = captureLogs();
    const other = await startChatskin(twitchHostConfig(irc, 'chatskin-channels-with-own-', {}, { channels: ['bob', 'Alice'] }), { logger: logs.logger, stdin: null });
    try {
      expect(logs.lines.join('')).not.toMatch(/leaves out channel\.login/);
    } finally {
      await other.close();
    }
  });
});
