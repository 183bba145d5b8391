// An HTTP proxy in front of a real chatskin API that injects the faults docs/client.md plans for,
// one request at a time: answers dropped after the server acted (the connection cut when the
// answer comes back), a 429 with Retry-After or a 503 answered without passing the request on
// (the service's own 429 and 503 change nothing), an answer held past the client's timeout after
// the server acted. While the server is down (killed), a request's connection is cut, as a dead
// server's is.
import { createServer, request as httpRequest } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type Fault =
  /** No fault: the request goes through (so a fault after it hits a later request). */
  | { kind: 'pass' }
  | { kind: 'drop' }
  | { kind: '429'; retryAfterSeconds: number }
  | { kind: '503' }
  | { kind: 'slow'; delayMs: number };

export interface FaultInjectingProxy {
  /** The proxy's API base URL (with the prefix). */
  baseUrl: string;
  /** Faults for the next requests, one each, in order. */
  arm(faults: Fault[]): void;
  /** Faults armed but not yet used. */
  readonly armed: number;
  /**
   * The server went down: the proxy stops listening (a new connection is refused, as by a dead
   * server's port) and cuts every open connection.
   */
  down(): Promise<void>;
  /** The server is back: the proxy listens on its port again. */
  up(): Promise<void>;
  /** Drops the faults not yet used. */
  disarm(): void;
  /** Requests that reached the server through the proxy (`METHOD path`). */
  readonly forwarded: string[];
  close(): Promise<void>;
}

const LOCKED_MESSAGE = 'The overlay service is busy; try again in a moment.';

/**
 * `jitterMs`: each request waits up to this long (at random) before it is passed on, as on a real
 * network, so requests sent side by side reach the server in no set order.
 */
export async function startFaultInjectingProxy(upstreamPort: number, prefix = '/api/v1', jitterMs = 0): Promise<FaultInjectingProxy> {
  const faults: Fault[] = [];
  const forwarded: string[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();

  function forward(req: IncomingMessage, body: Buffer): Promise<{ status: number; headers: IncomingMessage['headers']; body: Buffer } | null> {
    return new Promise((resolve) => {
      const upstream = httpRequest({
        host: '127.0.0.1', port: upstreamPort, method: req.method, path: req.url, headers: { ...req.headers, connection: 'close' }, agent: false,
      }, (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => resolve({ status: answer.statusCode ?? 502, headers: answer.headers, body: Buffer.concat(chunks) }));
        answer.on('error', () => resolve(null));
      });
      upstream.on('error', () => resolve(null));
      upstream.end(body);
    });
  }

  async function handle(req: IncomingMessage, res: ServerResponse, body: Buffer): Promise<void> {
    const fault = faults.shift();
    if (fault?.kind === '429') {
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': String(fault.retryAfterSeconds) });
      res.end(JSON.stringify({ message: 'Too Many Attempts.' }));
      return;
    }
    if (fault?.kind === '503') {
      res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
      res.end(JSON.stringify({ message: LOCKED_MESSAGE }));
      return;
    }
    if (jitterMs > 0) await new Promise((resolve) => setTimeout(resolve, Math.random() * jitterMs));
    const answer = await forward(req, body);
    if (answer === null) {
      // The server is down or died mid-request: the connection is cut.
      req.socket.destroy();
      return;
    }
    forwarded.push(`${req.method} ${req.url}`);
    if (fault?.kind === 'drop') {
      req.socket.destroy();
      return;
    }
    if (fault?.kind === 'slow') await new Promise<void>((resolve) => { const t = setTimeout(() => { timers.delete(t); resolve(); }, fault.delayMs); timers.add(t); });
    if (req.socket.destroyed) return;
    const headers = { ...answer.headers };
    delete headers['transfer-encoding'];
    delete headers.connection;
    delete headers['keep-alive'];
    headers['content-length'] = String(answer.body.length);
    res.writeHead(answer.status, headers);
    res.end(answer.body);
  }

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => { void handle(req, res, Buffer.concat(chunks)).catch(() => req.socket.destroy()); });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  let listening = true;
  return {
    baseUrl: `http://127.0.0.1:${port}${prefix}`,
    async down() {
      if (!listening) return;
      listening = false;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
    async up() {
      if (listening) return;
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
      listening = true;
    },
    arm: (more) => { faults.push(...more); },
    get armed() { return faults.length; },
    disarm: () => { faults.length = 0; },
    forwarded,
    async close() {
      for (const timer of timers) clearTimeout(timer);
      for (const socket of sockets) socket.destroy();
      if (listening) await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
