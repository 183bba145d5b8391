import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatTags } from '../../src/host/chat-transport.ts';
import { createPluginFolders } from './plugin-folders.ts';
import type { PluginFolders } from './plugin-folders.ts';
import { startTestHost } from './host-fixture.ts';
import type { TestHost } from './host-fixture.ts';
import {
  broadcasterTags, chatTags, founderTags, moderatorTags, ROOM_ID, subscriberTags, viewerTags, vipTags,
} from './irc-tags.ts';
import { settle } from './manual-clock.ts';

// One plugin with a command per rule under test.
const COMMANDS = `import { definePlugin } from SDK;
export default definePlugin({
  name: 'commands',
  setup(ctx) {
    ctx.command({ name: 'ping', aliases: ['p', 'Pong'], run: (call) => { void call.say('pong'); } });
    ctx.command({
      name: 'set',
      args: [{ name: 'key', type: 'string' }, { name: 'value', type: 'rest' }],
      role: 'moderator',
      run: (call) => { void call.reply(\`\${call.args.key} = \${call.args.value}\`); },
    });
    ctx.command({
      name: 'give',
      args: [{ name: 'who', type: 'user' }, { name: 'amount', type: 'integer', min: 1, max: 100 }, { name: 'note', type: 'rest', optional: true }],
      run: (call) => { void call.say(\`\${call.args.who} +\${call.args.amount}\${call.args.note === undefined ? '' : ' (' + call.args.note + ')'}\`); },
    });
    for (const role of ['broadcaster', 'moderator', 'vip', 'subscriber', 'everyone']) {
      ctx.command({ name: 'only-' + role, role, run: (call) => { void call.say(role + ' ok for ' + call.user.login + ' as ' + call.user.role); } });
    }
    ctx.command({ name: 'global', cooldown: { global: 30 }, run: (call) => { void call.say('global ran for ' + call.user.login); } });
    ctx.command({ name: 'mine', cooldown: { user: 60 }, run: (call) => { void call.say('mine ran for ' + call.user.login); } });
    ctx.command({ name: 'strict', cooldown: { global: 30, bypass: 'nobody' }, run: (call) => { void call.say('strict ran for ' + call.user.login); } });
    ctx.command({ name: 'pick', args: [{ name: 'n', type: 'integer' }], cooldown: { user: 60 }, run: (call) => { void call.say('picked ' + call.args.n); } });
    ctx.command({ name: 'strictpick', args: [{ name: 'n', type: 'integer' }], cooldown: { user: 60, bypass: 'nobody' }, run: (call) => { void call.say('picked ' + call.args.n); } });
    ctx.command({ name: 'vippick', args: [{ name: 'n', type: 'integer' }], cooldown: { user: 60, bypass: 'vip' }, run: (call) => { void call.say('picked ' + call.args.n); } });
    ctx.command({
      name: 'peek',
      args: [{ name: 'what', type: 'rest', optional: true }],
      cooldown: { user: 60 },
      run: async (call) => {
        await Promise.resolve();
        if (call.args.what !== undefined) return void call.say('used ' + call.args.what);
        call.giveBackCooldown();
        void call.say('shown');
      },
    });
    ctx.command({ name: 'gpeek', cooldown: { global: 30 }, run: (call) => { call.giveBackCooldown(); void call.say('shown to ' + call.user.login); } });
    ctx.command({ name: 'blank', run: async (call) => { globalThis.blankOutcomes = [await call.reply('  \\t '), await ctx.chat.reply(call, ''), await call.reply('\\u200b\\u2060 \\u034f'), await call.say('\\ufeff')]; } });
    ctx.command({ name: 'whoami', run: (call) => { void call.say([call.user.id, call.user.login, call.user.displayName, call.user.role, call.messageId].join(' ')); } });
  },
});`;

let folders: PluginFolders;
beforeAll(() => {
  folders = createPluginFolders();
  folders.add('commands', COMMANDS);
});
afterAll(() => {
  folders.remove();
});

async function start(prefix?: string): Promise<TestHost> {
  const test = await startTestHost({
    config: { pluginDirs: [folders.dir], plugins: { commands: {} }, ...(prefix === undefined ? {} : { commands: { prefix } }) },
  });
  expect(test.host.plugins[0]).toMatchObject({ state: 'running' });
  return test;
}

