// Push gateway benchmark: latency from PUT /template's response to the update's arrival at
// every affected overlay socket, and resident memory per idle socket, beside a bare `ws`
// server that answers an HTTP PUT and broadcasts the same payload — in one run, as ratios.
//
//   npm run bench:push                      # 1,000 sockets, then 10,000
//   npm run bench:push -- --sizes 1000 --rounds 20
//
// Processes: this one orchestrates; each server under test runs in its own child (so its RSS
// is its own), and one more child holds the client sockets, sends the PUTs and timestamps
// arrivals (one clock for both ends of every measurement). Aims: p99 within 2x of bare ws,
// under 20 KiB per idle socket. The whole run is bounded by --timeout (default 300 s).
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { WebSocket, WebSocketServer } from 'ws';

const SELF = new URL(import.meta.url).pathname;
const OVERLAYS = 10; // one sync source + 9 synced overlays; a PUT scope=source reaches all ten

type Message =
  | { cmd: 'ready'; info: ServerInfo }
  | { cmd: 'rss'; rss: number; heapUsed: number }
  | { cmd: 'connected' }
  | { cmd: 'round'; sentAt: number; respondedAt: number; arrivals: number[]; sample: string }
  | { cmd: 'closed' };

interface ServerInfo {
  /** Socket URLs to spread the clients over. */
  socketUrls: string[];
  /** The request that triggers one broadcast. */
  put: { url: string; headers: Record<string, string>; bodies: [string, string] };
  /** Prefix of the frame that counts as the delivery. */
  deliveryPrefix: string;
  /** Sends a frame on connect (chatskin's snapshot): a socket counts as connected once it is in. */
  greets: boolean;
}

// ---------------------------------------------------------------- server children

async function runChatskinServer(): Promise<void> {
  const [{ default: Fastify }, { apiServerOptions, registerApi }, { registerOverlayServer }, { servicePushSource },
    { DEFAULT_TEMPLATES_DIR, loadTemplates }, { openSqliteStore }, { createStyleService }] = await Promise.all([
    import('fastify'), import('../src/service/http/index.ts'), import('../src/overlay/overlay-server.ts'),
    import('../src/service/push/service-push-source.ts'), import('../src/service/settings/templates.ts'),
    import('../src/service/store/sqlite-store.ts'), import('../src/service/style-service.ts'),
  ]);
  const store = openSqliteStore({ path: ':memory:' });
  const service = await createStyleService({ store, templates: loadTemplates(DEFAULT_TEMPLATES_DIR) });
  const account = await service.ensureAccount('benchstreamer', { premium: true });
  const { token: apiKey } = await service.createKey('benchstreamer');
  const source = await service.createOverlay(account.id, { name: 'Source', template: 'bubbles' });
  const overlays = [source];
  for (let i = 1; i < OVERLAYS; i++) {
    overlays.push(await service.createOverlay(account.id, { name: `Synced ${i}`, template: 'bubbles', syncSourceId: source.id }));
  }
  const app = Fastify(apiServerOptions({ redirectErrors: false }));
  registerApi(app, { operations: service, authenticate: (t) => service.authenticate(t), rateLimit: { perMinute: 1_000_000 } });
  // A thousand sockets per overlay here stand for a thousand pages, each of its own overlay.
  registerOverlayServer(app, servicePushSource(service), { localChat: false, maxSocketsPerOverlay: 1_000_000 });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  const body = (size: number) => JSON.stringify({ scope: 'source', preset_id: overlays[1]!.id, values: { 'message.font-size': size } });
  reportReady({
    socketUrls: overlays.map((o) => `ws://127.0.0.1:${port}/overlay/${o.token}/ws`),
    put: {
      url: `http://127.0.0.1:${port}/api/v1/template`,
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', accept: 'application/json', 'user-agent': 'chatskin-bench/1.0' },
      bodies: [body(20), body(21)],
    },
    deliveryPrefix: '{"type":"update"',
    greets: true,
  });
}

/** The baseline: node:http + ws; PUT /broadcast answers 200, then sends `payload` to every socket. */
async function runBareServer(payload: string): Promise<void> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': 2 }).end('{}');
      for (const client of wss.clients) client.send(payload);
    });
  });
  const wss = new WebSocketServer({ server, perMessageDeflate: false });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  reportReady({
    socketUrls: [`ws://127.0.0.1:${port}/`],
    put: { url: `http://127.0.0.1:${port}/broadcast`, headers: { 'content-type': 'application/json' }, bodies: ['{}', '{}'] },
    deliveryPrefix: payload.slice(0, 16),
    greets: false,
  });
}

