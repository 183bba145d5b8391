// The bot and the channel may be one Twitch account (docs/twitch-setup.md). The broadcaster then
// types on another client with the bot's own account: in the own channel those lines are the
// broadcaster's commands, answered by the bot (real tmi.js against the fake Twitch chat); the
// bot's replies are never taken for commands (tmi.js marks them), nor are the account's lines in
// another channel the bot joined.
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChatskin } from '../../src/runtime/start-chatskin.ts';
import type { RunningChatskin } from '../../src/runtime/start-chatskin.ts';
import { FakeTwitchIrc } from '../fakes/fake-twitch-irc.ts';
import { twitchHostConfig } from './twitch-host-config.ts';

describe('a bot that is the broadcaster\'s own account', () => {
  let irc: FakeTwitchIrc;
  let running: RunningChatskin;
  beforeAll(async () => {
    irc = await FakeTwitchIrc.start();
    running = await startChatskin(
      twitchHostConfig(irc, 'chatskin-bot-is-broadcaster-', {}, { bot: { login: 'alice', token: 'oauth:testtoken' }, channels: ['alice', 'bob'] }),
      { logger: pino({ level: 'silent' }), stdin: null },
    );
    await irc.waitForJoin('#alice');
    await irc.waitForJoin('#bob');
  });
  afterAll(async () => {
    await running?.close();
    await irc?.close();
  });

  const width = async () => (await running.service.getTemplate(running.account.id)).settings_values['bubble.width'];

  it('runs the broadcaster\'s command typed on another client in the own channel, and answers it there', async () => {
    const since = irc.privmsgs.length;
    irc.sendPrivmsg('#alice', { login: 'alice', broadcaster: true }, '!style bubble.width 333');
    const answer = await irc.waitForPrivmsg((m) => m.channel === '#alice' && /bubble\.width is now 333/.test(m.text), { since });
    expect(answer.login).toBe('alice');
    expect(await width()).toBe(333);
  });

  it('takes none of the account\'s lines in another channel for commands', async () => {
    const since = irc.privmsgs.length;
    irc.sendPrivmsg('#bob', { login: 'alice' }, '!skins');
    // Lines are handled in order: once a later line in #alice is answered, the #bob one was handled.
    irc.sendPrivmsg('#alice', { login: 'alice', broadcaster: true }, '!style show bubble.width');
    await irc.waitForPrivmsg((m) => m.channel === '#alice' && /bubble\.width is 333/.test(m.text), { since });
    expect(irc.privmsgs.slice(since).filter((m) => m.channel === '#bob')).toEqual([]);
  });
});
