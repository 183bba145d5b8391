// The baseline: a bare node:http server that answers fixed JSON bytes, reading and parsing the
// body of a PUT first, so the comparison prices exactly what the API adds on top of HTTP + JSON.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RawRoutes {
  /** Response body bytes per `METHOD path` (path without the query string). */
  [methodAndPath: string]: Buffer;
}

export async function startRawJsonServer(routes: RawRoutes): Promise<{ origin: string; close(): Promise<void> }> {
  const server = http.createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    const body = routes[`${request.method} ${path}`];
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (chunks.length > 0) JSON.parse(Buffer.concat(chunks).toString('utf8'));
      if (body === undefined) {
        response.writeHead(404).end();
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
      response.end(body);
    });
  });
  server.keepAliveTimeout = 10_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
