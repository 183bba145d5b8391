// Property-based test of what Twitch chat (or a hostile chatter, or a buggy Twitch day) can send,
// from the IRC line to the overlay event and the viewer to register: fast-check writes raw lines
// (twitch-line-arbitraries.ts) that the fake IRC server sends to the real tmi.js in the Twitch
// transport, and the transport's events go through the composition root's mappings
// (chat-event-mapping.ts). Fuzzed: emotes tags with ranges out of the text, overlapping, reversed,
// not numbers or thousands of them; badges and badge-info with escapes, empty or malformed entries
// and unknown sets; display names with spaces, escapes, direction and zero-width characters;
// colours that are no hex; user ids missing or not numbers; ids and names "1" and "0" (which
// tmi.js turns into true and false); tmi-sent-ts garbage; text with
// controls, markup, emoji sequences, malformed /me (ACTION) lines, past 500 characters or only
// spaces; CLEARCHAT and CLEARMSG without their target ids, and lines missing their params.
// Checked, for every line:
// - nothing throws: the transport stays connected and the next line still arrives;
// - a message is one overlay event as docs/push.md describes it (chat-event-checks.ts): valid JSON
//   and UTF-8, a #rrggbb colour or none, badges with a set and a version, emote segments that
//   tile the text exactly; its text is the line's (a /me line without its ACTION wrapping);
// - a real chatter's line (an id, a numeric user id, a login) is shown and its chatter registered
//   with a Twitch login and a display name the service keeps; one with no usable user id or
//   login is registered with none (viewerIdentityOf's null), never with a made-up one;
// - a deletion or a clear of a user reaches the overlay only with the id it names, and always
//   when it names one.
// Run counts stay modest: each line is a round trip over a local WebSocket.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { overlayChatEventOf, viewerIdentityOf } from '../../src/adapters/chat-event-mapping.ts';
import { createTwitchChatTransport } from '../../src/adapters/twitch-chat/twitch-chat-transport.ts';
import type { TwitchChatTransport } from '../../src/adapters/twitch-chat/twitch-chat-transport.ts';
import type { ChatTags, ChatTransportEvent } from '../../src/host/chat-transport.ts';
import { FakeTwitchIrc } from '../fakes/fake-twitch-irc.ts';
import { captureLogs } from '../host/log-capture.ts';
import { recordChatEvents } from './chat-event-recorder.ts';
import type { ChatEventRecorder } from './chat-event-recorder.ts';
import { expectSaneViewer, expectWellFormedChatEvent } from './chat-event-checks.ts';
import { chatText, formatPrivmsg, INVISIBLES, oddLine, privmsgLine } from './twitch-line-arbitraries.ts';

const CHANNEL = 'streamer';

