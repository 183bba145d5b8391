// Chat events as `chat` frames on every overlay of the channel's account (docs/push.md#chat).
// Each event bumps each overlay's version; it is serialized once (with its frame, for an account
// with one overlay), and its frame encoded once per overlay for all of the overlay's sockets.
// Only plain messages may be dropped for a socket that reads too slowly: a missed removal would
// leave removed text on stream.
//
// A socket waiting for a snapshot gets chat too, its first snapshot included: a snapshot holds no
// chat, so what was typed while it was read would never show on a page that just connected.
import { WebSocket } from 'ws';
import type { ChatEvent, ChatMessageEvent } from './protocol.ts';
import type { Channel, PushClient } from './overlay-channels.ts';
import { encode } from './socket-outbox.ts';
import type { OutboxStats, SocketOutboxes } from './socket-outbox.ts';

/** Sends a chat event to every overlay of the account. */
export type ChatPush = (accountId: number, event: ChatEvent) => void;

export function createChatPush(
  channelsByAccount: ReadonlyMap<number, ReadonlySet<Channel>>,
  outboxes: SocketOutboxes,
  stats: Pick<OutboxStats, 'droppedFrames'>,
): ChatPush {
  const { hasRoomFor, sendOrDrop, sendOrClose } = outboxes;

  function pushChatEvent(accountId: number, event: ChatEvent): void {
    const accountChannels = channelsByAccount.get(accountId);
    if (accountChannels === undefined) return;
    let eventJson: string | undefined;
    const droppable = event.type === 'message';
    for (const channel of accountChannels) {
      channel.version++;
      // Under a flood with readers behind, a message no socket has room for is not even built.
      if (droppable && !anyRoomForChat(channel, event)) continue;
      // An account with one overlay (most) has the frame serialized whole: no event JSON spliced in.
      const frame = encode(accountChannels.size === 1
        ? JSON.stringify({ type: 'chat', version: channel.version, event })
        : `{"type":"chat","version":${channel.version},"event":${eventJson ??= JSON.stringify(event)}}`);
      for (const client of channel.clients) {
        if (!getsChat(client)) continue;
        if (droppable) sendOrDrop(client, frame);
        else sendOrClose(client, frame);
      }
    }
  }

  /**
   * Whether any socket of the channel that gets chat could still take this message's frame; the sockets
   * that cannot count it as dropped. Never wrong: the frame is at least chatFrameLowerBound long.
   */
  function anyRoomForChat(channel: Channel, event: ChatMessageEvent): boolean {
    const least = chatFrameLowerBound(event);
    let full = 0;
    for (const client of channel.clients) {
      if (!getsChat(client) || client.socket.readyState !== WebSocket.OPEN) continue;
      if (hasRoomFor(client, least)) return true;
      full++;
    }
    stats.droppedFrames += full;
    return false;
  }

  return pushChatEvent;
}

/** Had its snapshot, or waits for one (overlay-channels.ts `awaitingSnapshot`). */
function getsChat(client: PushClient): boolean {
  return client.ready || client.awaitingSnapshot;
}

/** The fixed part of every chat frame: none is shorter. */
const MIN_CHAT_FRAME_BYTES = Buffer.byteLength('{"type":"chat","version":0,"event":{}}');

/**
 * Fewer bytes than the message's frame will have, without building it: JSON writes each string
 * in at least as many UTF-8 bytes as it has UTF-16 units.
 */
export function chatFrameLowerBound(event: ChatMessageEvent): number {
  return MIN_CHAT_FRAME_BYTES + event.text.length + event.id.length + event.userId.length + event.login.length + event.displayName.length;
}
