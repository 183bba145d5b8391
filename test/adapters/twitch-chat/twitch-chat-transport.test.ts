// The Twitch chat transport: the real tmi.js client against FakeTwitchIrc over a real socket.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTwitchChatTransport, TwitchChatError } from '../../../src/adapters/twitch-chat/twitch-chat-transport.ts';
import type { TwitchChatOptions, TwitchChatState, TwitchChatTransport } from '../../../src/adapters/twitch-chat/twitch-chat-transport.ts';
import { twitchChatOptionsFromConfig } from '../../../src/adapters/twitch-chat/twitch-chat-config.ts';
import { overlayChatEventOf, viewerIdentityOf } from '../../../src/adapters/chat-event-mapping.ts';
import { chatRoleOf } from '../../../src/host/chat-roles.ts';
import { createReplyQueue } from '../../../src/host/reply-queue.ts';
import { systemClock } from '../../../src/host/clock.ts';
import { parseConfig } from '../../../src/config/load-config.ts';
import type { TwitchConfig } from '../../../src/config/config-schema.ts';
import { FakeTwitchIrc } from '../../fakes/fake-twitch-irc.ts';
import { createHost } from '../../../src/host/host.ts';
import { captureLogs, LEVEL } from '../../host/log-capture.ts';
import { ManualClock } from '../../host/manual-clock.ts';
import { createPluginFolders } from '../../host/plugin-folders.ts';
import type { PluginFolders } from '../../host/plugin-folders.ts';
import { unusedOverlayClient } from '../../host/unused-overlay-client.ts';
import { recordChatEvents } from '../chat-event-recorder.ts';
import type { ChatEventRecorder } from '../chat-event-recorder.ts';

const BOT = 'chatskinbot';
const TOKEN = 'goodtoken';
const CHANNEL = 'somechannel';

let irc: FakeTwitchIrc;
const running: TwitchChatTransport[] = [];
const recorders: ChatEventRecorder[] = [];

beforeEach(async () => {
  irc = await FakeTwitchIrc.start({
    rejectTokens: ['badtoken'],
    userBadges: (login, channel): Record<string, string> => (login === BOT && channel === CHANNEL ? { moderator: '1' } : {}),
  });
});

afterEach(async () => {
  for (const recorder of recorders.splice(0)) recorder.stop();
  for (const transport of running.splice(0)) await transport.stop();
  await irc.close();
});

function twitchChat(overrides: Partial<TwitchChatOptions> = {}) {
  const logs = captureLogs([TOKEN]);
  const transport = createTwitchChatTransport({
    channels: [CHANNEL],
    identity: { login: BOT, token: `oauth:${TOKEN}` },
    reconnect: { initialDelayMs: 20, maxDelayMs: 100, jitter: 0 },
    ...overrides,
    server: overrides.server ?? { host: '127.0.0.1', port: irc.port, secure: false },
  }, logs.logger);
  running.push(transport);
  const recorder = recordChatEvents(transport);
  recorders.push(recorder);
  const states: TwitchChatState[] = [];
  transport.onStateChange((change) => states.push(change.state));
  return { transport, recorder, states, logs };
}

async function connected(overrides: Partial<TwitchChatOptions> = {}) {
  const chat = twitchChat(overrides);
  await chat.transport.start();
  await irc.waitForJoin(CHANNEL);
  await expect.poll(() => chat.transport.joinedChannels).toEqual([CHANNEL]);
  return chat;
}

