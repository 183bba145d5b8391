// Replies written into a chat connection that died without closing (Twitch never read them) are
// not lost: once the connection is found gone, the lines Twitch never answered go back to the
// reply queue and are sent again on the new connection, with a warning. Real tmi.js, the whole
// host, the fake Twitch chat.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChatskin } from '../../src/runtime/start-chatskin.ts';
import type { RunningChatskin } from '../../src/runtime/start-chatskin.ts';
import { FakeTwitchIrc } from '../fakes/fake-twitch-irc.ts';
import { captureLogs, LEVEL } from '../host/log-capture.ts';
import { twitchHostConfig } from './twitch-host-config.ts';

const BOT = 'chatskinbot';
const MOD = { login: 'mod_mia', mod: true };
let irc: FakeTwitchIrc;
let running: RunningChatskin;
let logs: ReturnType<typeof captureLogs>;

beforeAll(async () => {
  irc = await FakeTwitchIrc.start({ userBadges: (login): Record<string, string> => (login === BOT ? { moderator: '1' } : {}) });
  logs = captureLogs();
  running = await startChatskin(twitchHostConfig(irc, 'lost-replies-'), { logger: logs.logger, stdin: null });
  await irc.waitForJoin('alice');
});
afterAll(async () => {
  await running?.close();
  await irc?.close();
});

describe('replies sent into a connection that then died', () => {
  it('are sent again once chat is back, and the log says so', async () => {
    // One answered, so the bot knows it is a moderator here.
    let since = irc.privmsgs.length;
    irc.sendPrivmsg('#alice', MOD, '!style show bubble.width');
    await irc.waitForPrivmsg((m) => m.login === BOT, { since });

    // Twitch stops reading: the bot's replies go into the socket and get no answer.
    const sentBefore = irc.sent.length;
    irc.silent = true;
    for (const key of ['bubble.width', 'bubble.gap', 'avatar.size']) irc.sendPrivmsg('#alice', MOD, `!style show ${key}`);
    await expect.poll(() => irc.sent.slice(sentBefore).filter((line) => line.message.command === 'PRIVMSG').length, { timeout: 10_000 }).toBe(3);

    // The connection is found dead (here: dropped); Twitch reads again.
    since = irc.privmsgs.length;
    const joins = irc.joins.length;
    irc.dropAllConnections();
    irc.silent = false;
    await irc.waitForJoin('alice', { since: joins });
    await expect.poll(() => irc.privmsgs.slice(since).filter((m) => m.login === BOT).map((m) => m.text.split(' ')[1]), { timeout: 10_000 })
      .toEqual(['bubble.width', 'bubble.gap', 'avatar.size']);
    // A connection that was up and dropped says so (tmi.js calls every close "Unable to connect.").
    expect(logs.entries.some((entry) => entry.level === LEVEL.warn && String(entry.msg).startsWith('Twitch chat connection lost (the connection closed): reconnecting in'))).toBe(true);
    expect(logs.entries.some((entry) => entry.level === LEVEL.warn
      && entry.msg === '3 of the bot\'s lines got no answer from Twitch before the connection was lost: they are sent again once chat is back')).toBe(true);
  });

  it('a line Twitch had delivered before the connection died is not shown twice: re-sent and refused as a duplicate, it is dropped', async () => {
    // A second bot that is no moderator, so Twitch's duplicate rule holds for its lines.
    const plainIrc = await FakeTwitchIrc.start();
    const plainLogs = captureLogs();
    const plain = await startChatskin(twitchHostConfig(plainIrc, 'lost-delivered-'), { logger: plainLogs.logger, stdin: null });
    try {
      await plainIrc.waitForJoin('alice');
      // Twitch takes the reply and shows it, but its answer never reaches the bot.
      plainIrc.answersLost = true;
      let since = plainIrc.privmsgs.length;
      plainIrc.sendPrivmsg('#alice', MOD, '!style show bubble.width');
      await plainIrc.waitForPrivmsg((m) => m.login === BOT, { since });
      const joins = plainIrc.joins.length;
      plainIrc.dropAllConnections();
      plainIrc.answersLost = false;
      await plainIrc.waitForJoin('alice', { since: joins });
      // The bot sends it again, Twitch refuses it as a repeat of the line it showed.
      await plainIrc.waitForPrivmsg((m) => m.login === BOT && m.refused === 'msg_duplicate', { since });
      // A later command's answer shows the queue went on.
      since = plainIrc.privmsgs.length;
      plainIrc.sendPrivmsg('#alice', MOD, '!style show bubble.gap');
      await plainIrc.waitForPrivmsg((m) => m.login === BOT && m.refused === null && m.text.includes('bubble.gap'), { since });
      const shown = plainIrc.privmsgs.filter((m) => m.login === BOT && m.refused === null && m.text.includes('bubble.width'));
      expect(shown).toHaveLength(1);
      expect(plainLogs.entries.some((entry) => String(entry.msg).includes('its first copy had reached the chat'))).toBe(true);
    } finally {
      await plain.close();
      await plainIrc.close();
    }
  });
});
