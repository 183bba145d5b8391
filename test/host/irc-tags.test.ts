// The chat tags tests (and plugin authors' tests, docs/plugins.md) build chat lines with.
import { describe, expect, it } from 'vitest';
import { BUILT_IN_PLUGIN_DIR } from '../../src/host/plugin-loader.ts';
import { chatTags, moderatorTags, viewerTags } from './irc-tags.ts';
import { startTestHost } from './host-fixture.ts';
import { settle } from './manual-clock.ts';

describe('irc-tags', () => {
  it('gives a login the same user id on every call, and each line its own message id', () => {
    const first = viewerTags('ann');
    const second = viewerTags('ann');
    expect(second['user-id']).toBe(first['user-id']);
    expect(second.id).not.toBe(first.id);
    expect(moderatorTags()['user-id']).toBe(moderatorTags()['user-id']);
    expect(viewerTags('bob')['user-id']).not.toBe(first['user-id']);
    expect(chatTags('ann', { 'user-id': '42' })['user-id']).toBe('42');
  });

  it('so a per-user cooldown holds for lines built as docs/plugins.md shows them', async () => {
    const test = await startTestHost({ builtInPluginDir: BUILT_IN_PLUGIN_DIR, config: { plugins: { 'example-dice': {} } } });
    test.chat.message('#streamer', '!roll', viewerTags('ann'));
    await settle();
    test.chat.message('#streamer', '!roll', viewerTags('ann'));
    await settle();
    expect(test.said()).toEqual([expect.stringMatching(/^@Ann rolled \d+ \(d6\)$/), '@Ann !roll is cooling down, try again in 10 s.']);
  });
});
