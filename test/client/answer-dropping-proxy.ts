// A TCP proxy in front of a real server that can lose one answer: the request reaches the server
// and is done there, and the connection to the client is cut when the answer comes back, as a
// network that fails at the wrong moment does. The client sees a dropped connection (undici's
// UND_ERR_SOCKET), for a request the server did carry out.
import { connect, createServer } from 'node:net';
import type { AddressInfo, Server, Socket } from 'node:net';

export interface AnswerDroppingProxy {
  /** The proxy's base URL: the server's with the proxy's port. */
  baseUrl: string;
  /** The answer to the next request whose request line starts with `requestLine` (`POST /api/v1/viewers/unlock-skin`) is lost. */
  dropNextAnswer(requestLine: string): void;
  /** Answers lost so far. */
  readonly dropped: number;
  close(): Promise<void>;
}

export async function startAnswerDroppingProxy(serverBaseUrl: string): Promise<AnswerDroppingProxy> {
  const target = new URL(serverBaseUrl);
  const drops: string[] = [];
  let dropped = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    sockets.add(client).add(upstream);
    let losing = false;
    client.on('data', (chunk: Buffer) => {
      const text = chunk.toString('latin1');
      const index = drops.findIndex((line) => text.startsWith(line));
      if (index !== -1) {
        drops.splice(index, 1);
        losing = true;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (!losing) {
        client.write(chunk);
        return;
      }
      dropped += 1;
      client.destroy();
      upstream.destroy();
    });
    const end = (): void => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    for (const socket of [client, upstream]) {
      socket.on('error', end);
      socket.on('close', end);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const proxied = new URL(serverBaseUrl);
  proxied.port = String((server.address() as AddressInfo).port);
  return {
    baseUrl: proxied.href.replace(/\/$/, ''),
    dropNextAnswer: (requestLine) => { drops.push(requestLine); },
    get dropped() { return dropped; },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