async function say(test: TestHost, text: string, tags: ChatTags = viewerTags()): Promise<string[]> {
  const before = test.chat.sent.length;
  test.chat.message('#streamer', text, tags);
  await settle();
  return test.chat.sent.slice(before).map((line) => line.text);
}

describe('command routing: prefix, names, aliases', () => {
  let test: TestHost;
  beforeAll(async () => {
    test = await start();
  });

  it('answers the command by name and by every alias, without regard to case', async () => {
    for (const text of ['!ping', '!PING', '!p', '!pong', '!PoNg', '  !ping  ']) expect(await say(test, text), text).toEqual(['pong']);
  });

  it('ignores lines without the prefix, a bare prefix, a space after the prefix, and unknown commands', async () => {
    for (const text of ['ping', 'hello !ping', '!', '! ping', '!nope', '!pingpong']) expect(await say(test, text), text).toEqual([]);
  });

  it('ignores the invisible characters chat clients add to repeated lines, and any other', async () => {
    expect(await say(test, '!ping \u{E0000}')).toEqual(['pong']);
    expect(await say(test, '!ping \u034F')).toEqual(['pong']);
    expect(await say(test, '!set width 300 \u034F', moderatorTags())).toEqual(['@Mod_mia width = 300']);
    expect(await say(test, '!set\u200B width\u2060 3\u200C00\u00AD', moderatorTags())).toEqual(['@Mod_mia width = 300']);
  });

  it('runs no command from a /me line', async () => {
    expect(await say(test, '!ping', chatTags('meme', { 'message-type': 'action' }))).toEqual([]);
    expect(await say(test, '!ping', chatTags('meme', { 'message-type': 'chat' }))).toEqual(['pong']);
  });

  it('never routes the bot\'s own lines', async () => {
    const before = test.chat.sent.length;
    test.chat.receive({ type: 'message', channel: '#streamer', text: '!ping', tags: viewerTags('mybot'), self: true });
    await settle();
    expect(test.chat.sent.length).toBe(before);
  });

  it('gives the handler the chatter from the tags', async () => {
    const tags = chatTags('alice', { 'display-name': 'Alice', 'user-id': '12345', id: 'msg-1' });
    expect(await say(test, '!whoami', tags)).toEqual(['12345 alice Alice everyone msg-1']);
  });

  it('a configured prefix replaces "!"', async () => {
    const other = await start('?');
    expect(await say(other, '?ping')).toEqual(['pong']);
    expect(await say(other, '!ping')).toEqual([]);
  });

  it('a prefix of letters matches without regard to case', async () => {
    const other = await start('bot:');
    expect(await say(other, 'BOT:ping')).toEqual(['pong']);
  });

  // Found by command-routing-properties.test.ts: with the prefix "!!", "!\u200B!ping" ran nothing
  // (the host's cheap "could this be a command" test looked for "!!" before invisible characters
  // were taken out).
  it('a prefix of several characters is found with an invisible character inside it', async () => {
    const other = await start('!!');
    expect(await say(other, '!\u200B!ping')).toEqual(['pong']);
    expect(await say(other, 'bot\u2060:ping')).toEqual([]);
    const letters = await start('bot:');
    expect(await say(letters, 'B\u00ADot:ping')).toEqual(['pong']);
  });
});

describe('command routing: replies', () => {
  it('mention the chatter by display name, or by login where the display name is localized (Twitch highlights the login)', async () => {
    const test = await start();
    const mod = (login: string, displayName: string): ChatTags => ({ ...moderatorTags(login), 'display-name': displayName });
    expect(await say(test, '!set a 1', mod('mod_mia', 'Mod_Mia'))).toEqual(['@Mod_Mia a = 1']);
    expect(await say(test, '!set b 2', mod('kenji', '健二'))).toEqual(['@kenji b = 2']);
    // The host's own lines too: a usage line, here.
    expect(await say(test, '!set', mod('kenji', '健二'))).toEqual([expect.stringMatching(/^@kenji key is missing\. Usage: /)]);
  });

  it('a blank reply (spaces, or only invisible characters) is refused as an empty line, not sent as a bare @mention', async () => {
    const test = await start();
    expect(await say(test, '!blank')).toEqual([]);
    expect((globalThis as { blankOutcomes?: unknown }).blankOutcomes).toEqual([
      { status: 'refused', reason: 'empty reply' }, { status: 'refused', reason: 'empty reply' },
      { status: 'refused', reason: 'empty reply' }, { status: 'refused', reason: 'empty reply' },
    ]);
    delete (globalThis as { blankOutcomes?: unknown }).blankOutcomes;
  });
});

