// Heartbeats and dead sockets (docs/push.md#heartbeats-and-dead-sockets): every interval each
// socket gets a WebSocket ping and a `heartbeat` frame with its overlay's version (a browser
// cannot see pings; the frame is what the page's silence timer listens for, and a version
// above the page's shows it a dropped frame). A socket that did not answer the previous ping
// with a pong is terminated instead, so a dead one is gone within two intervals.
import type { Channel, PushClient } from './overlay-channels.ts';
import { encode } from './socket-outbox.ts';
import type { SocketOutboxes } from './socket-outbox.ts';

export interface Heartbeats {
  /** Marks the client alive whenever its socket answers a ping. */
  watch(client: PushClient): void;
  stop(): void;
}

export function startHeartbeats(
  intervalMs: number,
  channels: ReadonlyMap<number, Channel>,
  outboxes: SocketOutboxes,
  /** The gateway's counter of sockets terminated for a missed pong. */
  stats: { deadTerminated: number },
  /** Runs with every round (the tokens' recheck, upgrade-admission.ts). */
  onBeat: () => void = () => {},
): Heartbeats {
  const { sendOrDrop } = outboxes;

  function beat(): void {
    onBeat();
    for (const channel of channels.values()) {
      const frame = heartbeatFrame(channel.version);
      for (const client of channel.clients) {
        if (!client.alive) {
          stats.deadTerminated++;
          client.socket.terminate();
          continue;
        }
        client.alive = false;
        client.socket.ping();
        if (client.ready) sendOrDrop(client, frame);
      }
    }
  }

  const timer = setInterval(beat, intervalMs);
  timer.unref();
  return {
    watch: (client) => { client.socket.on('pong', () => { client.alive = true; }); },
    stop: () => clearInterval(timer),
  };
}

/** A `heartbeat` frame: the overlay's version, so a page that missed a frame sees the gap. */
export function heartbeatFrame(version: number): Buffer {
  return encode(`{"type":"heartbeat","version":${version}}`);
}
