// An overlay page's push socket for end-to-end tests: every frame it receives, parsed, with a way
// to wait for one.
import WebSocket from 'ws';
import type { RunningChatskin } from '../../src/runtime/start-chatskin.ts';
import type { ServerFrame } from '../../src/service/push/protocol.ts';
import { splitFrames } from '../../src/service/push/protocol.ts';

export interface OverlaySocket {
  readonly socket: WebSocket;
  readonly frames: ServerFrame[];
  /** The first frame from index `from` on that matches; throws after about 10 s. */
  waitFor(predicate: (frame: ServerFrame) => boolean, from?: number): Promise<ServerFrame>;
}

export function overlaySocket(url: string): OverlaySocket {
  const frames: ServerFrame[] = [];
  const socket = new WebSocket(url);
  socket.on('message', (data) => frames.push(...splitFrames(String(data)).map((text) => JSON.parse(text) as ServerFrame)));
  const waitFor = async (predicate: (frame: ServerFrame) => boolean, from = 0): Promise<ServerFrame> => {
    for (let i = 0; i < 400; i += 1) {
      const found = frames.slice(from).find(predicate);
      if (found) return found;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`no matching overlay frame among ${frames.length}`);
  };
  return { socket, frames, waitFor };
}

/** The push socket of the account's first (default) overlay, once its snapshot came. */
export async function watchDefaultOverlay(running: RunningChatskin): Promise<OverlaySocket> {
  const [main] = await running.service.listOverlays(running.account.id);
  const overlay = overlaySocket(`ws://127.0.0.1:${running.port}/overlay/${main!.token}/ws`);
  await overlay.waitFor((frame) => frame.type === 'snapshot');
  return overlay;
}