describe('command routing: typed arguments and usage', () => {
  let test: TestHost;
  beforeAll(async () => {
    test = await start();
  });

  it('parses string and rest arguments', async () => {
    expect(await say(test, '!set bubble.width 320 px', moderatorTags())).toEqual(['@Mod_mia bubble.width = 320 px']);
  });

  it('parses user and integer arguments, and an optional rest', async () => {
    expect(await say(test, '!give @Bob 5')).toEqual(['bob +5']);
    expect(await say(test, '!give bob 5 for the raid')).toEqual(['bob +5 (for the raid)']);
  });

  it('a missing argument replies the reason and the usage line', async () => {
    expect(await say(test, '!set bubble.width', moderatorTags())).toEqual(['@Mod_mia value is missing. Usage: !set <key> <value...>']);
    expect(await say(test, '!give')).toEqual(['@Viewer_val who is missing. Usage: !give <who> <amount> [note...]']);
  });

  it('a bad argument replies the rule it broke and the usage line', async () => {
    // Viewer_val is one chatter throughout, told a command's usage once per 30 s: each line here is
    // in a window of its own.
    await test.clock.advance(30_000);
    expect(await say(test, '!give bob lots')).toEqual(['@Viewer_val amount must be a whole number from 1 to 100. Usage: !give <who> <amount> [note...]']);
    await test.clock.advance(30_000);
    expect(await say(test, '!give bob 101')).toEqual(['@Viewer_val amount must be a whole number from 1 to 100. Usage: !give <who> <amount> [note...]']);
    await test.clock.advance(30_000);
    expect(await say(test, '!give b-o-b 1')).toEqual(['@Viewer_val who must be a Twitch name. Usage: !give <who> <amount> [note...]']);
  });

  it('extra words are refused with the usage line', async () => {
    expect(await say(test, '!ping now please')).toEqual(['@Viewer_val too many words. Usage: !ping']);
  });

  it('a chatter who keeps getting the arguments wrong is told the usage once per command per 30 s', async () => {
    const own = await start();
    const zed = viewerTags('zed');
    const usage = '@Zed who is missing. Usage: !give <who> <amount> [note...]';
    expect(await say(own, '!give', zed)).toEqual([usage]);
    expect(await say(own, '!give', zed)).toEqual([]);
    expect(await say(own, '!give bob lots', zed)).toEqual([]);
    // Another command, and another chatter, are told all the same.
    expect(await say(own, '!ping now', zed)).toEqual(['@Zed too many words. Usage: !ping']);
    expect(await say(own, '!give', viewerTags('yan'))).toEqual(['@Yan who is missing. Usage: !give <who> <amount> [note...]']);
    // A right line still runs at once.
    expect(await say(own, '!give bob 2', zed)).toEqual(['bob +2']);
    await own.clock.advance(29_999);
    expect(await say(own, '!give', zed)).toEqual([]);
    await own.clock.advance(1);
    expect(await say(own, '!give', zed)).toEqual([usage]);
  });

  it('moderators are told the usage every time', async () => {
    const own = await start();
    const mod = moderatorTags();
    expect(await say(own, '!set bubble.width', mod)).toEqual(['@Mod_mia value is missing. Usage: !set <key> <value...>']);
    expect(await say(own, '!set bubble.width', mod)).toEqual(['@Mod_mia value is missing. Usage: !set <key> <value...>']);
  });

  it('moderators and the broadcaster are told every time even where they do not bypass the cooldown; a VIP who bypasses it is not', async () => {
    const own = await start();
    for (const tags of [moderatorTags(), moderatorTags(), broadcasterTags(), broadcasterTags()]) {
      const name = tags.username === 'streamer' ? 'Streamer' : 'Mod_mia';
      expect(await say(own, '!strictpick x', tags)).toEqual([`@${name} n must be a whole number. Usage: !strictpick <n>`]);
    }
    const vip = vipTags();
    expect(await say(own, '!vippick x', vip)).toEqual([expect.stringContaining('n must be a whole number. Usage: !vippick <n>')]);
    expect(await say(own, '!vippick x', vip)).toEqual([]);
  });
});

