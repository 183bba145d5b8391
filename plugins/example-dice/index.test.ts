// The example plugin, run by the real host from the real plugins/ folder, over a memory chat.
import { describe, expect, it } from 'vitest';
import { BUILT_IN_PLUGIN_DIR } from '../../src/host/plugin-loader.ts';
import { startTestHost } from '../../test/host/host-fixture.ts';
import type { TestHost } from '../../test/host/host-fixture.ts';
import { moderatorTags, viewerTags } from '../../test/host/irc-tags.ts';
import { settle } from '../../test/host/manual-clock.ts';

async function start(settings: Record<string, unknown> = {}): Promise<TestHost> {
  return startTestHost({ builtInPluginDir: BUILT_IN_PLUGIN_DIR, config: { plugins: { 'example-dice': settings } } });
}

async function chat(test: TestHost, text: string, tags = viewerTags('ann')): Promise<string[]> {
  const before = test.chat.sent.length;
  test.chat.message('#streamer', text, tags);
  await settle();
  return test.chat.sent.slice(before).map((line) => line.text);
}

describe('example-dice', () => {
  it('!roll rolls the default d6; !dice is an alias', async () => {
    const test = await start();
    expect(test.host.plugins).toEqual([{ name: 'example-dice', state: 'running', commands: ['roll'], rewards: ['lucky-roll'] }]);
    const [answer] = await chat(test, '!roll');
    const rolled = Number(/^@Ann rolled (\d+) \(d6\)$/.exec(answer ?? '')?.[1]);
    expect(rolled).toBeGreaterThanOrEqual(1);
    expect(rolled).toBeLessThanOrEqual(6);
    expect(await chat(test, '!DICE 20', moderatorTags())).toEqual([expect.stringMatching(/^@Mod_mia rolled \d+ \(d20\)$/)]);
  });

  it('a size above maxSides gets the usage line', async () => {
    const test = await start({ maxSides: 12 });
    expect(await chat(test, '!roll 13')).toEqual(['@Ann sides must be a whole number from 2 to 12. Usage: !roll [sides]']);
  });

  it('has a 10 s per-user cooldown', async () => {
    const test = await start();
    const ann = viewerTags('ann');
    expect(await chat(test, '!roll', ann)).toHaveLength(1);
    expect(await chat(test, '!roll', ann)).toEqual(['@Ann !roll is cooling down, try again in 10 s.']);
    await test.clock.advance(10_000);
    expect(await chat(test, '!roll', ann)).toHaveLength(1);
  });

  it('refuses defaultSides above maxSides, naming the setting', async () => {
    const test = await start({ maxSides: 4 });
    expect(test.host.plugins[0]).toMatchObject({ state: 'failed' });
    expect(test.host.plugins[0]!.error).toContain('plugins.example-dice.defaultSides: defaultSides must not be above maxSides');
  });

  it('a misspelt setting names the one meant, as the config\'s own keys do', async () => {
    const test = await start({ maxSide: 20 });
    expect(test.host.plugins[0]).toMatchObject({ state: 'failed' });
    expect(test.host.plugins[0]!.error).toContain('plugins.example-dice: unknown key "maxSide" (did you mean "maxSides"?); allowed keys: enabled, maxSides, defaultSides');
  });

  it('the lucky-roll reward rolls a d20 in chat and is fulfilled', async () => {
    const test = await start();
    const result = await test.host.handleRedemption({
      id: 'abc', rewardKey: 'lucky-roll', channel: 'streamer', user: { id: '1', login: 'vera', displayName: 'Vera' }, input: '',
    });
    expect(result).toMatchObject({ outcome: 'fulfill', plugin: 'example-dice' });
    expect(test.said()).toEqual([expect.stringMatching(/^Vera rolls the lucky d20: \d+/)]);
  });
});
