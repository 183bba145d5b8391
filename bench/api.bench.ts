// `npm run bench:api`: throughput and p99 latency of GET /template and PUT /template on the
// real API app (real service, temp SQLite file, rate limit raised) against a bare node:http
// server answering the same JSON bytes. Every server runs in its own process; one undici Pool
// of keep-alive connections at a fixed concurrency drives them. Targets take turns in rounds
// and the median round counts, because the machine is shared and noisy. Prints the ratios
// chatskin/raw, and where chatskin's time goes (the service's own cost per call, in process).
// Aims: GET throughput >= 0.6x raw, PUT >= 0.3x raw.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { request } from 'undici';
import { applySeed } from '../src/service/seed.ts';
import { DEFAULT_TEMPLATES_DIR, loadTemplates } from '../src/service/settings/templates.ts';
import { openSqliteStore } from '../src/service/store/sqlite-store.ts';
import type { SynchronousLevel } from '../src/service/store/sqlite-store.ts';
import { createStyleService } from '../src/service/style-service.ts';
import type { StyleService } from '../src/service/style-service.ts';
import { runLoad } from './helpers/load-generator.ts';
import type { LoadResult, LoadSpec } from './helpers/load-generator.ts';
import { startServerProcess } from './helpers/server-process.ts';
import type { ServerProcess } from './helpers/server-process.ts';

const CONCURRENCY = 32;
const ROUNDS = 3;
const GET_REQUESTS_PER_ROUND = 8_000;
const PUT_REQUESTS_PER_ROUND = 2_000;
const WARMUP_REQUESTS = 1_000;
const AIMS = { GET: 0.6, PUT: 0.3 } as const;
const PATH = '/api/v1/template';

const FIXTURE = {
  accounts: [{
    login: 'bench',
    premium: true,
    overlays: [{ name: 'Main', template: 'bubbles', default: true, values: { 'bubble.width': 420, 'message.font-size': 18 } }],
  }],
};

/** Every PUT really writes: the value alternates, and both answers have the same length. */
const putValues = (index: number) => ({ 'bubble.width': 420 + (index % 2), 'bubble.background-color': '#1E1E2E' });
const putBody = (index: number) => JSON.stringify({ scope: 'independent', values: putValues(index) });

async function withService<T>(dbPath: string, synchronous: SynchronousLevel, fn: (service: StyleService) => Promise<T>): Promise<T> {
  const store = openSqliteStore({ path: dbPath, synchronous });
  try {
    return await fn(await createStyleService({ store, templates: loadTemplates(DEFAULT_TEMPLATES_DIR) }));
  } finally {
    await store.close();
  }
}

async function seed(dbPath: string): Promise<string> {
  return withService(dbPath, 'FULL', async (service) => {
    await applySeed(service, FIXTURE);
    return (await service.createKey('bench')).token;
  });
}

/** Microseconds per call of the service alone (authenticate + the operation), sequentially, in process. */
async function serviceCost(dbPath: string, token: string, synchronous: SynchronousLevel): Promise<{ GET: number; PUT: number }> {
  return withService(dbPath, synchronous, async (service) => {
    const time = async (calls: number, fn: (i: number) => Promise<unknown>) => {
      for (let i = 0; i < calls / 4; i++) await fn(i);
      const started = performance.now();
      for (let i = 0; i < calls; i++) await fn(i);
      return ((performance.now() - started) * 1000) / calls;
    };
    const accountId = (await service.authenticate(token))!.id;
    return {
      GET: await time(4_000, async () => {
        await service.authenticate(token);
        return service.getTemplate(accountId);
      }),
      PUT: await time(1_000, async (i) => {
        await service.authenticate(token);
        return service.updateTemplate(accountId, { scope: 'independent', values: putValues(i) });
      }),
    };
  });
}

async function sample(origin: string, method: 'GET' | 'PUT', headers: Record<string, string>): Promise<Buffer> {
  const response = await request(origin + PATH, { method, headers, body: method === 'PUT' ? putBody(0) : undefined });
  const body = Buffer.from(await response.body.arrayBuffer());
  if (response.statusCode !== 200) throw new Error(`${method} ${PATH} answered ${response.statusCode}: ${body.toString()}`);
  return body;
}

function median(results: LoadResult[]): LoadResult {
  return [...results].sort((a, b) => a.perSecond - b.perSecond)[Math.floor(results.length / 2)]!;
}

function row(label: string, result: LoadResult, errors: number): string {
  return `  ${label.padEnd(22)} ${result.perSecond.toFixed(0).padStart(7)} req/s   p50 ${result.p50Ms.toFixed(2).padStart(6)} ms   `
    + `p99 ${result.p99Ms.toFixed(2).padStart(6)} ms   (${errors} errors)`;
}

