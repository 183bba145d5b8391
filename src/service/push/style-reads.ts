// The style reads that feed an overlay's sockets their `update` and `snapshot` frames
// (docs/push.md#server-to-page).
//
// Style reads run one at a time per overlay, and every change or newcomer that arrives while a
// read is queued joins it; every read serves both the update to connected sockets and the
// snapshot to sockets that joined meanwhile. A socket that joins while the stored overlay
// version still matches the last read gets that read's snapshot without a new one. A socket's
// resyncs are answered at most once per `resyncIntervalMs`.
import { WebSocket } from 'ws';
import type { OverlayStyle, UpdateCause } from './protocol.ts';
import { heartbeatFrame } from './heartbeats.ts';
import { CLOSE_CODES } from './protocol.ts';
import type { Channel, PendingRead, PushClient } from './overlay-channels.ts';
import type { PushSource, PushSourceEvent } from './push-source.ts';
import { encode } from './socket-outbox.ts';
import type { SocketOutboxes } from './socket-outbox.ts';

export interface StyleReadsOptions {
  source: PushSource;
  channels: ReadonlyMap<number, Channel>;
  outboxes: SocketOutboxes;
  /** The gateway's counter of reads made. */
  stats: { styleReads: number };
  /** The page options every snapshot carries, as JSON. */
  pageOptionsJson: string;
  resyncIntervalMs: number;
  /** Once true, no more reads are queued. */
  isClosed(): boolean;
  logger?: { error(obj: object, msg: string): void };
}

export interface StyleReads {
  /** Queues an update of every connected overlay the committed change affects. */
  onServiceEvent(event: PushSourceEvent): void;
  /** Sends a socket that just joined its channel its first snapshot. */
  snapshotNewcomer(client: PushClient, storeVersion: number | undefined): void;
  /** Answers a page's resync with a fresh snapshot, once its interval since the last is up. */
  requestResync(client: PushClient): void;
  /**
   * The stored overlay version a heartbeat's token lookup found: when it is ahead of the last read
   * and no read is queued, another process changed the overlay underneath (no event reached this
   * gateway), and its sockets get an update (cause `external`).
   */
  onStoredVersion(channel: Channel, storeVersion: number): void;
}

