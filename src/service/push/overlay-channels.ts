// The gateway's channels: one per overlay with sockets open, holding its sockets, its version
// counter (docs/push.md#versions) and its style reads (style-reads.ts), found by overlay and by
// account. A channel goes with its last socket; one made again for the overlay continues from
// the version the last one reached, so a page never sees the version go back.
import type { UpdateCause } from './protocol.ts';
import type { OutboxClient } from './socket-outbox.ts';

/** One overlay page's socket. */
export interface PushClient extends OutboxClient {
  channel: Channel;
  /** The token it was let in with (upgrade-admission.ts looks it up again every heartbeat). */
  token: string;
  /** Answered the last ping. */
  alive: boolean;
  /** When its last resync was answered (performance.now()). */
  lastResyncAt: number;
  /** A resync that asked too soon, answered when its turn comes. */
  resyncTimer: ReturnType<typeof setTimeout> | undefined;
  /**
   * A snapshot is being read for it: its first (it is not `ready` yet), or a resync's (it stays
   * `ready`). Chat frames reach it meanwhile: a snapshot carries no chat, so a line or a removal
   * sent only to the others would be missing from this page, or left on it.
   */
  awaitingSnapshot: boolean;
}

export interface Channel {
  overlayId: number;
  accountId: number;
  version: number;
  clients: Set<PushClient>;
  /** Style reads of this overlay, one at a time. */
  queue: Promise<void>;
  /** The read queued but not yet started, which later events join. */
  pending: PendingRead | null;
  /** Reads queued or running. */
  reads: number;
  /** Refilled by every read; used only while no read is queued and the stored version matches. */
  cache: StyleCache | null;
}

/** A style read not yet started: the updates it will send and the sockets waiting for its snapshot. */
export interface PendingRead {
  causes: Set<UpdateCause>;
  newcomers: PushClient[];
}

/** The last style read of an overlay, reusable while the stored overlay version is unchanged. */
export interface StyleCache {
  storeVersion: number;
  /** `"overlay":…,"style":…` of a snapshot frame. */
  body: string;
}

export interface OverlayChannels {
  readonly byOverlay: ReadonlyMap<number, Channel>;
  readonly byAccount: ReadonlyMap<number, ReadonlySet<Channel>>;
  /** The overlay's channel, made when it has none. */
  channelFor(overlayId: number, accountId: number): Channel;
  /** Takes a closed socket (and its waiting resync) out of its channel, and the channel away with its last socket. */
  leave(client: PushClient): void;
}

export function createOverlayChannels(): OverlayChannels {
  const byOverlay = new Map<number, Channel>();
  const byAccount = new Map<number, Set<Channel>>();
  /** Last version each overlay reached, so a channel made again continues from it. */
  const lastVersions = new Map<number, number>();

  function channelFor(overlayId: number, accountId: number): Channel {
    let channel = byOverlay.get(overlayId);
    if (channel === undefined) {
      channel = {
        overlayId, accountId, version: lastVersions.get(overlayId) ?? 0,
        clients: new Set(), queue: Promise.resolve(), pending: null, reads: 0, cache: null,
      };
      byOverlay.set(overlayId, channel);
      const forAccount = byAccount.get(accountId) ?? new Set<Channel>();
      forAccount.add(channel);
      byAccount.set(accountId, forAccount);
    }
    return channel;
  }

  function leave(client: PushClient): void {
    const { channel } = client;
    clearTimeout(client.resyncTimer);
    channel.clients.delete(client);
    if (channel.clients.size > 0 || byOverlay.get(channel.overlayId) !== channel) return;
    lastVersions.set(channel.overlayId, channel.version);
    byOverlay.delete(channel.overlayId);
    const forAccount = byAccount.get(channel.accountId);
    forAccount?.delete(channel);
    if (forAccount?.size === 0) byAccount.delete(channel.accountId);
  }

  return { byOverlay, byAccount, channelFor, leave };
}
