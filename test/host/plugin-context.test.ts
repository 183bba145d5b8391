import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RedemptionEvent } from '../../src/sdk.ts';
import { createPluginFolders } from './plugin-folders.ts';
import type { PluginFolders } from './plugin-folders.ts';
import { startTestHost } from './host-fixture.ts';
import type { TestHost } from './host-fixture.ts';
import { viewerTags } from './irc-tags.ts';
import { LEVEL } from './log-capture.ts';
import { settle } from './manual-clock.ts';
import { unusedOverlayClient } from './unused-overlay-client.ts';
import { TWITCH_CHAT_LIMITS } from '../../src/host/chat-transport.ts';

const REWARDS = `import { definePlugin } from SDK;
export default definePlugin({
  name: 'rewards',
  setup(ctx) {
    ctx.onRedemption('hydrate', async (redemption) => {
      await ctx.chat.reply({ channel: redemption.channel, user: redemption.user }, 'drink some water!');
    });
    ctx.onRedemption('maybe', (redemption) => (redemption.input === 'yes' ? 'fulfill' : 'refund'));
    ctx.onRedemption('explode', () => { throw new Error('reward handler broke'); });
    ctx.onRedemption('weird', () => 'sure');
    ctx.onRedemption('told', (redemption) => (redemption.input === 'yes'
      ? { outcome: 'fulfill', reply: 'yours!' }
      : { outcome: 'refund', reply: 'refunded.', replyIfNotRefunded: 'Twitch kept the points.' }));
    ctx.onRedemption('bad-line', () => ({ outcome: 'refund', reply: 42 }));
    ctx.command({ name: 'shout', run: async (call) => {
      const outcome = await ctx.chat.say('elsewhere', 'nobody reads this');
      await call.say('outcome ' + outcome.status);
    } });
    ctx.command({ name: 'overlay', run: async (call) => {
      try { await ctx.overlay.getTemplate(); } catch (error) { await call.say(String(error.message)); }
    } });
    ctx.command({ name: 'about', run: (call) => { void call.say([ctx.name, ctx.channel, typeof ctx.logger.info].join(' ')); } });
  },
});`;

// Lines a plugin gets wrong, as one run without a type check may: each outcome is said back in chat.
const SLOPPY = `import { definePlugin } from SDK;
export default definePlugin({
  name: 'sloppy',
  setup(ctx) {
    const tell = (call, outcome) => call.say(outcome.status + ': ' + (outcome.reason ?? outcome.parts));
    ctx.command({ name: 'noreply', run: async (call) => { await tell(call, await call.reply(undefined)); } });
    ctx.command({ name: 'nosay', run: async (call) => { await tell(call, await ctx.chat.say(call.channel, { text: 'hi' })); } });
    ctx.command({ name: 'nochannel', run: async (call) => { await tell(call, await ctx.chat.say(undefined, 'hi')); } });
    ctx.command({ name: 'notarget', run: async (call) => { await tell(call, await ctx.chat.reply('streamer', 'hi')); } });
    ctx.command({ name: 'blank', run: async (call) => { await tell(call, await ctx.chat.say(call.channel, ' ')); } });
    ctx.command({ name: 'huge', run: async (call) => { await tell(call, await call.reply('word '.repeat(2000))); } });
  },
});`;

// A plugin that says far too much at once, and one that answers a chatter in the same channel.
const CHATTY = `import { definePlugin } from SDK;
export default definePlugin({
  name: 'chatty',
  setup(ctx) {
    ctx.command({ name: 'flood', run: async () => {
      const outcomes = await Promise.all(Array.from({ length: 100 }, (_, i) => ctx.chat.say(ctx.channel, 'spam ' + i)));
      globalThis.chattyOutcomes = outcomes.map((outcome) => outcome.status);
    } });
  },
});`;
const POLITE = `import { definePlugin } from SDK;
export default definePlugin({
  name: 'polite',
  setup(ctx) { ctx.command({ name: 'hi', run: async (call) => { globalThis.politeOutcome = await call.reply('hello'); } }); },
});`;

const OTHER = `import { definePlugin } from SDK;
export default definePlugin({ name: 'other', setup(ctx) { ctx.onRedemption('hydrate', () => {}); } });`;

let folders: PluginFolders;
let test: TestHost;
beforeAll(async () => {
  folders = createPluginFolders();
  folders.add('rewards', REWARDS);
  folders.add('other', OTHER);
  folders.add('sloppy', SLOPPY);
  folders.add('chatty', CHATTY);
  folders.add('polite', POLITE);
  test = await startTestHost({ config: { pluginDirs: [folders.dir], plugins: { rewards: {}, other: {}, sloppy: {} } }, overlayClient: unusedOverlayClient() });
});
afterAll(() => {
  folders.remove();
});

