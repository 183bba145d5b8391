// The bot unmodded while it runs: Twitch says so only in the USERSTATE answering the bot's next
// delivered line, so lines sent at a moderator's pace before that are refused (msg_ratelimit).
// After that refusal the reply queue must pace as a viewer's, not send the re-sends in another
// burst into more refusals. The real tmi.js against the fake, which enforces Twitch's rate limits.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTwitchChatTransport } from '../../../src/adapters/twitch-chat/twitch-chat-transport.ts';
import type { TwitchChatTransport } from '../../../src/adapters/twitch-chat/twitch-chat-transport.ts';
import { systemClock } from '../../../src/host/clock.ts';
import { createReplyQueue } from '../../../src/host/reply-queue.ts';
import type { ReplyQueue } from '../../../src/host/reply-queue.ts';
import { FakeTwitchIrc } from '../../fakes/fake-twitch-irc.ts';
import { captureLogs } from '../../host/log-capture.ts';

const BOT = 'chatskinbot';
const CHANNEL = 'somechannel';

let irc: FakeTwitchIrc;
let botIsModerator = true;
let transport: TwitchChatTransport | null = null;
let queue: ReplyQueue | null = null;

beforeEach(async () => {
  botIsModerator = true;
  irc = await FakeTwitchIrc.start({
    rateLimits: true,
    userBadges: (login): Record<string, string> => (login === BOT && botIsModerator ? { moderator: '1' } : {}),
  });
});

afterEach(async () => {
  queue?.stop();
  await transport?.stop();
  await irc.close();
});

describe('Twitch chat: the bot unmodded mid-run', () => {
  it('paces as a viewer once Twitch refused a line for the rate, so the lines sent again all arrive', async () => {
    const logs = captureLogs();
    transport = createTwitchChatTransport({
      channels: [CHANNEL],
      identity: { login: BOT, token: 'oauth:goodtoken' },
      reconnect: { initialDelayMs: 20, maxDelayMs: 100, jitter: 0 },
      rateLimitPauseMs: 300,
      server: { host: '127.0.0.1', port: irc.port, secure: false },
    }, logs.logger);
    const replies = createReplyQueue({ transport, clock: systemClock, logger: logs.logger });
    queue = replies;
    // As the host wires them (host.ts toQueue).
    transport.subscribe((event) => {
      if (event.type === 'userstate') replies.setBotState(event.channel, event.tags);
      else if (event.type === 'line-refused') replies.refused(event.channel, event.text, event.reason, event.remedy);
    });
    await transport.start();
    await irc.waitForJoin(CHANNEL, { login: BOT });
    await expect.poll(() => replies.isModerator(CHANNEL)).toBe(true);

    await Promise.all([replies.enqueue(CHANNEL, 'as a moderator 1'), replies.enqueue(CHANNEL, 'as a moderator 2')]);
    await irc.waitForPrivmsg((line) => line.text === 'as a moderator 2');

    // Unmodded: nothing tells the bot until Twitch answers a line of its.
    botIsModerator = false;
    const lines = ['after 1', 'after 2', 'after 3'];
    for (const line of lines) void replies.enqueue(CHANNEL, line);
    for (const line of lines) await irc.waitForPrivmsg((sent) => sent.text === line && sent.refused === null, { timeoutMs: 8_000 });

    const refusals = irc.privmsgs.filter((line) => line.refused === 'msg_ratelimit').map((line) => line.text);
    // The first burst (sent before any answer said "not a moderator") is refused; nothing after it.
    expect(refusals).toEqual(lines);
    expect(replies.isModerator(CHANNEL)).toBe(false);
  });
});