async function main(): Promise<void> {
  const started = Date.now();
  const dir = mkdtempSync(path.join(tmpdir(), 'chatskin-bench-'));
  const servers: ServerProcess[] = [];
  try {
    const dbPath = path.join(dir, 'bench.db');
    const normalDbPath = path.join(dir, 'bench-normal.db');
    const key = await seed(dbPath);
    const normalKey = await seed(normalDbPath);
    const costFull = await serviceCost(dbPath, key, 'FULL');
    const costNormal = await serviceCost(normalDbPath, normalKey, 'NORMAL');

    const chatskin = await startServerProcess({ kind: 'chatskin', dbPath });
    servers.push(chatskin);
    const chatskinNormal = await startServerProcess({ kind: 'chatskin', dbPath: normalDbPath, synchronous: 'NORMAL' });
    servers.push(chatskinNormal);
    const headers = { 'user-agent': 'chatskin-bench/1.0', accept: 'application/json', authorization: `Bearer ${key}` };
    const writeHeaders = { ...headers, 'content-type': 'application/json' };
    const getBytes = await sample(chatskin.origin, 'GET', headers);
    const putBytes = await sample(chatskin.origin, 'PUT', writeHeaders);
    const raw = await startServerProcess({
      kind: 'raw',
      routes: { [`GET ${PATH}`]: getBytes.toString('base64'), [`PUT ${PATH}`]: putBytes.toString('base64') },
    });
    servers.push(raw);

    console.log(`bench:api  ${ROUNDS} interleaved rounds per target (median round shown), concurrency ${CONCURRENCY} `
      + `over keep-alive (undici Pool), each server in its own process`);
    console.log(`  GET answer ${getBytes.length} B; PUT body ${Buffer.byteLength(putBody(0))} B, answer ${putBytes.length} B; `
      + 'chatskin = SQLite synchronous FULL (the default) unless marked NORMAL\n');

    const ratios = { GET: 0, PUT: 0 };
    let errors = 0;
    for (const method of ['GET', 'PUT'] as const) {
      const base: Omit<LoadSpec, 'origin' | 'requests'> = method === 'GET'
        ? { method, path: PATH, headers, concurrency: CONCURRENCY, expectStatus: 200 }
        : { method, path: PATH, headers: writeHeaders, body: putBody, concurrency: CONCURRENCY, expectStatus: 200 };
      const targets = [
        { label: `raw ${method}`, origin: raw.origin, key },
        { label: `chatskin ${method}`, origin: chatskin.origin, key },
        ...(method === 'PUT' ? [{ label: 'chatskin PUT (NORMAL)', origin: chatskinNormal.origin, key: normalKey }] : []),
      ];
      const perRound = method === 'GET' ? GET_REQUESTS_PER_ROUND : PUT_REQUESTS_PER_ROUND;
      const results = new Map<string, LoadResult[]>(targets.map((t) => [t.label, []]));
      const specFor = (target: (typeof targets)[number], requests: number): LoadSpec => ({
        ...base,
        origin: target.origin,
        requests,
        headers: { ...base.headers, authorization: `Bearer ${target.key}` },
      });
      for (const target of targets) await runLoad(specFor(target, WARMUP_REQUESTS));
      for (let round = 0; round < ROUNDS; round++) {
        for (const target of targets) results.get(target.label)!.push(await runLoad(specFor(target, perRound)));
      }
      const medians = new Map([...results].map(([label, list]) => [label, median(list)]));
      for (const [label, list] of results) {
        const failed = list.reduce((sum, r) => sum + r.errors, 0);
        errors += failed;
        console.log(row(label, medians.get(label)!, failed));
      }
      const rawResult = medians.get(`raw ${method}`)!;
      const ours = medians.get(`chatskin ${method}`)!;
      ratios[method] = ours.perSecond / rawResult.perSecond;
      console.log(`  ${method} chatskin/raw: throughput ${ratios[method].toFixed(2)}x (aim >= ${AIMS[method]}x), `
        + `p99 ${(ours.p99Ms / rawResult.p99Ms).toFixed(2)}x`);
      if (method === 'PUT') {
        const normal = medians.get('chatskin PUT (NORMAL)')!;
        console.log(`  PUT chatskin(NORMAL)/raw: throughput ${(normal.perSecond / rawResult.perSecond).toFixed(2)}x`);
      }
      console.log(`  service alone, in process, per call (authenticate + operation): ${costFull[method].toFixed(1)} us`
        + (method === 'PUT' ? ` (FULL), ${costNormal.PUT.toFixed(1)} us (NORMAL)` : '')
        + `; whole chatskin request under load: ${(1e6 / ours.perSecond).toFixed(1)} us, raw: ${(1e6 / rawResult.perSecond).toFixed(1)} us\n`);
    }
    for (const method of ['GET', 'PUT'] as const) {
      console.log(`${method}: ${ratios[method] >= AIMS[method] ? 'meets' : 'BELOW'} the aim (${ratios[method].toFixed(2)}x vs ${AIMS[method]}x)`);
    }
    console.log(`done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    if (errors > 0) {
      console.error(`${errors} requests did not answer 200`);
      process.exitCode = 1;
    }
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
