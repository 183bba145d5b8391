// What real Twitch chat and popular chat clients send, through the whole host with the real
// tmi.js against the fake Twitch chat: the invisible character a client adds to a repeated line,
// /me lines, replies, Shared Chat, and what Twitch does to the bot's own repeated line. Where the
// bot is a moderator in the channel (its USERSTATE says so) its replies go out unpaced; time is a
// manual clock there, so cooldowns end only when the test says.
import { describe, expect, it } from 'vitest';
import { watchDefaultOverlay } from './overlay-socket.ts';
import { BOT, MOD, twitchHostForSuite } from './twitch-host.ts';
import { watchedTwitchHostForSuite } from './watched-twitch-host.ts';
import type { ServerFrame } from '../../src/service/push/protocol.ts';
import type { ChatUser } from '../fakes/fake-twitch-irc.ts';

const MODERATOR_BOT = () => ({ moderator: '1' });
/** Real time for commands started by earlier lines to answer, so that "no answer" means none. */
const settleChat = () => new Promise((resolve) => setTimeout(resolve, 300));

describe('chat lines as real clients send them (real tmi.js against the fake server)', () => {
  const world = twitchHostForSuite({ dirPrefix: 'chatskin-quirks-', botBadges: MODERATOR_BOT });
  const say = (user: ChatUser, text: string) => world.irc.sendPrivmsg('#alice', user, text);
  const width = async () => (await world.running.service.getTemplate(world.running.account.id)).settings_values['bubble.width'];
  /**
   * Expects the bot to have answered nothing sent since `since`. A moderator's `!style show
   * bubble.gap` is sent and awaited first: lines are routed in order, so once it is answered the
   * lines before it were routed (and a command run from them would have answered meanwhile).
   */
  const expectNoAnswerSince = async (since: number) => {
    say(MOD, '!style show bubble.gap');
    await world.botSaid(/^@modguy bubble\.gap is /, since);
    await settleChat();
    expect(world.botLines(since).map((m) => m.text)).toEqual([expect.stringMatching(/^@modguy bubble\.gap is /)]);
  };

  // Chatterino and 7TV add " \u034F" to a line repeated within 30 s (Twitch drops the " \u{E0000}"
  // they added until August 2025); pasted text may bring a zero-width space.
  it.each([
    ['U+034F, as Chatterino and 7TV add it', ' \u034F'],
    ['U+E0000, as they added it before', ' \u{E0000}'],
    ['a zero-width space', '\u200B'],
  ])('reads a command the same with %s at its end', async (_what, suffix) => {
    const viewer = { login: `quirk_${[...suffix].at(-1)!.codePointAt(0)!.toString(16)}` };
    let since = world.irc.privmsgs.length;
    say(viewer, `!skins${suffix}`);
    expect((await world.botSaid(new RegExp(`^@${viewer.login} `), since)).text).toBe(`@${viewer.login} you have no skins yet.`);

    since = world.irc.privmsgs.length;
    say(viewer, `!skin none${suffix}`);
    expect((await world.botSaid(new RegExp(`^@${viewer.login} `), since)).text).toBe(`@${viewer.login} you had no skin picked.`);
    // A bare !skin shows the pick (and gives its cooldown back, so this needs no wait).
    await world.clock.advance(10_000);
    since = world.irc.privmsgs.length;
    say(viewer, `!skin${suffix}`);
    expect((await world.botSaid(new RegExp(`^@${viewer.login} `), since)).text).toBe(`@${viewer.login} you have no skin picked. !skins lists yours.`);

    since = world.irc.privmsgs.length;
    const value = 300 + suffix.length;
    say(MOD, `!style bubble.width ${value}${suffix}`);
    expect((await world.botSaid(/^@modguy /, since)).text).toBe(`@modguy bubble.width is now ${value}.`);
    expect(await width()).toBe(value);
    // The !skins global cooldown (3 s) is over for the next case.
    await world.clock.advance(3_000);
  });

  it('runs no command from a /me line (an action, not a command): nothing changes, no reply', async () => {
    const before = await width();
    const since = world.irc.privmsgs.length;
    world.irc.sendPrivmsg('#alice', MOD, '!style bubble.width 305', { action: true });
    world.irc.sendPrivmsg('#alice', { login: 'me_viewer' }, '!skins', { action: true });
    await expectNoAnswerSince(since);
    expect(await width()).toBe(before);
  });

  it('runs the command a reply carries after the "@name " of the chatter it answers; the overlay shows the reply whole', async () => {
    const overlay = await watchDefaultOverlay(world.running);
    try {
      const asked = say({ login: 'viewer_x', displayName: 'Viewer_X' }, 'can the bubbles be wider?');
      const parent = { id: asked.id, user: { login: 'viewer_x', displayName: 'Viewer_X' }, text: 'can the bubbles be wider?' };
      let since = world.irc.privmsgs.length;
      world.irc.sendPrivmsg('#alice', MOD, '@Viewer_X !style bubble.width 306', { replyTo: parent });
      expect((await world.botSaid(/^@modguy /, since)).text).toBe('@modguy bubble.width is now 306.');
      expect(await width()).toBe(306);
      await overlay.waitFor((f) => f.type === 'chat' && f.event.type === 'message' && f.event.text === '@Viewer_X !style bubble.width 306');

      // The mention may be the login, in any case; a reply to the bot's own line works the same.
      since = world.irc.privmsgs.length;
      world.irc.sendPrivmsg('#alice', MOD, '@viewer_x   !style bubble.width 307', { replyTo: parent });
      expect((await world.botSaid(/^@modguy /, since)).text).toBe('@modguy bubble.width is now 307.');
      const botLine = world.botLines(since)[0]!;
      since = world.irc.privmsgs.length;
      world.irc.sendPrivmsg('#alice', { login: 'thread_fan' }, `@${BOT} !skin none`, { replyTo: { id: 'bot-line', user: { login: BOT }, text: botLine.text } });
      expect((await world.botSaid(/^@thread_fan /, since)).text).toBe('@thread_fan you had no skin picked.');
    } finally {
      overlay.socket.close();
    }
  });

  it('reads no command after a mention of someone other than the chatter a reply answers', async () => {
    const since = world.irc.privmsgs.length;
    const parent = { id: 'parent-2', user: { login: 'viewer_x', displayName: 'Viewer_X' }, text: 'hi' };
    world.irc.sendPrivmsg('#alice', MOD, '@someone_else !style bubble.width 308', { replyTo: parent });
    world.irc.sendPrivmsg('#alice', MOD, '@Viewer_Xyz !style bubble.width 309', { replyTo: parent });
    await expectNoAnswerSince(since);
  });

  // tmi.js 1.8 turns every tag value "1" into true and "0" into false, ids and names too.
  it('shows, registers and answers the chatter whose user id is "1", which tmi.js gives as true', async () => {
    const overlay = await watchDefaultOverlay(world.running);
    try {
      const viewer = { login: 'first_viewer', userId: '1' };
      // A line with no command: only the chat's own registration makes the chatter a viewer.
      const { id } = say(viewer, 'hello, I am number one');
      const shown = await overlay.waitFor((f) => f.type === 'chat' && f.event.type === 'message' && f.event.id === id);
      expect(shown).toMatchObject({ event: { userId: '1', login: 'first_viewer' } });
      await expect.poll(async () => (await world.running.service.findViewer('first_viewer'))?.twitchUserId).toBe('1');
      const since = world.irc.privmsgs.length;
      say(viewer, '!skin none');
      expect((await world.botSaid(/^@first_viewer /, since)).text).toBe('@first_viewer you had no skin picked.');
    } finally {
      overlay.socket.close();
    }
  });

  it('runs the command a reply carries after the "@1 " of a chatter whose display name is "1"', async () => {
    const since = world.irc.privmsgs.length;
    const parent = { id: 'parent-one', user: { login: 'number_one', displayName: '1' }, text: '1' };
    world.irc.sendPrivmsg('#alice', MOD, '@1 !style bubble.width 311', { replyTo: parent });
    expect((await world.botSaid(/^@modguy /, since)).text).toBe('@modguy bubble.width is now 311.');
  });

  it('runs no command from a line sent in a Shared Chat partner channel, even one of its own moderators', async () => {
    const before = await width();
    const since = world.irc.privmsgs.length;
    world.irc.sendSharedPrivmsg('#bob', ['#alice'], { login: 'bob_fan' }, '!skins');
    // A moderator of both channels, typing in bob's chat: a moderator here too (mod=1, badges).
    world.irc.sendSharedPrivmsg('#bob', ['#alice'], { login: 'both_mod', mod: true }, '!style bubble.width 124', { in: { alice: { login: 'both_mod', mod: true } } });
    await expectNoAnswerSince(since);
    expect(await width()).toBe(before);
  });
});

