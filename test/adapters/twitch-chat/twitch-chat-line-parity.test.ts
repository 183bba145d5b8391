// The transport reads chat lines (PRIVMSG) from tmi.js's parsed line (chat-line.ts) instead of
// tmi.js's own `message` and `cheer` events. On generated lines, as Twitch or a bad day sends them
// (twitch-line-arbitraries.ts, plus Shared Chat, reply and bits tags), everything the host reads of
// a chat line must be what it read from the real tmi.js's events: whether a line is chat at all,
// its channel and text, the chatter (user, role, login), whether it is a command and its text,
// the overlay event (emotes as the overlay places them) and the viewer to register.
import fc from 'fast-check';
import tmi from 'tmi.js';
import tmiParser from 'tmi.js/lib/parser.js';
import { describe, expect, it } from 'vitest';
import { overlayChatEventOf, viewerIdentityOf } from '../../../src/adapters/chat-event-mapping.ts';
import { chatLineOf } from '../../../src/adapters/twitch-chat/chat-line.ts';
import type { RawIrcMessage } from '../../../src/adapters/twitch-chat/parsed-line-tap.ts';
import { commandTextOf } from '../../../src/host/command-line.ts';
import { textTag } from '../../../src/host/chat-transport.ts';
import type { ChatTags, ChatTransportEvent } from '../../../src/host/chat-transport.ts';
import { chatUserFromTags } from '../../../src/host/chat-user.ts';
import { emoteSegments } from '../../../src/overlay/emote-segments.ts';
import { badgesTag, displayNameTag, formatPrivmsg, loginPrefix, ONE_OR_ZERO, privmsgLine, privmsgText } from '../twitch-line-arbitraries.ts';

const CHANNEL = 'streamer';

/** What tmi.js (as shipped) gives for a line: its chat event's channel, tags and text, or none. */
function tmiChatEventOf(raw: string): { channel: string; tags: ChatTags; text: string } | null {
  const client = new tmi.Client({ options: { skipUpdatingEmotesets: true, skipMembership: true } });
  let event: { channel: string; tags: ChatTags; text: string } | null = null;
  const record = (channel: string, tags: ChatTags, text: string): void => {
    expect(event).toBeNull();
    event = { channel, tags, text };
  };
  client.on('message', (channel, tags, text) => record(channel, tags as ChatTags, text));
  client.on('cheer', (channel, tags, text) => record(channel, tags as ChatTags, text));
  const message = tmiParser.msg(raw);
  if (message === null) return null;
  try {
    (client as unknown as { handleMessage(message: unknown): void }).handleMessage(message);
  } catch {
    // tmi.js fails on some malformed lines: no event (parsed-line-tap.ts skips them).
    return null;
  }
  return event;
}

function ourChatEventOf(raw: string): { channel: string; tags: ChatTags; text: string } | null {
  const message = tmiParser.msg(raw) as RawIrcMessage | null;
  return message === null ? null : chatLineOf(message);
}

