// What a tmi.js client hears in the configured channels, as the transport's chat events: chat
// lines (cheers among them), moderators' deletions and clears, the bot's USERSTATE with its own
// accepted line shown as chat, slow mode, and Twitch's refusals (notices.ts). Every chat line
// passes through the parsed-line tap and onMessage, so those two do no more than they must; chat
// lines are read from the tap (chat-line.ts), not from tmi.js's events.
import type { Logger } from 'pino';
import type tmi from 'tmi.js';
import type { ChatListeners } from '../chat-listeners.ts';
import type { Clock } from '../../host/clock.ts';
import { normalizeChannel, textTag } from '../../host/chat-transport.ts';
import type { ChatTags } from '../../host/chat-transport.ts';
import { createNoticeHandler } from './notices.ts';
import type { OwnLineEcho } from './own-line-echo.ts';
import { chatLineOf } from './chat-line.ts';
import { tapParsedLines } from './parsed-line-tap.ts';
import type { RawIrcMessage } from './parsed-line-tap.ts';
import type { SendPause } from './send-pause.ts';
import { unreadableLineWarnings } from './unreadable-line-warnings.ts';
import type { TwitchChatIdentity } from './twitch-chat-options.ts';

/** How Twitch reads a line the bot sent as "/me ..." (or ".me ..."): an action, shown without the command. */
const ACTION_LINE = /^\s*[/.]me\s+(\S[\s\S]*)$/i;

/** Wraps a handler so that it runs only while its client is the transport's current one (otherwise it answers undefined). */
export type IfCurrentClient = <Args extends unknown[], Result>(handler: (...args: Args) => Result) => (...args: Args) => Result | undefined;

export interface ChatEventsOptions {
  channels: readonly string[];
  identity: TwitchChatIdentity | null;
  listeners: ChatListeners;
  echo: OwnLineEcho;
  pause: SendPause;
  rateLimitPauseMs: number;
  logger: Logger;
  /** Time for the window of the unreadable-line warnings. */
  clock: Clock;
  /** Twitch sent RECONNECT: the drop that follows is expected. */
  onReconnectAsked(): void;
  /** Twitch refused to join `channel` (channel-joins.ts); false if the bot is in it. */
  joinRefused(channel: string, notice: string): boolean;
}

export interface ChatEvents {
  /** Listens to a new client's chat; `ifCurrent` keeps a client given up on from being heard. */
  attach(client: tmi.Client, ifCurrent: IfCurrentClient): void;
  /** The transport stops: the lines skipped since the last warning are told now. */
  stop(): void;
}

