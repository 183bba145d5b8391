// Open overlay sockets whose token no longer names their overlay: the store may change
// underneath with no event reaching this process (another process on the same database, a hand
// edit), so each heartbeat looks the open sockets' tokens up again (docs/push.md, 4004). The
// lookup also gives the overlay's stored version, by which a style changed underneath is found
// (docs/push.md, cause `external`).
import type { Channel } from './overlay-channels.ts';
import { CLOSE_CODES } from './protocol.ts';
import type { PushSource } from './push-source.ts';

/**
 * Looks every open socket's token up again (each heartbeat): the store may have changed
 * underneath, with no event reaching this process (another process on the same database, a hand
 * edit). A socket whose token no longer names its overlay (deleted, or its token changed) is
 * closed with 4004, as one the page may no longer watch; its page reconnects, is refused with
 * 404 and says "Overlay not found". A round is skipped while the last one's lookups still run.
 */
export function createTokenRecheck(options: {
  source: PushSource;
  channels: ReadonlyMap<number, Channel>;
  isClosed(): boolean;
  /** The stored version the lookup found for a socket whose token still names its overlay. */
  onStoredVersion?(channel: Channel, storeVersion: number): void;
  logger?: { error(obj: object, msg: string): void };
}): () => void {
  const { source, channels, isClosed, onStoredVersion, logger } = options;
  let running = 0;
  return function recheckTokens() {
    if (running > 0 || isClosed()) return;
    for (const channel of channels.values()) {
      for (const token of new Set([...channel.clients].map((client) => client.token))) {
        running++;
        Promise.resolve(source.findOverlayByToken(token)).then((overlay) => {
          if (overlay != null && overlay.id === channel.overlayId) {
            if (overlay.version !== undefined) onStoredVersion?.(channel, overlay.version);
            return;
          }
          for (const client of channel.clients) {
            if (client.token === token) client.socket.close(CLOSE_CODES.overlayGone, 'The overlay no longer exists.');
          }
        }, (error: unknown) => {
          // The store failed: the sockets stay, and the next round asks again.
          logger?.error({ err: error, overlayId: channel.overlayId }, 'overlay token recheck failed');
        }).finally(() => { running--; });
      }
    }
  };
}