describe('Twitch chat transport against the fake Twitch IRC', () => {
  it('connects with the bot identity, joins the configured channel and says so in the logs without the token', async () => {
    const { transport, states, logs } = twitchChat({ channels: ['#SomeChannel'] });
    expect(transport.state).toBe('disconnected');
    const starting = transport.start();
    expect(transport.state).toBe('connecting');
    await starting;
    const join = await irc.waitForJoin(CHANNEL, { login: BOT });
    expect(join.channel).toBe('#somechannel');
    expect(transport.state).toBe('connected');
    expect(states).toEqual(['connecting', 'connected']);
    expect(transport.channels).toEqual(['somechannel']);
    expect(irc.sent.find((line) => line.message.command === 'PASS')?.message.params).toEqual([`oauth:${TOKEN}`]);
    await expect.poll(() => logs.entries.some((entry) => entry.msg === 'Twitch chat joined #somechannel')).toBe(true);
    expect(logs.entries.some((entry) => entry.msg === 'Twitch chat connected' && entry.login === BOT)).toBe(true);
    expect(logs.lines.join('\n')).not.toContain(TOKEN);
  });

  it('turns a tagged PRIVMSG into a message event with tmi.js tags (values kept as text) from which roles are read', async () => {
    const { recorder } = await connected();
    const sent = irc.sendPrivmsg(CHANNEL, { login: 'mod_mia', displayName: 'Mod_Mia', color: '#1E90FF', mod: true, subscriber: 8 }, '!style bubble.width 300');
    const message = await recorder.next('message', (event) => event.tags.id === sent.id);
    expect(message).toMatchObject({ channel: CHANNEL, text: '!style bubble.width 300', self: false });
    expect(message.tags).toMatchObject({
      username: 'mod_mia', 'display-name': 'Mod_Mia', 'user-id': irc.userIdOf('mod_mia'), 'room-id': irc.roomIdOf(CHANNEL),
      badges: 'moderator/1,subscriber/6', 'badges-raw': 'moderator/1,subscriber/6', mod: '1', color: '#1E90FF',
      'message-type': 'chat',
    });
    expect(chatRoleOf(message.tags)).toBe('moderator');

    const streamer = irc.sendPrivmsg(CHANNEL, { login: CHANNEL, broadcaster: true }, 'hello chat');
    expect(chatRoleOf((await recorder.next('message', (event) => event.tags.id === streamer.id)).tags)).toBe('broadcaster');
  });

  it('delivers cheers and /me lines as messages too', async () => {
    const { recorder } = await connected();
    const cheer = irc.sendPrivmsg(CHANNEL, { login: 'big_spender' }, 'cheer100 !skin neon', { bits: 100 });
    expect(await recorder.next('message', (event) => event.tags.id === cheer.id)).toMatchObject({ text: 'cheer100 !skin neon', self: false });
    const action = irc.sendPrivmsg(CHANNEL, { login: 'viewer_val' }, 'waves', { action: true });
    expect(await recorder.next('message', (event) => event.tags.id === action.id)).toMatchObject({ text: 'waves', tags: { 'message-type': 'action' } });
  });

  it('takes no whisper for chat, not even one from the channel\'s broadcaster', async () => {
    const { recorder } = await connected();
    // tmi.js hands a whisper to its `message` event too, with the sender's login as the channel.
    irc.sendRaw(`@badges=;color=;display-name=${CHANNEL};emotes=;message-id=1;thread-id=1_2;turbo=0;user-id=4242;user-type= `
      + `:${CHANNEL}!${CHANNEL}@${CHANNEL}.tmi.twitch.tv WHISPER ${BOT} :!style bubble.width 300`);
    const after = irc.sendPrivmsg(CHANNEL, { login: 'viewer_val' }, 'after the whisper');
    await recorder.next('message', (event) => event.tags.id === after.id);
    expect(recorder.events.filter((event) => event.type === 'message').map((event) => event.type === 'message' && event.text)).toEqual(['after the whisper']);
  });

  it('hands on no USERNOTICE (a resub with its message, a raid, an announcement): docs/chat.md says the overlay does not show them', async () => {
    const { recorder } = await connected();
    irc.sendUserNotice(CHANNEL, { login: 'loyal_fan', subscriber: 14 }, { msgId: 'resub', systemMsg: 'loyal_fan subscribed for 14 months!', params: { 'cumulative-months': '14' }, text: '!skin neon' });
    irc.sendUserNotice(CHANNEL, { login: 'raider' }, { msgId: 'raid', systemMsg: '5 raiders from raider have joined!', params: { viewerCount: '5', login: 'raider' } });
    irc.sendUserNotice(CHANNEL, { login: 'mod_mia', mod: true }, { msgId: 'announcement', systemMsg: '', text: 'be nice' });
    const after = irc.sendPrivmsg(CHANNEL, { login: 'viewer_val' }, 'after the notices');
    await recorder.next('message', (event) => event.tags.id === after.id);
    expect(recorder.events.filter((event) => event.type === 'message').map((event) => event.type === 'message' && event.text)).toEqual(['after the notices']);
  });

  it("marks lines from the bot's own account as self, even when another client sent them", async () => {
    const { recorder } = await connected();
    const own = irc.sendPrivmsg(CHANNEL, { login: BOT }, '!ping');
    expect((await recorder.next('message', (event) => event.tags.id === own.id)).self).toBe(true);
  });

  it("does not mark as self the lines of a bot account that is the channel's own (the broadcaster typing on another client)", async () => {
    const { recorder } = await connected({ identity: { login: CHANNEL, token: `oauth:${TOKEN}` } });
    const typed = irc.sendPrivmsg(CHANNEL, { login: CHANNEL, broadcaster: true }, '!ping');
    expect((await recorder.next('message', (event) => event.tags.id === typed.id)).self).toBe(false);
  });

  it('turns deletions, timeouts, bans and a cleared chat into events', async () => {
    const { recorder } = await connected();
    irc.deleteMessage(CHANNEL, { login: 'troll', targetMsgId: 'abc-123', text: 'bad words' });
    expect(await recorder.next('message-deleted')).toEqual({ type: 'message-deleted', channel: CHANNEL, messageId: 'abc-123' });
    irc.timeoutUser(CHANNEL, { login: 'troll' }, 600);
    expect(await recorder.next('user-cleared')).toEqual({ type: 'user-cleared', channel: CHANNEL, userId: irc.userIdOf('troll') });
    irc.banUser(CHANNEL, { login: 'worse', userId: '999' });
    expect(await recorder.next('user-cleared', (event) => event.userId === '999')).toEqual({ type: 'user-cleared', channel: CHANNEL, userId: '999' });
    irc.clearChat(CHANNEL);
    expect(await recorder.next('chat-cleared')).toEqual({ type: 'chat-cleared', channel: CHANNEL });
  });

  it('reads ids and names "1" and "0", which tmi.js gives as true and false, as that text', async () => {
    // tmi.js 1.8 turns every tag value "1" into true and "0" into false, ids too: the chatter
    // with user id 1 was neither shown nor registered, nor the broadcaster in a channel of room id 1.
    await irc.close();
    irc = await FakeTwitchIrc.start({ roomIds: { [CHANNEL]: '1' }, userIds: { [CHANNEL]: '1', [BOT]: '0' } });
    const { transport, recorder } = await connected();

    const streamer = irc.sendPrivmsg(CHANNEL, { login: CHANNEL, displayName: '1' }, 'hello chat', { id: '0' });
    const line = await recorder.next('message', (event) => event.text === 'hello chat');
    expect(chatRoleOf(line.tags)).toBe('broadcaster');
    expect(streamer.tags['badges']).toBe('');
    expect(overlayChatEventOf(line)).toMatchObject({ type: 'message', id: '0', userId: '1', login: CHANNEL, displayName: '1' });
    expect(viewerIdentityOf(line)).toEqual({ twitchUserId: '1', login: CHANNEL, displayName: '1' });

    // The bot's own line, shown once Twitch accepted it, carries its user id from GLOBALUSERSTATE.
    await transport.say(CHANNEL, 'hi from the bot');
    const own = await recorder.next('message', (event) => event.self && event.text === 'hi from the bot');
    expect(overlayChatEventOf(own)).toMatchObject({ type: 'message', userId: '0', login: BOT });

    irc.deleteMessage(CHANNEL, { login: CHANNEL, targetMsgId: '1', text: 'hello chat' });
    expect(await recorder.next('message-deleted')).toEqual({ type: 'message-deleted', channel: CHANNEL, messageId: '1' });
    irc.timeoutUser(CHANNEL, { login: 'zero', userId: '0' }, 600);
    expect(await recorder.next('user-cleared', (event) => event.userId === '0')).toEqual({ type: 'user-cleared', channel: CHANNEL, userId: '0' });
    irc.banUser(CHANNEL, { login: CHANNEL });
    expect(await recorder.next('user-cleared', (event) => event.userId === '1')).toEqual({ type: 'user-cleared', channel: CHANNEL, userId: '1' });
  });

  it('skips a line tmi.js throws on (a PRIVMSG or NOTICE without its text) with a warning, and reads the lines after it', async () => {
    // Found by twitch-line-properties.test.ts: tmi.js read the missing text, from the WebSocket's
    // message event, and the uncaught exception stopped the whole host.
    const { transport, recorder, logs } = await connected();
    irc.sendRaw([
      '@id=x;user-id=5 :alice!alice@alice.tmi.twitch.tv PRIVMSG #somechannel',
      ':tmi.twitch.tv NOTICE #somechannel',
      '@id=after;user-id=5 :alice!alice@alice.tmi.twitch.tv PRIVMSG #somechannel :still here',
    ].join('\r\n'), CHANNEL);
    expect((await recorder.next('message')).text).toBe('still here');
    expect(transport.state).toBe('connected');
    // The NOTICE, in the same minute, is counted, and told when the transport stops.
    const warnings = () => logs.entries.filter((entry) => entry.level === LEVEL.warn).map((entry) => entry.msg);
    expect(warnings()).toEqual([
      'Twitch sent a PRIVMSG line tmi.js could not read: skipped it (more such lines are counted and told at most once a minute)',
    ]);
    await transport.stop();
    expect(warnings()).toEqual([
      'Twitch sent a PRIVMSG line tmi.js could not read: skipped it (more such lines are counted and told at most once a minute)',
      'Twitch sent 1 more line tmi.js could not read since the last such warning (the last a NOTICE): skipped it',
    ]);
  });

  it('warns of a flood of lines tmi.js cannot read once, then once a minute with how many were skipped, and reads chat meanwhile', async () => {
    const clock = new ManualClock();
    const { transport, recorder, logs } = await connected({ clock });
    const warnings = () => logs.entries.filter((entry) => entry.level === LEVEL.warn);
    const broken = (count: number) => Array.from({ length: count }, (_, i) => `@id=bad${i};user-id=5 :alice!alice@alice.tmi.twitch.tv PRIVMSG #somechannel`);
    const sendThenChat = async (lines: string[], text: string) => {
      irc.sendRaw([...lines, `@id=ok-${lines.length};user-id=5 :alice!alice@alice.tmi.twitch.tv PRIVMSG #somechannel :${text}`].join('\r\n'), CHANNEL);
      expect((await recorder.next('message', (event) => event.text === text)).text).toBe(text);
    };

    await sendThenChat(broken(1_000), 'still here');
    await sendThenChat([':tmi.twitch.tv NOTICE #somechannel', ...broken(499)], 'and here');
    expect(warnings().map((entry) => [entry.msg, entry['command']])).toEqual([
      ['Twitch sent a PRIVMSG line tmi.js could not read: skipped it (more such lines are counted and told at most once a minute)', 'PRIVMSG'],
    ]);

    // A minute after the first: one warning for the 1,499 lines since, while they keep coming.
    await clock.advance(59_999);
    expect(warnings()).toHaveLength(1);
    await clock.advance(1);
    expect(warnings().slice(1).map((entry) => [entry.msg, entry['skipped']])).toEqual([
      ['Twitch sent 1499 more lines tmi.js could not read since the last such warning (the last a PRIVMSG): skipped them', 1_499],
    ]);
    await sendThenChat(broken(300), 'in the next minute');
    await clock.advance(30_000);
    expect(warnings()).toHaveLength(2);
    await clock.advance(30_000);
    expect(warnings().slice(2).map((entry) => entry['skipped'])).toEqual([300]);

    // A minute with none: nothing to tell; the next line is warned of at once, with its command.
    await clock.advance(120_000);
    expect(warnings()).toHaveLength(3);
    await sendThenChat([':tmi.twitch.tv NOTICE #somechannel'], 'later');
    expect(warnings().slice(3).map((entry) => entry.msg)).toEqual([
      'Twitch sent a NOTICE line tmi.js could not read: skipped it (more such lines are counted and told at most once a minute)',
    ]);
    expect(transport.state).toBe('connected');
    expect(clock.pendingTimers).toBe(0);
  });

  it("reports the bot's USERSTATE, so the reply queue learns it is a moderator", async () => {
    const chat = twitchChat();
    const queue = createReplyQueue({ transport: chat.transport, clock: systemClock, logger: chat.logs.logger });
    chat.transport.subscribe((event) => {
      if (event.type === 'userstate') queue.setBotState(event.channel, event.tags);
    });
    await chat.transport.start();
    const userstate = await chat.recorder.next('userstate');
    expect(userstate.channel).toBe(CHANNEL);
    expect(userstate.tags).toMatchObject({ badges: { moderator: '1' }, mod: true, username: BOT });
    expect(queue.isModerator(CHANNEL)).toBe(true);
    queue.stop();
  });

  it("reports Twitch's answers to the bot's lines in the order Twitch sent them, also when they come in one read", async () => {
    const { transport, recorder } = await connected();
    const since = recorder.events.length;
    // Delivered, but the fake's own answers are left out: the test sends them, together.
    irc.answersLost = true;
    await transport.say(CHANNEL, 'accepted line');
    await transport.say(CHANNEL, 'refused line');
    await irc.waitForPrivmsg((line) => line.text === 'refused line');
    // Twitch's USERSTATE accepting the first line (no longer a moderator) and its NOTICE refusing
    // the second, in one frame, as a busy connection reads them.
    irc.sendRaw(`@badge-info=;badges=;color=;display-name=${BOT};emote-sets=0;id=4f1c;mod=0;subscriber=0;user-type= :tmi.twitch.tv USERSTATE #${CHANNEL}\r\n`
      + `@msg-id=msg_ratelimit :tmi.twitch.tv NOTICE #${CHANNEL} :Your message was not sent because you are sending messages too quickly.`, CHANNEL);
    await recorder.next('line-refused', () => true, since);
    const answers = recorder.events.slice(since).filter((event) => event.type === 'userstate' || event.type === 'line-refused');
    expect(answers.map((event) => event.type)).toEqual(['userstate', 'line-refused']);
    expect(answers[1]).toMatchObject({ text: 'refused line', reason: 'msg_ratelimit' });
  });

  it("sends say() lines the fake records, then shows each as the bot's own message with Twitch's id", async () => {
    const { transport, recorder } = await connected();
    await transport.say('#SomeChannel', 'skin set to neon');
    const said = await irc.waitForPrivmsg((line) => line.text === 'skin set to neon');
    expect([said.channel, said.login, said.joined]).toEqual(['#somechannel', BOT, true]);
    const own = await recorder.next('message', (event) => event.self);
    expect(own.text).toBe('skin set to neon');
    expect(own.tags).toMatchObject({ username: BOT, 'user-id': irc.userIdOf(BOT), 'room-id': irc.roomIdOf(CHANNEL), badges: { moderator: '1' } });
    expect(typeof own.tags.id).toBe('string');
  });

  it('sends a line of exactly 500 characters as one message, and a line starting with "/" as it is, not as tmi.js\'s command', async () => {
    const { transport } = await connected();
    const longest = `${'word '.repeat(99)}last`.padEnd(500, 'x');
    expect(longest).toHaveLength(500);
    await transport.say(CHANNEL, longest);
    await transport.say(CHANNEL, '/me is not a command here');
    await irc.waitForPrivmsg((line) => line.text === '/me is not a command here');
    expect(irc.privmsgs.map((line) => line.text)).toEqual([longest, '/me is not a command here']);
  });

  it('refuses lines it cannot send, with a clear error', async () => {
    const { transport } = await connected();
    await expect(transport.say('elsewhere', 'hi')).rejects.toThrow('does not serve #elsewhere');
    await expect(transport.say(CHANNEL, 'two\r\nPRIVMSG #elsewhere :lines')).rejects.toThrow('line break');
    await expect(transport.say(CHANNEL, 'x'.repeat(501))).rejects.toThrow('at most 500 characters');
    await expect(transport.say(CHANNEL, '   ')).rejects.toThrow(TwitchChatError);
    expect(irc.privmsgs).toEqual([]);
  });

  it('reconnects after an abrupt drop, rejoins, and chat flows both ways again', async () => {
    const { transport, recorder, states, logs } = await connected();
    const mark = irc.joins.length;
    // A reply during the outage waits for the rejoin instead of being lost.
    const duringOutage = new Promise<void>((resolve, reject) => {
      transport.onStateChange((change) => {
        if (change.state === 'reconnecting') transport.say(CHANNEL, 'sent while reconnecting').then(resolve, reject);
      });
    });
    irc.dropAllConnections();
    const rejoin = await irc.waitForJoin(CHANNEL, { since: mark, login: BOT });
    expect(rejoin.connectionId).toBe(2);
    await duringOutage;
    expect((await irc.waitForPrivmsg((line) => line.text === 'sent while reconnecting')).connectionId).toBe(2);
    expect(states).toEqual(['connecting', 'connected', 'reconnecting', 'connected']);

    const since = recorder.events.length;
    const after = irc.sendPrivmsg(CHANNEL, { login: 'viewer_val' }, 'still here?');
    expect((await recorder.next('message', (event) => event.tags.id === after.id, since)).text).toBe('still here?');
    expect(irc.totalConnections).toBe(2);
    expect(logs.entries.some((entry) => entry.level === LEVEL.warn && /Twitch chat connection lost/.test(entry.msg ?? ''))).toBe(true);
    expect(logs.entries.some((entry) => entry.msg === 'Twitch chat reconnected: rejoining channels')).toBe(true);
  });

  it("reports a msg_* NOTICE as the bot's line Twitch did not deliver, with what would let it pass, and other notices as information", async () => {
    const { transport, recorder, logs } = await connected();
    await transport.say(CHANNEL, 'a line Twitch will refuse');
    irc.sendNotice(CHANNEL, 'msg_followersonly', 'This room is in 10 minutes followers-only mode.');
    expect(await recorder.next('line-refused')).toEqual({
      type: 'line-refused', channel: CHANNEL, text: 'a line Twitch will refuse', reason: 'msg_followersonly', remedy: { kind: 'none' },
    });
    await expect.poll(() => logs.entries.find((entry) => entry.msg?.startsWith("Twitch did not deliver the bot's message"))).toMatchObject({
      level: LEVEL.warn, channel: CHANNEL, msgId: 'msg_followersonly', line: 'a line Twitch will refuse',
    });
    irc.sendNotice(CHANNEL, 'emote_only_on', 'This room is now in emote-only mode.');
    await expect.poll(() => logs.entries.find((entry) => entry.msgId === 'emote_only_on')).toMatchObject({
      level: LEVEL.info, msg: `Twitch chat notice in #${CHANNEL}: This room is now in emote-only mode.`,
    });
  });

  it('shows a /me line the bot sent as Twitch does: the action, without "/me"', async () => {
    const { transport, recorder } = await connected();
    await transport.say(CHANNEL, '/me waves at chat');
    const shown = await recorder.next('message', (event) => event.self);
    expect([shown.text, shown.tags['message-type']]).toEqual(['waves at chat', 'action']);
    await transport.say(CHANNEL, 'me too');
    const plain = await recorder.next('message', (event) => event.self && event.text === 'me too');
    expect(plain.tags['message-type']).toBe('chat');
  });

  it('reports a line Twitch took for a command (unrecognized_cmd) as not delivered, and the next line as the one it accepted', async () => {
    const { transport, recorder, logs } = await connected();
    // Twitch reads a text starting with "/" or "." as a command, and runs none but /me over IRC.
    await transport.say(CHANNEL, '/ban viewer_val');
    await transport.say(CHANNEL, 'the line after it');
    expect(await recorder.next('line-refused')).toEqual({
      type: 'line-refused', channel: CHANNEL, text: '/ban viewer_val', reason: 'unrecognized_cmd', remedy: { kind: 'none' },
    });
    expect((await recorder.next('message', (event) => event.self)).text).toBe('the line after it');
    expect(logs.entries.find((entry) => entry.msgId === 'unrecognized_cmd')).toMatchObject({
      level: LEVEL.warn, line: '/ban viewer_val', msg: `Twitch did not deliver the bot's message in #${CHANNEL} (unrecognized_cmd): Unrecognized command: /ban`,
    });
    expect(irc.privmsgs.map((line) => [line.text, line.refused])).toEqual([['/ban viewer_val', 'unrecognized_cmd'], ['the line after it', null]]);
  });

  it('reports the slow mode from the ROOMSTATE on join and from a moderator changing it', async () => {
    const PLAIN = 'plainchannel';
    irc.setSlowMode(PLAIN, 30);
    const { transport, recorder } = twitchChat({ channels: [PLAIN] });
    await transport.start();
    expect(await recorder.next('room-state')).toEqual({ type: 'room-state', channel: PLAIN, slowSeconds: 30 });
    const since = recorder.events.length;
    irc.setSlowMode(PLAIN, 0);
    expect(await recorder.next('room-state', undefined, since)).toEqual({ type: 'room-state', channel: PLAIN, slowSeconds: 0 });
    // A ROOMSTATE about another mode says nothing of slow mode.
    irc.sendRaw(`@emote-only=1;room-id=${irc.roomIdOf(PLAIN)} :tmi.twitch.tv ROOMSTATE #${PLAIN}`, PLAIN);
    irc.setSlowMode(PLAIN, 5);
    expect(await recorder.next('room-state', (event) => event.slowSeconds === 5, since)).toBeDefined();
    expect(recorder.events.slice(since).filter((event) => event.type === 'room-state')).toHaveLength(2);
  });

  it('hands a line refused for slow mode over with the wait Twitch names (plus a second for its rounding), logged as information', async () => {
    const PLAIN = 'plainchannel';
    irc.setSlowMode(PLAIN, 10, { announce: false });
    const { transport, recorder, logs } = twitchChat({ channels: [PLAIN] });
    await transport.start();
    await irc.waitForJoin(PLAIN, { login: BOT });
    await expect.poll(() => transport.joinedChannels).toEqual([PLAIN]);
    await transport.say(PLAIN, 'first');
    await transport.say(PLAIN, 'too soon');
    const refused = await recorder.next('line-refused');
    expect(refused).toMatchObject({ channel: PLAIN, text: 'too soon', reason: 'msg_slowmode', remedy: { kind: 'wait' } });
    // The fake says "10 seconds" (9, had a second passed between the lines).
    expect([10_000, 11_000]).toContain((refused.remedy as { ms: number }).ms);
    expect(logs.entries.find((entry) => entry.msgId === 'msg_slowmode')).toMatchObject({ level: LEVEL.info, line: 'too soon' });
    expect(irc.privmsgs.map((line) => [line.text, line.refused])).toEqual([['first', null], ['too soon', 'msg_slowmode']]);
  });

  it('reconnects and rejoins when Twitch sends RECONNECT', async () => {
    const { transport, states } = await connected();
    const mark = irc.joins.length;
    irc.sendReconnect();
    await irc.waitForJoin(CHANNEL, { since: mark });
    await expect.poll(() => transport.joinedChannels).toEqual([CHANNEL]);
    expect(states).toEqual(['connecting', 'connected', 'reconnecting', 'connected']);
    expect(irc.connectionCount).toBe(1);
  });

  it('gives a clear, final error state for a refused token, and never logs the token', async () => {
    const { transport, states, logs } = twitchChat({ identity: { login: BOT, token: 'badtoken' } });
    const failure = await transport.start().then(() => null, (error: unknown) => error);
    expect(failure).toBeInstanceOf(TwitchChatError);
    expect((failure as Error).message).toMatch(/Twitch refused the bot's login as chatskinbot \(Login authentication failed\).*chat:read and chat:edit/);
    expect(transport.state).toBe('disconnected');
    expect(transport.lastError).toBe((failure as Error).message);
    expect(states).toEqual(['connecting', 'disconnected']);
    expect(logs.entries.some((entry) => entry.level === LEVEL.error && entry.msg === transport.lastError)).toBe(true);
    expect(logs.lines.join('\n')).not.toContain('badtoken');
    await expect(transport.say(CHANNEL, 'hi')).rejects.toThrow(/disconnected \(Twitch refused/);
  });

  it('without an identity reads chat anonymously and refuses to send', async () => {
    const { transport, recorder } = twitchChat({ identity: null });
    expect(transport.anonymous).toBe(true);
    await transport.start();
    const join = await irc.waitForJoin(CHANNEL);
    expect(join.login).toMatch(/^justinfan\d+$/);
    await expect.poll(() => transport.joinedChannels).toEqual([CHANNEL]);
    const sent = irc.sendPrivmsg(CHANNEL, { login: 'viewer_val' }, 'hello');
    expect((await recorder.next('message', (event) => event.tags.id === sent.id)).text).toBe('hello');
    await expect(transport.say(CHANNEL, 'hi')).rejects.toThrow(/read-only.*no bot identity/);
    expect(irc.privmsgs).toEqual([]);
  });

  it('keeps retrying while the server is down and connects once it is back', async () => {
    const port = irc.port;
    await irc.close();
    const { transport, states } = twitchChat({ server: { host: '127.0.0.1', port, secure: false } });
    const starting = transport.start();
    await expect.poll(() => states.includes('reconnecting')).toBe(true);
    irc = await FakeTwitchIrc.start({ port });
    await starting;
    await irc.waitForJoin(CHANNEL);
    expect(transport.state).toBe('connected');
  });

  it('stop() disconnects, ends the reconnect wait, and refuses later lines', async () => {
    const { transport, states } = await connected({ reconnect: { initialDelayMs: 50, maxDelayMs: 50, jitter: 0 } });
    const reconnecting = new Promise<void>((resolve) => {
      transport.onStateChange((change) => {
        if (change.state === 'reconnecting') resolve();
      });
    });
    irc.dropAllConnections();
    await reconnecting;
    await transport.stop();
    expect(transport.state).toBe('disconnected');
    expect(states.at(-1)).toBe('disconnected');
    // Past the back-off wait: no new connection was opened.
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(irc.totalConnections).toBe(1);
    await expect(transport.say(CHANNEL, 'late')).rejects.toThrow('stopped');
    await expect(transport.start()).rejects.toThrow('stopped');
  });

  it('stop() during the wait after Twitch asked to reconnect opens no connection later', async () => {
    const { transport } = await connected({ reconnect: { initialDelayMs: 100, maxDelayMs: 100, jitter: 0 } });
    const reconnecting = new Promise<void>((resolve) => {
      transport.onStateChange((change) => {
        if (change.state === 'reconnecting') resolve();
      });
    });
    irc.sendReconnect();
    await reconnecting;
    await transport.stop();
    // Past tmi.js's own wait before it reconnects after a RECONNECT.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(irc.totalConnections).toBe(1);
  });

  it('fails clearly, at once, for a server name no connection can be opened to', async () => {
    const { transport } = twitchChat({ server: { host: 'bad host name', port: 80, secure: false } });
    await expect(transport.start()).rejects.toThrow(/^Twitch chat cannot connect to ws:\/\/bad host name:80: /);
    expect(transport.state).toBe('disconnected');
  });

  it('refuses a server setting tmi.js would silently override', () => {
    const logger = captureLogs().logger;
    const options = { channels: [CHANNEL], identity: null };
    expect(() => createTwitchChatTransport({ ...options, server: { host: 'irc.example', port: 6697, secure: true } }, logger))
      .toThrow('twitch.chat.secure: true works only with port 443');
    expect(() => createTwitchChatTransport({ ...options, server: { host: 'irc.example', port: 443, secure: false } }, logger))
      .toThrow('twitch.chat.port 443 always means wss');
    expect(() => createTwitchChatTransport({ ...options, channels: ['not a login'], server: { host: 'h', port: 80, secure: false } }, logger))
      .toThrow('"not a login" is not a Twitch login');
  });

  it('takes its options from the config file', () => {
    const config = parseConfig({
      channel: { login: 'Streamer' },
      twitch: { clientId: 'id', clientSecret: 'secret', bot: { login: 'MyBot', token: 'oauth:abc' }, chat: { server: '127.0.0.1', port: 6667, secure: false } },
    });
    expect(twitchChatOptionsFromConfig(config.twitch as TwitchConfig)).toEqual({
      channels: ['streamer'],
      // The token's check at start and hourly goes to id.twitch.tv (twitch.oauth.url null).
      identity: { login: 'mybot', token: 'oauth:abc', check: { oauthUrl: null, mockServerPort: null, httpTimeoutMs: 30_000 } },
      server: { host: '127.0.0.1', port: 6667, secure: false },
    });
  });

  it('takes a bot token file from the config file, with what refreshing it needs', () => {
    const config = parseConfig({
      twitch: {
        clientId: 'id', clientSecret: 'secret', bot: { login: 'MyBot', tokenFile: './data/bot.json', tokenFileCheckSeconds: 2 }, helix: { mockServerPort: 8081 },
        httpTimeoutSeconds: 7,
      },
    });
    expect(twitchChatOptionsFromConfig(config.twitch as TwitchConfig).identity).toEqual({
      login: 'mybot',
      tokenFile: {
        path: './data/bot.json', clientId: 'id', clientSecret: 'secret', checkIntervalMs: 2000, mockServerPort: 8081, httpTimeoutMs: 7000, oauthUrl: null,
      },
    });
  });

  it('refuses a token file it could not refresh or look at', () => {
    const logger = captureLogs().logger;
    const server = { host: '127.0.0.1', port: 6667, secure: false };
    const tokenFile = { path: './bot.json', clientId: 'id', clientSecret: 'secret' };
    expect(() => createTwitchChatTransport({ channels: [CHANNEL], server, identity: { login: BOT, tokenFile: { ...tokenFile, path: ' ' } } }, logger))
      .toThrow('twitch.bot.tokenFile is empty');
    expect(() => createTwitchChatTransport({ channels: [CHANNEL], server, identity: { login: BOT, tokenFile: { ...tokenFile, clientSecret: '' } } }, logger))
      .toThrow('twitch.clientId and twitch.clientSecret are needed to refresh the token of twitch.bot.tokenFile');
    expect(() => createTwitchChatTransport({ channels: [CHANNEL], server, identity: { login: BOT, tokenFile: { ...tokenFile, checkIntervalMs: 0 } } }, logger))
      .toThrow('the token file check interval must be above 0 ms');
  });
});

describe('Twitch chat transport: a server that hangs, drops, parts or refuses', () => {
  const lostDelays = (logs: ReturnType<typeof captureLogs>) => logs.entries
    .filter((entry) => entry.level === LEVEL.warn && entry.msg?.startsWith('Twitch chat connection lost'))
    .map((entry) => entry.delayMs);

  it('drops a connection that does not log in within the login timeout, and retries it', async () => {
    irc.silent = true;
    const { transport, states, logs } = twitchChat({ loginTimeoutMs: 100 });
    const starting = transport.start();
    await expect.poll(() => logs.entries.find((entry) => entry.msg?.startsWith('Twitch chat connection lost')), { timeout: 5_000 })
      .toMatchObject({ level: LEVEL.warn, reason: 'no login within 100 ms', attempt: 1 });
    irc.silent = false;
    await starting;
    await irc.waitForJoin(CHANNEL, { login: BOT });
    expect(states).toEqual(['connecting', 'reconnecting', 'connected']);
    // The silent connections were closed, not left open beside the new one.
    await expect.poll(() => irc.connections.map((connection) => connection.loggedIn)).toEqual([true]);
    expect(irc.totalConnections).toBeGreaterThanOrEqual(2);
  });

  it('also drops a connection that does not log in after Twitch asked to reconnect', async () => {
    const { transport, logs } = await connected({ loginTimeoutMs: 200 });
    const mark = irc.joins.length;
    irc.sendReconnect();
    irc.silent = true;
    await expect.poll(() => logs.entries.find((entry) => entry.msg?.startsWith('Twitch chat connection lost')), { timeout: 5_000 })
      .toMatchObject({ reason: 'no login within 200 ms' });
    irc.silent = false;
    await irc.waitForJoin(CHANNEL, { since: mark, login: BOT });
    await expect.poll(() => transport.state).toBe('connected');
  });

  it('notices a connection that died without closing (no answer to its PING), reconnects, and sends the line it had not had answered again', async () => {
    const { transport, recorder, states, logs } = await connected({ pingIntervalMs: 100, pingTimeoutMs: 200 });
    const mark = irc.joins.length;
    // The network goes away: no byte passes, and no close is ever seen (nor is tmi.js's close answered).
    irc.loseNetwork();
    await transport.say(CHANNEL, 'said into the dead connection');
    await expect.poll(() => logs.entries.find((entry) => entry.msg?.startsWith('Twitch chat connection lost')), { timeout: 5_000 })
      .toMatchObject({ level: LEVEL.warn, reason: 'no answer to PING within 200 ms', attempt: 1 });
    const rejoin = await irc.waitForJoin(CHANNEL, { since: mark, login: BOT });
    expect(rejoin.connectionId).toBe(2);
    expect(await recorder.next('line-refused')).toMatchObject({ text: 'said into the dead connection', reason: 'connection lost' });
    await transport.say(CHANNEL, 'back again');
    expect((await irc.waitForPrivmsg((line) => line.text === 'back again')).connectionId).toBe(2);
    expect(states).toEqual(['connecting', 'connected', 'reconnecting', 'connected']);
  });

  it('backs off from a server that drops every connection right after the login', async () => {
    const { transport, logs } = twitchChat({ reconnect: { initialDelayMs: 20, maxDelayMs: 1_000, factor: 2, jitter: 0 } });
    let drops = 0;
    transport.onStateChange((change) => {
      if (change.state === 'connected' && drops < 4) {
        drops += 1;
        irc.dropAllConnections();
      }
    });
    await transport.start();
    await expect.poll(() => irc.totalConnections, { timeout: 5_000 }).toBe(5);
    await irc.waitForLogin(BOT);
    expect(lostDelays(logs)).toEqual([20, 40, 80, 160]);
  });

  it('starts the back-off from its first delay again once a connection has stayed up long enough', async () => {
    const { transport, logs } = await connected({ reconnect: { initialDelayMs: 20, maxDelayMs: 1_000, factor: 2, jitter: 0 }, stableAfterMs: 50 });
    let drops = 0;
    transport.onStateChange((change) => {
      // The first reconnection is dropped at once, before it is stable.
      if (change.state === 'connected' && drops === 1) {
        drops += 1;
        irc.dropAllConnections();
      }
    });
    drops = 1;
    irc.dropAllConnections();
    await expect.poll(() => irc.totalConnections, { timeout: 5_000 }).toBe(3);
    await irc.waitForLogin(BOT);
    await new Promise((resolve) => setTimeout(resolve, 100));
    irc.dropAllConnections();
    await expect.poll(() => lostDelays(logs), { timeout: 5_000 }).toEqual([20, 40, 20]);
  });

  it('rejoins a channel Twitch parted the bot from, with back-off if it happens again', async () => {
    const { transport, logs } = await connected();
    for (let part = 0; part < 3; part++) {
      const mark = irc.joins.length;
      irc.partChannel(CHANNEL, BOT);
      const rejoin = await irc.waitForJoin(CHANNEL, { since: mark, login: BOT, timeoutMs: 5_000 });
      expect(rejoin.connectionId).toBe(1);
    }
    await expect.poll(() => transport.joinedChannels).toEqual([CHANNEL]);
    await transport.say(CHANNEL, 'back in');
    expect((await irc.waitForPrivmsg((line) => line.text === 'back in')).joined).toBe(true);
    const rejoins = logs.entries.filter((entry) => entry.level === LEVEL.warn && entry.msg?.startsWith(`Twitch chat is not in #${CHANNEL}`));
    expect(rejoins.map((entry) => [entry.reason, entry.delayMs])).toEqual([
      ['Twitch parted the bot', 20], ['Twitch parted the bot', 40], ['Twitch parted the bot', 80],
    ]);
  });

  it('joins again, with back-off, a channel whose join Twitch refused (msg_channel_suspended), and says why', async () => {
    irc.suspendedChannels.add(CHANNEL);
    const { transport, logs } = twitchChat();
    await transport.start();
    await expect.poll(() => logs.entries.find((entry) => entry.msg?.startsWith(`Twitch chat is not in #${CHANNEL}`)), { timeout: 5_000 }).toMatchObject({
      level: LEVEL.warn, channel: CHANNEL, reason: 'This channel does not exist or has been suspended.', attempt: 1,
    });
    // The refusal answers the join, not a line of the bot's.
    expect(logs.entries.some((entry) => entry.msg?.startsWith("Twitch did not deliver the bot's message"))).toBe(false);
    irc.suspendedChannels.delete(CHANNEL);
    await irc.waitForJoin(CHANNEL, { login: BOT });
    await expect.poll(() => transport.joinedChannels).toEqual([CHANNEL]);
    await transport.say(CHANNEL, 'here at last');
    await irc.waitForPrivmsg((line) => line.text === 'here at last');
  });

  it('joins again a channel whose join Twitch never answered (a join past its rate limit), and says why', async () => {
    irc.unansweredJoins.add(CHANNEL);
    const { transport, logs } = twitchChat({ joinWatchMs: 200, joinIntervalMs: 50, reconnect: { initialDelayMs: 20, maxDelayMs: 1_000, factor: 2, jitter: 0 } });
    await transport.start();
    await expect.poll(() => logs.entries.find((entry) => entry.msg?.startsWith(`Twitch chat is not in #${CHANNEL}`)), { timeout: 5_000 }).toMatchObject({
      level: LEVEL.warn, channel: CHANNEL, reason: 'Twitch did not answer the join within 250 ms', attempt: 1,
    });
    irc.unansweredJoins.delete(CHANNEL);
    await irc.waitForJoin(CHANNEL, { login: BOT, timeoutMs: 5_000 });
    await expect.poll(() => transport.joinedChannels).toEqual([CHANNEL]);
    await transport.say(CHANNEL, 'joined after all');
    await irc.waitForPrivmsg((line) => line.text === 'joined after all');
  });

  it('joins a channel Twitch had parted it from on the next connection, with the others, not only once the join watch runs', async () => {
    const OTHER = 'otherchannel';
    // A join watch far longer than the test: only the new connection's own joins can bring it back.
    const { transport, logs } = twitchChat({ channels: [CHANNEL, OTHER], joinWatchMs: 60_000, joinIntervalMs: 50 });
    await transport.start();
    await expect.poll(() => [...transport.joinedChannels].sort()).toEqual([OTHER, CHANNEL]);
    // Parted, and its rejoin refused (suspended for a while): the connection drops meanwhile.
    irc.suspendedChannels.add(OTHER);
    irc.partChannel(OTHER, BOT);
    await expect.poll(() => logs.entries.some((entry) => entry.msg?.startsWith(`Twitch chat is not in #${OTHER} (This channel`)), { timeout: 5_000 }).toBe(true);
    irc.suspendedChannels.delete(OTHER);
    const mark = irc.joins.length;
    irc.dropAllConnections();
    await irc.waitForJoin(CHANNEL, { since: mark, login: BOT, timeoutMs: 5_000 });
    await irc.waitForJoin(OTHER, { since: mark, login: BOT, timeoutMs: 3_000 });
    await expect.poll(() => [...transport.joinedChannels].sort()).toEqual([OTHER, CHANNEL]);
  });

  it.each([
    ['dropped', () => irc.dropAllConnections()],
    ['was ended by Twitch\'s RECONNECT', () => irc.sendReconnect()],
  ])('keeps the joins of a new connection 600 ms apart (here 300), also when the last one %s during its own joins', async (_how, end) => {
    const channels = ['chan_a', 'chan_b', 'chan_c', 'chan_d'];
    const { transport } = twitchChat({ channels, joinIntervalMs: 300, reconnect: { initialDelayMs: 20, maxDelayMs: 100, jitter: 0 } });
    await transport.start();
    await irc.waitForJoin('chan_a', { login: BOT });
    end();
    await expect.poll(() => irc.joins.filter((join) => join.connectionId === 2).length, { timeout: 5_000 }).toBe(channels.length);
    // tmi.js's joins of the first login would have run on until now.
    await new Promise((resolve) => setTimeout(resolve, 700));
    const joins = irc.sent.filter((line) => line.connectionId === 2 && line.message.command === 'JOIN').map((line) => line.at);
    expect(joins).toHaveLength(channels.length);
    for (let i = 1; i < joins.length; i++) expect(joins[i]! - joins[i - 1]!).toBeGreaterThanOrEqual(250);
  });

  it('rejoins after the first delay again once the channel has stayed joined long enough', async () => {
    const { logs } = await connected({ reconnect: { initialDelayMs: 20, maxDelayMs: 1_000, factor: 2, jitter: 0 }, stableAfterMs: 1_000 });
    const partAndRejoin = async () => {
      const mark = irc.joins.length;
      irc.partChannel(CHANNEL, BOT);
      await irc.waitForJoin(CHANNEL, { since: mark, login: BOT, timeoutMs: 5_000 });
    };
    await partAndRejoin();
    await partAndRejoin();
    // In the channel well past stableAfterMs: the next part is a new trouble, not the same one.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await partAndRejoin();
    const rejoins = logs.entries.filter((entry) => entry.level === LEVEL.warn && entry.msg?.startsWith(`Twitch chat is not in #${CHANNEL}`));
    expect(rejoins.map((entry) => entry.delayMs)).toEqual([20, 40, 20]);
  });

  it('holds every line for a while after Twitch says the bot sends too fast (msg_ratelimit)', async () => {
    const { transport, logs } = await connected({ rateLimitPauseMs: 300 });
    await transport.say(CHANNEL, 'one too many');
    const refusedAt = Date.now();
    irc.sendNotice(CHANNEL, 'msg_ratelimit', 'Your message was not sent because you are sending messages too quickly.');
    await expect.poll(() => logs.entries.find((entry) => entry.msg?.startsWith('Twitch says the bot sends too fast')))
      .toMatchObject({ level: LEVEL.warn, channel: CHANNEL, pauseMs: 300 });
    await transport.say(CHANNEL, 'after the pause');
    const after = await irc.waitForPrivmsg((line) => line.text === 'after the pause');
    expect(after.at - refusedAt).toBeGreaterThanOrEqual(300);

    // A line still held when the chat stops is refused, not sent later.
    irc.sendNotice(CHANNEL, 'msg_ratelimit', 'Your message was not sent because you are sending messages too quickly.');
    await expect.poll(() => logs.entries.filter((entry) => entry.msg?.startsWith('Twitch says the bot sends too fast'))).toHaveLength(2);
    const held = transport.say(CHANNEL, 'never sent');
    await transport.stop();
    await expect(held).rejects.toThrow('stopped');
    expect(irc.privmsgs.map((line) => line.text)).toEqual(['one too many', 'after the pause']);
  });

  it('spaces lines 1 s apart on the wire in a channel where it is not a moderator, also when both waited for a rejoin', async () => {
    const PLAIN = 'plainchannel';
    // An outage longer than the 1 s spacing, so lines held through it are both due at once.
    const { transport, logs } = twitchChat({ channels: [PLAIN], reconnect: { initialDelayMs: 1_200, maxDelayMs: 1_200, jitter: 0 } });
    const queue = createReplyQueue({ transport, clock: systemClock, logger: logs.logger });
    transport.subscribe((event) => {
      if (event.type === 'userstate') queue.setBotState(event.channel, event.tags);
    });
    await transport.start();
    await irc.waitForJoin(PLAIN, { login: BOT });
    await expect.poll(() => transport.joinedChannels).toEqual([PLAIN]);
    expect(queue.isModerator(PLAIN)).toBe(false);
    const replies: Promise<unknown>[] = [];
    transport.onStateChange((change) => {
      if (change.state === 'reconnecting') replies.push(queue.enqueue(PLAIN, 'first'), queue.enqueue(PLAIN, 'second'));
    });
    irc.dropAllConnections();
    const second = await irc.waitForPrivmsg((line) => line.text === 'second');
    const first = irc.privmsgs.find((line) => line.text === 'first')!;
    expect([first.connectionId, second.connectionId]).toEqual([2, 2]);
    // Measured where the fake read them, less a margin for the first line's trip across loopback.
    expect(second.at - first.at).toBeGreaterThanOrEqual(900);
    expect(await Promise.all(replies)).toEqual([{ status: 'sent', parts: 1 }, { status: 'sent', parts: 1 }]);
    queue.stop();
  });
});

describe('Twitch chat through the host', () => {
  let folders: PluginFolders;
  beforeAll(() => {
    folders = createPluginFolders();
    folders.add('probe', `import { definePlugin } from SDK;
export default definePlugin({
  name: 'probe',
  setup(ctx) {
    ctx.command({ name: 'modonly', role: 'moderator', run: (call) => { void call.say('mod ok for ' + call.user.login); } });
  },
});`);
  });
  afterAll(() => {
    folders.remove();
  });

  it('routes chat from Twitch to a command by role and sends its reply back to Twitch', async () => {
    const chat = twitchChat();
    const host = await createHost({
      config: parseConfig({ channel: { login: CHANNEL }, pluginDirs: [folders.dir], plugins: { probe: {} } }),
      logger: chat.logs.logger,
      overlayClient: unusedOverlayClient(),
      chatTransports: [chat.transport],
      builtInPluginDir: '/nonexistent-built-in-plugins',
    });
    try {
      await chat.transport.start();
      await irc.waitForJoin(CHANNEL);
      await expect.poll(() => chat.transport.joinedChannels).toEqual([CHANNEL]);
      irc.sendPrivmsg(CHANNEL, { login: 'viewer_val' }, '!modonly');
      irc.sendPrivmsg(CHANNEL, { login: 'mod_mia', mod: true }, '!modonly');
      const reply = await irc.waitForPrivmsg();
      expect([reply.channel, reply.login, reply.text]).toEqual(['#somechannel', BOT, 'mod ok for mod_mia']);
    } finally {
      await host.stop();
    }
  });
});