export function createChatEvents(options: ChatEventsOptions): ChatEvents {
  const { channels, identity, listeners, echo, onReconnectAsked } = options;
  const onNotice = createNoticeHandler(options);
  const unreadable = unreadableLineWarnings(options.logger, options.clock);
  // The bot's own lines shown as chat carry these: Twitch gives them on login (GLOBALUSERSTATE)
  // and on each join (ROOMSTATE).
  let botUserId: string | null = null;
  const roomIds = new Map<string, string>();

  const isOwnLogin = (login: unknown): boolean => identity !== null && typeof login === 'string' && login.toLowerCase() === identity.login;

  // The channel of the last chat line, as sent and normalized: chat comes in runs from one channel.
  let lastRawChannel = '';
  let lastChannel = '';
  /** Another chatter's line (the bot's own come as its USERSTATE, onUserstate). */
  const onMessage = (rawChannel: string, tags: ChatTags, text: string): void => {
    if (rawChannel !== lastRawChannel) {
      lastChannel = normalizeChannel(rawChannel);
      lastRawChannel = rawChannel;
    }
    const channel = lastChannel;
    if (!channels.includes(channel)) return;
    // The bot's account chatting from elsewhere counts as the bot too: never answer yourself. But in
    // its own channel that account is the broadcaster typing (the bot and the channel may be one
    // account, docs/twitch-setup.md), whose commands run.
    const ownAccountElsewhere = isOwnLogin(tags.username) && channel !== identity?.login;
    listeners.emit({ type: 'message', channel, text, tags, self: ownAccountElsewhere });
  };

  /** `text`: the bot's line this USERSTATE accepted (it carries the new message's id), paired when it came. */
  const onUserstate = (channel: string, tags: ChatTags, text: string | null): void => {
    listeners.emit({ type: 'userstate', channel, tags });
    // Show the accepted line as chat; a /me line as Twitch shows it, the action without "/me".
    if (text === null || identity === null) return;
    const action = ACTION_LINE.exec(text)?.[1]?.trim();
    const ownTags: ChatTags = {
      ...tags,
      'user-id': botUserId,
      'room-id': roomIds.get(channel) ?? null,
      username: identity.login,
      emotes: null,
      'emotes-raw': null,
      'message-type': action === undefined ? 'chat' : 'action',
      'tmi-sent-ts': String(Date.now()),
    };
    listeners.emit({ type: 'message', channel, text: action ?? text, tags: ownTags, self: true });
  };

  // A full ROOMSTATE on join, a partial one when a moderator changes a mode: only one with the
  // `slow` tag says anything of slow mode.
  const onRoomState = (channel: string, slow: string): void => {
    const slowSeconds = Number(slow);
    if (Number.isInteger(slowSeconds) && slowSeconds >= 0) listeners.emit({ type: 'room-state', channel, slowSeconds });
  };

  // Runs for every line, so it looks at nothing before the command says it is one of its own.
  // True for a line it took over from tmi.js (a chat line).
  const onRawMessage = (message: RawIrcMessage): boolean => {
    switch (message.command) {
      case 'PRIVMSG': {
        const line = chatLineOf(message);
        if (line === null) return false;
        onMessage(line.channel, line.tags, line.text);
        return true;
      }
      case 'USERSTATE': {
        // tmi.js has no userstate event; it parses these tags (badges, flags) right after this
        // tap, in the same turn, so they are read once that is done. The line it accepted is
        // paired now, though: a NOTICE refusing the next line may be handled in the same turn,
        // and Twitch's answers pair with the bot's lines in the order they came. The NOTICE's event
        // is deferred the same way (notices.ts), so the events too keep Twitch's order.
        const channel = normalizeChannel(message.params[0] ?? '');
        if (!channels.includes(channel)) break;
        const accepted = typeof message.tags['id'] === 'string' && identity !== null ? echo.answered(channel, Date.now()) : null;
        queueMicrotask(() => onUserstate(channel, { ...message.tags } as ChatTags, accepted));
        break;
      }
      case 'NOTICE': {
        const channel = normalizeChannel(message.params[0] ?? '');
        const msgId = message.tags['msg-id'];
        if (typeof msgId === 'string' && channels.includes(channel)) onNotice(channel, msgId, message.params[1] ?? '');
        break;
      }
      case 'ROOMSTATE': {
        const channel = normalizeChannel(message.params[0] ?? '');
        const slow = message.tags['slow'];
        // After the USERSTATE read before it (deferred above), as Twitch sent them.
        if (typeof slow === 'string' && channels.includes(channel)) queueMicrotask(() => onRoomState(channel, slow));
        break;
      }
      case 'RECONNECT':
        onReconnectAsked();
        break;
      default:
        break;
    }
    return false;
  };

  // A real tmi.js event that @types/tmi.js does not list.
  const onGlobalUserstate = (tags: Record<string, unknown>): void => {
    const userId = textTag(tags['user-id']);
    if (userId !== null) botUserId = userId;
  };

  const userCleared = (rawChannel: string, tags: tmi.TimeoutUserstate | tmi.BanUserstate): void => {
    const userId = textTag(tags['target-user-id']);
    if (userId !== null && userId !== '') listeners.emit({ type: 'user-cleared', channel: normalizeChannel(rawChannel), userId });
  };

  return {
    attach(client, ifCurrent) {
      client.on('globaluserstate' as never, ifCurrent(onGlobalUserstate) as never);
      client.on('roomstate', ifCurrent((rawChannel: string, tags: { 'room-id'?: unknown }) => {
        const roomId = textTag(tags['room-id']);
        if (roomId !== null) roomIds.set(normalizeChannel(rawChannel), roomId);
      }));
      client.on('messagedeleted', ifCurrent((rawChannel: string, _login: string, _text: string, tags: tmi.DeleteUserstate) => {
        const messageId = textTag(tags['target-msg-id']);
        if (messageId !== null && messageId !== '') {
          listeners.emit({ type: 'message-deleted', channel: normalizeChannel(rawChannel), messageId });
        }
      }));
      client.on('timeout', ifCurrent((rawChannel: string, _login: string, _reason: string, _seconds: number, tags: tmi.TimeoutUserstate) => userCleared(rawChannel, tags)));
      client.on('ban', ifCurrent((rawChannel: string, _login: string, _reason: string, tags: tmi.BanUserstate) => userCleared(rawChannel, tags)));
      client.on('clearchat', ifCurrent((rawChannel: string) => {
        listeners.emit({ type: 'chat-cleared', channel: normalizeChannel(rawChannel) });
      }));
      tapParsedLines(client, ifCurrent(onRawMessage), unreadable.skipped);
    },
    stop: unreadable.stop,
  };
}
