import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import tmi from 'tmi.js';
import { WebSocket } from 'ws';
import { FakeTwitchIrc } from './fake-twitch-irc.ts';
import type { FakeTwitchIrcOptions } from './fake-twitch-irc.ts';
import { parseIrcLine } from './irc-message.ts';

const silentLogger = { info() {}, warn() {}, error() {} };
const clients: tmi.Client[] = [];

function botClient(irc: FakeTwitchIrc, overrides: Partial<tmi.Options> = {}): tmi.Client {
  const client = new tmi.Client({
    connection: { ...irc.tmiConnection, reconnect: true, reconnectInterval: 50, reconnectDecay: 1, maxReconnectInterval: 100 },
    identity: { username: 'chatskinbot', password: 'oauth:goodtoken' },
    channels: ['somechannel'],
    options: { skipUpdatingEmotesets: true },
    logger: silentLogger,
    ...overrides,
  });
  clients.push(client);
  return client;
}

/** The bot, and an anonymous reader of the same channel (to see what others are relayed), both joined. */
async function botAndReader(irc: FakeTwitchIrc): Promise<{ client: tmi.Client; reader: tmi.Client }> {
  const client = botClient(irc);
  await client.connect();
  await irc.waitForJoin('somechannel', { login: 'chatskinbot' });
  const reader = botClient(irc, { identity: {} });
  await reader.connect();
  await irc.waitForJoin('somechannel', { login: reader.getUsername() });
  return { client, reader };
}

function nextEvent<T extends unknown[]>(client: tmi.Client, event: string): Promise<T> {
  return new Promise((resolve) => client.once(event as never, ((...args: T) => resolve(args)) as never));
}

/** The fake on a clock of the test's, where the login "modbot" is a moderator of every channel it joins. */
function startWithModbot(options: Omit<FakeTwitchIrcOptions, 'userBadges'>): Promise<FakeTwitchIrc> {
  return FakeTwitchIrc.start({ ...options, userBadges: (login): Record<string, string> => (login === 'modbot' ? { moderator: '1' } : {}) });
}

/** A raw client logged in as `nick` (tags and commands), once it has joined `channels` ("#a,#b"); with the last one's ROOMSTATE. */
async function joinedRawClient(irc: FakeTwitchIrc, nick: string, channels = '#somechannel') {
  const raw = await rawClient(irc);
  raw.ws.send(`CAP REQ :twitch.tv/tags twitch.tv/commands\r\nPASS oauth:goodtoken\r\nNICK ${nick}\r\nJOIN ${channels}`);
  const last = channels.split(',').at(-1)!;
  const roomstate = await raw.next((l) => l.includes('ROOMSTATE') && l.includes(last));
  return { ...raw, roomstate };
}

/** Sends `text` from `raw` to `channel` and gives the fake's record of it (matched by its text). */
function sayer(irc: FakeTwitchIrc, raw: { ws: WebSocket }) {
  return (text: string, channel = '#somechannel') => {
    raw.ws.send(`PRIVMSG ${channel} :${text}`);
    return irc.waitForPrivmsg((m) => m.text === text);
  };
}

/** A bare WebSocket speaking raw IRC, to check protocol lines tmi.js would hide. */
async function rawClient(irc: FakeTwitchIrc): Promise<{ ws: WebSocket; lines: string[]; next: (pred: (line: string) => boolean) => Promise<string> }> {
  const ws = new WebSocket(irc.url, 'irc');
  const lines: string[] = [];
  const waiting: Array<{ pred: (line: string) => boolean; resolve: (line: string) => void }> = [];
  ws.on('message', (data) => {
    for (const line of data.toString().split('\r\n').filter(Boolean)) {
      lines.push(line);
      for (const w of [...waiting]) {
        if (w.pred(line)) {
          waiting.splice(waiting.indexOf(w), 1);
          w.resolve(line);
        }
      }
    }
  });
  await new Promise((resolve) => ws.once('open', resolve));
  const next = (pred: (line: string) => boolean) =>
    new Promise<string>((resolve) => {
      const found = lines.find(pred);
      if (found !== undefined) resolve(found);
      else waiting.push({ pred, resolve });
    });
  return { ws, lines, next };
}

