import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { writeFileSync } from 'node:fs';
import { loadConfig } from '../../src/config/load-config.ts';
import { BUILT_IN_PLUGIN_DIR, parsePluginSettings } from '../../src/host/plugin-loader.ts';
import { definePlugin, z } from '../../src/sdk.ts';
import type { PluginContext } from '../../src/sdk.ts';
import { createPluginFolders } from './plugin-folders.ts';
import type { PluginFolders } from './plugin-folders.ts';
import { startTestHost } from './host-fixture.ts';
import { viewerTags } from './irc-tags.ts';
import { LEVEL } from './log-capture.ts';
import { ManualClock, settle } from './manual-clock.ts';

let folders: PluginFolders;
beforeEach(() => {
  folders = createPluginFolders();
});
afterEach(() => {
  folders.remove();
});

/** A plugin answering `!<command>` with `<answer>`. */
function answering(name: string, command: string, answer: string): string {
  return `import { definePlugin } from SDK;
export default definePlugin({
  name: '${name}',
  setup(ctx) {
    ctx.command({ name: '${command}', run: (call) => { void call.reply('${answer}'); } });
  },
});`;
}

function errorOf(run: () => unknown): Error {
  try {
    run();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected an error');
}

async function hostWith(plugins: Record<string, unknown>, extra: Record<string, unknown> = {}, options = {}) {
  return startTestHost({ config: { pluginDirs: [folders.dir], plugins, ...extra }, ...options });
}

async function ask(test: Awaited<ReturnType<typeof hostWith>>, text: string, login = 'viewer_val'): Promise<string[]> {
  const before = test.chat.sent.length;
  test.chat.message('#streamer', text, viewerTags(login));
  await settle();
  return test.chat.sent.slice(before).map((line) => line.text);
}

describe('plugin loading', () => {
  it('loads an enabled plugin from a plugin folder; it answers its command', async () => {
    folders.add('hello', answering('hello', 'hi', 'hello there'));
    const test = await hostWith({ hello: {} });
    expect(test.host.plugins).toEqual([{ name: 'hello', state: 'running', commands: ['hi'], rewards: [] }]);
    expect(await ask(test, '!hi')).toEqual(['@Viewer_val hello there']);
    expect(test.logs.find((entry) => entry.msg === 'plugin started')).toMatchObject({ plugin: 'hello', commands: ['hi'] });
  });

  it('does not load a plugin that is absent from the config or has enabled: false', async () => {
    folders.add('hello', answering('hello', 'hi', 'x'));
    folders.add('other', answering('other', 'other', 'x'));
    const test = await hostWith({ hello: { enabled: false } });
    expect(test.host.plugins).toEqual([]);
    expect(await ask(test, '!hi')).toEqual([]);
  });

  it('validates the settings with the plugin\'s schema and hands the parsed values (defaults filled) to setup', async () => {
    folders.add('greeter', `import { definePlugin, z } from SDK;
export default definePlugin({
  name: 'greeter',
  config: z.object({ greeting: z.string().min(1), times: z.number().int().min(1).default(2) }),
  setup(ctx) {
    ctx.command({ name: 'greet', run: (call) => { void call.say(\`\${ctx.config.greeting} x\${ctx.config.times}\`); } });
  },
});`);
    const test = await hostWith({ greeter: { greeting: 'Howdy' } });
    expect(await ask(test, '!greet')).toEqual(['Howdy x2']);
  });

  it('a plugin with bad settings fails alone, with an error naming the plugin and the path; the others run', async () => {
    folders.add('greeter', `import { definePlugin, z } from SDK;
export default definePlugin({
  name: 'greeter',
  config: z.object({ greeting: z.string(), times: z.number().int().min(1) }),
  setup(ctx) { ctx.command({ name: 'greet', run: () => {} }); },
});`);
    folders.add('hello', answering('hello', 'hi', 'still here'));
    const test = await hostWith({ greeter: { greeting: 'Hi', times: 0 }, hello: {} });
    const greeter = test.host.plugins.find((plugin) => plugin.name === 'greeter')!;
    expect(greeter.state).toBe('failed');
    expect(greeter.error).toBe('invalid settings: plugins.greeter.times: must be at least 1 (got 0)');
    const logged = test.logs.find((entry) => entry.level === LEVEL.error && entry.plugin === 'greeter');
    expect(logged?.msg).toContain('plugin greeter failed to start');
    expect(logged?.msg).toContain('plugins.greeter.times');
    expect(await ask(test, '!greet')).toEqual([]);
    expect(await ask(test, '!hi')).toEqual(['@Viewer_val still here']);
  });

  it('settings of the wrong kind are worded in the file\'s terms, never as zod\'s type names', async () => {
    // The audit's case, on the real style plugin: `themes.neon` must be a mapping of setting -> value.
    const test = await hostWith({ style: { themes: { neon: 5 } } }, {}, { builtInPluginDir: BUILT_IN_PLUGIN_DIR });
    expect(test.host.plugins[0]).toMatchObject({
      name: 'style', state: 'failed',
      error: 'invalid settings: plugins.style.themes.neon: must be a mapping of names to text, numbers, true/false or null (got 5)',
    });
    folders.add('shaped', `import { definePlugin, z } from SDK;
export default definePlugin({
  name: 'shaped',
  config: z.strictObject({
    limits: z.record(z.string(), z.number().int()),
    box: z.object({ width: z.number() }),
    mode: z.union([z.literal('fast'), z.literal('slow')]),
    tags: z.array(z.string()).max(2),
  }),
  setup() {},
});`);
    const shaped = await hostWith({ shaped: { limits: [1], box: 'wide', mode: 'medium', tags: ['a', 'b', 'c'] } });
    expect(shaped.host.plugins[0]!.error).toBe('invalid settings: '
      + 'plugins.shaped.limits: must be a mapping of names to whole numbers (got a list); '
      + 'plugins.shaped.box: must be a mapping (indented "key: value" lines) (got "wide"); '
      + 'plugins.shaped.mode: must be "fast" or "slow" (got "medium"); '
      + 'plugins.shaped.tags: must list at most 2 items (got a list)');
  });

  it('a setting whose value came from ${ENV} is never quoted back in the plugin\'s errors; one written in the file is', () => {
    const secret = 'hof5gwx0su6owfnys0nyan9c87zr6t';
    const file = join(folders.dir, 'config.yaml');
    writeFileSync(file, 'plugins:\n  notifier:\n    webhook: "${NOTIFY_URL}"\n    retries: "${NOTIFY_RETRIES}"\n    channel: "x"\n');
    const config = loadConfig(file, { NOTIFY_URL: secret, NOTIFY_RETRIES: '3' });
    const definition = definePlugin({
      name: 'notifier',
      config: z.object({ webhook: z.url(), retries: z.number().int(), channel: z.string().min(2) }),
      setup() {},
    });
    const error = errorOf(() => parsePluginSettings('notifier', definition, config.plugins.notifier!));
    expect(error.message).not.toContain(secret);
    expect(error.message).toBe('invalid settings: '
      + 'plugins.notifier.webhook: must be a URL such as https://example.com (its value, from the environment, is not repeated here); '
      + 'plugins.notifier.retries: must be a number (its value, from the environment, is not repeated here; a ${NAME} reference gives text, so write this value in the file); '
      + 'plugins.notifier.channel: must be at least 2 characters long (got "x")');
  });

  it('an unknown key among a plugin\'s settings names enabled among the keys allowed: a typo of it is caught as one', () => {
    // skins takes no settings of its own: the message once said only `unknown key "enabeld"`, allowing nothing.
    const definition = definePlugin({ name: 'skins', config: z.strictObject({}), setup() {} });
    expect(() => parsePluginSettings('skins', definition, { settings: { enabeld: false } }))
      .toThrow('invalid settings: plugins.skins: unknown key "enabeld" (did you mean "enabled"?); allowed keys: enabled');
    // A key deeper down is the plugin's alone.
    const nested = definePlugin({ name: 'shop', config: z.strictObject({ messages: z.strictObject({ unlocked: z.string() }) }), setup() {} });
    expect(() => parsePluginSettings('shop', nested, { settings: { messages: { unlocked: 'x', enabled: true } } }))
      .toThrow('invalid settings: plugins.shop.messages: unknown key "enabled"; allowed keys: unlocked');
  });

  it('a __proto__ key among a plugin\'s settings reaches its schema as a key, refused as unknown, never dropped unseen', () => {
    const file = join(folders.dir, 'config.yaml');
    writeFileSync(file, 'plugins:\n  shop:\n    __proto__: { attempts: 9 }\n');
    const config = loadConfig(file, {});
    expect(Object.getPrototypeOf(config.plugins.shop!.settings)).toBe(Object.prototype);
    const definition = definePlugin({ name: 'shop', config: z.strictObject({ attempts: z.number().default(3) }), setup() {} });
    expect(() => parsePluginSettings('shop', definition, config.plugins.shop!))
      .toThrow('invalid settings: plugins.shop: unknown key "__proto__"; allowed keys: enabled, attempts');
  });

  it('a plugin\'s error lists its first 10 problems, then how many more', () => {
    // 200 bad values once made one line of every problem.
    const definition = definePlugin({ name: 'many', config: z.strictObject({ values: z.array(z.number()) }), setup() {} });
    const error = errorOf(() => parsePluginSettings('many', definition, { settings: { values: Array.from({ length: 200 }, () => 'x') } }));
    expect(error.message.split('; ')).toHaveLength(11);
    expect(error.message).toMatch(/^invalid settings: plugins\.many\.values\[0\]: must be a number \(got "x"\); .*plugins\.many\.values\[9\]: [^;]*; \(and 190 more\)$/);
  });

  it('a plugin without a schema refuses settings', async () => {
    folders.add('hello', answering('hello', 'hi', 'x'));
    const test = await hostWith({ hello: { colour: 'red' } });
    expect(test.host.plugins[0]).toMatchObject({ state: 'failed', error: 'takes no settings, but the config gives plugins.hello.colour' });
  });

  it('a plugin throwing in setup fails alone; what it registered before throwing is withdrawn', async () => {
    folders.add('broken', `import { definePlugin } from SDK;
export default definePlugin({
  name: 'broken',
  setup(ctx) {
    ctx.command({ name: 'half', run: (call) => { void call.say('should not answer'); } });
    ctx.onRedemption('broken-reward', () => {});
    throw new Error('cannot reach the database');
  },
});`);
    folders.add('hello', answering('hello', 'hi', 'fine'));
    const test = await hostWith({ broken: {}, hello: {} });
    expect(test.host.plugins.find((plugin) => plugin.name === 'broken')).toEqual({
      name: 'broken', state: 'failed', error: 'cannot reach the database', commands: [], rewards: [],
    });
    expect(test.logs.find((entry) => entry.level === LEVEL.error && entry.plugin === 'broken')).toBeDefined();
    expect(await ask(test, '!half')).toEqual([]);
    expect(await test.host.handleRedemption({ id: 'r1', rewardKey: 'broken-reward', channel: 'streamer', user: { id: '1', login: 'a', displayName: 'A' }, input: '' }))
      .toEqual({ outcome: 'unhandled' });
    expect(await ask(test, '!hi')).toEqual(['@Viewer_val fine']);
  });

  it('a setup or module that throws an object String() cannot convert fails that plugin alone, said by its fields', async () => {
    folders.add('bare', `import { definePlugin } from SDK;
export default definePlugin({ name: 'bare', setup() { throw Object.assign(Object.create(null), { why: 'no prototype' }); } });`);
    folders.add('bareatload', `import { definePlugin } from SDK;
throw Object.create(null);
export default definePlugin({ name: 'bareatload', setup() {} });`);
    folders.add('loop', `import { definePlugin } from SDK;
export default definePlugin({ name: 'loop', async setup() { const thrown = { why: 'circular' }; thrown.self = thrown; throw thrown; } });`);
    folders.add('hello', answering('hello', 'hi', 'still up'));
    const test = await hostWith({ bare: {}, bareatload: {}, loop: {}, hello: {} });
    const errors = Object.fromEntries(test.host.plugins.map((plugin) => [plugin.name, plugin.error]));
    expect(errors.bare).toBe("[Object: null prototype] { why: 'no prototype' } was thrown (not an Error)");
    expect(errors.bareatload).toMatch(/bareatload\/index\.ts could not be loaded: \[Object: null prototype\] \{\} was thrown \(not an Error\)$/);
    expect(errors.loop).toBe("<ref *1> { why: 'circular', self: [Circular *1] } was thrown (not an Error)");
    expect(test.logs.find((entry) => entry.level === LEVEL.error && entry.plugin === 'bare')?.msg)
      .toBe("plugin bare failed to start and is disabled: [Object: null prototype] { why: 'no prototype' } was thrown (not an Error)");
    expect(await ask(test, '!hi')).toEqual(['@Viewer_val still up']);
  });

  it('a plugin whose async setup rejects fails alone', async () => {
    folders.add('slowfail', `import { definePlugin } from SDK;
export default definePlugin({ name: 'slowfail', async setup() { await Promise.resolve(); throw new Error('later'); } });`);
    const test = await hostWith({ slowfail: {} });
    expect(test.host.plugins[0]).toMatchObject({ state: 'failed', error: 'later' });
  });

  it('registers during setup (after an await too); once setup has finished, a registration is ignored with an error naming the plugin, after stop too', async () => {
    folders.add('later', `import { definePlugin } from SDK;
export default definePlugin({
  name: 'later',
  async setup(ctx) {
    await Promise.resolve();
    ctx.command({ name: 'early', run: (call) => { void call.say('early works'); } });
    ctx.command({ name: 'more', run: async (call) => {
      try { ctx.command({ name: 'extra', run: () => {} }); await call.say('registered'); }
      catch (error) { await call.say(error.message); }
    } });
    globalThis.laterPluginContext = ctx;
  },
});`);
    const test = await hostWith({ later: {} });
    expect(test.host.plugins[0]).toMatchObject({ state: 'running', commands: ['early', 'more'] });
    expect(await ask(test, '!early')).toEqual(['early works']);
    // Logged, not thrown: thrown from a timer callback, it would stop chatskin.
    expect(await ask(test, '!more')).toEqual(['registered']);
    expect(await ask(test, '!extra')).toEqual([]);
    expect(test.host.plugins[0]!.commands).toEqual(['early', 'more']);
    const held = globalThis as { laterPluginContext?: PluginContext };
    await test.host.stop();
    held.laterPluginContext!.onRedemption('late-reward', () => {});
    delete held.laterPluginContext;
    expect(test.logs.filter((entry) => entry.level === LEVEL.error && entry.plugin === 'later').map((entry) => entry.msg)).toEqual([
      'plugin later registered command "extra" after its setup had finished: ignored; '
        + 'register commands and redemption handlers in setup, before it returns (or its promise settles)',
      'plugin later registered a handler of reward "late-reward" after its setup had finished: ignored; '
        + 'register commands and redemption handlers in setup, before it returns (or its promise settles)',
    ]);
    expect(await test.host.handleRedemption({ id: 'r1', rewardKey: 'late-reward', channel: 'streamer', user: { id: '1', login: 'a', displayName: 'A' }, input: '' }))
      .toEqual({ outcome: 'unhandled' });
  });

  it('a setup that never finishes is failed after the timeout, and cannot register afterwards (logged, not thrown)', async () => {
    // The context is handed over on globalThis: importing the module here as well could give a
    // second instance of it while the host's import is still under way.
    folders.add('stuck', `import { definePlugin } from SDK;
export default definePlugin({ name: 'stuck', setup(ctx) { globalThis.stuckPluginContext = ctx; return new Promise(() => {}); } });`);
    folders.add('hello', answering('hello', 'hi', 'after'));
    const clock = new ManualClock();
    const starting = hostWith({ stuck: {}, hello: {} }, {}, { setupTimeoutMs: 5_000, clock });
    // Loading and setup share one deadline; wait until setup was called before it passes.
    const held = globalThis as { stuckPluginContext?: PluginContext };
    await vi.waitFor(() => expect(held.stuckPluginContext).toBeDefined(), { timeout: 5_000 });
    expect(clock.pendingTimers).toBe(1);
    await clock.advance(5_000);
    const test = await starting;
    expect(test.host.plugins[0]).toMatchObject({ name: 'stuck', state: 'failed', error: 'setup did not finish within 5000 ms' });
    expect(test.host.plugins[1]).toMatchObject({ name: 'hello', state: 'running' });
    // Logged and ignored, not thrown: from a timer a throw would stop chatskin.
    expect(() => held.stuckPluginContext!.command({ name: 'late', run: () => {} })).not.toThrow();
    delete held.stuckPluginContext;
    expect(test.logs.filter((entry) => entry.level === LEVEL.error && entry.plugin === 'stuck').map((entry) => entry.msg))
      .toContain('plugin stuck registered command "late" after it failed to start: ignored');
    expect(await ask(test, '!late')).toEqual([]);
    expect(await ask(test, '!hi')).toEqual(['@Viewer_val after']);
  });

  it('a setup that finishes after its timeout was left out: it may no longer chat or use the overlay, and its teardown runs at once', async () => {
    // The setup waits for a signal handed over on globalThis, then tries to act and returns a teardown.
    folders.add('late', `import { definePlugin } from SDK;
export default definePlugin({ name: 'late', async setup(ctx) {
  const state = globalThis.latePlugin;
  state.started = true;
  await new Promise((resolve) => { state.finish = resolve; });
  state.said = await ctx.chat.say('streamer', 'still here');
  state.overlay = await ctx.overlay.getTemplate().then(() => 'used', (error) => error.message);
  return () => { state.tornDown = true; };
} });`);
    const state: { started?: boolean; finish?: () => void; said?: unknown; overlay?: string; tornDown?: boolean } = {};
    (globalThis as { latePlugin?: typeof state }).latePlugin = state;
    const clock = new ManualClock();
    const starting = hostWith({ late: {} }, {}, { setupTimeoutMs: 5_000, clock });
    await vi.waitFor(() => expect(state.started).toBe(true), { timeout: 5_000 });
    await clock.advance(5_000);
    const test = await starting;
    expect(test.host.plugins[0]).toMatchObject({ name: 'late', state: 'failed', error: 'setup did not finish within 5000 ms' });

    state.finish!();
    await vi.waitFor(() => expect(state.tornDown).toBe(true), { timeout: 5_000 });
    expect(state.said).toEqual({ status: 'refused', reason: 'plugin late is off' });
    expect(state.overlay).toBe('plugin late is off: it may no longer use the overlay service');
    expect(test.said()).toEqual([]);
    expect(test.logs.some((entry) => entry.plugin === 'late' && entry.msg === 'plugin late finished its setup after it was left out: its teardown ran')).toBe(true);
    delete (globalThis as { latePlugin?: typeof state }).latePlugin;
  });

  it('a handler that throws costs one short reply and a log line naming the plugin; the host and other plugins keep serving', async () => {
    folders.add('flaky', `import { definePlugin } from SDK;
export default definePlugin({
  name: 'flaky',
  setup(ctx) {
    ctx.command({ name: 'boom', run: () => { throw new Error('kaboom'); } });
    ctx.command({ name: 'later', run: async () => { await Promise.resolve(); throw new Error('async kaboom'); } });
    ctx.command({ name: 'nothing', run: async () => { throw undefined; } });
    ctx.command({ name: 'bare', run: () => { throw Object.create(null); } });
    ctx.command({ name: 'ok', run: (call) => { void call.say('flaky still works'); } });
    ctx.onRedemption('nothing', async () => { throw undefined; });
  },
});`);
    folders.add('hello', answering('hello', 'hi', 'hello'));
    const test = await hostWith({ flaky: {}, hello: {} });
    expect(await ask(test, '!boom')).toEqual(['@Viewer_val sorry, !boom failed.']);
    expect(await ask(test, '!later')).toEqual(['@Viewer_val sorry, !later failed.']);
    expect(await ask(test, '!nothing')).toEqual(['@Viewer_val sorry, !nothing failed.']);
    expect(await ask(test, '!bare')).toEqual(['@Viewer_val sorry, !bare failed.']);
    expect(await test.host.handleRedemption({ id: 'r1', rewardKey: 'nothing', channel: 'streamer', user: { id: '1', login: 'a', displayName: 'A' }, input: '' }))
      .toEqual({ outcome: 'refund', plugin: 'flaky' });
    // What was thrown is in the line itself: a thrown undefined leaves no err field to read it from.
    const failures = test.logs.filter((entry) => entry.level === LEVEL.error && entry.plugin === 'flaky');
    expect(failures.map((entry) => [entry.command ?? entry.rewardKey, entry.msg])).toEqual([
      ['boom', 'command handler failed: kaboom'],
      ['later', 'command handler failed: async kaboom'],
      ['nothing', 'command handler failed: undefined was thrown (not an Error)'],
      ['bare', 'command handler failed: [Object: null prototype] {} was thrown (not an Error)'],
      ['nothing', 'redemption handler failed: undefined was thrown (not an Error); refunding'],
    ]);
    expect((failures[0]!.err as { message: string }).message).toBe('kaboom');
    expect(await ask(test, '!hi')).toEqual(['@Viewer_val hello']);
    expect(await ask(test, '!ok')).toEqual(['flaky still works']);
  });

  describe('a redemption handler that never settles', () => {
    /** A host whose plugin's handler of reward "forever" has been called and never settles. */
    const withStuckHandler = async () => {
      folders.add('stuck', `import { definePlugin } from SDK;
export default definePlugin({ name: 'stuck', setup(ctx) { ctx.onRedemption('forever', () => new Promise(() => {})); } });`);
      const test = await hostWith({ stuck: {} });
      void test.host.handleRedemption({ id: 'r1', rewardKey: 'forever', channel: 'streamer', user: { id: '1', login: 'a', displayName: 'A' }, input: '' });
      return test;
    };

    it('is logged once with its plugin\'s name after 30 s', async () => {
      const test = await withStuckHandler();
      await test.clock.advance(29_999);
      const warned = () => test.logs.filter((entry) => entry.level === LEVEL.warn && entry.plugin === 'stuck');
      expect(warned()).toEqual([]);
      await test.clock.advance(60_000);
      expect(warned()).toEqual([expect.objectContaining({
        rewardKey: 'forever', redemption: 'r1',
        msg: 'plugin stuck\'s handler of reward forever has not finished after 30 s: the redemption stays unfulfilled until it does',
      })]);
    });

    it('leaves no timer once the host has stopped', async () => {
      const test = await withStuckHandler();
      await settle();
      await test.host.stop();
      expect(test.clock.pendingTimers).toBe(0);
    });
  });

  it('a command definition a type check would have caught is refused, saying what to write, not ignored', async () => {
    // Plugins run by type stripping, without a type check: each mistake below passed silently
    // (no alias, no cooldown, a required argument) or failed with the host's own internals.
    folders.add('careless', `import { definePlugin } from SDK;
const tried = [
  { name: 'a', alias: ['b'] },
  { name: 'c', aliases: 'd' },
  { name: 'e', cooldown: 10 },
  { name: 'f', cooldown: { users: 10 } },
  { name: 'g', args: [{ name: 'n', type: 'integer', optinal: true }] },
  { name: 'h', args: [{ name: 'n', type: 'integer', optional: 'yes' }] },
  { name: 'i', permission: 'moderator' },
  { name: 'café' },
  { name: '!roll' },
  { name: 'j', aliases: ['サイコロ'] },
];
export default definePlugin({
  name: 'careless',
  setup(ctx) {
    for (const definition of tried) {
      try { ctx.command({ run: () => {}, ...definition }); } catch (error) { ctx.logger.info({ refused: error.message }, 'refused'); }
    }
    ctx.command({ name: 'fine', aliases: ['ok'], description: 'works', args: [{ name: 'n', type: 'integer', optional: true, min: 1 }], role: 'everyone', cooldown: { global: 1, user: 2, bypass: 'nobody' }, run: () => {} });
  },
});`);
    const test = await hostWith({ careless: {} });
    expect(test.host.plugins[0]).toMatchObject({ state: 'running', commands: ['fine'] });
    expect(test.logs.filter((entry) => entry.msg === 'refused').map((entry) => entry.refused)).toEqual([
      'command a: unknown field "alias" (did you mean "aliases"?)',
      "command c: aliases must be a list of names (aliases: ['d'])",
      'command e: cooldown must be { global, user, bypass }, in seconds (cooldown: { global: 10 } or { user: 10 })',
      'command f: cooldown: unknown field "users" (did you mean "user"?)',
      'command g: argument 1 (n): unknown field "optinal" (did you mean "optional"?)',
      'command h: argument 1 (n): optional must be true or false',
      'command i: unknown field "permission" (the fields are name, aliases, description, args, role, cooldown, run)',
      'command name "café" must be 1 to 32 of a-z (either case), 0-9, - and _, starting with a letter or digit; "é" is not one of them',
      'command name "!roll" must be 1 to 32 of a-z (either case), 0-9, - and _, starting with a letter or digit; without the prefix: "roll"',
      'alias of j "サイコロ" must be 1 to 32 of a-z (either case), 0-9, - and _, starting with a letter or digit; "サ" is not one of them',
    ]);
  });

  it('a command name or alias already taken fails the second plugin, naming the owner and what to do', async () => {
    folders.add('first', answering('first', 'roll', 'first'));
    folders.add('second', `import { definePlugin } from SDK;
export default definePlugin({ name: 'second', setup(ctx) { ctx.command({ name: 'dice', aliases: ['ROLL'], run: () => {} }); } });`);
    folders.add('third', answering('third', 'Roll', 'third'));
    const test = await hostWith({ first: {}, second: {}, third: {} });
    const errors = Object.fromEntries(test.host.plugins.map((plugin) => [plugin.name, plugin.error]));
    expect(errors.second).toBe('command dice: "roll" is already taken by command roll of plugin first; '
      + 'rename or drop the alias "roll" of command dice in plugin second, or turn plugin first off in the config (plugins.first.enabled: false)');
    expect(errors.third).toBe('command roll: "roll" is already taken by command roll of plugin first; '
      + 'rename command roll in plugin third, or turn plugin first off in the config (plugins.first.enabled: false)');
    expect(await ask(test, '!roll')).toEqual(['@Viewer_val first']);
  });

  it('two commands of one plugin wanting the same word: the message says to rename one, not to turn the plugin off', async () => {
    folders.add('greedy', `import { definePlugin } from SDK;
export default definePlugin({ name: 'greedy', setup(ctx) {
  ctx.command({ name: 'roll', run: () => {} });
  ctx.command({ name: 'dice', aliases: ['roll'], run: () => {} });
} });`);
    const test = await hostWith({ greedy: {} });
    expect(test.host.plugins[0]?.error).toBe('command dice: "roll" is already taken by command roll of plugin greedy; '
      + 'rename or drop the alias "roll" of command dice in plugin greedy');
  });

  it('refuses, with a message saying what to fix: a missing folder, a folder without index, a bad export, a wrong name, a module that does not load', async () => {
    folders.add('noindex', 'export default {};', 'readme.ts');
    folders.add('notaplugin', 'export default { hello: 1 };');
    folders.add('misnamed', answering('other-name', 'x', 'x'));
    folders.add('syntax', 'export default definePlugin({ name: "syntax", setup( {');
    const test = await hostWith({ ghost: {}, noindex: {}, notaplugin: {}, misnamed: {}, syntax: {} });
    const errors = Object.fromEntries(test.host.plugins.map((plugin) => [plugin.name, plugin.error]));
    expect(errors.ghost).toBe(`no plugin folder named "ghost"; searched /nonexistent-built-in-plugins (does not exist), ${folders.dir}.`
      + ' Plugins there: misnamed, notaplugin, syntax. Fix the name under plugins:, or add the folder that holds it to pluginDirs.');
    expect(errors.noindex).toMatch(/has no index\.ts, index\.js or index\.mjs$/);
    expect(errors.notaplugin).toMatch(/must export default definePlugin\(\{ name, config, setup \}\)$/);
    expect(errors.misnamed).toMatch(/declares name "other-name"; it must equal its folder name "misnamed"$/);
    expect(errors.syntax).toMatch(/could not be loaded/);
    expect(test.host.plugins.every((plugin) => plugin.state === 'failed')).toBe(true);
  });

  it("logs a plugin that fails to import with the import's error said once in err.message (its stack is under err.stack)", async () => {
    folders.add('noext', `import { definePlugin } from '/nonexistent-chatskin/src/sdk.ts';
export default definePlugin({ name: 'noext', setup() {} });`);
    const test = await hostWith({ noext: {} });
    const logged = test.logs.find((entry) => entry.level === LEVEL.error && entry.plugin === 'noext');
    const err = logged?.err as { message: string; stack: string } | undefined;
    expect(err?.message).toContain('could not be loaded: ');
    expect(err?.message.split('/nonexistent-chatskin/src/sdk.ts').length).toBe(2);
    expect(err?.stack).toMatch(/caused by: .*\/nonexistent-chatskin\/src\/sdk\.ts/);
  });

  it('a misspelt plugin name names every folder searched and the plugin it may mean (where it is enabled is for the caller, which knows the file)', async () => {
    folders.add('hello', answering('hello', 'hi', 'x'));
    const test = await hostWith({ stlye: {}, helo: {} }, { pluginDirs: [folders.dir, '/nonexistent-plugin-dir'] }, { builtInPluginDir: BUILT_IN_PLUGIN_DIR });
    const errors = Object.fromEntries(test.host.plugins.map((plugin) => [plugin.name, plugin.error]));
    const searched = `searched ${resolve(BUILT_IN_PLUGIN_DIR)}, ${folders.dir}, /nonexistent-plugin-dir (does not exist).`;
    expect(errors.stlye).toBe(`no plugin folder named "stlye"; ${searched} Did you mean "style"?`
      + ' Fix the name under plugins:, or add the folder that holds it to pluginDirs.');
    expect(errors.helo).toContain(`${searched} Did you mean "hello"?`);
    const logged = test.logs.find((entry) => entry.level === LEVEL.error && entry.plugin === 'stlye');
    expect(logged?.msg).toContain('plugin stlye failed to start and is disabled: no plugin folder named "stlye"');
    expect(logged?.msg).toContain('Did you mean "style"?');
  });

  it('a plugin name found in two plugin folders is refused as ambiguous', async () => {
    const more = createPluginFolders();
    try {
      folders.add('twin', answering('twin', 'a', 'a'));
      more.add('twin', answering('twin', 'b', 'b'));
      const test = await hostWith({ twin: {} }, { pluginDirs: [folders.dir, more.dir] });
      expect(test.host.plugins[0]!.error).toMatch(/found in more than one folder/);
    } finally {
      more.remove();
    }
  });

  it('a setup that returns something other than a teardown function is warned about, naming the plugin', async () => {
    folders.add('ticker', `import { definePlugin } from SDK;
export default definePlugin({ name: 'ticker', setup() { const timer = setInterval(() => {}, 60_000); timer.unref(); return timer; } });`);
    folders.add('stopper', `import { definePlugin } from SDK;
export default definePlugin({ name: 'stopper', async setup() { return { stop() {} }; } });`);
    const test = await hostWith({ ticker: {}, stopper: {} });
    expect(test.host.plugins.map((plugin) => plugin.state)).toEqual(['running', 'running']);
    const warnings = test.logs.filter((entry) => entry.level === LEVEL.warn).map((entry) => [entry.plugin, entry.msg]);
    const advice = 'not a function: nothing will run at shutdown (return a function that clears what setup started)';
    expect(warnings).toEqual([
      ['ticker', `plugin ticker's setup returned an object (Timeout), ${advice}`],
      ['stopper', `plugin stopper's setup returned an object (Object), ${advice}`],
    ]);
    await test.host.stop();
  });

  it('stop runs the teardowns setup returned, and routes nothing afterwards', async () => {
    folders.add('tidy', `import { definePlugin } from SDK;
export default definePlugin({
  name: 'tidy',
  setup(ctx) {
    ctx.command({ name: 'hi', run: (call) => { void call.say('hi'); } });
    return () => { ctx.logger.info('tidied up'); };
  },
});`);
    const test = await hostWith({ tidy: {} });
    await test.host.stop();
    expect(test.logs.find((entry) => entry.msg === 'tidied up')).toMatchObject({ plugin: 'tidy' });
    expect(await ask(test, '!hi')).toEqual([]);
    await test.host.stop();
    expect(test.logs.filter((entry) => entry.msg === 'tidied up')).toHaveLength(1);
  });
});
