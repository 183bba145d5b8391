// The live push gateway (docs/push.md): overlay pages connect over WebSocket with their
// overlay's token, get a snapshot of the style, then updates after every committed change that
// affects them and the channel's chat events, each frame with the overlay's next version.
//
// This file wires the parts together and shuts them down: upgrade-admission.ts lets sockets in,
// overlay-channels.ts keeps each overlay's sockets and version, style-reads.ts sends snapshots
// and updates, chat-frames.ts the chat, heartbeats.ts pings and ends dead sockets, and every
// frame goes through its socket's outbox (socket-outbox.ts: one message per turn, flow control).
// Frames are serialized and encoded once per overlay and the same bytes go to each of its sockets.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { RawData, WebSocket } from 'ws';
import { createChatPush } from './chat-frames.ts';
import { startHeartbeats } from './heartbeats.ts';
import { createOverlayChannels } from './overlay-channels.ts';
import type { PushClient } from './overlay-channels.ts';
import type { ChatEvent, OverlayPageOptions } from './protocol.ts';
import { CLOSE_CODES } from './protocol.ts';
import type { PushSource } from './push-source.ts';
import { createSocketOutboxes } from './socket-outbox.ts';
import { createStyleReads } from './style-reads.ts';
import { createTokenRecheck } from './token-recheck.ts';
import { createUpgradeAdmission } from './upgrade-admission.ts';
import type { AdmittedOverlay } from './upgrade-admission.ts';

export interface PushGatewayOptions {
  /** Ping and heartbeat interval. Default 30 000 ms. */
  heartbeatMs?: number;
  /** Unsent bytes allowed per socket before chat is dropped / the socket is closed. Default 1 MiB. */
  maxBufferedBytes?: number;
  /** How long a socket closed for being slow may take to say goodbye before it is cut. Default 5 000 ms. */
  closeGraceMs?: number;
  /**
   * Sockets one overlay may have open at once; more are refused (429) before the handshake, so
   * one overlay's token cannot take every connection the server allows. Default 32.
   */
  maxSocketsPerOverlay?: number;
  /**
   * A socket's resyncs are answered at most once per this many ms; an earlier one waits its turn
   * (chat goes on meanwhile), so a 17-byte frame cannot make the server read and send whole
   * snapshots as fast as a client asks. Default 1 000 ms.
   */
  resyncIntervalMs?: number;
  /** Page options sent with every snapshot. */
  page?: Partial<Omit<OverlayPageOptions, 'heartbeatMs'>>;
  logger?: { error(obj: object, msg: string): void; warn(obj: object, msg: string): void };
}

export interface PushGatewayStats {
  overlays: number;
  sockets: number;
  /** Frames that may be missed (chat messages, heartbeats) not sent because a socket's buffer was full. */
  droppedFrames: number;
  /** Sockets closed with 4008. */
  slowClosed: number;
  /** Sockets terminated for not answering a ping. */
  deadTerminated: number;
  /** Largest bufferedAmount seen right after a send. */
  maxBufferedSeen: number;
  /** Style reads made (each serves an update and/or the snapshots of sockets that joined meanwhile). */
  styleReads: number;
}

export interface PushGateway {
  /** Handles an HTTP upgrade if its path is an overlay socket path; false when the path is not ours. */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): boolean;
  /** Sends a chat event to every overlay of the account. */
  pushChatEvent(accountId: number, event: ChatEvent): void;
  stats(): PushGatewayStats;
  /** Closes every socket (1001) and stops listening to the service. */
  close(): Promise<void>;
}

export const DEFAULT_PAGE_OPTIONS: Omit<OverlayPageOptions, 'heartbeatMs'> = Object.freeze({
  maxMessages: 50,
  emoteBaseUrl: 'https://static-cdn.jtvnw.net/emoticons/v2',
  fontStylesheetBaseUrl: 'https://fonts.googleapis.com/css2',
});
export const DEFAULT_HEARTBEAT_MS = 30_000;
export const DEFAULT_MAX_BUFFERED_BYTES = 1024 * 1024;
export const DEFAULT_MAX_SOCKETS_PER_OVERLAY = 32;

/** Longest a shutdown waits for a socket's close handshake. */
const SHUTDOWN_GRACE_MS = 1_000;
/** Largest frame a page may send (only `{"type":"resync"}` is defined). */
const MAX_CLIENT_FRAME_BYTES = 1024;