let irc: FakeTwitchIrc;

beforeEach(async () => {
  irc = await FakeTwitchIrc.start({
    rejectTokens: ['badtoken'],
    userBadges: (login, channel): Record<string, string> => (login === 'chatskinbot' && channel === 'somechannel' ? { moderator: '1' } : {}),
  });
});

afterEach(async () => {
  for (const client of clients.splice(0)) {
    client.removeAllListeners();
    if (client.readyState() === 'OPEN') await client.disconnect().catch(() => {});
  }
  await irc.close();
});

describe('FakeTwitchIrc with the real tmi.js client', () => {
  it('logs in with the three capabilities, joins and tells the bot it is a moderator', async () => {
    const client = botClient(irc);
    const globalState = nextEvent<[Record<string, unknown>]>(client, 'globaluserstate');
    await client.connect();
    await irc.waitForJoin('somechannel', { login: 'chatskinbot' });
    await nextEvent(client, 'roomstate');

    const commands = irc.sent.map((line) => line.message.command);
    expect(commands.slice(0, 3)).toEqual(['CAP', 'PASS', 'NICK']);
    expect(irc.sent[0]?.message.params).toEqual(['REQ', 'twitch.tv/tags twitch.tv/commands twitch.tv/membership']);
    expect(irc.sent[1]?.message.params).toEqual(['oauth:goodtoken']);
    expect(irc.connections[0]?.caps.sort()).toEqual(['twitch.tv/commands', 'twitch.tv/membership', 'twitch.tv/tags']);
    const [globalTags] = await globalState;
    expect(globalTags['user-id']).toBe(irc.userIdOf('chatskinbot'));
    expect(client.getChannels()).toEqual(['#somechannel']);
    expect(client.isMod('#somechannel', 'chatskinbot')).toBe(true);
  });

  it('refuses a bad token with the real NOTICE and tmi.js gives up', async () => {
    const client = botClient(irc, { identity: { username: 'chatskinbot', password: 'oauth:badtoken' } });
    await expect(client.connect()).rejects.toBe('Login authentication failed');
    expect(irc.connections.some((c) => c.loggedIn)).toBe(false);
  });

  it('delivers a user PRIVMSG whose tags tmi.js parses into badges, emotes and flags', async () => {
    const client = botClient(irc);
    await client.connect();
    await irc.waitForJoin('somechannel');
    const received = nextEvent<[string, tmi.ChatUserstate, string, boolean]>(client, 'message');
    const sent = irc.sendPrivmsg(
      'somechannel',
      { login: 'somefan', displayName: 'Some;Fan Name', color: '#1E90FF', mod: true, vip: true, subscriber: 8, badges: { 'bits': '100' } },
      'Kappa hello Kappa',
      { emoteCodes: { Kappa: '25' }, firstMsg: true },
    );

    const [channel, tags, text, self] = await received;
    expect(channel).toBe('#somechannel');
    expect(text).toBe('Kappa hello Kappa');
    expect(self).toBe(false);
    expect(tags.id).toBe(sent.id);
    expect(tags.username).toBe('somefan');
    expect(tags['display-name']).toBe('Some;Fan Name');
    expect(tags.color).toBe('#1E90FF');
    expect(tags.badges).toEqual({ moderator: '1', vip: '1', subscriber: '6', bits: '100' });
    expect(tags['badge-info']).toEqual({ subscriber: '8' });
    expect(tags.emotes).toEqual({ '25': ['0-4', '12-16'] });
    expect(tags.mod).toBe(true);
    expect(tags.subscriber).toBe(true);
    expect(tags['first-msg']).toBe(true);
    expect(tags['user-id']).toBe(irc.userIdOf('somefan'));
    expect(tags['room-id']).toBe(irc.roomIdOf('somechannel'));
    expect(tags['message-type']).toBe('chat');
    expect(Number(tags['tmi-sent-ts'])).toBeGreaterThan(0);
    expect((tags as Record<string, unknown>)['vip']).toBe(true);
  });

  it('counts emote positions in code points, as Twitch does', async () => {
    const client = botClient(irc);
    await client.connect();
    await irc.waitForJoin('somechannel');
    const received = nextEvent<[string, tmi.ChatUserstate, string]>(client, 'message');
    irc.sendPrivmsg('somechannel', { login: 'fan' }, '😀 Kappa', { emoteCodes: { Kappa: '25' } });
    const [, tags] = await received;
    expect(tags.emotes).toEqual({ '25': ['2-6'] });
  });

  it('sends /me messages as ACTION', async () => {
    const client = botClient(irc);
    await client.connect();
    await irc.waitForJoin('somechannel');
    const received = nextEvent<[string, tmi.ChatUserstate, string]>(client, 'action');
    irc.sendPrivmsg('somechannel', { login: 'fan' }, 'waves', { action: true });
    const [, tags, text] = await received;
    expect(text).toBe('waves');
    expect(tags['message-type']).toBe('action');
  });

  it('sends a reply with the reply-parent and reply-thread-parent tags, its text as given', async () => {
    const client = botClient(irc);
    await client.connect();
    await irc.waitForJoin('somechannel');
    const received = nextEvent<[string, tmi.ChatUserstate, string]>(client, 'message');
    const parent = { id: 'parent-1', user: { login: 'first_fan', displayName: 'First_Fan' }, text: 'hello there; all' };
    irc.sendPrivmsg('somechannel', { login: 'fan' }, '@First_Fan hi', { replyTo: parent });
    const [, tags, text] = await received;
    expect(text).toBe('@First_Fan hi');
    expect(tags).toMatchObject({
      'reply-parent-display-name': 'First_Fan',
      'reply-parent-msg-body': 'hello there; all',
      'reply-parent-msg-id': 'parent-1',
      'reply-parent-user-id': irc.userIdOf('first_fan'),
      'reply-parent-user-login': 'first_fan',
      'reply-thread-parent-msg-id': 'parent-1',
      'reply-thread-parent-user-login': 'first_fan',
    });
  });

  it('delivers a Shared Chat message with the source-* tags: the badges in the partner channel, those of the source in source-badges', async () => {
    const client = botClient(irc);
    await client.connect();
    await irc.waitForJoin('somechannel');
    const received = nextEvent<[string, tmi.ChatUserstate, string]>(client, 'message');
    const [original, copy] = irc.sendSharedPrivmsg('otherchannel', ['somechannel'], { login: 'othermod', mod: true, subscriber: 3 }, 'hi all');
    const [channel, tags, text] = await received;
    expect(channel).toBe('#somechannel');
    expect(text).toBe('hi all');
    expect(tags.id).toBe(copy!.id);
    expect(tags.id).not.toBe(original!.id);
    expect(tags).toMatchObject({
      'room-id': irc.roomIdOf('somechannel'),
      'source-room-id': irc.roomIdOf('otherchannel'),
      'source-id': original!.id,
      // tmi.js leaves these unparsed.
      'source-badges': 'moderator/1,subscriber/3',
      'source-badge-info': 'subscriber/3',
      badges: null,
      mod: false,
    });
    expect(original!.tags).toMatchObject({ 'room-id': irc.roomIdOf('otherchannel'), 'source-room-id': irc.roomIdOf('otherchannel'), 'source-id': original!.id });
  });

  it('tells tmi.js about deleted messages, timeouts, bans and cleared chat', async () => {
    const client = botClient(irc);
    await client.connect();
    await irc.waitForJoin('somechannel');

    const deleted = nextEvent<[string, string, string, tmi.DeleteUserstate]>(client, 'messagedeleted');
    irc.deleteMessage('somechannel', { login: 'fan', targetMsgId: 'abc-123', text: 'bad words' });
    const [delChannel, delUser, delText, delTags] = await deleted;
    expect([delChannel, delUser, delText, delTags['target-msg-id']]).toEqual(['#somechannel', 'fan', 'bad words', 'abc-123']);

    const timedOut = nextEvent<[string, string, string | null, number, Record<string, unknown>]>(client, 'timeout');
    irc.timeoutUser('somechannel', { login: 'fan' }, 600);
    const [toChannel, toUser, , duration, toTags] = await timedOut;
    expect([toChannel, toUser, duration]).toEqual(['#somechannel', 'fan', 600]);
    expect(toTags['target-user-id']).toBe(irc.userIdOf('fan'));

    const banned = nextEvent<[string, string, string | null, Record<string, unknown>]>(client, 'ban');
    irc.banUser('somechannel', { login: 'troll', userId: '999' });
    const [, banUser, , banTags] = await banned;
    expect(banUser).toBe('troll');
    expect(banTags['target-user-id']).toBe('999');
    expect(banTags['ban-duration']).toBeUndefined();

    const cleared = nextEvent<[string]>(client, 'clearchat');
    irc.clearChat('somechannel');
    expect(await cleared).toEqual(['#somechannel']);
  });

  it('delivers a USERNOTICE that tmi.js turns into its raid event', async () => {
    const client = botClient(irc);
    await client.connect();
    await irc.waitForJoin('somechannel');
    const raided = nextEvent<[string, string, number]>(client, 'raided');
    const notice = irc.sendUserNotice('somechannel', { login: 'raider', displayName: 'Raider' }, {
      msgId: 'raid',
      systemMsg: '15 raiders from Raider have joined!',
      params: { displayName: 'Raider', login: 'raider', viewerCount: '15' },
    });
    expect((await raided).slice(0, 3)).toEqual(['#somechannel', 'Raider', 15]);
    expect(notice.tags['msg-param-viewerCount']).toBe('15');
  });

  it('records what the bot says, answers with USERSTATE and relays it to other readers', async () => {
    const { client, reader } = await botAndReader(irc);
    const relayed = nextEvent<[string, tmi.ChatUserstate, string, boolean]>(reader, 'message');
    const userstate = new Promise<Record<string, unknown>>((resolve) => {
      // raw_message is a real tmi.js event that @types/tmi.js does not list.
      const onRaw = (_copy: unknown, message: { command: string; tags: Record<string, unknown> }): void => {
        if (message.command === 'USERSTATE') resolve(message.tags);
      };
      client.on('raw_message' as never, onRaw as never);
    });

    const before = Date.now();
    await client.say('somechannel', 'skin set to neon');
    const said = await irc.waitForPrivmsg((m) => m.text === 'skin set to neon');
    expect(said.channel).toBe('#somechannel');
    expect(said.login).toBe('chatskinbot');
    expect(said.joined).toBe(true);
    expect(said.at).toBeGreaterThanOrEqual(before);

    expect(await userstate).toMatchObject({ mod: true, 'user-type': 'mod' });
    const [, tags, text, self] = await relayed;
    expect([text, self, tags.username, tags.mod]).toEqual(['skin set to neon', false, 'chatskinbot', true]);
  });

  it('reads a line starting with "/" or "." as a command, as Twitch does: /me is relayed as an action, any other refused with unrecognized_cmd', async () => {
    const { client, reader } = await botAndReader(irc);
    const notice = nextEvent<[string, string, string]>(client, 'notice');
    const action = nextEvent<[string, tmi.ChatUserstate, string, boolean]>(reader, 'action');

    await client.raw('PRIVMSG #somechannel :/ban fan');
    expect(await notice).toEqual(['#somechannel', 'unrecognized_cmd', 'Unrecognized command: /ban']);
    await client.raw('PRIVMSG #somechannel :.me waves');
    const [, , text] = await action;
    expect(text).toBe('waves');
    await client.raw('PRIVMSG #somechannel :/me');
    await irc.waitForPrivmsg((m) => m.text === '/me' && m.refused !== null);
    expect(irc.privmsgs.map((m) => [m.text, m.refused])).toEqual([['/ban fan', 'unrecognized_cmd'], ['.me waves', null], ['/me', 'usage_me']]);
  });

  it('lets tmi.js reconnect and rejoin after every socket is dropped', async () => {
    const client = botClient(irc);
    await client.connect();
    await irc.waitForJoin('somechannel');
    expect(irc.totalConnections).toBe(1);

    const mark = irc.joins.length;
    irc.dropAllConnections();
    const rejoin = await irc.waitForJoin('somechannel', { since: mark, login: 'chatskinbot' });
    expect(rejoin.connectionId).toBe(2);
    expect(irc.totalConnections).toBe(2);
    expect(irc.connectionCount).toBe(1);

    await client.say('somechannel', 'back again');
    const said = await irc.waitForPrivmsg((m) => m.text === 'back again');
    expect(said.connectionId).toBe(2);
  });

  it('makes tmi.js reconnect on RECONNECT', async () => {
    const client = botClient(irc);
    await client.connect();
    await irc.waitForJoin('somechannel');
    const mark = irc.joins.length;
    irc.sendReconnect();
    const rejoin = await irc.waitForJoin('somechannel', { since: mark });
    expect(rejoin.connectionId).toBe(2);
  });

  it('answers the client PING with the pong tmi.js expects, and gets PONG for its own PING', async () => {
    const client = botClient(irc);
    await client.connect();
    const [latency] = await client.ping();
    expect(latency).toBeGreaterThanOrEqual(0);

    const pongs = irc.sent.length;
    irc.pingClients();
    await expect.poll(() => irc.sent.slice(pongs).some((l) => l.message.command === 'PONG')).toBe(true);
  });

  it('parts the bot from a channel, which tmi.js reports as its own PART', async () => {
    const client = botClient(irc);
    await client.connect();
    await irc.waitForJoin('somechannel');
    const parted = nextEvent<[string, string, boolean]>(client, 'part');
    irc.partChannel('somechannel', 'chatskinbot');
    expect(await parted).toEqual(['#somechannel', 'chatskinbot', true]);
    expect(client.getChannels()).toEqual([]);
    expect(irc.connections[0]?.channels).toEqual([]);
  });

  it('floods a channel and tmi.js receives every message in order', async () => {
    const client = botClient(irc);
    await client.connect();
    await irc.waitForJoin('somechannel');
    const count = 5_000;
    const texts: string[] = [];
    const all = new Promise<void>((resolve) => {
      client.on('message', (_channel, _tags, text) => {
        texts.push(text);
        if (texts.length === count) resolve();
      });
    });
    const result = await irc.floodPrivmsg('somechannel', count, (i) => ({ user: { login: `viewer${i % 7}`, subscriber: i % 2 === 0 }, text: `line ${i}` }), { linesPerFrame: 100 });
    await all;
    expect(result.messages).toBe(count);
    expect(result.frames).toBe(50);
    expect(texts[0]).toBe('line 0');
    expect(texts[count - 1]).toBe(`line ${count - 1}`);
    expect(texts.every((t, i) => t === `line ${i}`)).toBe(true);
  });
});

