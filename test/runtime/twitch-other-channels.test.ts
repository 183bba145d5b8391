// A bot that joins more channels than the account's own (real tmi.js against the fake Twitch
// chat): roles count only in the account's channel, so a moderator or the broadcaster of another
// channel cannot restyle this account's overlay, and other channels' chat stays off the overlay.
import { describe, expect, it } from 'vitest';
import { watchedTwitchHostForSuite } from './watched-twitch-host.ts';
import type { ServerFrame } from '../../src/service/push/protocol.ts';

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
