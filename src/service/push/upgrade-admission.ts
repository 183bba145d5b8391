// Which HTTP upgrades become overlay sockets (docs/push.md#address): the path names an overlay
// by its token, the token names one, the host is not shutting down and the overlay has room for
// another socket. Every other upgrade on an overlay socket path is refused with a plain HTTP
// answer before any WebSocket handshake. An open socket's token is looked up again every
// heartbeat (recheckTokens): one that no longer names its overlay is closed with 4004.
import { STATUS_CODES } from 'node:http';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket, WebSocketServer } from 'ws';
import type { Channel } from './overlay-channels.ts';
import { CLOSE_CODES } from './protocol.ts';
import type { PushSource } from './push-source.ts';

/** The overlay a token named, as `PushSource.findOverlayByToken` gives it. */
export interface AdmittedOverlay {
  id: number;
  accountId: number;
  version?: number;
}

export interface UpgradeAdmissionOptions {
  source: PushSource;
  /** Completes the handshakes. */
  server: WebSocketServer;
  maxSocketsPerOverlay: number;
  /** Sockets the overlay has open now. */
  socketsOpen(overlayId: number): number;
  isClosed(): boolean;
  /** Takes the new socket in (let in with `token`); called in the turn the overlay's socket count was checked. */
  accept(socket: WebSocket, overlay: AdmittedOverlay, token: string): void;
  logger?: { error(obj: object, msg: string): void };
}

/** Handles an upgrade whose path is an overlay socket path; false when the path is not ours. */
export type UpgradeHandler = (request: IncomingMessage, socket: Duplex, head: Buffer) => boolean;

/** `/overlay/<token>/ws`, query string ignored. */
const SOCKET_PATH = /^\/overlay\/([^/?#]{1,200})\/ws(?:\?.*)?$/;

export function createUpgradeAdmission(options: UpgradeAdmissionOptions): UpgradeHandler {
  const { source, server, maxSocketsPerOverlay, socketsOpen, isClosed, accept, logger } = options;
  return function handleUpgrade(request, socket, head) {
    const match = SOCKET_PATH.exec(request.url ?? '');
    if (match === null) return false;
    socket.on('error', () => socket.destroy());
    let token: string;
    try {
      token = decodeURIComponent(match[1]!);
    } catch {
      refuseUpgrade(socket, 404, 'Unknown overlay token.');
      return true;
    }
    if (isClosed()) {
      refuseUpgrade(socket, 503, 'Shutting down.');
      return true;
    }
    let upgraded = false;
    Promise.resolve(source.findOverlayByToken(token)).then((overlay) => {
      if (overlay == null) {
        refuseUpgrade(socket, 404, 'Unknown overlay token.');
        return;
      }
      if (socket.destroyed) return;
      // The shutdown began during the lookup: the same answer as an upgrade that came after it.
      if (isClosed()) {
        refuseUpgrade(socket, 503, 'Shutting down.');
        return;
      }
      // Checked here and counted in accept() in the same turn (ws completes the handshake at once).
      if (socketsOpen(overlay.id) >= maxSocketsPerOverlay) {
        refuseUpgrade(socket, 429, `This overlay has ${maxSocketsPerOverlay} sockets open already; close one first.`);
        return;
      }
      server.handleUpgrade(request, socket, head, (ws) => {
        upgraded = true;
        accept(ws, overlay, token);
      });
    }).catch((error: unknown) => {
      logger?.error({ err: error }, 'overlay socket upgrade failed');
      if (upgraded) socket.destroy();
      else refuseUpgrade(socket, 500, 'Server error.');
    });
    return true;
  };
}

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
  logger?: { error(obj: object, msg: string): void };
}): () => void {
  const { source, channels, isClosed, logger } = options;
  let running = 0;
  return function recheckTokens() {
    if (running > 0 || isClosed()) return;
    for (const channel of channels.values()) {
      for (const token of new Set([...channel.clients].map((client) => client.token))) {
        running++;
        Promise.resolve(source.findOverlayByToken(token)).then((overlay) => {
          if (overlay != null && overlay.id === channel.overlayId) return;
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

function refuseUpgrade(socket: Duplex, status: number, message: string): void {
  const reason = STATUS_CODES[status] ?? 'Error';
  if (!socket.destroyed) {
    socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(message)}\r\n\r\n${message}`);
  }
}
