// Puts the push gateway on a Fastify server: WebSocket upgrades arrive on the underlying HTTP
// server's 'upgrade' event (Fastify does not route them), and the gateway closes before the
// server does, so open sockets never hold a shutdown up.
import type { FastifyInstance } from 'fastify';
import type { PushGateway } from './push-gateway.ts';

export function attachPushGateway(app: FastifyInstance, gateway: PushGateway): void {
  app.server.on('upgrade', (request, socket, head) => {
    if (gateway.handleUpgrade(request, socket, head)) return;
    // No other WebSocket endpoint exists on this server.
    socket.on('error', () => socket.destroy());
    socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
  });
  app.addHook('preClose', async () => {
    await gateway.close();
  });
}
