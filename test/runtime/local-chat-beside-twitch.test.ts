// The local chat beside a real Twitch chat (real tmi.js against the fake server): a local
// chatter is a stand-in, not a viewer, so it can never take over a real viewer's login, even
// through a plugin that signs chatters in (skins).
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChatskin } from '../../src/runtime/start-chatskin.ts';
import type { RunningChatskin } from '../../src/runtime/start-chatskin.ts';
import { FakeTwitchIrc } from '../fakes/fake-twitch-irc.ts';
import { twitchHostConfig } from './twitch-host-config.ts';

describe('local chat beside Twitch chat', () => {
  let irc: FakeTwitchIrc;
  let running: RunningChatskin;
  let printed = '';

  beforeAll(async () => {
    irc = await FakeTwitchIrc.start();
    const config = twitchHostConfig(irc, 'chatskin-local-twitch-', { localChat: { enabled: true, stdin: false } });
    running = await startChatskin(config, { logger: pino({ level: 'silent' }), stdin: null, stdout: { write: (text: string) => { printed += text; } } });
    await irc.waitForJoin('alice');
  });

  afterAll(async () => {
    await running?.close();
    await irc?.close();
  });

  it("refuses skins to a local chatter and leaves the real viewer's login alone", async () => {
    irc.sendPrivmsg('#alice', { login: 'ann', userId: '1001' }, 'hi from twitch');
    await expect.poll(async () => (await running.service.findViewer('ann'))?.twitchUserId).toBe('1001');

    await running.transports.local!.post({ text: '!skins', login: 'ann' });
    await expect.poll(() => printed).toMatch(/@Ann skins need a Twitch account/);
    expect((await running.service.findViewer('ann'))?.twitchUserId).toBe('1001');
    expect((await running.service.findViewer('1001'))?.twitchUsername).toBe('ann');
  });

  it('registers no local chatter as a viewer, not even the broadcaster, whose id is made up while chatskin does not know it', async () => {
    expect(running.account.twitchUserId ?? null).toBeNull();
    await running.transports.local!.post({ text: 'hello from the terminal', role: 'broadcaster' });
    await running.transports.local!.post({ text: 'me too', login: 'carol' });
    // A Twitch chatter after them, registered through the same queue.
    irc.sendPrivmsg('#alice', { login: 'dave', userId: '1002' }, 'hi');
    await expect.poll(async () => (await running.service.findViewer('dave'))?.twitchUserId).toBe('1002');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await running.service.findViewer('alice')).toBeNull();
    expect(await running.service.findViewer('carol')).toBeNull();
  });

  it("still answers the local chat's moderator commands", async () => {
    await running.transports.local!.post({ text: '!style bubble.width 345', role: 'moderator' });
    await expect.poll(async () => (await running.service.getTemplate(running.account.id)).settings_values['bubble.width']).toBe(345);
  });
});
