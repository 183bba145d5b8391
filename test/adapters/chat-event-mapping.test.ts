// Chat events to viewers and overlay events: with tags from the real tmi.js (through the Twitch
// transport and the fake IRC server), from the local chat, and from hand-built tags.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { overlayChatEventOf, viewerIdentityOf } from '../../src/adapters/chat-event-mapping.ts';
import { createLocalChatTransport } from '../../src/adapters/local-chat/local-chat-transport.ts';
import { localUserIdOf } from '../../src/adapters/local-chat/local-chat-tags.ts';
import { createTwitchChatTransport } from '../../src/adapters/twitch-chat/twitch-chat-transport.ts';
import type { TwitchChatTransport } from '../../src/adapters/twitch-chat/twitch-chat-transport.ts';
import type { ChatTags, ChatTransportEvent } from '../../src/host/chat-transport.ts';
import { FakeTwitchIrc } from '../fakes/fake-twitch-irc.ts';
import type { ChatUser, PrivmsgOptions } from '../fakes/fake-twitch-irc.ts';
import { botUserstate, chatTags, moderatorTags } from '../host/irc-tags.ts';
import { captureLogs } from '../host/log-capture.ts';
import { recordChatEvents } from './chat-event-recorder.ts';
import type { ChatEventRecorder } from './chat-event-recorder.ts';

describe('with tags from the real tmi.js', () => {
  let irc: FakeTwitchIrc;
  let transport: TwitchChatTransport;
  let recorder: ChatEventRecorder;

  beforeAll(async () => {
    irc = await FakeTwitchIrc.start();
    transport = createTwitchChatTransport({
      channels: ['streamer'], identity: null, server: { host: '127.0.0.1', port: irc.port, secure: false },
    }, captureLogs().logger);
    recorder = recordChatEvents(transport);
    await transport.start();
    await irc.waitForJoin('streamer');
  });
  afterAll(async () => {
    recorder.stop();
    await transport.stop();
    await irc.close();
  });

  async function received(user: ChatUser, text: string, options: PrivmsgOptions = {}) {
    const sent = irc.sendPrivmsg('streamer', user, text, options);
    return recorder.next('message', (event) => event.tags.id === sent.id);
  }

  it('maps a message to the overlay event, keeping the raw emotes tag when an emoji comes before the emote', async () => {
    const event = await received(
      { login: 'Fan_Fiona', displayName: 'Fan_Fiona', color: '#1E90FF', broadcaster: false, mod: true, subscriber: 8, badges: { bits: '100' } },
      '😀 Kappa hi Kappa',
      { emoteCodes: { Kappa: '25' } },
    );
    expect(overlayChatEventOf(event)).toEqual({
      type: 'message',
      id: event.tags.id,
      userId: irc.userIdOf('fan_fiona'),
      login: 'fan_fiona',
      displayName: 'Fan_Fiona',
      color: '#1e90ff',
      text: '😀 Kappa hi Kappa',
      // Code points: the emoji is one, though it is two UTF-16 units.
      emotes: '25:2-6,11-15',
      badges: [{ set: 'moderator', version: '1' }, { set: 'subscriber', version: '6' }, { set: 'bits', version: '100' }],
      avatarUrl: null,
    });
  });

  it('maps a message to the viewer to register', async () => {
    const event = await received({ login: 'viewer_val', displayName: 'Viewer Val' }, 'hello');
    expect(viewerIdentityOf(event)).toEqual({ twitchUserId: irc.userIdOf('viewer_val'), login: 'viewer_val', displayName: 'Viewer Val' });
  });

  it('gives a message without emotes or badges empty ones, and no colour when none is set', async () => {
    const overlay = overlayChatEventOf(await received({ login: 'plain' }, 'hi'));
    expect(overlay).toMatchObject({ emotes: '', badges: [], color: null });
  });

  it('maps deletions, timeouts, bans and a cleared chat', async () => {
    irc.deleteMessage('streamer', { login: 'plain', targetMsgId: 'm-1', text: 'hi' });
    expect(overlayChatEventOf(await recorder.next('message-deleted'))).toEqual({ type: 'message-deleted', messageId: 'm-1' });
    irc.banUser('streamer', { login: 'troll', userId: '777' });
    expect(overlayChatEventOf(await recorder.next('user-cleared'))).toEqual({ type: 'user-cleared', userId: '777' });
    irc.clearChat('streamer');
    expect(overlayChatEventOf(await recorder.next('chat-cleared'))).toEqual({ type: 'chat-cleared' });
  });
});

describe('with tags from the local chat', () => {
  it("maps a local chatter's message to a viewer with a local id and to an overlay message", async () => {
    const local = createLocalChatTransport({ channel: 'streamer' });
    const events: ChatTransportEvent[] = [];
    local.subscribe((event) => events.push(event));
    await local.post({ text: '!skin neon', login: 'alice', role: 'vip' });
    const [event] = events;
    expect(viewerIdentityOf(event!)).toEqual({ twitchUserId: localUserIdOf('alice'), login: 'alice', displayName: 'Alice' });
    expect(overlayChatEventOf(event!)).toMatchObject({ type: 'message', login: 'alice', userId: localUserIdOf('alice'), badges: [{ set: 'vip', version: '1' }], emotes: '' });
  });
});