describe('a Shared Chat session between two channels the bot is in (real tmi.js against the fake server)', () => {
  const world = watchedTwitchHostForSuite('chatskin-shared-chat-', ['alice', 'bob']);
  const botLines = (since: number) => world.irc.privmsgs.slice(since).filter((m) => m.login === BOT);
  const isChat = (text: string) => (f: ServerFrame) => f.type === 'chat' && f.event.type === 'message' && f.event.text === text;

  it('answers each shared line once, in the channel it was sent in', async () => {
    const since = world.irc.privmsgs.length;
    world.irc.sendSharedPrivmsg('#alice', ['#bob'], { login: 'alice_fan' }, '!skin none');
    world.irc.sendSharedPrivmsg('#bob', ['#alice'], { login: 'bob_fan' }, '!skin none');
    await world.irc.waitForPrivmsg((m) => m.login === BOT && m.text.startsWith('@alice_fan '), { since });
    await world.irc.waitForPrivmsg((m) => m.login === BOT && m.text.startsWith('@bob_fan '), { since });
    await settleChat();
    expect(botLines(since).map((m) => [m.channel, m.text]).sort()).toEqual([
      ['#alice', '@alice_fan you had no skin picked.'],
      ['#bob', '@bob_fan you had no skin picked.'],
    ]);
  });

  it("shows a partner channel's line on the overlay once, as Twitch's chat shows it", async () => {
    const from = world.overlay.frames.length;
    world.irc.sendSharedPrivmsg('#bob', ['#alice'], { login: 'bob_talker' }, 'hello from bob');
    world.irc.sendSharedPrivmsg('#alice', ['#bob'], { login: 'alice_talker' }, 'hello from alice');
    // Lines are handled in order: once alice's line is shown, bob's was handled.
    await world.overlay.waitFor(isChat('hello from alice'), from);
    expect(world.overlay.frames.slice(from).filter(isChat('hello from bob'))).toHaveLength(1);
    expect(world.overlay.frames.slice(from).filter(isChat('hello from alice'))).toHaveLength(1);
  });
});

describe("a repeat of the bot's line within 30 s where it is not a moderator (real tmi.js against the fake server)", () => {
  const world = twitchHostForSuite({ dirPrefix: 'chatskin-bot-repeat-' });
  const say = (user: ChatUser, text: string) => world.irc.sendPrivmsg('#alice', user, text);

  // Twitch refuses a line identical to the sender's previous one within 30 s, and since August
  // 2025 drops the tag character (U+E0000) that used to make a repeat differ.
  it('makes the repeat differ with a character Twitch keeps, so both lines are delivered', async () => {
    const since = world.irc.privmsgs.length;
    say(MOD, '!style show bubble.width');
    say(MOD, '!style show bubble.width');
    const delivered = () => world.botLines(since).filter((m) => m.refused === null);
    // The bot's lines go one a second here.
    await expect.poll(async () => { await world.clock.advance(1_000); return delivered().length; }, { timeout: 10_000 }).toBe(2);
    const [first, second] = delivered();
    expect(second!.text).toBe(`${first!.text} \u034F`);
    expect(world.botLines(since).filter((m) => m.refused !== null)).toEqual([]);
  });
});

