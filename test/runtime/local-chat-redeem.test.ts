// Channel-point redemptions without Twitch: `/redeem KEY` typed in the local chat runs the reward's
// plugin as a Twitch redemption would (here the built-in skin-shop, on a seeded skin), and says
// how it ended.
import { PassThrough } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChatskin } from '../../src/runtime/start-chatskin.ts';
import type { RunningChatskin } from '../../src/runtime/start-chatskin.ts';
import { parseSeedYaml } from '../../src/service/seed-fixture.ts';
import { applySeed } from '../../src/service/seed.ts';
import { createPluginFolders } from '../host/plugin-folders.ts';
import type { PluginFolders } from '../host/plugin-folders.ts';
import { hostConfig } from './host-config.ts';
import { SKINS_COUNT_PLUGIN } from '../support/skins-count-plugin.ts';

const FIXTURE = `
accounts:
  - login: streamer
    premium: true
    overlays:
      - { name: Main, template: bubbles, default: true }
    skins:
      - { slug: neon, name: Neon, template: bubbles, availability: exclusive, values: {} }
`;

describe('/redeem in the local chat (no Twitch credentials)', () => {
  const stdin = new PassThrough();
  let printed = '';
  let running: RunningChatskin;

  beforeAll(async () => {
    const config = hostConfig('chatskin-local-redeem-', 'streamer', {
      plugins: { 'skin-shop': { rewards: { 'unlock-neon': 'neon' }, retryDelayMs: 0 } },
    });
    running = await startChatskin(config, {
      logger: pino({ level: 'silent' }), stdin, stdout: { write: (text: string) => { printed += text; } },
    });
    await applySeed(running.service, parseSeedYaml(FIXTURE));
  });

  afterAll(async () => {
    await running?.close();
  });

  /** What was printed from now until `text` shows. */
  const after = async (line: string, text: string): Promise<string> => {
    const from = printed.length;
    stdin.write(`${line}\n`);
    await expect.poll(() => printed.slice(from)).toContain(text);
    return printed.slice(from);
  };

  it('runs the reward\'s plugin for the chatter, who gets the skin, and says it was fulfilled', async () => {
    const out = await after('/as alice /redeem unlock-neon', 'local chat: plugin skin-shop fulfilled the redemption of unlock-neon');
    expect(out).toContain('alice redeemed unlock-neon');
    expect(out).toContain('chatskin (bot): @Alice the Neon skin is yours!');
    const viewer = await running.service.findViewer('alice');
    expect(viewer).not.toBeNull();
    // Once more: the skin is held, so skin-shop refunds, as on Twitch.
    const again = await after('/as alice /redeem unlock-neon', 'local chat: plugin skin-shop refunded the redemption of unlock-neon');
    expect(again).toContain('you already have the Neon skin.');
  });

  it('says when no plugin handles the reward, and what a bad line lacks', async () => {
    await after('/redeem no-such-reward', 'local chat: no running plugin handles the reward "no-such-reward"');
    await after('/redeem', 'local chat: /redeem needs a reward key');
  });
});

describe('/redeem in the local chat by a viewer who never chatted', () => {
  const stdin = new PassThrough();
  let printed = '';
  let running: RunningChatskin;
  let plugins: PluginFolders;

  beforeAll(async () => {
    plugins = createPluginFolders();
    plugins.add('skins-count', SKINS_COUNT_PLUGIN);
    const config = hostConfig('chatskin-local-redeem-sign-in-', 'streamer', {
      pluginDirs: [plugins.dir],
      plugins: { 'skins-count': {} },
    });
    running = await startChatskin(config, {
      logger: pino({ level: 'silent' }), stdin, stdout: { write: (text: string) => { printed += text; } },
    });
    await applySeed(running.service, parseSeedYaml(FIXTURE));
  });

  afterAll(async () => {
    await running?.close();
    plugins?.remove();
  });

  it('is signed in before the handler runs, as their chat line would sign them in', async () => {
    expect(await running.service.findViewer('carol')).toBeNull();
    const from = printed.length;
    stdin.write('/as carol /redeem skins-count\n');
    await expect.poll(() => printed.slice(from)).toContain('local chat: plugin skins-count fulfilled the redemption of skins-count');
    expect(printed.slice(from)).toContain('chatskin (bot): @Carol you hold 0 skins.');
    expect(await running.service.findViewer('carol')).toMatchObject({ twitchUsername: 'carol', displayName: 'Carol' });
  });
});
