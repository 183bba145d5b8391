// Chat commands through the whole host with the real tmi.js against the fake Twitch chat: names,
// aliases and the prefix in any case, usage lines for arguments that do not fit (one per line),
// a listing too long for one chat message cut to one with "+N more", and the global and per-user
// cooldowns. The bot is a moderator in the channel (its USERSTATE says so), so its replies go out
// unpaced; time is a manual clock, so cooldowns end only when the test says.
import { describe, expect, it } from 'vitest';
import { MOD, twitchHostForSuite } from './twitch-host.ts';
import type { ChatUser } from '../fakes/fake-twitch-irc.ts';

const MODERATOR_BOT = () => ({ moderator: '1' });
/** Enough themes that listing them all (`!theme`) would take several chat messages. */
const THEME_NAMES = Array.from({ length: 40 }, (_, i) => `long-theme-name-number-${String(i).padStart(2, '0')}`);
const THEMES = Object.fromEntries(THEME_NAMES.map((name, i) => [name, { 'bubble.width': 300 + i }]));

const viewer = (login: string): ChatUser => ({ login });

describe('chat commands through the host (real tmi.js against the fake server)', () => {
  const world = twitchHostForSuite({
    dirPrefix: 'chatskin-commands-',
    botBadges: MODERATOR_BOT,
    config: { plugins: { style: { themes: THEMES }, skins: {}, grants: {} } },
  });
  const say = (user: ChatUser, text: string) => world.irc.sendPrivmsg('#alice', user, text);
  /** The bot's lines from `since` that mention `login` (every reply starts with the chatter's name). */
  const repliesTo = (login: string, since: number) => world.botLines(since).map((m) => m.text).filter((text) => text.startsWith(`@${login} `));
  /**
   * Sends a moderator's `!style show` and waits for its answer. Lines are routed in order and the
   * router queues its own notices (usage, cooling down) as it routes, so those of every earlier line
   * have gone out before this answer.
   */
  const marker = async (since: number) => {
    say(MOD, '!style show bubble.gap');
    await world.botSaid(/^@modguy bubble\.gap is /, since);
  };

  it('answers a command name in any case: !STYLE show bubble.width', async () => {
    const since = world.irc.privmsgs.length;
    say(MOD, '!STYLE show bubble.width');
    const reply = await world.botSaid(/bubble\.width/, since);
    expect(reply.text).toMatch(/^@modguy bubble\.width is 400 /);
  });

  it('runs a command by its alias, in any case: !PickSkin', async () => {
    const since = world.irc.privmsgs.length;
    say(viewer('alias_user'), '!PickSkin');
    const reply = await world.botSaid(/^@alias_user /, since);
    expect(reply.text).toBe('@alias_user you have no skin picked. !skins lists yours.');
  });

  it('answers arguments that do not fit with one usage line each, and runs nothing', async () => {
    const since = world.irc.privmsgs.length;
    say(MOD, '!style');
    say(MOD, '!style show');
    say(MOD, '!GrantSkin @viewer_x');
    say(MOD, '!grant not/a/name golden');
    const expected = [
      '@modguy setting is missing. Usage: !style <setting> [value...]',
      '@modguy name one setting. Usage: !style show <setting>',
      '@modguy skin is missing. Usage: !grant <viewer> <skin...>',
      '@modguy viewer must be a Twitch name. Usage: !grant <viewer> <skin...>',
    ];
    for (const line of expected) await world.botSaid(line, since);
    await marker(since);
    const replies = repliesTo('modguy', since).filter((text) => !text.startsWith('@modguy bubble.gap is '));
    expect(replies.sort()).toEqual([...expected].sort());
  });

  it('lists as many themes as fit one chat message, then +N more: one line', async () => {
    const since = world.irc.privmsgs.length;
    say(MOD, '!theme');
    await world.botSaid(/Usage: !theme <name>$/, since);
    await marker(since);
    const replies = repliesTo('modguy', since).filter((text) => !text.startsWith('@modguy bubble.gap is '));
    expect(replies).toHaveLength(1);
    expect(replies[0]!.length).toBeLessThanOrEqual(500);
    // Theme names in the config's order, the first ones whole.
    const shown = /^@modguy themes: (.*) \+(\d+) more\. Usage: !theme <name>$/.exec(replies[0]!);
    expect(shown).not.toBeNull();
    const names = shown![1]!.split(', ');
    expect(names).toEqual(THEME_NAMES.slice(0, names.length));
    expect(names.length + Number(shown![2])).toBe(THEME_NAMES.length);
  });

  it('holds the global cooldown of !skins: one answer, one cooling-down notice per window, then silence', async () => {
    const [first, second, third, fourth] = ['gc_one', 'gc_two', 'gc_three', 'gc_four'].map(viewer);
    let since = world.irc.privmsgs.length;
    say(first!, '!skins');
    say(second!, '!skins');
    say(third!, '!skins');
    say(second!, '!skins');
    await world.botSaid(/^@gc_one /, since);
    await world.botSaid(/^@gc_two /, since);
    await marker(since);
    expect(repliesTo('gc_one', since)).toEqual(['@gc_one you have no skins yet.']);
    expect(repliesTo('gc_two', since)).toEqual(['@gc_two !skins is cooling down, try again in 3 s.']);
    expect(repliesTo('gc_three', since)).toEqual([]);

    // A new window: the first use is answered, and again only the first blocked one is told.
    await world.clock.advance(3_000);
    since = world.irc.privmsgs.length;
    say(third!, '!skins');
    say(fourth!, '!skins');
    say(second!, '!skins');
    say(fourth!, '!skins');
    await world.botSaid(/^@gc_three /, since);
    await world.botSaid(/^@gc_four /, since);
    await marker(since);
    expect(repliesTo('gc_three', since)).toEqual(['@gc_three you have no skins yet.']);
    expect(repliesTo('gc_four', since)).toEqual(['@gc_four !skins is cooling down, try again in 3 s.']);
    expect(repliesTo('gc_two', since)).toEqual([]);
  });

  it("holds !skin's per-user cooldown for the chatter who used it, and only for them", async () => {
    const [first, second] = ['pu_one', 'pu_two'].map(viewer);
    let since = world.irc.privmsgs.length;
    say(first!, '!skin none');
    say(first!, '!skin none');
    say(first!, '!skin none');
    // !skin has no global cooldown: another chatter is answered while the first one cools down.
    say(second!, '!skin none');
    await world.botSaid(/^@pu_two /, since);
    await world.botSaid(/^@pu_one you had no skin picked/, since);
    await marker(since);
    expect(repliesTo('pu_one', since).sort()).toEqual([
      '@pu_one !skin is cooling down, try again in 10 s.',
      '@pu_one you had no skin picked.',
    ]);
    expect(repliesTo('pu_two', since)).toEqual(['@pu_two you had no skin picked.']);

    await world.clock.advance(10_000);
    since = world.irc.privmsgs.length;
    say(first!, '!skin none');
    const reply = await world.botSaid(/^@pu_one /, since);
    expect(reply.text).toBe('@pu_one you had no skin picked.');
  });

  it('a bare !skin (showing the pick) starts no cooldown: a pick may follow at once', async () => {
    const chatter = viewer('show_then_pick');
    let since = world.irc.privmsgs.length;
    say(chatter, '!skin');
    const shown = await world.botSaid(/^@show_then_pick /, since);
    expect(shown.text).toBe('@show_then_pick you have no skin picked. !skins lists yours.');
    since = world.irc.privmsgs.length;
    say(chatter, '!skin none');
    const picked = await world.botSaid(/^@show_then_pick /, since);
    expect(picked.text).toBe('@show_then_pick you had no skin picked.');
  });
});

describe('chat commands through the host with a prefix of letters (real tmi.js against the fake server)', () => {
  const world = twitchHostForSuite({ dirPrefix: 'chatskin-prefix-', botBadges: MODERATOR_BOT, config: { commands: { prefix: 'bot:' } } });
  const say = (user: ChatUser, text: string) => world.irc.sendPrivmsg('#alice', user, text);

  it('matches the prefix in any case, and no longer answers the default one', async () => {
    const since = world.irc.privmsgs.length;
    say(MOD, '!style show bubble.width');
    say(MOD, 'BOT:Style show bubble.width');
    say(MOD, 'Bot:style show');
    await world.botSaid(/^@modguy bubble\.width is 400 /, since);
    // The usage line repeats the prefix as it was typed.
    await world.botSaid(/^@modguy name one setting\. Usage: Bot:style show <setting>$/, since);
    say(MOD, 'bot:style show bubble.gap');
    await world.botSaid(/^@modguy bubble\.gap is /, since);
    // The line with "!" got nothing: three answers in all, one per line with the prefix.
    expect(world.botLines(since)).toHaveLength(3);
  });
});
