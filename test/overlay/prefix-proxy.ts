// A reverse proxy for the overlay page's browser tests: serves chatskin under a path prefix, and
// can drop the WebSocket connections it carries, as a network would.
import { createServer, request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A reverse proxy that passes `<prefix>/...` (HTTP and WebSocket upgrades) to the server at
 * `targetPort` without the prefix, and answers 404 to everything else, as such a proxy does.
 * `cutSockets` drops the WebSocket connections it carries; `retarget` sends what comes next to
 * another server (as if chatskin had been restarted with another database).
 */
export async function startPrefixProxy(prefix: string, targetPort: number): Promise<{ origin: string; cutSockets(): void; retarget(port: number): void; close(): Promise<void> }> {
  const strip = (url = '') => (url.startsWith(`${prefix}/`) ? url.slice(prefix.length) : null);
  const tunnels = new Set<{ destroy(): void }>();
  const proxy = createServer((request, response) => {
    const path = strip(request.url);
    if (path === null) return void response.writeHead(404).end();
    const upstream = httpRequest({ port: targetPort, path, method: request.method, headers: request.headers }, (answer) => {
      response.writeHead(answer.statusCode!, answer.headers);
      answer.pipe(response);
    });
    request.pipe(upstream);
  });
  proxy.on('upgrade', (request, socket, head) => {
    const path = strip(request.url);
    if (path === null) return void socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n');
    const upstream = connect(targetPort, '127.0.0.1', () => {
      const headers = Object.entries(request.headers).map(([name, value]) => `${name}: ${String(value)}\r\n`).join('');
      upstream.write(`${request.method} ${path} HTTP/1.1\r\n${headers}\r\n`);
      upstream.write(head);
      upstream.pipe(socket).pipe(upstream);
    });
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
    tunnels.add(socket).add(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    /** Cuts the WebSocket tunnels, as a dropped connection would. */
    cutSockets: () => { for (const tunnel of tunnels) tunnel.destroy(); tunnels.clear(); },
    retarget: (port) => { targetPort = port; },
    close: () => new Promise((resolve) => {
      for (const tunnel of tunnels) tunnel.destroy();
      proxy.closeAllConnections();
      proxy.close(() => resolve());
    }),
  };
}