function redemption(rewardKey: string, input = ''): RedemptionEvent {
  return { id: `r-${rewardKey}-${input}`, rewardKey, channel: 'streamer', user: { id: '99', login: 'vera', displayName: 'Vera' }, input };
}

describe('redemption handlers', () => {
  it('a handler that returns nothing fulfils; it can chat', async () => {
    expect(await test.host.handleRedemption(redemption('hydrate'))).toMatchObject({ outcome: 'fulfill', plugin: 'rewards' });
    expect(test.said()).toContain('@Vera drink some water!');
  });

  it('a handler may refund', async () => {
    expect(await test.host.handleRedemption(redemption('maybe', 'yes'))).toMatchObject({ outcome: 'fulfill', plugin: 'rewards' });
    expect(await test.host.handleRedemption(redemption('maybe', 'no'))).toMatchObject({ outcome: 'refund', plugin: 'rewards' });
  });

  it('a throwing handler refunds and is logged with the plugin and reward', async () => {
    expect(await test.host.handleRedemption(redemption('explode'))).toMatchObject({ outcome: 'refund', plugin: 'rewards' });
    expect(test.logs.find((entry) => entry.level === LEVEL.error && entry.rewardKey === 'explode')).toMatchObject({ plugin: 'rewards', redemption: 'r-explode-' });
  });

  it('a handler returning something else refunds, logged', async () => {
    expect(await test.host.handleRedemption(redemption('weird'))).toMatchObject({ outcome: 'refund', plugin: 'rewards' });
    expect(test.logs.find((entry) => entry.level === LEVEL.error && entry.rewardKey === 'weird')?.returned).toBe('sure');
  });

  it('a handler\'s reply is said only once the status is settled, the line for how it settled, once', async () => {
    const before = test.said().length;
    const fulfilled = await test.host.handleRedemption(redemption('told', 'yes'));
    const refunded = await test.host.handleRedemption(redemption('told', 'no'));
    const kept = await test.host.handleRedemption(redemption('told', 'kept'));
    expect([fulfilled.outcome, refunded.outcome, kept.outcome]).toEqual(['fulfill', 'refund', 'refund']);
    await settle();
    expect(test.said().slice(before)).toEqual([]);
    if (fulfilled.outcome === 'unhandled' || refunded.outcome === 'unhandled' || kept.outcome === 'unhandled') throw new Error('handled');
    await fulfilled.afterStatus?.('as-asked');
    await refunded.afterStatus?.('as-asked');
    await kept.afterStatus?.('refund-not-given');
    await kept.afterStatus?.('refund-not-given');
    await refunded.afterStatus?.('as-asked');
    await settle();
    expect(test.said().slice(before)).toEqual(['@Vera yours!', '@Vera refunded.', '@Vera Twitch kept the points.']);
  });

  it('a reply that is not a string is not said, logged; the outcome stands', async () => {
    const before = test.said().length;
    const result = await test.host.handleRedemption(redemption('bad-line'));
    expect(result).toMatchObject({ outcome: 'refund', plugin: 'rewards' });
    if (result.outcome !== 'unhandled') await result.afterStatus?.('as-asked');
    await settle();
    expect(test.said().slice(before)).toEqual([]);
    expect(test.logs.find((entry) => entry.level === LEVEL.error && entry.rewardKey === 'bad-line')).toMatchObject({ field: 'reply' });
  });

  it('an unknown reward key is unhandled, with a warning', async () => {
    expect(await test.host.handleRedemption(redemption('nobody'))).toEqual({ outcome: 'unhandled' });
    expect(test.logs.some((entry) => entry.level === LEVEL.warn && entry.rewardKey === 'nobody')).toBe(true);
  });

  it('a reward key already handled fails the second plugin', () => {
    expect(test.host.plugins.find((plugin) => plugin.name === 'other')).toMatchObject({
      state: 'failed', error: 'reward "hydrate" is already handled by plugin rewards',
    });
  });
});

