// The local chat: typed lines (a PassThrough as stdin) become messages the host routes with the
// role their prefix asks for, through a real host with a test plugin from a temp folder.
import { PassThrough } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLocalChatTransport, LocalChatInputError, MAX_TYPED_LINE_LENGTH } from '../../../src/adapters/local-chat/local-chat-transport.ts';
import type { LocalChatOptions, LocalChatTransport } from '../../../src/adapters/local-chat/local-chat-transport.ts';
import { localUserIdOf } from '../../../src/adapters/local-chat/local-chat-tags.ts';
import { parseConfig } from '../../../src/config/load-config.ts';
import { chatUserFromTags } from '../../../src/host/chat-user.ts';
import { createHost } from '../../../src/host/host.ts';
import type { Host } from '../../../src/host/host.ts';
import { captureLogs, LEVEL } from '../../host/log-capture.ts';
import { createPluginFolders } from '../../host/plugin-folders.ts';
import type { PluginFolders } from '../../host/plugin-folders.ts';
import { unusedOverlayClient } from '../../host/unused-overlay-client.ts';
import { recordChatEvents } from '../chat-event-recorder.ts';

const PROBE = `import { definePlugin } from SDK;
export default definePlugin({
  name: 'probe',
  setup(ctx) {
    ctx.command({ name: 'whoami', run: (call) => { void call.say(['who', call.user.login, call.user.displayName, call.user.role, call.user.id].join(' ')); } });
    ctx.command({ name: 'modonly', role: 'moderator', run: (call) => { void call.say('mod ok for ' + call.user.login); } });
    ctx.command({ name: 'echo', args: [{ name: 'text', type: 'rest' }], run: (call) => { void call.say(call.args.text); } });
  },
});`;

let folders: PluginFolders;
beforeAll(() => {
  folders = createPluginFolders();
  folders.add('probe', PROBE);
});
afterAll(() => {
  folders.remove();
});

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface LocalWorld {
  stdin: PassThrough;
  printed: string[];
  chat: LocalChatTransport;
  host: Host;
  /** Types a line and waits for the bot's next printed reply. */
  type(line: string): Promise<string>;
}

async function localWorld(options: Partial<LocalChatOptions> = {}, tty = false): Promise<LocalWorld> {
  const stdin = new PassThrough();
  if (tty) Object.assign(stdin, { isTTY: true });
  const printed: string[] = [];
  const chat = createLocalChatTransport({ channel: 'Streamer', stdin, output: { write: (text: string) => printed.push(text) }, ...options });
  const host = await createHost({
    config: parseConfig({ channel: { login: 'streamer' }, pluginDirs: [folders.dir], plugins: { probe: {} } }),
    logger: captureLogs().logger,
    overlayClient: unusedOverlayClient(),
    chatTransports: [chat],
    builtInPluginDir: '/nonexistent-built-in-plugins',
  });
  chat.start();
  cleanups.push(() => host.stop(), () => chat.stop());
  const botLines = () => printed.filter((line) => line.startsWith('chatskin (bot): '));
  return {
    stdin, printed, chat, host,
    async type(line) {
      const before = botLines().length;
      stdin.write(`${line}\n`);
      await expect.poll(() => botLines().length).toBeGreaterThan(before);
      return botLines()[before]!.slice('chatskin (bot): '.length).trimEnd();
    },
  };
}

const roomId = localUserIdOf('streamer');

