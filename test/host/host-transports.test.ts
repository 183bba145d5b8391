// The host over two chats at once (as with Twitch plus the local chat), with Twitch's limits.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load-config.ts';
import { TWITCH_CHAT_LIMITS } from '../../src/host/chat-transport.ts';
import { createHost } from '../../src/host/host.ts';
import { createMemoryChatTransport } from '../../src/host/memory-chat-transport.ts';
import { createPluginFolders } from './plugin-folders.ts';
import type { PluginFolders } from './plugin-folders.ts';
import { botUserstate, viewerTags } from './irc-tags.ts';
import { captureLogs } from './log-capture.ts';
import { ManualClock, settle } from './manual-clock.ts';
import { unusedOverlayClient } from './unused-overlay-client.ts';

const ECHO = `import { definePlugin } from SDK;
export default definePlugin({
  name: 'echo',
  setup(ctx) {
    ctx.command({ name: 'echo', args: [{ name: 'text', type: 'rest' }], run: (call) => { void call.say(call.args.text); } });
    ctx.command({ name: 'announce', run: () => { void ctx.chat.say(ctx.channel, 'to every chat'); } });
  },
});`;

let folders: PluginFolders;
beforeAll(() => {
  folders = createPluginFolders();
  folders.add('echo', ECHO);
});
afterAll(() => {
  folders.remove();
});

async function start() {
  const twitch = createMemoryChatTransport({ name: 'twitch', channels: ['streamer'], limits: TWITCH_CHAT_LIMITS });
  const local = createMemoryChatTransport({ name: 'local', channels: ['streamer'] });
  const clock = new ManualClock();
  const host = await createHost({
    config: parseConfig({ pluginDirs: [folders.dir], plugins: { echo: {} } }),
    logger: captureLogs().logger,
    overlayClient: unusedOverlayClient(),
    chatTransports: [twitch, local],
    clock,
    builtInPluginDir: '/nonexistent-built-in-plugins',
  });
  return { host, twitch, local, clock };
}

describe('host with several chats', () => {
  it('answers a command on the chat it came from only', async () => {
    const { twitch, local } = await start();
    twitch.message('#streamer', '!echo from twitch', viewerTags());
    local.message('streamer', '!echo from local', viewerTags());
    await settle();
    expect(twitch.sent).toEqual([{ channel: 'streamer', text: 'from twitch' }]);
    expect(local.sent).toEqual([{ channel: 'streamer', text: 'from local' }]);
  });

  it('ctx.chat.say reaches every chat serving the channel', async () => {
    const { twitch, local } = await start();
    local.message('streamer', '!announce', viewerTags());
    await settle();
    expect(twitch.sent.map((line) => line.text)).toEqual(['to every chat']);
    expect(local.sent.map((line) => line.text)).toEqual(['to every chat']);
  });

  it('paces Twitch replies (20 per window) but not the local chat', async () => {
    const { twitch, local, clock } = await start();
    for (let index = 0; index < 25; index++) {
      twitch.message('#streamer', `!echo t${index}`, viewerTags());
      local.message('streamer', `!echo l${index}`, viewerTags());
    }
    const { windowMs, userMessages, minIntervalMs } = TWITCH_CHAT_LIMITS;
    await clock.advance(windowMs - 1);
    expect(local.sent).toHaveLength(25);
    expect(twitch.sent).toHaveLength(userMessages);
    // The 21st goes once the first has left the window, the rest the minimum spacing apart.
    await clock.advance(1 + (25 - userMessages - 1) * minIntervalMs);
    expect(twitch.sent).toHaveLength(25);
  });

  it('a USERSTATE from Twitch showing the bot as moderator lifts its limit to 100 per 30 s', async () => {
    const { twitch, clock } = await start();
    twitch.receive({ type: 'userstate', channel: '#streamer', tags: botUserstate(true) });
    for (let index = 0; index < 45; index++) twitch.message('#streamer', `!echo m${index}`, viewerTags());
    await clock.advance(0);
    expect(twitch.sent).toHaveLength(45);
  });

  it('after stop, no chat is routed', async () => {
    const { host, twitch } = await start();
    await host.stop();
    twitch.message('#streamer', '!echo late', viewerTags());
    await settle();
    expect(twitch.sent).toEqual([]);
  });
});
