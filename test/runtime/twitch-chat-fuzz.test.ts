// Property-based test of the whole path from Twitch's IRC lines to the overlay's push socket, in a
// real host (startChatskin): the fake IRC server sends fast-check's lines
// (test/adapters/twitch-line-arbitraries.ts: fuzzed tags and text, malformed /me lines,
// CLEARCHAT and CLEARMSG with their ids missing, lines without their params) to the real tmi.js,
// several in one WebSocket frame, each batch followed by a marker line. Checked:
// - the host never throws: the chat stays connected and the marker reaches the overlay;
// - every chat frame the overlay socket gets is docs/push.md's (chat-event-checks.ts): valid JSON
//   and UTF-8, versions rising by one, a message's emote segments tiling its text; a real
//   chatter's message (an id, a numeric user id, a login) is among them with its id, at most once,
//   and a removal names the id its line named;
// - every real chatter is registered in the service under their user id, with a Twitch login.
// The text holds commands too (!skin, !style), which the host runs and answers as it would.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectWellFormedChatEvent } from '../adapters/chat-event-checks.ts';
import { formatPrivmsg, oddLine, privmsgLine } from '../adapters/twitch-line-arbitraries.ts';
import type { PrivmsgLine } from '../adapters/twitch-line-arbitraries.ts';
import type { ChatFrame } from '../../src/service/push/protocol.ts';
import { watchDefaultOverlay } from './overlay-socket.ts';
import type { OverlaySocket } from './overlay-socket.ts';
import { twitchHostForSuite } from './twitch-host.ts';

const isRealChatter = (line: PrivmsgLine): boolean =>
  /^[0-9a-f-]{36}$/.test(line.tags.id ?? '') && /^[1-9][0-9]{1,31}$/.test(line.tags['user-id'] ?? '') && /^[a-z0-9_]{1,25}$/.test(line.login) && line.login !== 'jtv';

/** A tag value as tmi.js 1.8 reads it (its own unescaping: `\\n` and `\\r` become nothing). */
function tmiUnescape(value: string): string {
  const escapes: Record<string, string> = { s: ' ', n: '', ':': ';', r: '', '\\': '\\' };
  return value.replace(/\\([sn:r\\])/g, (_match, ch: string) => escapes[ch]!);
}

describe('fuzzed Twitch lines through a whole host to the overlay socket (real tmi.js against the fake server)', () => {
  const world = twitchHostForSuite({ dirPrefix: 'chatskin-chat-fuzz-' });
  let overlay: OverlaySocket;
  let markers = 0;

  beforeAll(async () => {
    overlay = await watchDefaultOverlay(world.running);
  });
  afterAll(async () => {
    overlay?.socket.close();
    // Chatters typed commands too (!skin, !style): the host's stop waits for their replies, which
    // go out on the manual clock, so let it run until nothing waits (before the host closes).
    for (let i = 0; i < 100 && world.clock.pendingTimers > 0; i += 1) await world.clock.advance(30_000);
  });

  it('pushes a well-formed chat frame for every line it shows, registers real chatters, and never throws', async () => {
    const registered = new Map<string, string>();
    const batch = fc.array(fc.oneof(
      { weight: 4, arbitrary: privmsgLine('alice').map((line) => ({ line, raw: formatPrivmsg(line) })) },
      { weight: 1, arbitrary: oddLine('alice').map((raw) => ({ line: null, raw })) },
    ), { minLength: 1, maxLength: 5 });
    await fc.assert(fc.asyncProperty(batch, async (lines) => {
      const from = overlay.frames.length;
      world.irc.sendRaw(lines.map(({ raw }) => raw).join('\r\n'), 'alice');
      markers += 1;
      const marker = world.irc.sendPrivmsg('#alice', { login: 'marker_bot', userId: '7' }, `marker ${markers}`);
      await overlay.waitFor((frame) => frame.type === 'chat' && frame.event.type === 'message' && frame.event.id === marker.id, from);
      expect(world.running.transports.twitch!.state).toBe('connected');

      const chat = overlay.frames.slice(from).filter((frame): frame is ChatFrame => frame.type === 'chat');
      for (const [i, frame] of chat.entries()) {
        expectWellFormedChatEvent(frame.event);
        if (i > 0) expect(frame.version).toBe(chat[i - 1]!.version + 1);
      }
      const shownIds = chat.flatMap((frame) => (frame.event.type === 'message' ? [frame.event.id] : []));
      for (const { line } of lines) {
        if (line === null || !isRealChatter(line)) continue;
        expect(shownIds.filter((id) => id === line.tags.id)).toHaveLength(1);
        registered.set(line.tags['user-id']!, line.login);
      }
      // A removal names an id one of the lines gave (as tmi.js unescapes tag values).
      const named = (tag: string): string[] => lines.flatMap(({ raw }) => [...raw.matchAll(new RegExp(`[@;]${tag}=([^; ]*)`, 'g'))].map((match) => tmiUnescape(match[1]!)));
      for (const { event } of chat) {
        if (event.type === 'message-deleted') expect(named('target-msg-id')).toContain(event.messageId);
        if (event.type === 'user-cleared') expect(named('target-user-id')).toContain(event.userId);
      }
    }), { numRuns: 60 });

    // Registration is batched (within about 100 ms): every real chatter ends up a viewer.
    for (const twitchUserId of registered.keys()) {
      await expect.poll(async () => (await world.running.service.findViewer(twitchUserId))?.twitchUserId).toBe(twitchUserId);
      const viewer = await world.running.service.findViewer(twitchUserId);
      expect(viewer!.twitchUsername === null || /^[a-z0-9_]{1,25}$/.test(viewer!.twitchUsername)).toBe(true);
    }
  });
});