function reportReady(info: ServerInfo): void {
  process.on('message', (message: { cmd: string }) => {
    if (message.cmd !== 'rss') return;
    // Settle garbage first so the reading is what the sockets hold, not what awaits collection.
    for (let i = 0; i < 3; i++) globalThis.gc?.();
    const { rss, heapUsed } = process.memoryUsage();
    process.send!({ cmd: 'rss', rss, heapUsed } satisfies Message);
  });
  process.send!({ cmd: 'ready', info } satisfies Message);
}

// ---------------------------------------------------------------- client child

function runClients(): void {
  let sockets: WebSocket[] = [];
  let info: ServerInfo | null = null;
  const agent = new Agent({ connections: 1 });
  process.on('message', async (message: { cmd: string; info?: ServerInfo; count?: number; round?: number; waitFirst?: boolean }) => {
    if (message.cmd === 'connect') {
      info = message.info!;
      sockets = await connectAll(info, message.count!, message.waitFirst!);
      process.send!({ cmd: 'connected' } satisfies Message);
    } else if (message.cmd === 'round') {
      process.send!(await oneRound(info!, sockets, message.round!, agent) satisfies Message);
    } else if (message.cmd === 'close') {
      await Promise.all(sockets.map((s) => new Promise<void>((resolve) => { s.once('close', () => resolve()); s.terminate(); })));
      sockets = [];
      process.send!({ cmd: 'closed' } satisfies Message);
    }
  });
}

async function connectAll(info: ServerInfo, count: number, waitFirst: boolean): Promise<WebSocket[]> {
  const sockets: WebSocket[] = [];
  const BATCH = 250;
  for (let start = 0; start < count; start += BATCH) {
    const batch = Array.from({ length: Math.min(BATCH, count - start) }, (_, i) => {
      const socket = new WebSocket(info.socketUrls[(start + i) % info.socketUrls.length]!, { perMessageDeflate: false });
      sockets.push(socket);
      return new Promise<void>((resolve, reject) => {
        socket.once('error', reject);
        // chatskin: connected once the snapshot is in; bare ws sends nothing on connect.
        if (waitFirst) socket.once('message', () => resolve());
        else socket.once('open', () => resolve());
      });
    });
    await Promise.all(batch);
  }
  return sockets;
}

async function oneRound(info: ServerInfo, sockets: WebSocket[], round: number, agent: Agent): Promise<Message> {
  const arrivals = new Array<number>(sockets.length).fill(Number.NaN);
  let pending = sockets.length;
  let sample = '';
  let done!: () => void;
  const allArrived = new Promise<void>((resolve) => { done = resolve; });
  const listeners = sockets.map((socket, i) => {
    const listener = (data: Buffer) => {
      if (!Number.isNaN(arrivals[i]!)) return;
      const text = data.toString();
      if (!text.startsWith(info.deliveryPrefix)) return;
      arrivals[i] = performance.now();
      if (sample === '') sample = text;
      if (--pending === 0) done();
    };
    socket.on('message', listener);
    return listener;
  });
  const sentAt = performance.now();
  const response = await request(info.put.url, {
    method: 'PUT', headers: info.put.headers, body: info.put.bodies[round % 2], dispatcher: agent,
  });
  await response.body.arrayBuffer();
  const respondedAt = performance.now();
  if (response.statusCode !== 200) throw new Error(`PUT answered ${response.statusCode}`);
  await allArrived;
  sockets.forEach((socket, i) => socket.off('message', listeners[i]!));
  return { cmd: 'round', sentAt, respondedAt, arrivals, sample };
}

// ---------------------------------------------------------------- orchestrator

