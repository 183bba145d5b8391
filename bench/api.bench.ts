// `npm run bench:api`: throughput and p99 latency of GET /template and PUT /template on the
// real API app (real service, temp SQLite file, rate limit raised) against a bare node:http
// server answering the same JSON bytes, both in their own process, driven by one undici Pool of
// keep-alive connections at a fixed concurrency. Prints the ratios chatskin/raw.
// Aims: GET throughput >= 0.6x raw, PUT >= 0.3x raw.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { request } from 'undici';
import { applySeed } from '../src/service/seed.ts';
import { DEFAULT_TEMPLATES_DIR, loadTemplates } from '../src/service/settings/templates.ts';
import { openSqliteStore } from '../src/service/store/sqlite-store.ts';
import { createStyleService } from '../src/service/style-service.ts';
import { runLoad } from './helpers/load-generator.ts';
import type { LoadResult, LoadSpec } from './helpers/load-generator.ts';
import { startServerProcess } from './helpers/server-process.ts';
import type { ServerProcess } from './helpers/server-process.ts';

const CONCURRENCY = 32;
const GET_REQUESTS = 20_000;
const PUT_REQUESTS = 5_000;
const WARMUP_FRACTION = 0.2;
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
const putBody = (index: number) =>
  JSON.stringify({ scope: 'independent', values: { 'bubble.width': 420 + (index % 2), 'bubble.background-color': '#1E1E2E' } });

async function seed(dbPath: string): Promise<string> {
  const store = openSqliteStore({ path: dbPath });
  try {
    const service = await createStyleService({ store, templates: loadTemplates(DEFAULT_TEMPLATES_DIR) });
    await applySeed(service, FIXTURE);
    return (await service.createKey('bench')).token;
  } finally {
    await store.close();
  }
}

async function sample(origin: string, method: 'GET' | 'PUT', headers: Record<string, string>): Promise<Buffer> {
  const response = await request(origin + PATH, { method, headers, body: method === 'PUT' ? putBody(0) : undefined });
  const body = Buffer.from(await response.body.arrayBuffer());
  if (response.statusCode !== 200) throw new Error(`${method} ${PATH} answered ${response.statusCode}: ${body.toString()}`);
  return body;
}

async function measure(origin: string, spec: Omit<LoadSpec, 'origin'>): Promise<LoadResult> {
  await runLoad({ ...spec, origin, requests: Math.ceil(spec.requests * WARMUP_FRACTION) });
  return runLoad({ ...spec, origin });
}

function row(label: string, result: LoadResult): string {
  return `${label.padEnd(16)} ${result.perSecond.toFixed(0).padStart(9)} req/s   p50 ${result.p50Ms.toFixed(2).padStart(7)} ms   `
    + `p99 ${result.p99Ms.toFixed(2).padStart(7)} ms   ${result.requests} requests, ${result.errors} errors`;
}

async function main(): Promise<void> {
  const started = Date.now();
  const dir = mkdtempSync(path.join(tmpdir(), 'chatskin-bench-'));
  const servers: ServerProcess[] = [];
  try {
    const dbPath = path.join(dir, 'bench.db');
    const key = await seed(dbPath);
    const chatskin = await startServerProcess({ kind: 'chatskin', dbPath });
    servers.push(chatskin);
    const headers = {
      'user-agent': 'chatskin-bench/1.0', accept: 'application/json', authorization: `Bearer ${key}`,
    };
    const writeHeaders = { ...headers, 'content-type': 'application/json' };
    const getBytes = await sample(chatskin.origin, 'GET', headers);
    const putBytes = await sample(chatskin.origin, 'PUT', writeHeaders);
    const raw = await startServerProcess({
      kind: 'raw',
      routes: { [`GET ${PATH}`]: getBytes.toString('base64'), [`PUT ${PATH}`]: putBytes.toString('base64') },
    });
    servers.push(raw);

    console.log(`bench:api  concurrency ${CONCURRENCY} over keep-alive (undici Pool), `
      + `GET body ${getBytes.length} B, PUT answer ${putBytes.length} B, each server in its own process`);
    const ratios: Record<'GET' | 'PUT', number> = { GET: 0, PUT: 0 };
    let failed = false;
    for (const method of ['GET', 'PUT'] as const) {
      const spec = method === 'GET'
        ? { method, path: PATH, headers, requests: GET_REQUESTS, concurrency: CONCURRENCY, expectStatus: 200 }
        : { method, path: PATH, headers: writeHeaders, body: putBody, requests: PUT_REQUESTS, concurrency: CONCURRENCY, expectStatus: 200 };
      const rawResult = await measure(raw.origin, spec);
      const chatskinResult = await measure(chatskin.origin, spec);
      ratios[method] = chatskinResult.perSecond / rawResult.perSecond;
      console.log(row(`raw ${method}`, rawResult));
      console.log(row(`chatskin ${method}`, chatskinResult));
      console.log(`${method} ratio chatskin/raw: throughput ${ratios[method].toFixed(2)}x (aim >= ${AIMS[method]}x), `
        + `p99 ${(chatskinResult.p99Ms / rawResult.p99Ms).toFixed(2)}x\n`);
      if (rawResult.errors + chatskinResult.errors > 0) failed = true;
    }
    for (const method of ['GET', 'PUT'] as const) {
      console.log(`${method}: ${ratios[method] >= AIMS[method] ? 'meets' : 'BELOW'} the aim (${ratios[method].toFixed(2)}x vs ${AIMS[method]}x)`);
    }
    console.log(`done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    if (failed) {
      console.error('some requests did not answer 200');
      process.exitCode = 1;
    }
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