/** Everything the host reads of a chat line. */
function whatTheHostReads(line: { channel: string; tags: ChatTags; text: string }): unknown {
  const event: ChatTransportEvent = { type: 'message', channel: line.channel.replace(/^#/, '').toLowerCase(), text: line.text, tags: line.tags, self: false };
  const shown = overlayChatEventOf(event);
  return {
    channel: event.channel,
    text: line.text,
    username: line.tags.username,
    messageType: line.tags['message-type'],
    user: chatUserFromTags(line.tags),
    command: commandTextOf(line.text, line.tags),
    messageId: textTag(line.tags.id),
    viewer: viewerIdentityOf(event),
    shown: shown?.type === 'message' ? { ...shown, emotes: emoteSegments(shown.text, shown.emotes) } : shown,
  };
}

/** Tags Twitch adds to some lines: Shared Chat's source room, reply threads, bits. */
const extraTags = fc.record({
  'source-room-id': fc.constantFrom(undefined, '40286300', '99', '', '1', '0'),
  'reply-parent-display-name': fc.oneof(fc.constant(undefined), displayNameTag),
  'reply-parent-user-login': fc.oneof(fc.constant(undefined), loginPrefix, ONE_OR_ZERO),
  'reply-parent-msg-body': fc.constantFrom(undefined, 'hello\\sthere', '', '\\:)'),
  bits: fc.constantFrom(undefined, '100', '1', ''),
  vip: fc.constantFrom(undefined, '1', '0', ''),
  'badge-info': fc.oneof(fc.constant(undefined), badgesTag),
  flags: fc.constantFrom(undefined, '', '0-4:P.3'),
}, { requiredKeys: [] });

/** A reply starts with the mention of whom it answers. */
const replyText = fc.tuple(fc.constantFrom('@Alice ', '@alice ', '@1 ', '@ '), privmsgText).map(([mention, text]) => mention + text);

const line = fc.tuple(privmsgLine(CHANNEL), extraTags, fc.oneof(privmsgText, replyText), fc.constantFrom(CHANNEL, 'Streamer', 'other'))
  .map(([base, extra, text, channel]) => formatPrivmsg({ ...base, tags: { ...base.tags, ...extra }, text, channel }));

const oddPrivmsg = fc.constantFrom(
  `@id=x;user-id=5 :alice!alice@alice.tmi.twitch.tv PRIVMSG #${CHANNEL}`,
  `@bits=100;id=x;user-id=5 :alice!alice@alice.tmi.twitch.tv PRIVMSG #${CHANNEL}`,
  ':alice!alice@alice.tmi.twitch.tv PRIVMSG',
  `:jtv!jtv@jtv.tmi.twitch.tv PRIVMSG #${CHANNEL} :someone is hosting you for 5 viewers`,
  `@ :tmi.twitch.tv PRIVMSG #${CHANNEL} :x`,
  `PRIVMSG #${CHANNEL} :no prefix`,
  `:alice PRIVMSG #${CHANNEL} :a prefix without a host`,
  `@badges=;emotes=;id=1;user-id=1;display-name=;color= :alice!alice@alice.tmi.twitch.tv PRIVMSG #${CHANNEL} :\u0001ACTION waves\u0001`,
  `@badges=mod\\nerator/1;mod=0;id=2;user-id=7 :eve!eve@eve.tmi.twitch.tv PRIVMSG #${CHANNEL} :!style bubble.width 9`,
);

describe('chat lines read from the parsed line, as from tmi.js\'s events', () => {
  it('gives the host the same chat event as tmi.js for every generated line', () => {
    fc.assert(fc.property(fc.oneof({ weight: 9, arbitrary: line }, { weight: 1, arbitrary: oddPrivmsg }), (raw) => {
      const ours = ourChatEventOf(raw);
      const tmis = tmiChatEventOf(raw);
      if (ours === null || tmis === null) {
        expect({ ours: ours !== null, tmis: tmis !== null }).toEqual({ ours: false, tmis: false });
        return;
      }
      expect(whatTheHostReads(ours)).toEqual(whatTheHostReads(tmis));
    }), { numRuns: 3000 });
  });

  it('leaves to tmi.js the lines it gives no chat event for', () => {
    for (const raw of [
      ':alice!alice@alice.tmi.twitch.tv PRIVMSG',
      `@id=x :alice!alice@alice.tmi.twitch.tv PRIVMSG #${CHANNEL}`,
      `:jtv!jtv@jtv.tmi.twitch.tv PRIVMSG #${CHANNEL} :x is hosting you`,
      `PRIVMSG #${CHANNEL} :no prefix`,
    ]) {
      expect(ourChatEventOf(raw), raw).toBeNull();
    }
  });

  it('reads an escaped display name, a /me line and empty tags as tmi.js does', () => {
    const raw = `@badges=moderator/1,subscriber/12;color=;display-name=Al\\sice;emotes=25:0-4;id=abc;mod=1;user-id=42 :alice!alice@alice.tmi.twitch.tv PRIVMSG #${CHANNEL} :\u0001ACTION Kappa waves\u0001`;
    const ours = ourChatEventOf(raw)!;
    expect(ours).toMatchObject({ channel: `#${CHANNEL}`, text: 'Kappa waves' });
    expect(ours.tags).toMatchObject({
      username: 'alice', 'message-type': 'action', 'display-name': 'Al ice', color: null, mod: '1',
      badges: 'moderator/1,subscriber/12', 'badges-raw': 'moderator/1,subscriber/12', 'emotes-raw': '25:0-4',
    });
    expect(whatTheHostReads(ours)).toEqual(whatTheHostReads(tmiChatEventOf(raw)!));
  });
});