describe('Twitch lines fuzzed through the real tmi.js to the overlay event and the viewer', () => {
  let irc: FakeTwitchIrc;
  let transport: TwitchChatTransport;
  let recorder: ChatEventRecorder;
  let markers = 0;

  beforeAll(async () => {
    irc = await FakeTwitchIrc.start();
    transport = createTwitchChatTransport({
      channels: [CHANNEL], identity: null, server: { host: '127.0.0.1', port: irc.port, secure: false },
    }, captureLogs().logger);
    recorder = recordChatEvents(transport);
    await transport.start();
    await irc.waitForJoin(CHANNEL);
  });
  afterAll(async () => {
    recorder.stop();
    await transport.stop();
    await irc.close();
  });

  /** Sends the raw lines (one WebSocket frame), then a marker line; resolves with the events between. */
  async function eventsOf(lines: string[]): Promise<ChatTransportEvent[]> {
    const since = recorder.events.length;
    irc.sendRaw(lines.join('\r\n'), CHANNEL);
    markers += 1;
    const marker = irc.sendPrivmsg(CHANNEL, { login: 'marker_bot' }, `marker ${markers}`);
    const found = await recorder.next('message', (event) => event.tags.id === marker.id, since);
    expect(transport.state).toBe('connected');
    return recorder.events.slice(since, recorder.events.indexOf(found));
  }

  it('maps every fuzzed PRIVMSG to a well-formed overlay event and a sane viewer (or none), never throwing', async () => {
    await fc.assert(fc.asyncProperty(privmsgLine(CHANNEL), async (line) => {
      const events = await eventsOf([formatPrivmsg(line)]);
      const messages = events.filter((event) => event.type === 'message');
      expect(messages.length).toBeLessThanOrEqual(1);
      const [event] = messages;
      if (event === undefined) return;
      // tmi.js trims the frame (so the text's trailing spaces), then unwraps a well-formed /me line.
      const sent = line.text.trim() === '' ? '' : line.text.replace(/\s+$/u, '');
      const action = /^\u0001ACTION ([^\u0001]+)\u0001$/.exec(sent);
      expect(event.text).toBe(action === null ? sent : action[1]);

      const shown = overlayChatEventOf(event);
      // Ids and names "1" and "0" count: tmi.js gives them as true and false, read back as the text.
      const realChatter = /^(?:[0-9a-f-]{36}|[01])$/.test(line.tags.id ?? '') && /^[1-9][0-9]{0,31}$/.test(line.tags['user-id'] ?? '') && /^[a-z0-9_]{1,25}$/.test(line.login) && line.login !== 'jtv';
      const oneOrZeroName = line.tags['display-name'] === '1' || line.tags['display-name'] === '0' ? line.tags['display-name'] : null;
      if (realChatter) expect(shown).not.toBeNull();
      if (shown !== null) expectWellFormedChatEvent(shown);
      if (shown?.type === 'message') {
        expect(shown.id).toBe(line.tags.id);
        expect(shown.userId).toBe(line.tags['user-id']);
        if (oneOrZeroName !== null) expect(shown.displayName).toBe(oneOrZeroName);
      }

      const viewer = viewerIdentityOf(event);
      if (realChatter) expect(viewer).not.toBeNull();
      if (viewer !== null) {
        expectSaneViewer(viewer);
        expect(viewer.twitchUserId).toBe(line.tags['user-id']);
        expect(viewer.login).toBe(line.login.toLowerCase());
        if (oneOrZeroName !== null) expect(viewer.displayName).toBe(oneOrZeroName);
      }
    }), { numRuns: 150 });
  });

  it('survives moderation and other lines with missing ids or params, and pushes removals only with the id they name', async () => {
    await fc.assert(fc.asyncProperty(fc.array(oddLine(CHANNEL), { minLength: 1, maxLength: 4 }), async (lines) => {
      const events = await eventsOf(lines);
      // Each CLEARMSG or CLEARCHAT naming a message or user (a "1" or "0" too) removes exactly that one.
      const named = lines.flatMap((raw): Array<{ type: string; messageId?: string; userId?: string }> => {
        const target = /^@(?:[^ ]*;)?target-(msg|user)-id=([^; ]+)[; ].* (?:CLEARMSG|CLEARCHAT) #/.exec(raw);
        if (target === null) return [];
        const id = target[2]!.replaceAll('\\s', ' ');
        return [target[1] === 'msg' ? { type: 'message-deleted', messageId: id } : { type: 'user-cleared', userId: id }];
      });
      const removals = events.flatMap((event): Array<{ type: string; messageId?: string; userId?: string }> => (event.type === 'message-deleted' ? [{ type: event.type, messageId: event.messageId }]
        : event.type === 'user-cleared' ? [{ type: event.type, userId: event.userId }] : []));
      expect(removals).toEqual(named);
      for (const event of events) {
        const shown = overlayChatEventOf(event);
        if (shown !== null) expectWellFormedChatEvent(shown);
        if (event.type === 'message') expect(viewerIdentityOf(event) === null || viewerIdentityOf(event)!.twitchUserId !== '').toBe(true);
      }
    }), { numRuns: 60 });
  });
});

// The mappings take any transport's events (the local chat's too, whose text comes from a JSON
// body, where "\ud800" is a lone surrogate), so they are also fuzzed on hand-built tags of any
// shape: tags missing, of another type than tmi.js gives, and strings with lone surrogates.
describe('the chat event mappings on hand-built tags of any shape', () => {
  const loneSurrogate = fc.constantFrom('\ud800', '\udfff', '\udbff', 'a\ud83d', '\ude00b');
  const anyString = fc.oneof(
    chatText,
    fc.string({ unit: 'binary', maxLength: 12 }),
    fc.tuple(chatText, loneSurrogate, chatText).map((parts) => parts.join('')),
    fc.constantFrom(...INVISIBLES),
  );
  const anyTag = fc.oneof(anyString, fc.constantFrom(null, undefined, true, false, 0, 42, {}, [], ['1-2']));
  const tags = fc.record({
    id: fc.oneof(fc.uuid(), anyTag),
    'user-id': fc.oneof(fc.bigInt({ min: 1n, max: 10n ** 12n }).map(String), anyTag),
    username: fc.oneof(fc.stringMatching(/^[a-z0-9_]{1,25}$/), anyTag),
    'display-name': anyTag,
    color: fc.oneof(fc.constantFrom('#1E90FF', '#abcdef'), anyTag),
    'emotes-raw': fc.oneof(fc.constantFrom('25:0-4', '25:0-1,1-3/88:2-2'), anyTag),
    emotes: fc.oneof(fc.constant({ 25: ['0-4', 'x'], 88: 5 }), fc.dictionary(anyString, fc.array(anyString, { maxLength: 3 }), { maxKeys: 3 }), anyTag),
    'badges-raw': fc.oneof(fc.constantFrom('moderator/1,subscriber/12', ',,/,a/'), anyTag),
    badges: fc.oneof(fc.dictionary(anyString, anyTag, { maxKeys: 3 }), anyTag),
  }, { requiredKeys: [] });

  it('never throws, and gives well-formed events with no lone surrogate and sane viewers', () => {
    fc.assert(fc.property(tags, anyString, fc.boolean(), (built, text, self) => {
      const event: ChatTransportEvent = { type: 'message', channel: CHANNEL, text, tags: built as ChatTags, self };
      const shown = overlayChatEventOf(event);
      if (shown !== null) expectWellFormedChatEvent(shown);
      const viewer = viewerIdentityOf(event);
      if (viewer !== null) expectSaneViewer(viewer);
      if (self) expect(viewer).toBeNull();
    }), { numRuns: 1000 });
  });
});
