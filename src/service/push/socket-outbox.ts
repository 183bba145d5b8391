// Each overlay socket's outbox and its flow control (docs/push.md#flow-control).
//
// Frames for a socket queue in its outbox and go out once per event-loop turn, several in one
// WebSocket message (one frame per line, protocol.ts FRAME_SEPARATOR): a busy chat then costs
// one write per socket and turn, not one per line, which was most of the host's cost per chat line.
//
// A socket whose unsent bytes (its bufferedAmount plus its outbox) would pass `maxBufferedBytes`
// gets no more frames that may be dropped (it sees the version gap and resyncs once it catches
// up); a frame that may not be dropped closes it with 4008 instead.
import { WebSocket } from 'ws';
import { CLOSE_CODES, FRAME_SEPARATOR } from './protocol.ts';

/** What the outbox needs of a socket's client. */
export interface OutboxClient {
  readonly socket: WebSocket;
  /** Its overlay, named in the log when the socket is closed for reading too slowly. */
  readonly channel: { readonly overlayId: number };
  /**
   * Has had its first snapshot: gets updates and heartbeats (which the snapshot covers before
   * that; chat comes sooner, chat-frames.ts). Cleared when closed for reading too slowly.
   */
  ready: boolean;
  /** Frames waiting for this turn's flush, in order. */
  outbox: Buffer[];
  outboxBytes: number;
}

/** The gateway's counters the outboxes add to. */
export interface OutboxStats {
  /** Frames not sent because a socket's buffer was full. */
  droppedFrames: number;
  /** Sockets closed with 4008. */
  slowClosed: number;
  /** Largest bufferedAmount seen right after a send. */
  maxBufferedSeen: number;
}

export interface OutboxLimits {
  /** Unsent bytes allowed per socket. */
  maxBufferedBytes: number;
  /** How long a socket closed for being slow may take to say goodbye before it is cut. */
  closeGraceMs: number;
}

export interface SocketOutboxes {
  /** Whether a frame of `bytes` would still fit the client's buffer, after what its outbox holds. */
  hasRoomFor(client: OutboxClient, bytes: number): boolean;
  /** Queues a frame that may be lost; one that does not fit is counted as dropped. */
  sendOrDrop(client: OutboxClient, frame: Buffer): void;
  /** Queues a frame that may not be lost; a socket it does not fit is closed (4008). */
  sendOrClose(client: OutboxClient, frame: Buffer): boolean;
  /** Sends every outbox now, each as one message (otherwise done at the end of the turn). */
  flush(): void;
}

export function createSocketOutboxes(
  limits: OutboxLimits, stats: OutboxStats, logger?: { warn(obj: object, msg: string): void },
): SocketOutboxes {
  const { maxBufferedBytes, closeGraceMs } = limits;
  /** Clients with frames in their outbox; all flushed together at the end of the turn. */
  const unflushed = new Set<OutboxClient>();
  let flushScheduled = false;

  function hasRoomFor(client: OutboxClient, bytes: number): boolean {
    return client.socket.bufferedAmount + client.outboxBytes + separatorBefore(client) + bytes <= maxBufferedBytes;
  }

  /** Queues a frame for the end of this turn (flush). */
  function send(client: OutboxClient, frame: Buffer): void {
    client.outboxBytes += separatorBefore(client) + frame.byteLength;
    client.outbox.push(frame);
    unflushed.add(client);
    if (!flushScheduled) {
      flushScheduled = true;
      setImmediate(flush);
    }
  }

  function flush(): void {
    flushScheduled = false;
    for (const client of unflushed) {
      const frames = client.outbox;
      client.outbox = [];
      client.outboxBytes = 0;
      if (frames.length === 0 || client.socket.readyState !== WebSocket.OPEN) continue;
      client.socket.send(frames.length === 1 ? frames[0]! : joinFrames(frames), TEXT_FRAME);
      const buffered = client.socket.bufferedAmount;
      if (buffered > stats.maxBufferedSeen) stats.maxBufferedSeen = buffered;
    }
    unflushed.clear();
  }

  function sendOrDrop(client: OutboxClient, frame: Buffer): void {
    if (client.socket.readyState !== WebSocket.OPEN) return;
    if (hasRoomFor(client, frame.byteLength)) send(client, frame);
    else stats.droppedFrames++;
  }

  function sendOrClose(client: OutboxClient, frame: Buffer): boolean {
    if (client.socket.readyState !== WebSocket.OPEN) return false;
    if (hasRoomFor(client, frame.byteLength)) {
      send(client, frame);
      return true;
    }
    stats.slowClosed++;
    // The browser source shows nothing until it reconnects: the one trace of an overloaded OBS
    // machine or link. Once per close, never the token (the overlay's only key).
    logger?.warn({ overlayId: client.channel.overlayId, maxBufferedBytes },
      `overlay socket closed (4008): overlay ${client.channel.overlayId}'s page read too slowly (over ${maxBufferedBytes} bytes waited unsent); `
      + 'it reconnects for a fresh snapshot. If this recurs, the machine or network of that browser source cannot keep up with the chat');
    client.ready = false;
    client.outbox = [];
    client.outboxBytes = 0;
    client.socket.close(CLOSE_CODES.tooSlow, 'Reading too slowly; reconnect for a fresh snapshot.');
    // The close frame waits behind the unread bytes; do not wait for it for long.
    setTimeout(() => client.socket.terminate(), closeGraceMs).unref();
    return false;
  }

  return { hasRoomFor, sendOrDrop, sendOrClose, flush };
}

/**
 * Frames are encoded once and the same bytes go to every socket of the overlay (sending a
 * string would encode it again per socket).
 */
export function encode(frame: string): Buffer {
  return Buffer.from(frame, 'utf8');
}

const TEXT_FRAME = Object.freeze({ binary: false });
const SEPARATOR = Buffer.from(FRAME_SEPARATOR, 'utf8');

/** What the next frame adds to the client's message besides itself: a separator after an earlier one. */
function separatorBefore(client: OutboxClient): number {
  return client.outbox.length > 0 ? SEPARATOR.byteLength : 0;
}

/** Several encoded frames as one message body, one per line. */
function joinFrames(frames: readonly Buffer[]): Buffer {
  const parts: Buffer[] = [];
  for (const frame of frames) {
    if (parts.length > 0) parts.push(SEPARATOR);
    parts.push(frame);
  }
  return Buffer.concat(parts);
}
