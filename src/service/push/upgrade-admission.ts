// Which HTTP upgrades become overlay sockets (docs/push.md#address): the path names an overlay
// by its token, the token names one, the host is not shutting down and the overlay has room for
// another socket. Every other upgrade on an overlay socket path is refused with a plain HTTP
// answer before any WebSocket handshake. (An open socket's token is looked up again every
// heartbeat: token-recheck.ts.)
import { STATUS_CODES } from 'node:http';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket, WebSocketServer } from 'ws';
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
  logger?: { error(obj: object, msg: string): void; warn(obj: object, msg: string): void };
}

/** Handles an upgrade whose path is an overlay socket path; false when the path is not ours. */
export type UpgradeHandler = (request: IncomingMessage, socket: Duplex, head: Buffer) => boolean;

/** `/overlay/<token>/ws`, query string ignored. */
const SOCKET_PATH = /^\/overlay\/([^/?#]{1,200})\/ws(?:\?.*)?$/;

export function createUpgradeAdmission(options: UpgradeAdmissionOptions): UpgradeHandler {
  const { source, server, maxSocketsPerOverlay, socketsOpen, isClosed, accept, logger } = options;
  // Overlays refused for being full, warned about once until one of theirs is let in again: a page
  // reconnecting in a loop, or the URL opened in many places, is one line, not one per try.
  const fullWarned = new Set<number>();
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
        if (!fullWarned.has(overlay.id)) {
          fullWarned.add(overlay.id);
          logger?.warn({ overlayId: overlay.id, maxSocketsPerOverlay },
            `overlay ${overlay.id} refused a page (429): it has ${maxSocketsPerOverlay} sockets open already. Its URL is open in that many `
            + 'browser sources or tabs; close the ones not needed, or, if you do not know them, give the overlay a new URL (`chatskin overlays new-url`)');
        }
        return;
      }
      server.handleUpgrade(request, socket, head, (ws) => {
        upgraded = true;
        fullWarned.delete(overlay.id);
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

function refuseUpgrade(socket: Duplex, status: number, message: string): void {
  const reason = STATUS_CODES[status] ?? 'Error';
  if (!socket.destroyed) {
    socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(message)}\r\n\r\n${message}`);
  }
}