describe('command routing: roles from IRC tags (ordered: broadcaster > moderator > vip > subscriber > everyone)', () => {
  let test: TestHost;
  beforeAll(async () => {
    test = await start();
  });

  const chatters: [string, () => ChatTags, string][] = [
    ['broadcaster (badge)', () => broadcasterTags(), 'broadcaster'],
    ['broadcaster (room-id = user-id, no badge)', () => chatTags('streamer', { 'user-id': ROOM_ID }), 'broadcaster'],
    ['moderator (badge + mod flag)', () => moderatorTags(), 'moderator'],
    ['moderator (mod flag only)', () => chatTags('flagmod', { mod: true }), 'moderator'],
    ['vip', () => vipTags(), 'vip'],
    ['subscriber', () => subscriberTags(), 'subscriber'],
    ['founder', () => founderTags(), 'subscriber'],
    ['viewer', () => viewerTags(), 'everyone'],
  ];
  const order = ['everyone', 'subscriber', 'vip', 'moderator', 'broadcaster'];

  for (const [who, tags, role] of chatters) {
    for (const needed of order) {
      const allowed = order.indexOf(role) >= order.indexOf(needed);
      it(`${who} ${allowed ? 'may' : 'may not'} use a ${needed} command${allowed ? '' : ' (ignored, no reply)'}`, async () => {
        const chatter = tags();
        const answer = await say(test, `!only-${needed}`, chatter);
        expect(answer).toEqual(allowed ? [`${needed} ok for ${chatter.username} as ${role}`] : []);
      });
    }
  }

  it('a command below the chatter\'s role logs the refusal at debug level only', async () => {
    await say(test, '!only-moderator', vipTags('quiet_vip'));
    const entry = test.logs.find((line) => line.msg === 'command ignored: role too low' && line.user === 'quiet_vip');
    expect(entry).toMatchObject({ level: 20, role: 'vip', needs: 'moderator', plugin: 'commands' });
  });
});