describe('rules on hand-built tags', () => {
  const message = (tags: ChatTags, self = false): ChatTransportEvent =>
    ({ type: 'message', channel: 'streamer', text: 'hi', tags, self });

  it('registers nobody for the bot, for other events, or for tags the service would refuse', () => {
    expect(viewerIdentityOf(message(chatTags('mybot'), true))).toBeNull();
    expect(viewerIdentityOf({ type: 'userstate', channel: 'streamer', tags: botUserstate(true) })).toBeNull();
    expect(viewerIdentityOf({ type: 'chat-cleared', channel: 'streamer' })).toBeNull();
    expect(viewerIdentityOf(message(chatTags('alice', { 'user-id': 'alice' })))).toBeNull();
    expect(viewerIdentityOf(message(chatTags('alice', { 'user-id': null })))).toBeNull();
    expect(viewerIdentityOf(message(chatTags('alice', { username: 'not a login' })))).toBeNull();
  });

  it('leaves out a display name the service would refuse (over 100 characters) or that is missing', () => {
    expect(viewerIdentityOf(message(chatTags('alice', { 'user-id': '42', 'display-name': 'A'.repeat(101) })))).toEqual({ twitchUserId: '42', login: 'alice' });
    expect(viewerIdentityOf(message(chatTags('alice', { 'user-id': '42', 'display-name': null })))).toEqual({ twitchUserId: '42', login: 'alice' });
  });

  it("shows the bot's own lines on the overlay too, and nothing for its USERSTATE", () => {
    expect(overlayChatEventOf(message(chatTags('mybot', { 'user-id': '9' }), true))).toMatchObject({ type: 'message', login: 'mybot' });
    expect(overlayChatEventOf({ type: 'userstate', channel: 'streamer', tags: botUserstate(false) })).toBeNull();
  });

  it('shows no message that lacks an id, a user id or a login', () => {
    expect(overlayChatEventOf(message(chatTags('alice', { id: null })))).toBeNull();
    expect(overlayChatEventOf(message(chatTags('alice', { 'user-id': '' })))).toBeNull();
    expect(overlayChatEventOf(message(chatTags('alice', { username: undefined })))).toBeNull();
  });

  it('sends no lone surrogate to the page: half a character (the local chat takes JSON, where "\\ud800" is one) becomes U+FFFD, emotes staying in place', () => {
    // Found by twitch-line-properties.test.ts: the local chat's line 'a\ud800b Kappa' went to the page as it was.
    const tags = chatTags('alice', { 'display-name': 'Al\udc00ice', 'emotes-raw': '25:4-8', 'badges-raw': 'vip/\ud800' });
    const event: ChatTransportEvent = { type: 'message', channel: 'streamer', text: 'a\ud800b Kappa', tags, self: false };
    expect(overlayChatEventOf(event)).toMatchObject({
      text: 'a\ufffdb Kappa', displayName: 'Al\ufffdice', emotes: '25:4-8', badges: [{ set: 'vip', version: '\ufffd' }],
    });
    expect(viewerIdentityOf(event)).toMatchObject({ displayName: 'Al\ufffdice' });
  });

  it('makes no badge of an entry without a set, from the parsed badges as from the raw tag', () => {
    // Found by twitch-line-properties.test.ts: the parsed form gave { set: '' }, which the raw tag never did.
    const tags = chatTags('alice', { badges: { '': '1', vip: '1' } });
    delete tags['badges-raw'];
    const event: ChatTransportEvent = { type: 'message', channel: 'streamer', text: 'hi', tags, self: false };
    expect(overlayChatEventOf(event)).toMatchObject({ badges: [{ set: 'vip', version: '1' }] });
    expect(overlayChatEventOf({ ...event, tags: chatTags('alice', { 'badges-raw': ',/1,vip/1' }) })).toMatchObject({ badges: [{ set: 'vip', version: '1' }] });
  });

  it('rebuilds the emotes and badges tags from their parsed forms when the raw copies are missing', () => {
    const tags = moderatorTags();
    delete tags['badges-raw'];
    const overlay = overlayChatEventOf(message({ ...tags, emotes: { 25: ['0-4', '12-16'], 1902: ['6-10'] }, 'emotes-raw': undefined }));
    expect(overlay).toMatchObject({ emotes: '25:0-4,12-16/1902:6-10', badges: [{ set: 'moderator', version: '1' }] });
  });

  it('reads the raw badges tag in order, skipping empty entries and giving a badge without a version version 1', () => {
    const badgesOf = (raw: string) => {
      const shown = overlayChatEventOf(message({ ...moderatorTags(), 'badges-raw': raw }));
      return shown?.type === 'message' ? shown.badges : null;
    };
    expect(badgesOf('subscriber/12,bits/100')).toEqual([{ set: 'subscriber', version: '12' }, { set: 'bits', version: '100' }]);
    expect(badgesOf('a,,b/2,')).toEqual([{ set: 'a', version: '1' }, { set: 'b', version: '2' }]);
    expect(badgesOf('/1,vip/,premium/1/x')).toEqual([{ set: 'vip', version: '1' }, { set: 'premium', version: '1/x' }]);
  });

  it('drops a colour that is not #rrggbb and falls back to the login for a missing display name', () => {
    expect(overlayChatEventOf(message(chatTags('alice', { color: 'red', 'display-name': '' })))).toMatchObject({ color: null, displayName: 'alice' });
  });
});