describe('local chat through the host', () => {
  it('routes plain typed lines as the local user, a viewer', async () => {
    const world = await localWorld();
    expect(await world.type('!whoami')).toBe(`who you You everyone ${localUserIdOf('you')}`);
  });

  it('routes each role prefix with that role', async () => {
    const world = await localWorld();
    expect(await world.type('/mod !whoami')).toBe(`who you You moderator ${localUserIdOf('you')}`);
    expect(await world.type('/vip !whoami')).toBe(`who you You vip ${localUserIdOf('you')}`);
    expect(await world.type('/sub !whoami')).toBe(`who you You subscriber ${localUserIdOf('you')}`);
    expect(await world.type('/broadcaster !whoami')).toBe(`who streamer Streamer broadcaster ${roomId}`);
    expect(await world.type('/as alice !whoami')).toBe(`who alice Alice everyone ${localUserIdOf('alice')}`);
    expect(await world.type('/as streamer !whoami')).toBe(`who streamer Streamer broadcaster ${roomId}`);
  });

  it('lets a moderator-only command answer a /mod line and not a plain one', async () => {
    const world = await localWorld();
    world.stdin.write('!modonly\n');
    expect(await world.type('/mod /as mia !modonly')).toBe('mod ok for mia');
    expect(world.printed.filter((line) => line.includes('mod ok'))).toEqual(['chatskin (bot): mod ok for mia\n']);
  });

  it('sends a /me line as Twitch does, an action the overlay shows and no command runs from', async () => {
    const world = await localWorld();
    const recorder = recordChatEvents(world.chat);
    cleanups.push(() => recorder.stop());
    // The /mod line would be answered as a moderator's; the answer is the plain line's.
    world.stdin.write('/mod /me !whoami\n');
    expect(await world.type('!whoami')).toBe(`who you You everyone ${localUserIdOf('you')}`);
    const action = await recorder.next('message', (event) => event.tags['message-type'] === 'action');
    expect(action).toMatchObject({ text: '!whoami', self: false });
    expect(chatUserFromTags(action.tags)).toMatchObject({ login: 'you', role: 'moderator' });
    expect(world.printed.filter((line) => line.startsWith('local chat:'))).toEqual([]);
  });

  it("emits the bot's replies as its own messages, which the host never routes", async () => {
    const world = await localWorld();
    const recorder = recordChatEvents(world.chat);
    cleanups.push(() => recorder.stop());
    expect(await world.type('!echo !whoami')).toBe('!whoami');
    const own = await recorder.next('message', (event) => event.self);
    expect(own).toMatchObject({ channel: 'streamer', text: '!whoami', self: true });
    expect(chatUserFromTags(own.tags)).toMatchObject({ login: 'chatskin', role: 'everyone' });
    // Only the echo's reply: the bot's "!whoami" was not answered.
    expect(world.printed.filter((line) => line.startsWith('chatskin (bot): '))).toEqual(['chatskin (bot): !whoami\n']);
  });

  it('skips a line longer than it reads, as it streams (never held whole), and reads the next', async () => {
    const world = await localWorld();
    // Written in pieces, as a pipe delivers a file: no newline until the end.
    for (let i = 0; i < 8; i++) world.stdin.write('x'.repeat(MAX_TYPED_LINE_LENGTH / 4));
    world.stdin.write('\n');
    world.stdin.write(`${'y'.repeat(600)}\n`);
    expect(await world.type('!whoami')).toBe(`who you You everyone ${localUserIdOf('you')}`);
    // The long-but-readable line was refused with a reason; the huge one left no trace.
    expect(world.printed.filter((line) => line.startsWith('local chat:'))).toEqual([
      'local chat: a chat line is at most 500 characters; this one has 600\n',
    ]);
  });

  it('skips a line longer than it reads that arrives whole in one chunk, as one written at once', async () => {
    const world = await localWorld();
    world.stdin.write(`${'x'.repeat(MAX_TYPED_LINE_LENGTH + 1)}\n${'y'.repeat(600)}\n`);
    expect(await world.type('!whoami')).toBe(`who you You everyone ${localUserIdOf('you')}`);
    expect(world.printed.filter((line) => line.startsWith('local chat:'))).toEqual([
      'local chat: a chat line is at most 500 characters; this one has 600\n',
    ]);
  });

  it('answers /redeem beside Twitch chat (no redeem given) with where rewards are redeemed, and sends no chat line', async () => {
    const printed: string[] = [];
    const chat = createLocalChatTransport({ channel: 'streamer', output: { write: (text: string) => printed.push(text) } });
    const recorder = recordChatEvents(chat);
    cleanups.push(() => recorder.stop());
    await chat.typeLine('/as alice /redeem unlock-neon');
    expect(printed).toEqual(['local chat: /redeem works while Twitch chat is off; with it on, channel-point rewards are redeemed on Twitch\n']);
    expect(recorder.events).toEqual([]);
  });

  it("on a channel named chatskin the bot is chatskin_bot, so the broadcaster's lines are not taken for the bot's own", async () => {
    const printed: string[] = [];
    const chat = createLocalChatTransport({ channel: 'chatskin', output: { write: (text: string) => printed.push(text) } });
    const recorder = recordChatEvents(chat);
    cleanups.push(() => recorder.stop());
    await chat.typeLine('/broadcaster !whoami');
    const typed = await recorder.next('message');
    expect(typed).toMatchObject({ text: '!whoami', self: false });
    expect(chatUserFromTags(typed.tags)).toMatchObject({ login: 'chatskin', role: 'broadcaster' });
    await chat.say('chatskin', 'hello');
    const reply = await recorder.next('message', undefined, 1);
    expect(reply).toMatchObject({ text: 'hello', self: true });
    expect(chatUserFromTags(reply.tags)).toMatchObject({ login: 'chatskin_bot' });
    expect(printed).toEqual(['chatskin_bot (bot): hello\n']);
    expect(() => createLocalChatTransport({ channel: 'streamer', botLogin: 'Streamer' })).toThrow(/botLogin "streamer" is the channel's login/);
  });

  it('prints why a line was not sent, and the syntax on /help', async () => {
    const world = await localWorld();
    world.stdin.write('/as\n/ban troll\n/as alice /broadcaster hi\n/help\n');
    await expect.poll(() => world.printed.some((line) => line.startsWith('Local chat: type a line'))).toBe(true);
    expect(world.printed.slice(0, 3)).toEqual([
      'local chat: /as needs a login: /as alice hello\n',
      expect.stringContaining('local chat: unknown prefix /ban: use /mod, /vip, /sub, /broadcaster, /viewer, /as LOGIN or /me'),
      'local chat: the broadcaster of #streamer is streamer, not alice\n',
    ]);
  });

  it('prints a one-line hint when stdin is a terminal, and none otherwise', async () => {
    const onTerminal = await localWorld({}, true);
    expect(onTerminal.printed).toEqual([expect.stringMatching(/^Local chat on #streamer: type to chat as you; start with \/mod.*\(\/help\)\.\n$/)]);
    const piped = await localWorld();
    expect(piped.printed).toEqual([]);
  });

  it('stops reading stdin on stop(), and posting keeps working', async () => {
    const world = await localWorld();
    const recorder = recordChatEvents(world.chat);
    cleanups.push(() => recorder.stop());
    world.chat.stop();
    world.stdin.write('!whoami\n');
    // Let the stream deliver the line, were anyone still reading.
    for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
    await world.chat.post({ text: 'after stop', login: 'alice' });
    const posted = await recorder.next('message');
    expect(posted.text).toBe('after stop');
    expect(recorder.events.filter((event) => event.type === 'message' && event.text === '!whoami')).toEqual([]);
  });
});

describe('local chat tags and posting', () => {
  it('synthesises tmi.js-shaped tags: badges, flags, stable user ids, unique message ids, room id', async () => {
    const chat = createLocalChatTransport({ channel: 'streamer' });
    const recorder = recordChatEvents(chat);
    await chat.post({ text: 'one', login: 'Mia', role: 'moderator' });
    await chat.post({ text: 'two', login: 'mia', role: 'moderator' });
    await chat.post({ text: 'three', role: 'broadcaster' });
    await chat.post({ text: 'four', login: 'sam', role: 'subscriber' });
    const [one, two, three, four] = recorder.events.map((event) => (event.type === 'message' ? event.tags : {}));
    expect(one).toMatchObject({
      username: 'mia', 'display-name': 'Mia', badges: { moderator: '1' }, 'badges-raw': 'moderator/1', mod: true,
      'user-type': 'mod', subscriber: false, 'user-id': localUserIdOf('mia'), 'room-id': roomId, 'message-type': 'chat',
    });
    expect(one!.color).toMatch(/^#[0-9A-F]{6}$/);
    expect(two!['user-id']).toBe(one!['user-id']);
    expect(two!.color).toBe(one!.color);
    expect(two!.id).not.toBe(one!.id);
    expect(three).toMatchObject({ username: 'streamer', badges: { broadcaster: '1' }, 'user-id': roomId, 'room-id': roomId });
    expect(four).toMatchObject({ badges: { subscriber: '12' }, 'badge-info': { subscriber: '14' }, subscriber: true });
    expect(localUserIdOf('mia')).toMatch(/^9\d{15}$/);
    recorder.stop();
  });

  it("uses the channel's real Twitch user id for the broadcaster when it is known", async () => {
    const chat = createLocalChatTransport({ channel: 'streamer', broadcasterUserId: '40286300' });
    const recorder = recordChatEvents(chat);
    await chat.post({ text: 'hi', role: 'broadcaster' });
    await chat.post({ text: 'hi', login: 'alice' });
    expect(recorder.events.map((event) => (event.type === 'message' ? [event.tags['user-id'], event.tags['room-id']] : []))).toEqual([
      ['40286300', '40286300'], [localUserIdOf('alice'), '40286300'],
    ]);
    recorder.stop();
  });

  it('refuses bad posts with the field at fault, and a bot line to another channel', async () => {
    const chat = createLocalChatTransport({ channel: 'streamer' });
    const refusal = async (post: () => Promise<unknown>): Promise<[string, string] | null> => {
      try {
        await post();
      } catch (error) {
        if (error instanceof LocalChatInputError) return [error.field, error.message];
        throw error;
      }
      return null;
    };
    expect(await refusal(() => chat.post({ text: ' \n ' }))).toEqual(['text', 'the text is empty']);
    expect(await refusal(() => chat.post({ text: 'x'.repeat(501) }))).toEqual(['text', 'a chat line is at most 500 characters; this one has 501']);
    expect((await refusal(() => chat.post({ text: 'hi', login: 'alice', role: 'broadcaster' })))?.[0]).toBe('login');
    expect((await refusal(() => chat.post({ text: 'hi', login: 'bad login' })))?.[0]).toBe('login');
    await expect(chat.say('elsewhere', 'hi')).rejects.toThrow('the local chat serves only #streamer, not #elsewhere');
    expect(() => createLocalChatTransport({ channel: 'not a login' })).toThrow('channel "not a login" is not a Twitch login');
  });

  it('prints posted lines and bot lines without control characters', async () => {
    const printed: string[] = [];
    const chat = createLocalChatTransport({ channel: 'streamer', output: { write: (text: string) => printed.push(text) } });
    await chat.post({ text: 'hi \u001b[2J there', login: 'alice', role: 'vip' });
    await chat.say('#streamer', 'clear\u001b[2J screen');
    expect(printed).toEqual(['alice (vip): hi [2J there\n', 'chatskin (bot): clear[2J screen\n']);
  });
});

describe("local chat: chatters with a viewer's login (knownViewerId)", () => {
  const userIds = (recorder: ReturnType<typeof recordChatEvents>) =>
    recorder.events.map((event) => (event.type === 'message' ? [event.tags.username, event.tags['user-id']] : []));

  it('speaks as the viewer holding the login, and asks only for ids that would be made up', async () => {
    const asked: string[] = [];
    const held: Record<string, string> = { viewer_one: '1001', streamer: '4242' };
    const knownViewerId = async (login: string) => {
      asked.push(login);
      return held[login] ?? null;
    };
    const chat = createLocalChatTransport({ channel: 'streamer', knownViewerId });
    const recorder = recordChatEvents(chat);
    expect(await chat.post({ text: 'hi', login: 'Viewer_One' })).toMatchObject({ login: 'viewer_one', role: 'everyone' });
    await chat.post({ text: 'hi', login: 'nobody' });
    // The broadcaster's id is made up here (no broadcasterUserId): the viewer holding the channel's login.
    await chat.post({ text: 'hi', role: 'broadcaster' });
    await chat.say('streamer', 'a bot line');
    expect(userIds(recorder)).toEqual([
      ['viewer_one', '1001'], ['nobody', localUserIdOf('nobody')], ['streamer', '4242'], ['chatskin', localUserIdOf('chatskin')],
    ]);
    // Still the broadcaster by its badge, though the room id stays the made-up one.
    const broadcaster = recorder.events[2]!;
    expect(broadcaster.type === 'message' && chatUserFromTags(broadcaster.tags)).toMatchObject({ role: 'broadcaster', id: '4242' });
    expect(asked).toEqual(['viewer_one', 'nobody', 'streamer']);

    // A known broadcaster id, and `local:<login>` beside Twitch: nothing is made up, nothing asked.
    asked.length = 0;
    const beside = createLocalChatTransport({ channel: 'streamer', broadcasterUserId: '40286300', viewerIds: false, knownViewerId });
    const besideRecorder = recordChatEvents(beside);
    await beside.post({ text: 'hi', login: 'viewer_one' });
    await beside.post({ text: 'hi', role: 'broadcaster' });
    expect(userIds(besideRecorder)).toEqual([['viewer_one', 'local:viewer_one'], ['streamer', '40286300']]);
    expect(asked).toEqual([]);
    recorder.stop();
    besideRecorder.stop();
  });

  it('keeps the order of typed and posted lines while a look-up is slow', async () => {
    const printed: string[] = [];
    let release!: () => void;
    const slow = new Promise<void>((resolve) => { release = resolve; });
    const chat = createLocalChatTransport({
      channel: 'streamer', output: { write: (text: string) => printed.push(text) },
      knownViewerId: async (login) => {
        if (login === 'slow') await slow;
        return null;
      },
    });
    const recorder = recordChatEvents(chat);
    const typed = [chat.typeLine('/as slow first'), chat.typeLine('/as fast second'), chat.typeLine('/as')];
    const posted = chat.post({ text: 'fourth', login: 'fast' });
    const idle = chat.idle();
    for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(recorder.events).toEqual([]);
    expect(printed).toEqual([]);
    release();
    await idle;
    expect(recorder.events.map((event) => (event.type === 'message' ? event.text : event.type))).toEqual(['first', 'second', 'fourth']);
    expect(printed).toEqual(['local chat: /as needs a login: /as alice hello\n', 'fast: fourth\n']);
    expect(await posted).toMatchObject({ login: 'fast', text: 'fourth' });
    await Promise.all(typed);
    recorder.stop();
  });

  it('sends a line as no viewer (`local:<login>`) when the look-up fails, and logs why', async () => {
    const logs = captureLogs();
    const chat = createLocalChatTransport({
      channel: 'streamer', logger: logs.logger, knownViewerId: () => Promise.reject(new Error('the database is closed')),
    });
    const recorder = recordChatEvents(chat);
    await chat.typeLine('/as viewer_one hi');
    await chat.post({ text: 'hi again', login: 'viewer_one' });
    expect(userIds(recorder)).toEqual([['viewer_one', 'local:viewer_one'], ['viewer_one', 'local:viewer_one']]);
    expect(logs.entries.filter((entry) => entry.level === LEVEL.warn && entry.login === 'viewer_one')).toHaveLength(2);
    recorder.stop();
  });
});
