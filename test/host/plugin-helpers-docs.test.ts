// docs/plugins.md's examples of the SDK's helpers, run against the SDK: what each line shows is
// what the helper gives.
import { readFileSync } from 'node:fs';
import { describe, expect, it, onTestFinished } from 'vitest';
import { checkSettingValue, coerceChatValue, fittedList } from '../../src/sdk.ts';
import { section } from './docs-section.ts';
import { chatAnswers, redeemed } from './host-fixture.ts';
import { moderatorTags } from './irc-tags.ts';
import { LEVEL } from './log-capture.ts';
import { createPluginFolders } from './plugin-folders.ts';
import { startPluginWorld } from './plugin-world.ts';
import { SKINS_COUNT_PLUGIN } from '../support/skins-count-plugin.ts';

const PLUGINS_DOC = readFileSync(new URL('../../docs/plugins.md', import.meta.url), 'utf8');

/** A JavaScript expression as the docs write it (object literals, quoted strings), evaluated with `names` in scope. */
function evaluate(expression: string, names: Record<string, unknown> = {}): unknown {
  return new Function(...Object.keys(names), `return (${expression});`)(...Object.values(names)) as unknown;
}

describe('docs/plugins.md, Checking a setting value', () => {
  it('each checkSettingValue line gives what its comment says', () => {
    const lines = [...section(PLUGINS_DOC, '## Checking a setting value').matchAll(/^(checkSettingValue\(.*\));\s+\/\/ (.*)$/gm)];
    expect(lines.length).toBeGreaterThanOrEqual(4);
    for (const [, call, shown] of lines) {
      expect(evaluate(call!, { checkSettingValue, coerceChatValue }), call).toEqual(evaluate(shown!));
    }
    // Both outcomes are shown.
    expect(lines.map(([, , shown]) => evaluate(shown!) as { ok: boolean }).map((result) => result.ok)).toEqual(expect.arrayContaining([true, false]));
  });
});

describe('docs/plugins.md, Listing names in one message: fittedList', () => {
  it('each fittedList line gives what its comment says', () => {
    const lines = [...section(PLUGINS_DOC, '## Listing names in one message: `fittedList`').matchAll(/^(fittedList\(.*\));\s+\/\/ (.*)$/gm)];
    expect(lines.length).toBeGreaterThanOrEqual(5);
    for (const [, call, shown] of lines) expect(evaluate(call!, { fittedList }), call).toBe(evaluate(shown!));
  });
});

describe('docs/plugins.md, Answering in one line: answerInChat', () => {
  const ANSWERING = section(PLUGINS_DOC, '## Answering in one line: `answerInChat`');

  it('its plugin answers each line of its "In chat" as shown: the work\'s line, a ChatRefusal, the service\'s refusal', async () => {
    const plugin = /```ts\n(import \{[^\n]*\} from '\.\.\/\.\.\/src\/sdk\.ts';\n\nexport default definePlugin\(\{\n  name: 'bubble-width'[\s\S]*?)```/.exec(ANSWERING)?.[1];
    expect(plugin).toContain('answerInChat(call, ');
    const folders = createPluginFolders();
    onTestFinished(() => folders.remove());
    folders.add('bubble-width', plugin!.replace("'../../src/sdk.ts'", 'SDK'));
    const shown = [...ANSWERING.matchAll(/`(![^`]+)` →[^`]*`(@[^`]+)`/g)].map(([, line, answer]) => ({ line: line!, answer: answer! }));
    expect(shown.length).toBe(3);

    const { test, client } = await startPluginWorld({
      fixture: { accounts: [{ login: 'streamer', premium: true, overlays: [{ name: 'Main', template: 'bubbles', default: true, values: {} }] }] },
      plugin: 'bubble-width',
      settings: () => ({}),
      config: { pluginDirs: [folders.dir] },
    });
    for (const { line, answer } of shown) expect(await chatAnswers(test, line, moderatorTags()), line).toEqual([answer]);
    expect((await client.getTemplate()).settings_values['bubble.width']).toBe(320);
    expect(test.logs.filter((entry) => entry.level >= LEVEL.warn)).toEqual([]);
  });
});

describe('docs/plugins.md, Redemption handlers', () => {
  const start = async (signsInRedeemers: boolean) => {
    const folders = createPluginFolders();
    onTestFinished(() => folders.remove());
    folders.add('skins-count', SKINS_COUNT_PLUGIN);
    const { test } = await startPluginWorld({
      fixture: { accounts: [{ login: 'streamer', premium: true, overlays: [{ name: 'Main', template: 'bubbles', default: true, values: {} }] }] },
      plugin: 'skins-count',
      config: { pluginDirs: [folders.dir] },
      signsInRedeemers,
    });
    const redeem = (id: string) => redeemed(test.host.handleRedemption({
      id, rewardKey: 'skins-count', channel: 'streamer', user: { id: '5005', login: 'newbie', displayName: 'Newbie' }, input: '',
    }));
    return { test, redeem };
  };

  it('a viewer who never chatted is signed in by the host before the handler names them to the service', async () => {
    const { test, redeem } = await start(true);
    expect((await redeem('r1')).outcome).toBe('fulfill');
    expect(test.said()).toEqual(['@Newbie you hold 0 skins.']);
  });

  it("one the service does not know (their sign-in failed) is refused with the docs' message", async () => {
    const { test, redeem } = await start(false);
    expect((await redeem('r1')).outcome).toBe('refund');
    expect(test.logs.filter((entry) => entry.level >= LEVEL.error).map((entry) => (entry.err as { message?: string } | undefined)?.message))
      .toEqual([quotedIn(section(PLUGINS_DOC, '## Redemption handlers'), 'still does not know rejects\nwith')]);
  });
});

/** The first `code` after `words` in text (words may span a line break). */
function quotedIn(text: string, words: string): string {
  const at = text.replace(/\s+/g, ' ').indexOf(words.replace(/\s+/g, ' '));
  return /`([^`]+)`/.exec(text.replace(/\s+/g, ' ').slice(at))![1]!;
}