function child(args: string[]): ChildProcess {
  return fork(SELF, args, { execArgv: ['--expose-gc', '--no-warnings'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
}

function ask<T extends Message['cmd']>(proc: ChildProcess, message: object, reply: T): Promise<Extract<Message, { cmd: T }>> {
  return new Promise((resolve, reject) => {
    const onMessage = (m: Message) => {
      if (m.cmd !== reply) return;
      proc.off('message', onMessage);
      proc.off('exit', onExit);
      resolve(m as Extract<Message, { cmd: T }>);
    };
    const onExit = (code: number | null) => reject(new Error(`child exited (${code}) while waiting for ${reply}`));
    proc.on('message', onMessage);
    proc.once('exit', onExit);
    if (Object.keys(message).length > 0) proc.send(message);
  });
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

interface RunResult {
  p50: number; p99: number; max: number;
  /** p99 from the moment the PUT was sent. */
  p99FromSend: number;
  beforeResponse: number;
  bytesPerSocket: number;
  heapPerSocket: number;
  sample: string;
}

async function measure(server: ChildProcess, clients: ChildProcess, sockets: number, rounds: number): Promise<RunResult> {
  const { info } = await ask(server, {}, 'ready');
  // Warm-up: the first snapshot loads the font catalog, the first PUT compiles the write path.
  await ask(clients, { cmd: 'connect', info, count: OVERLAYS, waitFirst: info.greets }, 'connected');
  await ask(clients, { cmd: 'round', round: 1 }, 'round');
  await ask(clients, { cmd: 'close' }, 'closed');
  const before = await ask(server, { cmd: 'rss' }, 'rss');
  await ask(clients, { cmd: 'connect', info, count: sockets, waitFirst: info.greets }, 'connected');
  const after = await ask(server, { cmd: 'rss' }, 'rss');
  const fromResponse: number[] = [];
  const fromSend: number[] = [];
  let beforeResponse = 0;
  let sample = '';
  for (let round = 0; round < rounds; round++) {
    const r = await ask(clients, { cmd: 'round', round }, 'round');
    sample = r.sample;
    for (const at of r.arrivals) {
      if (at < r.respondedAt) beforeResponse++;
      fromResponse.push(Math.max(0, at - r.respondedAt));
      fromSend.push(at - r.sentAt);
    }
  }
  await ask(clients, { cmd: 'close' }, 'closed');
  fromResponse.sort((a, b) => a - b);
  fromSend.sort((a, b) => a - b);
  return {
    p50: percentile(fromResponse, 50), p99: percentile(fromResponse, 99), max: fromResponse.at(-1)!,
    p99FromSend: percentile(fromSend, 99), beforeResponse, bytesPerSocket: (after.rss - before.rss) / sockets,
    heapPerSocket: (after.heapUsed - before.heapUsed) / sockets, sample,
  };
}

const ms = (n: number) => `${n.toFixed(2)} ms`.padStart(10);
const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`.padStart(10);

async function orchestrate(): Promise<void> {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: {
      sizes: { type: 'string', default: '1000,10000' },
      rounds: { type: 'string', default: '30' },
      timeout: { type: 'string', default: '300' },
    },
  });
  const sizes = values.sizes.split(',').map(Number);
  const rounds = Number(values.rounds);
  const children: ChildProcess[] = [];
  const deadline = setTimeout(() => {
    console.error(`bench:push: over the ${values.timeout} s bound; stopping.`);
    for (const c of children) c.kill('SIGKILL');
    process.exit(2);
  }, Number(values.timeout) * 1000);

  console.log(`push benchmark: ${OVERLAYS} overlays (1 sync source + ${OVERLAYS - 1} synced), PUT /template scope=source; ${rounds} rounds per size`);
  const clients = child(['--clients']);
  children.push(clients);
  let failed = false;
  for (const size of sizes) {
    const rounds_ = size > 2000 ? Math.max(5, Math.floor(rounds / 3)) : rounds;
    const chatskin = child(['--chatskin-server']);
    children.push(chatskin);
    const ours = await measure(chatskin, clients, size, rounds_);
    chatskin.kill();
    const bare = child(['--bare-server', ours.sample]);
    children.push(bare);
    const base = await measure(bare, clients, size, rounds_);
    bare.kill();

    const ratio = ours.p99 / Math.max(base.p99, 0.001);
    console.log(`\n${size} sockets (${OVERLAYS} overlays x ${size / OVERLAYS}), ${rounds_} rounds, payload ${ours.sample.length} bytes`);
    console.log(`                     p50        p99        max   p99 from send   RSS/idle socket  live heap/socket`);
    console.log(`  chatskin     ${ms(ours.p50)} ${ms(ours.p99)} ${ms(ours.max)}      ${ms(ours.p99FromSend)}       ${kib(ours.bytesPerSocket)}        ${kib(ours.heapPerSocket)}`);
    console.log(`  bare ws      ${ms(base.p50)} ${ms(base.p99)} ${ms(base.max)}      ${ms(base.p99FromSend)}       ${kib(base.bytesPerSocket)}        ${kib(base.heapPerSocket)}`);
    console.log(`  ratio p99 ${ratio.toFixed(2)}x (aim <= 2x); memory ${(ours.bytesPerSocket / Math.max(base.bytesPerSocket, 1)).toFixed(2)}x of bare ws (aim < 20 KiB: ${ours.bytesPerSocket < 20 * 1024 ? 'met' : 'NOT met'})`);
    if (ours.beforeResponse > 0) console.log(`  (${ours.beforeResponse} chatskin deliveries arrived before the PUT response; counted as 0 ms)`);
    if (ratio > 2 || ours.bytesPerSocket >= 20 * 1024) failed = true;
    if (size < 5000) console.log('  (RSS per socket at this size carries the heap growth of the connect burst, which does not scale with sockets; the largest size is the per-socket figure)');
  }
  clients.kill();
  clearTimeout(deadline);
  console.log(failed ? '\nAt least one aim was not met.' : '\nAll aims met.');
}

const mode = process.argv[2];
if (mode === '--chatskin-server') await runChatskinServer();
else if (mode === '--bare-server') await runBareServer(process.argv[3]!);
else if (mode === '--clients') runClients();
else await orchestrate();
