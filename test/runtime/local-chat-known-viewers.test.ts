// The local chat alone (Twitch chat off) on a store that already has real viewers (seeded, as
// `chatskin seed` or an earlier run with Twitch on leaves them): a local chatter with such a
// viewer's login speaks as that viewer, so it never takes the login over to a made-up id; a
// login no viewer holds still gets the made-up one.
import { PassThrough } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localUserIdOf } from '../../src/adapters/local-chat/local-chat-tags.ts';
import { openService } from '../../src/runtime/open-service.ts';
import { startChatskin } from '../../src/runtime/start-chatskin.ts';
import type { RunningChatskin } from '../../src/runtime/start-chatskin.ts';
import { parseSeedYaml } from '../../src/service/seed-fixture.ts';
import { applySeed } from '../../src/service/seed.ts';
import { hostConfig } from './host-config.ts';

// viewer_one bought neon; alice, the channel, once chatted as a viewer (the account has no
// Twitch user id of its own, so the local chat's broadcaster id is a made-up one); "1001" is also
// a login, which findViewer reads as viewer_one's user id first.
const FIXTURE = `
accounts:
  - login: alice
    overlays:
      - { name: Main, template: bubbles, default: true }
    skins:
      - { slug: neon, name: Neon, template: bubbles, availability: purchase, active: true, values: { bubble.background-color: "#ff00ff" } }
viewers:
  - { twitch_user_id: "1001", twitch_username: viewer_one }
  - { twitch_user_id: "4242", twitch_username: alice }
  - { twitch_user_id: "5005", twitch_username: "1001" }
purchases:
  - { account: alice, viewer: viewer_one, skin: neon }
`;

// A generous wait: chatters are registered within about 100 ms, more on a busy machine.
const WAIT = { timeout: 10_000 };

describe('local chat only, on a store with real viewers', () => {
  const stdin = new PassThrough();
  let printed = '';
  let running: RunningChatskin;

  beforeAll(async () => {
    const config = hostConfig('chatskin-local-known-', 'alice');
    expect(config.twitch.enabled).toBe(false);
    const seeded = await openService(config);
    try {
      await applySeed(seeded.service, parseSeedYaml(FIXTURE));
    } finally {
      await seeded.close();
    }
    running = await startChatskin(config, {
      logger: pino({ level: 'silent' }), stdin, stdout: { write: (text: string) => { printed += text; } },
    });
  });

  afterAll(async () => {
    await running?.close();
  });

  const botSaid = async (pattern: RegExp): Promise<string> => {
    await expect.poll(() => printed.split('\n').find((line) => line.startsWith('chatskin (bot): ') && pattern.test(line)), WAIT).toBeDefined();
    return printed.split('\n').find((line) => line.startsWith('chatskin (bot): ') && pattern.test(line))!;
  };
  /** Lines are handled in order: once a later newcomer is registered, every earlier line was too. */
  const settle = async (newcomer: string) => {
    stdin.write(`/as ${newcomer} hi\n`);
    await expect.poll(async () => (await running.service.findViewer(newcomer))?.twitchUserId, WAIT).toBe(localUserIdOf(newcomer));
  };

  it("speaks as the real viewer: !skins lists their purchases and their login stays theirs", async () => {
    stdin.write('/as viewer_one !skins\n');
    stdin.write('/as viewer_one hello from the terminal\n');
    stdin.write('/broadcaster hello, chat\n');
    stdin.write('/as 1001 who am I?\n');
    expect(await botSaid(/Viewer_one/i)).toMatch(/your skins: Neon\./);
    await settle('newcomer');

    expect(await running.service.findViewer('1001')).toMatchObject({ twitchUserId: '1001', twitchUsername: 'viewer_one' });
    expect(await running.service.findViewer('viewer_one')).toMatchObject({ twitchUserId: '1001' });
    expect(await running.service.findViewer(localUserIdOf('viewer_one'))).toBeNull();
    // The broadcaster without a Twitch id of the account: the viewer holding the channel's login.
    expect(await running.service.findViewer('4242')).toMatchObject({ twitchUsername: 'alice' });
    expect(await running.service.findViewer(localUserIdOf('alice'))).toBeNull();
    // Whose login "1001" is cannot be told through findViewer: that line was no viewer at all.
    expect(await running.service.findViewer('5005')).toMatchObject({ twitchUsername: '1001' });
    expect(await running.service.findViewer(localUserIdOf('1001'))).toBeNull();
  });

  it('leaves a made-up viewer without its login once a real viewer took it, and speaks as the real one', async () => {
    stdin.write('/as latecomer hello\n');
    await expect.poll(async () => (await running.service.findViewer('latecomer'))?.twitchUserId, WAIT).toBe(localUserIdOf('latecomer'));
    // Twitch chat on another run, or `chatskin seed`, signs the real latecomer in: the login moves.
    await running.service.registerViewer({ twitchUserId: '3003', login: 'latecomer' });

    stdin.write('/as latecomer !skin\n');
    expect(await botSaid(/Latecomer/i)).toMatch(/you have no skin picked/);
    stdin.write('/as latecomer again\n');
    await settle('afterwards');
    expect(await running.service.findViewer('latecomer')).toMatchObject({ twitchUserId: '3003' });
    expect(await running.service.findViewer(localUserIdOf('latecomer'))).toMatchObject({ twitchUsername: null });
  });
});
