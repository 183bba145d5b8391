// A server under test in its own process, so the load generator does not share its event loop.
// The parent sends one message saying what to serve and gets back { origin }; it disconnects
// (or sends { kind: 'stop' }) to end it. { kind: 'stats' } asks for the process's CPU time so far
// and, for chatskin, how many SQLite commits its store has made (null for raw).
//   { kind: 'chatskin', dbPath, synchronous? }   the API app on the real service over that SQLite file
//   { kind: 'raw', routes }        the bare node:http baseline answering fixed bytes
import type { FastifyInstance } from 'fastify';
import { buildApiApp } from '../../src/service/http/app.ts';
import { DEFAULT_TEMPLATES_DIR, loadTemplates } from '../../src/service/settings/templates.ts';
import { openSqliteStore } from '../../src/service/store/sqlite-store.ts';
import type { SynchronousLevel } from '../../src/service/store/sqlite-store.ts';
import { createStyleService } from '../../src/service/style-service.ts';
import { startRawJsonServer } from './raw-json-server.ts';

export type BenchServerRequest =
  | { kind: 'chatskin'; dbPath: string; synchronous?: SynchronousLevel }
  | { kind: 'raw'; routes: Record<string, string> /* METHOD path -> base64 body */ };

interface RunningServer {
  origin: string;
  commits?: () => number;
  close(): Promise<void>;
}

async function serveChatskin(dbPath: string, synchronous?: SynchronousLevel): Promise<RunningServer> {
  const store = openSqliteStore({ path: dbPath, ...(synchronous === undefined ? {} : { synchronous }) });
  const service = await createStyleService({ store, templates: loadTemplates(DEFAULT_TEMPLATES_DIR) });
  const app: FastifyInstance = buildApiApp({
    operations: service,
    authenticate: (token) => service.authenticate(token),
    // Raised so the benchmark measures serving, not refusing.
    rateLimit: { perMinute: 1_000_000_000, failedAuthPerMinute: 1_000_000_000 },
    logger: false,
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  return {
    origin: `http://127.0.0.1:${port}`,
    commits: () => store.commits,
    async close() {
      await app.close();
      await store.close();
    },
  };
}

let running: RunningServer | undefined;
const stop = async () => {
  await running?.close();
  process.exit(0);
};

process.on('message', async (message: BenchServerRequest | { kind: 'stop' } | { kind: 'stats' }) => {
  if (message.kind === 'stop') return stop();
  if (message.kind === 'stats') {
    const cpu = process.cpuUsage();
    process.send!({ cpuMicros: cpu.user + cpu.system, commits: running?.commits?.() ?? null });
    return;
  }
  const server = message.kind === 'chatskin'
    ? await serveChatskin(message.dbPath, message.synchronous)
    : await startRawJsonServer(Object.fromEntries(
      Object.entries(message.routes).map(([route, base64]) => [route, Buffer.from(base64, 'base64')]),
    ));
  running = server;
  process.send!({ origin: server.origin });
});
process.on('disconnect', stop);