export function createPushGateway(source: PushSource, options: PushGatewayOptions = {}): PushGateway {
  const heartbeatMs = positive('heartbeatMs', options.heartbeatMs, DEFAULT_HEARTBEAT_MS);
  const maxBufferedBytes = positive('maxBufferedBytes', options.maxBufferedBytes, DEFAULT_MAX_BUFFERED_BYTES);
  const closeGraceMs = positive('closeGraceMs', options.closeGraceMs, 5_000);
  const resyncIntervalMs = positive('resyncIntervalMs', options.resyncIntervalMs, 1_000);
  const maxSocketsPerOverlay = positive('maxSocketsPerOverlay', options.maxSocketsPerOverlay, DEFAULT_MAX_SOCKETS_PER_OVERLAY);
  const pageOptions: OverlayPageOptions = { ...DEFAULT_PAGE_OPTIONS, ...options.page, heartbeatMs };
  const pageOptionsJson = JSON.stringify(pageOptions);
  const logger = options.logger;
  const stats = { droppedFrames: 0, slowClosed: 0, deadTerminated: 0, maxBufferedSeen: 0, styleReads: 0 };

  let closed = false;
  const isClosed = (): boolean => closed;

  const server = new WebSocketServer({ noServer: true, maxPayload: MAX_CLIENT_FRAME_BYTES, perMessageDeflate: false });
  const channels = createOverlayChannels();
  const outboxes = createSocketOutboxes({ maxBufferedBytes, closeGraceMs }, stats, logger);
  const styleReads = createStyleReads({
    source, channels: channels.byOverlay, outboxes, stats, pageOptionsJson, resyncIntervalMs, logger, isClosed,
  });
  const pushChatEvent = createChatPush(channels.byAccount, outboxes, stats);
  const handleUpgrade = createUpgradeAdmission({
    source, server, maxSocketsPerOverlay, logger, accept, isClosed,
    socketsOpen: (overlayId) => channels.byOverlay.get(overlayId)?.clients.size ?? 0,
  });
  const unsubscribe = source.subscribe((event) => styleReads.onServiceEvent(event));
  const recheckTokens = createTokenRecheck({ source, channels: channels.byOverlay, isClosed, logger, onStoredVersion: styleReads.onStoredVersion });
  const heartbeats = startHeartbeats(heartbeatMs, channels.byOverlay, outboxes, stats, recheckTokens);

  /** Joins a socket the admission let in to its overlay's channel; its snapshot follows. */
  function accept(socket: WebSocket, overlay: AdmittedOverlay, token: string): void {
    const channel = channels.channelFor(overlay.id, overlay.accountId);
    const client: PushClient = {
      socket, channel, token, ready: false, alive: true, outbox: [], outboxBytes: 0, lastResyncAt: -Infinity, resyncTimer: undefined, awaitingSnapshot: false,
    };
    channel.clients.add(client);
    heartbeats.watch(client);
    socket.on('message', (data, isBinary) => onClientFrame(client, data, isBinary));
    socket.on('error', () => { /* 'close' follows and cleans up */ });
    socket.on('close', () => channels.leave(client));
    styleReads.snapshotNewcomer(client, overlay.version);
  }

  function onClientFrame(client: PushClient, data: RawData, isBinary: boolean): void {
    if (isResyncFrame(data, isBinary)) styleReads.requestResync(client);
    else client.socket.close(CLOSE_CODES.badFrame, 'Unknown frame; the only client frame is {"type":"resync"}.');
  }

  async function close(): Promise<void> {
    if (closed) return;
    closed = true;
    heartbeats.stop();
    unsubscribe();
    // A style change made just before the stop (a command finishing) still reaches the pages:
    // the reads already queued run first, for a bounded while.
    const queued = Promise.all([...channels.byOverlay.values()].map((channel) => channel.queue));
    await Promise.race([queued, new Promise((resolve) => setTimeout(resolve, SHUTDOWN_GRACE_MS).unref())]);
    outboxes.flush(); // what was queued goes out before the close frame
    const closing: Promise<void>[] = [];
    for (const channel of channels.byOverlay.values()) {
      for (const client of channel.clients) {
        closing.push(new Promise((resolve) => client.socket.once('close', () => resolve())));
        client.socket.close(CLOSE_CODES.goingAway, 'Server shutting down.');
        setTimeout(() => client.socket.terminate(), Math.min(closeGraceMs, SHUTDOWN_GRACE_MS)).unref();
      }
    }
    await Promise.all(closing);
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  return {
    handleUpgrade,
    pushChatEvent,
    stats: () => ({
      overlays: channels.byOverlay.size,
      sockets: [...channels.byOverlay.values()].reduce((n, c) => n + c.clients.size, 0),
      ...stats,
    }),
    close,
  };
}

/** The only frame a page may send: `{"type":"resync"}`. */
function isResyncFrame(data: RawData, isBinary: boolean): boolean {
  let frame: unknown;
  try {
    frame = isBinary ? undefined : JSON.parse(data.toString());
  } catch {
    frame = undefined;
  }
  return typeof frame === 'object' && frame !== null && (frame as { type?: unknown }).type === 'resync';
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) throw new TypeError(`Push gateway option ${name} must be a positive number, got ${String(value)}`);
  return value;
}