export function createStyleReads(options: StyleReadsOptions): StyleReads {
  const { source, channels, stats, pageOptionsJson, resyncIntervalMs, isClosed, logger } = options;
  const { sendOrClose, sendOrDrop } = options.outboxes;

  function onServiceEvent(event: PushSourceEvent): void {
    switch (event.type) {
      case 'overlay-changed':
        for (const id of event.overlayIds) scheduleRead(channels.get(id), 'template');
        break;
      case 'skin-changed':
        for (const id of event.overlayIds) scheduleRead(channels.get(id), 'skin');
        break;
      case 'viewer-skin-changed':
        for (const id of event.overlayIds) scheduleRead(channels.get(id), 'viewer-skin');
        break;
    }
  }

  function snapshotNewcomer(client: PushClient, storeVersion: number | undefined): void {
    const { channel } = client;
    // The token lookup just read the stored version: if the last read is of that version and
    // nothing is queued, it is still the overlay's style.
    const cache = channel.cache;
    if (cache !== null && channel.reads === 0 && storeVersion !== undefined && cache.storeVersion === storeVersion) {
      if (sendOrClose(client, snapshotFrame(channel.version, cache.body))) client.ready = true;
      return;
    }
    // Chat typed while the snapshot is read reaches the socket before it (chat-frames.ts).
    client.awaitingSnapshot = true;
    scheduleRead(channel, null, client);
  }

  function requestResync(client: PushClient): void {
    // A client already waiting for its snapshot gets just that one.
    if (!client.ready || client.awaitingSnapshot || client.resyncTimer !== undefined) return;
    const wait = client.lastResyncAt + resyncIntervalMs - performance.now();
    if (wait <= 0) resync(client);
    else {
      client.resyncTimer = setTimeout(() => {
        client.resyncTimer = undefined;
        if (client.ready && client.socket.readyState === WebSocket.OPEN) resync(client);
      }, wait);
      client.resyncTimer.unref();
    }
  }

  function resync(client: PushClient): void {
    client.lastResyncAt = performance.now();
    // Not `ready = false`: chat, removals above all, must keep coming while the snapshot is read.
    client.awaitingSnapshot = true;
    scheduleRead(client.channel, null, client);
  }

  function onStoredVersion(channel: Channel, storeVersion: number): void {
    // Stored versions only go up: one below the last read's is a lookup older than that read.
    if (channel.reads > 0 || channel.cache === null || storeVersion <= channel.cache.storeVersion) return;
    if (channels.get(channel.overlayId) !== channel) return;
    scheduleRead(channel, 'external');
  }

  /** Queues a style read of the channel's overlay for an update (`cause`) and/or a snapshot (`newcomer`). */
  function scheduleRead(channel: Channel | undefined, cause: UpdateCause | null, newcomer?: PushClient): void {
    if (channel === undefined || isClosed()) return;
    if (channel.pending === null) {
      const pending: PendingRead = { causes: new Set(), newcomers: [] };
      channel.pending = pending;
      channel.reads++;
      // One turn of the event loop first, so every socket that connects and every event that
      // arrives in the same I/O phase joins this read (a reconnect storm makes a few reads, not one each).
      channel.queue = channel.queue.then(nextTurn).then(() => readAndSend(channel, pending)).catch((error: unknown) => {
        logger?.error({ err: error, overlayId: channel.overlayId }, 'overlay push failed');
        // The update these changes needed was never sent: the version moves on without it, so
        // every open page sees a gap and asks for a snapshot (docs/push.md#versions), told by a
        // heartbeat now rather than at the next beat. Otherwise it would keep the old style.
        if (pending.causes.size > 0) {
          channel.version++;
          const beat = heartbeatFrame(channel.version);
          for (const client of channel.clients) {
            if (client.ready) sendOrDrop(client, beat);
          }
        }
        // A socket waiting for this snapshot (a newcomer, or a page's resync) would wait for ever:
        // it reconnects instead, and its new connection reads again.
        for (const client of pending.newcomers) {
          client.awaitingSnapshot = false;
          client.socket.close(CLOSE_CODES.tryAgain, 'The overlay could not be read; reconnect.');
        }
      }).finally(() => { channel.reads--; });
    }
    if (cause !== null) channel.pending.causes.add(cause);
    if (newcomer !== undefined) channel.pending.newcomers.push(newcomer);
  }

  async function readAndSend(channel: Channel, pending: PendingRead): Promise<void> {
    if (channel.pending === pending) channel.pending = null;
    stats.styleReads++;
    const read = await source.readOverlayStyle(channel.overlayId);
    if (read === null) {
      for (const client of channel.clients) client.socket.close(CLOSE_CODES.overlayGone, 'The overlay no longer exists.');
      return;
    }
    const styleJson = JSON.stringify(read.style satisfies OverlayStyle);
    const body = `"overlay":${JSON.stringify(read.overlay)},"style":${styleJson}`;
    if (read.version !== undefined) channel.cache = { storeVersion: read.version, body };
    if (pending.causes.size > 0) {
      channel.version++;
      const frame = encode(`{"type":"update","version":${channel.version},"causes":${JSON.stringify([...pending.causes])},"style":${styleJson}}`);
      for (const client of channel.clients) {
        if (client.ready) sendOrClose(client, frame);
      }
    }
    const newcomers = pending.newcomers.filter((c) => c.socket.readyState === WebSocket.OPEN);
    if (newcomers.length === 0) return;
    const snapshot = snapshotFrame(channel.version, body);
    for (const client of newcomers) {
      client.awaitingSnapshot = false;
      if (sendOrClose(client, snapshot)) client.ready = true;
    }
  }

  /** `body` is the cached `"overlay":…,"style":…` of the read. */
  function snapshotFrame(version: number, body: string): Buffer {
    return encode(`{"type":"snapshot","version":${version},${body},"options":${pageOptionsJson}}`);
  }

  return { onServiceEvent, snapshotNewcomer, requestResync, onStoredVersion };
}

function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