describe('command routing: cooldowns', () => {
  // Each chatter keeps one user id across their lines.
  const ann = viewerTags('ann');
  const ben = viewerTags('ben');
  const cat = viewerTags('cat');
  it('a global cooldown blocks everyone; one notice per window, then silence; usable again after it', async () => {
    const test = await start();
    expect(await say(test, '!global', ann)).toEqual(['global ran for ann']);
    await test.clock.advance(10_000);
    expect(await say(test, '!global', ben)).toEqual(['@Ben !global is cooling down, try again in 20 s.']);
    expect(await say(test, '!global', cat)).toEqual([]);
    expect(await say(test, '!global', ben)).toEqual([]);
    await test.clock.advance(20_000);
    expect(await say(test, '!global', cat)).toEqual(['global ran for cat']);
    // A new window, a new (single) notice.
    expect(await say(test, '!global', ann)).toEqual(['@Ann !global is cooling down, try again in 30 s.']);
    expect(await say(test, '!global', ann)).toEqual([]);
  });

  it('a per-user cooldown blocks only that chatter, with at most one notice per chatter per window', async () => {
    const test = await start();
    expect(await say(test, '!mine', ann)).toEqual(['mine ran for ann']);
    expect(await say(test, '!mine', ben)).toEqual(['mine ran for ben']);
    expect(await say(test, '!mine', ann)).toEqual(['@Ann !mine is cooling down, try again in 60 s.']);
    for (let index = 0; index < 5; index++) expect(await say(test, '!mine', ann)).toEqual([]);
    expect(await say(test, '!mine', ben)).toEqual(['@Ben !mine is cooling down, try again in 60 s.']);
    await test.clock.advance(60_000);
    expect(await say(test, '!mine', ann)).toEqual(['mine ran for ann']);
  });

  it('the per-user cooldown follows the Twitch user id, not the login', async () => {
    const test = await start();
    expect(await say(test, '!mine', chatTags('old_name', { 'user-id': '777' }))).toEqual(['mine ran for old_name']);
    expect(await say(test, '!mine', chatTags('new_name', { 'user-id': '777' }))).toEqual(['@New_name !mine is cooling down, try again in 60 s.']);
  });

  it('moderators and the broadcaster neither wait for nor start cooldowns', async () => {
    const test = await start();
    expect(await say(test, '!global', ann)).toEqual(['global ran for ann']);
    expect(await say(test, '!global', moderatorTags())).toEqual(['global ran for mod_mia']);
    expect(await say(test, '!global', broadcasterTags())).toEqual(['global ran for streamer']);
    await test.clock.advance(30_000);
    expect(await say(test, '!global', moderatorTags())).toEqual(['global ran for mod_mia']);
    // The moderator's use started nothing: a viewer may use it at once.
    expect(await say(test, '!global', ben)).toEqual(['global ran for ben']);
  });

  it('bypass: "nobody" holds moderators to the cooldown too', async () => {
    const test = await start();
    expect(await say(test, '!strict', moderatorTags())).toEqual(['strict ran for mod_mia']);
    expect(await say(test, '!strict', broadcasterTags())).toEqual(['@Streamer !strict is cooling down, try again in 30 s.']);
  });

  it('a use that fails its arguments starts no cooldown', async () => {
    const test = await start();
    expect(await say(test, '!pick lots', ann)).toEqual(['@Ann n must be a whole number. Usage: !pick <n>']);
    expect(await say(test, '!pick 3', ann)).toEqual(['picked 3']);
    expect(await say(test, '!pick 4', ann)).toEqual(['@Ann !pick is cooling down, try again in 60 s.']);
  });

  it('a use the handler gives back starts no cooldown: the chatter may use the command again at once', async () => {
    const test = await start();
    expect(await say(test, '!peek', ann)).toEqual(['shown']);
    expect(await say(test, '!peek hat', ann)).toEqual(['used hat']);
    expect(await say(test, '!peek cap', ann)).toEqual(['@Ann !peek is cooling down, try again in 60 s.']);
    // A global cooldown is taken back too.
    expect(await say(test, '!gpeek', ann)).toEqual(['shown to ann']);
    expect(await say(test, '!gpeek', ben)).toEqual(['shown to ben']);
  });

  it('a chatter gives a use back once per cooldown length; a second one in that time counts', async () => {
    const test = await start();
    expect(await say(test, '!peek', ann)).toEqual(['shown']);
    expect(await say(test, '!peek', ann)).toEqual(['shown']);
    expect(await say(test, '!peek hat', ann)).toEqual(['@Ann !peek is cooling down, try again in 60 s.']);
    // Another chatter gives theirs back all the same.
    expect(await say(test, '!peek', ben)).toEqual(['shown']);
    expect(await say(test, '!peek hat', ben)).toEqual(['used hat']);
    await test.clock.advance(60_000);
    expect(await say(test, '!peek', ann)).toEqual(['shown']);
    expect(await say(test, '!peek hat', ann)).toEqual(['used hat']);
  });

  it('giving back is nothing for a chatter who bypasses cooldowns', async () => {
    const test = await start();
    expect(await say(test, '!peek', moderatorTags())).toEqual(['shown']);
    expect(await say(test, '!peek', moderatorTags())).toEqual(['shown']);
    expect(await say(test, '!peek', ann)).toEqual(['shown']);
  });

  it('while cooling down, bad arguments get no usage reply either (no spam)', async () => {
    const test = await start();
    expect(await say(test, '!pick 1', ann)).toEqual(['picked 1']);
    expect(await say(test, '!pick x', ann)).toEqual(['@Ann !pick is cooling down, try again in 60 s.']);
    expect(await say(test, '!pick x', ann)).toEqual([]);
  });
});