describe('FakeTwitchIrc protocol details', () => {
  it('NAKs unknown capabilities and omits tags for a client that did not ask for them', async () => {
    const raw = await rawClient(irc);
    raw.ws.send('CAP REQ :twitch.tv/bogus');
    expect(await raw.next((l) => l.includes(' CAP '))).toBe(':tmi.twitch.tv CAP * NAK :twitch.tv/bogus');
    raw.ws.send('PASS oauth:goodtoken\r\nNICK plainbot\r\nJOIN #somechannel');
    await raw.next((l) => l.includes(' 366 '));
    irc.sendPrivmsg('somechannel', { login: 'fan', mod: true }, 'hi');
    const line = await raw.next((l) => l.includes('PRIVMSG'));
    expect(line).toBe(':fan!fan@fan.tmi.twitch.tv PRIVMSG #somechannel :hi');
    // Without twitch.tv/commands there is no USERSTATE or ROOMSTATE.
    expect(raw.lines.some((l) => l.includes('USERSTATE') || l.includes('ROOMSTATE'))).toBe(false);
    raw.ws.close();
  });

  it('sends the welcome burst, the join burst in Twitch order and a 421 for unknown commands', async () => {
    const raw = await rawClient(irc);
    raw.ws.send('CAP REQ :twitch.tv/tags twitch.tv/commands\r\nPASS oauth:goodtoken\r\nNICK chatskinbot');
    await raw.next((l) => l.includes('GLOBALUSERSTATE'));
    expect(raw.lines.map((l) => parseIrcLine(l)?.command)).toEqual(['CAP', '001', '002', '003', '004', '375', '372', '376', 'GLOBALUSERSTATE']);
    raw.ws.send('JOIN #somechannel');
    await raw.next((l) => l.includes('ROOMSTATE'));
    expect(raw.lines.slice(9).map((l) => parseIrcLine(l)?.command)).toEqual(['JOIN', '353', '366', 'USERSTATE', 'ROOMSTATE']);
    expect(parseIrcLine(raw.lines[12] as string)?.tags).toMatchObject({ badges: 'moderator/1', mod: '1', 'user-type': 'mod' });
    raw.ws.send('WHO #somechannel');
    expect(await raw.next((l) => l.includes(' 421 '))).toBe(':tmi.twitch.tv 421 chatskinbot WHO :Unknown command');
    raw.ws.send('PING :abc');
    expect(await raw.next((l) => l.includes('PONG'))).toBe(':tmi.twitch.tv PONG tmi.twitch.tv :abc');
    raw.ws.close();
  });

  it('refuses a PASS without the oauth: prefix', async () => {
    const raw = await rawClient(irc);
    const closed = new Promise((resolve) => raw.ws.once('close', resolve));
    raw.ws.send('PASS goodtoken\r\nNICK chatskinbot');
    expect(await raw.next((l) => l.includes('NOTICE'))).toBe(':tmi.twitch.tv NOTICE * :Improperly formatted auth');
    await closed;
  });

  it('records a PRIVMSG to a channel the client never joined, marked as not joined', async () => {
    const raw = await rawClient(irc);
    raw.ws.send('PASS oauth:goodtoken\r\nNICK chatskinbot\r\nPRIVMSG #elsewhere :hello?');
    const said = await irc.waitForPrivmsg();
    expect([said.channel, said.text, said.joined]).toEqual(['#elsewhere', 'hello?', false]);
    raw.ws.close();
  });

  it('when silent, records what a client sends but answers nothing, and answers again when not', async () => {
    irc.silent = true;
    const raw = await rawClient(irc);
    raw.ws.send('CAP REQ :twitch.tv/tags twitch.tv/commands\r\nPASS oauth:goodtoken\r\nNICK chatskinbot\r\nPING :first');
    await expect.poll(() => irc.sent.map((line) => line.message.command)).toEqual(['CAP', 'PASS', 'NICK', 'PING']);
    expect(irc.connections).toEqual([{ id: 1, login: null, loggedIn: false, caps: [], channels: [], lost: false }]);
    irc.silent = false;
    raw.ws.send('PING :second');
    // Answers on one socket arrive in order: anything said to the first lines would come first.
    expect(await raw.next((line) => line.includes('PONG'))).toBe(':tmi.twitch.tv PONG tmi.twitch.tv :second');
    expect(raw.lines).toEqual([':tmi.twitch.tv PONG tmi.twitch.tv :second']);
    raw.ws.close();
  });

  it('enforces slow mode on its own clock: msg_slowmode for a line too soon, a refused line not counting, moderators exempt', async () => {
    await irc.close();
    let now = 1_000_000;
    irc = await startWithModbot({ now: () => now });
    irc.setSlowMode('somechannel', 10, { announce: false });
    const raw = await joinedRawClient(irc, 'plainbot');
    expect(parseIrcLine(raw.roomstate)?.tags).toMatchObject({ slow: '10' });
    const said = sayer(irc, raw);
    expect((await said('one')).refused).toBeNull();
    now += 2_500;
    expect(await said('two')).toMatchObject({ refused: 'msg_slowmode', at: 1_002_500 });
    expect(await raw.next((l) => l.includes('NOTICE'))).toBe('@msg-id=msg_slowmode :tmi.twitch.tv NOTICE #somechannel '
      + ':This room is in slow mode and you are sending messages too quickly. You will be able to talk again in 8 seconds.');
    // Counted from the last delivered line, not the refused one.
    now += 7_500;
    expect((await said('three')).refused).toBeNull();

    const mod = await joinedRawClient(irc, 'modbot');
    for (const text of ['m1', 'm2']) {
      mod.ws.send(`PRIVMSG #somechannel :${text}`);
      expect((await irc.waitForPrivmsg((m) => m.text === text)).refused).toBeNull();
    }

    // Announced: a partial ROOMSTATE to the channel, as Twitch sends when a moderator changes it.
    irc.setSlowMode('#somechannel', 0);
    expect(await raw.next((l) => l.includes('ROOMSTATE') && l.includes('slow=0'))).toBe(`@room-id=${irc.roomIdOf('somechannel')};slow=0 :tmi.twitch.tv ROOMSTATE :#somechannel`);
    expect((await said('four')).refused).toBeNull();
    raw.ws.close();
    mod.ws.close();
  });

  it('refuses a repeat within 30 s with msg_duplicate, comparing without tag characters as Twitch does since 2025; moderators exempt', async () => {
    await irc.close();
    let now = 1_000_000;
    irc = await startWithModbot({ now: () => now });
    const raw = await joinedRawClient(irc, 'plainbot');
    const reader = botClient(irc, { identity: { username: 'reader', password: 'oauth:goodtoken' } });
    const relayed: string[] = [];
    reader.on('message', (_channel, _tags, text) => relayed.push(text));
    await reader.connect();
    await irc.waitForJoin('somechannel', { login: 'reader' });
    const said = async (text: string) => {
      const since = irc.privmsgs.length;
      raw.ws.send(`PRIVMSG #somechannel :${text}`);
      return irc.waitForPrivmsg((m) => m.login === 'plainbot', { since });
    };
    expect((await said('same')).refused).toBeNull();
    now += 1_000;
    expect((await said('same \u{E0000}')).refused).toBe('msg_duplicate');
    expect(await raw.next((l) => l.includes('NOTICE'))).toBe('@msg-id=msg_duplicate :tmi.twitch.tv NOTICE #somechannel '
      + ':Your message was not sent because it is identical to the previous one you sent, less than 30 seconds ago.');
    expect((await said('same \u034F')).refused).toBeNull();
    // Compared with the previous delivered line only, and only within 30 s.
    expect((await said('same')).refused).toBeNull();
    now += 30_000;
    expect((await said('same')).refused).toBeNull();
    await expect.poll(() => relayed).toEqual(['same', 'same \u034F', 'same', 'same']);

    const mod = await joinedRawClient(irc, 'modbot');
    for (let i = 0; i < 2; i += 1) mod.ws.send('PRIVMSG #somechannel :again');
    await expect.poll(() => irc.privmsgs.filter((m) => m.login === 'modbot').map((m) => m.refused)).toEqual([null, null]);
    raw.ws.close();
    mod.ws.close();
  });

  it('with rateLimits, refuses with msg_ratelimit a line less than 1 s after the last one delivered in that channel, judged at arrival; moderators exempt', async () => {
    await irc.close();
    let now = 1_000_000;
    irc = await startWithModbot({ now: () => now, rateLimits: true });
    const raw = await joinedRawClient(irc, 'plainbot', '#somechannel,#other');
    const said = sayer(irc, raw);
    expect((await said('one')).refused).toBeNull();
    now += 999;
    expect(await said('two')).toMatchObject({ refused: 'msg_ratelimit', at: 1_000_999 });
    expect(await raw.next((l) => l.includes('NOTICE'))).toBe('@msg-id=msg_ratelimit :tmi.twitch.tv NOTICE #somechannel '
      + ':Your message was not sent because you are sending messages too quickly.');
    // Per channel, and counted from the last line delivered there.
    expect((await said('elsewhere', '#other')).refused).toBeNull();
    now += 1;
    expect((await said('three')).refused).toBeNull();

    // A line held up on the way arrives later: the next, written a second after it, arrives less
    // than a second after it. One connection keeps its order: none arrives before the one before it.
    irc.privmsgDelay = ({ text }) => (text === 'late' ? 50 : 0);
    now += 1_000;
    expect(await said('late')).toMatchObject({ refused: null, at: 1_002_050 });
    now += 1_000;
    expect(await said('written a second later')).toMatchObject({ refused: 'msg_ratelimit', at: 1_003_000 });
    irc.privmsgDelay = ({ text }) => (text === 'very late' ? 5_000 : 0);
    now += 1_000;
    expect((await said('very late', '#other')).at).toBe(1_009_000);
    expect((await said('behind it')).at).toBe(1_009_000);
    irc.privmsgDelay = null;

    const mod = await joinedRawClient(irc, 'modbot');
    mod.ws.send('PRIVMSG #somechannel :m1\r\nPRIVMSG #somechannel :m2');
    await expect.poll(() => irc.privmsgs.filter((m) => m.login === 'modbot').map((m) => m.refused)).toEqual([null, null]);
    raw.ws.close();
    mod.ws.close();
  });

  it('with rateLimits, refuses the 21st line in 30 s to channels where the sender is not a moderator, and the 101st in all, counted at arrival', async () => {
    await irc.close();
    let now = 1_000_000;
    irc = await startWithModbot({ now: () => now, rateLimits: true });
    const raw = await joinedRawClient(irc, 'plainbot', '#somechannel,#other');
    const said = sayer(irc, raw);
    // The first line held up 50 ms on the way (to another channel: no 1 s rule with the next), then
    // one a second: 20 in the window.
    irc.privmsgDelay = ({ text }) => (text === 'line 0' ? 50 : 0);
    expect(await said('line 0', '#other')).toMatchObject({ refused: null, at: 1_000_050 });
    for (let index = 1; index < 20; index += 1) {
      now += 1_000;
      expect((await said(`line ${index}`)).refused).toBeNull();
    }
    // The 21st, 30 s after the first was written but not after it arrived.
    now = 1_030_000;
    expect((await said('21st')).refused).toBe('msg_ratelimit');
    // A refused line does not count; once the first has been 30 s in, a place is free.
    now = 1_030_050;
    expect((await said('21st again')).refused).toBeNull();
    expect((await said('22nd', '#other')).refused).toBe('msg_ratelimit');

    const mod = await joinedRawClient(irc, 'modbot');
    mod.ws.send(Array.from({ length: 101 }, (_, index) => `PRIVMSG #somechannel :m${index}`).join('\r\n'));
    await expect.poll(() => irc.privmsgs.filter((m) => m.login === 'modbot')).toHaveLength(101);
    const refused = irc.privmsgs.filter((m) => m.login === 'modbot').map((m) => m.refused);
    expect(refused.slice(0, 100).every((reason) => reason === null)).toBe(true);
    expect(refused[100]).toBe('msg_ratelimit');
    raw.ws.close();
    mod.ws.close();
  });

  it('without rateLimits (the default), delivers lines however fast they come', async () => {
    await irc.close();
    irc = await FakeTwitchIrc.start({ now: () => 0 });
    const raw = await joinedRawClient(irc, 'plainbot');
    raw.ws.send(Array.from({ length: 25 }, (_, index) => `PRIVMSG #somechannel :line ${index}`).join('\r\n'));
    await expect.poll(() => irc.privmsgs.filter((m) => m.refused === null)).toHaveLength(25);
    raw.ws.close();
  });

  it('rejects a wait that never comes true, naming what it waited for', async () => {
    await expect(irc.waitForJoin('nobody', { timeoutMs: 20 })).rejects.toThrow('a JOIN of #nobody');
  });
});