describe('plugin context', () => {
  async function ask(text: string): Promise<string[]> {
    const before = test.chat.sent.length;
    test.chat.message('#streamer', text, viewerTags());
    await settle();
    return test.chat.sent.slice(before).map((line) => line.text);
  }

  it('chat.say to a channel no chat serves is refused (and logged), not lost silently', async () => {
    expect(await ask('!shout')).toEqual(['outcome refused']);
    expect(test.logs.some((entry) => entry.level === LEVEL.warn && entry.channel === 'elsewhere')).toBe(true);
  });

  it('gives the overlay client the host was created with', async () => {
    expect(await ask('!overlay')).toEqual(['overlay client getTemplate is not used in this test']);
  });

  it('gives the plugin its name, the host\'s channel and a logger', async () => {
    expect(await ask('!about')).toEqual(['rewards streamer function']);
  });

  it('a line that is no text, to no channel or no target, is refused with a reason in the plugin\'s terms, never said as "undefined"', async () => {
    expect(await ask('!noreply')).toEqual(['refused: the text to send must be a string (got undefined)']);
    expect(await ask('!nosay')).toEqual(['refused: the text to send must be a string (got an object)']);
    expect(await ask('!nochannel')).toEqual(['refused: the channel must be a channel\'s login (got undefined)']);
    expect(await ask('!notarget')).toEqual(['refused: ctx.chat.reply needs a command invocation, or { channel, user: { displayName } }, to reply to']);
    expect(await ask('!blank')).toEqual(['refused: empty reply']);
  });

  it('warnings about a plugin\'s lines (refused, cut short) name the plugin, and the command they answer', async () => {
    const from = (command: string) => test.logs.filter((entry) => entry.level === LEVEL.warn && entry.plugin === 'sloppy' && entry.command === command)
      .map((entry) => entry.msg);
    await ask('!noreply');
    expect(from('noreply')).toContain('reply refused: the text to send must be a string (got undefined)');
    await ask('!blank');
    expect(test.logs.filter((entry) => entry.level === LEVEL.warn && entry.plugin === 'sloppy' && entry.msg === 'reply refused: it is empty')).not.toEqual([]);
    expect(await ask('!huge')).toHaveLength(5);
    expect(from('huge')).toContain('reply too long: only its first parts are sent');
  });
});

describe('one plugin that says too much', () => {
  it('cannot take the whole reply queue of a channel: beyond its share its lines are refused, naming it, and the other plugin\'s reply goes out', async () => {
    const g = globalThis as { chattyOutcomes?: string[]; politeOutcome?: unknown };
    const paced = await startTestHost({ config: { pluginDirs: [folders.dir], plugins: { chatty: {}, polite: {} } }, limits: TWITCH_CHAT_LIMITS });
    paced.chat.message('#streamer', '!flood', viewerTags('ann'));
    await settle();
    paced.chat.message('#streamer', '!hi', viewerTags('bob'));
    await paced.clock.advance(180_000);
    expect(g.politeOutcome).toEqual({ status: 'sent', parts: 1 });
    expect(paced.said()).toContain('@Bob hello');
    // One line went out at once, 45 waited (the queue's 50 less the 5 kept for the others); the other 54 were refused.
    expect(g.chattyOutcomes!.filter((status) => status === 'sent')).toHaveLength(46);
    expect(g.chattyOutcomes!.filter((status) => status === 'refused')).toHaveLength(54);
    expect(paced.logs.find((entry) => entry.level === LEVEL.warn && entry.plugin === 'chatty')).toMatchObject({
      queued: 45, msg: "reply refused: plugin chatty already has 45 lines waiting in #streamer, its share of the channel's queue of 50",
    });
    await paced.host.stop();
    delete g.chattyOutcomes;
    delete g.politeOutcome;
  });
});

describe('ctx.overlay, shared by every plugin', () => {
  it('cannot be changed by one plugin under another: assigning or deleting a method throws, saying why', async () => {
    const more = createPluginFolders();
    try {
      more.add('patcher', `import { definePlugin } from SDK;
export default definePlugin({ name: 'patcher', setup(ctx) {
  const tried = [
    () => { ctx.overlay.getTemplate = async () => 'patched'; },
    () => { delete ctx.overlay.listSkins; },
    () => { Object.defineProperty(ctx.overlay, 'pickSkin', { value: async () => 'patched' }); },
  ];
  for (const attempt of tried) {
    try { attempt(); } catch (error) { ctx.logger.info({ refused: error.message }, 'refused'); }
  }
} });`);
      more.add('victim', `import { definePlugin } from SDK;
export default definePlugin({ name: 'victim', setup(ctx) {
  ctx.command({ name: 'template', run: async (call) => {
    const got = await ctx.overlay.getTemplate().catch((error) => error.message);
    await call.say(String(got) + ' / ' + typeof ctx.overlay.listSkins + ' / ' + typeof ctx.overlay.pickSkin);
  } });
} });`);
      const shared = await startTestHost({ config: { pluginDirs: [more.dir], plugins: { patcher: {}, victim: {} } }, overlayClient: unusedOverlayClient() });
      shared.chat.message('#streamer', '!template', viewerTags());
      await settle();
      expect(shared.said()).toEqual(['overlay client getTemplate is not used in this test / function / function']);
      expect(shared.logs.filter((entry) => entry.msg === 'refused').map((entry) => entry.refused)).toEqual([
        'ctx.overlay is shared with the other plugins and cannot be changed (getTemplate): wrap it in an object of your own',
        'ctx.overlay is shared with the other plugins and cannot be changed (listSkins): wrap it in an object of your own',
        'ctx.overlay is shared with the other plugins and cannot be changed (pickSkin): wrap it in an object of your own',
      ]);
    } finally {
      more.remove();
    }
  });
});
