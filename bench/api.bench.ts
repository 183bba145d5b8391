// `npm run bench:api`: throughput and p99 latency of GET /template and PUT /template on the
// real API app (real service, temp SQLite file, rate limit raised) against a bare node:http
// server answering the same JSON bytes. Every server runs in its own process; one undici Pool
// of keep-alive connections at a fixed concurrency drives them.
//
// The machine is shared and its load drifts, so targets take turns in short rounds (the one
// going first changes every round), each round gives one chatskin/raw ratio from runs seconds
// apart, and the median of those ratios counts. Also printed: each server's CPU time per
// request (steadier than throughput on a busy machine), how many writes each SQLite COMMIT
// carried (group commit), and the service's own cost per call, in process.
// Aims: GET throughput >= 0.6x raw, PUT >= 0.3x raw. `npm run bench:api -- --cpu-prof` also
// writes CPU profiles of the chatskin servers. `-- --baseline DIR` adds a chatskin server run from
// another checkout (DIR, with its node_modules) to every round, for an A/B of a change on this
// noisy machine: old and new code take turns under the same load. `-- --rounds N` (default 7).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
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

/** `--cpu-prof`: the chatskin servers write .cpuprofile files into a temp folder (printed at the end). */
const PROFILE_DIR = process.argv.includes('--cpu-prof') ? mkdtempSync(path.join(tmpdir(), 'chatskin-api-prof-')) : null;
const profileFlags = (name: string): string[] =>
  (PROFILE_DIR === null ? [] : ['--cpu-prof', `--cpu-prof-dir=${path.join(PROFILE_DIR, name)}`]);

/** The value after `name` on the command line, or undefined. */
function option(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at === -1 ? undefined : process.argv[at + 1];
}

/** `--baseline DIR`: the bench server script of another checkout, run as one more target. */
const BASELINE_SCRIPT = ((dir) => {
  if (dir === undefined) return null;
  const script = path.resolve(dir, 'bench/helpers/bench-server-process.ts');
  if (!existsSync(script)) throw new Error(`--baseline ${dir}: no ${script}`);
  return script;
})(option('--baseline'));

const CONCURRENCY = 32;
const ROUNDS = ((value) => {
  const rounds = Number(value ?? 7);
  if (!Number.isSafeInteger(rounds) || rounds < 1) throw new Error(`--rounds takes a positive integer, got ${value}`);
  return rounds;
})(option('--rounds'));
const GET_REQUESTS_PER_ROUND = 5_000;
const PUT_REQUESTS_PER_ROUND = 1_500;
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
    const accountId = (await service.authenticate(token))!.account.id;
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

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

interface Target {
  label: string;
  server: ServerProcess;
  key: string;
}

interface TargetResult {
  rounds: LoadResult[];
  errors: number;
  /** Server CPU time per measured request, in microseconds. */
  cpuMicrosPerRequest: number;
  /** Measured writes per SQLite COMMIT; null for raw. */
  writesPerCommit: number | null;
}

async function measure(targets: readonly Target[], base: Omit<LoadSpec, 'origin' | 'requests'>, perRound: number): Promise<Map<string, TargetResult>> {
  const specFor = (target: Target, requests: number): LoadSpec => ({
    ...base,
    origin: target.server.origin,
    requests,
    headers: { ...base.headers, authorization: `Bearer ${target.key}` },
  });
  for (const target of targets) await runLoad(specFor(target, WARMUP_REQUESTS));
  const before = await Promise.all(targets.map((target) => target.server.stats()));
  const rounds = targets.map((): LoadResult[] => []);
  for (let round = 0; round < ROUNDS; round++) {
    for (let turn = 0; turn < targets.length; turn++) {
      const index = (round + turn) % targets.length;
      rounds[index]!.push(await runLoad(specFor(targets[index]!, perRound)));
    }
  }
  const after = await Promise.all(targets.map((target) => target.server.stats()));
  const measured = ROUNDS * perRound;
  return new Map(targets.map((target, i) => {
    const commits = before[i]!.commits === null ? null : after[i]!.commits! - before[i]!.commits!;
    return [target.label, {
      rounds: rounds[i]!,
      errors: rounds[i]!.reduce((sum, r) => sum + r.errors, 0),
      cpuMicrosPerRequest: (after[i]!.cpuMicros - before[i]!.cpuMicros) / measured,
      writesPerCommit: commits === null || commits <= 0 || base.method === 'GET' ? null : measured / commits,
    }];
  }));
}

function row(label: string, result: TargetResult): string {
  const perSecond = median(result.rounds.map((r) => r.perSecond));
  return `  ${label.padEnd(22)} ${perSecond.toFixed(0).padStart(7)} req/s   `
    + `p50 ${median(result.rounds.map((r) => r.p50Ms)).toFixed(2).padStart(6)} ms   `
    + `p99 ${median(result.rounds.map((r) => r.p99Ms)).toFixed(2).padStart(6)} ms   `
    + `server CPU ${result.cpuMicrosPerRequest.toFixed(1).padStart(6)} us/req`
    + (result.writesPerCommit === null ? '' : `   ${result.writesPerCommit.toFixed(1)} writes/COMMIT`)
    + `   (${result.errors} errors)`;
}

/** chatskin/raw throughput of each round, paired run by run; their median and range. */
function ratioOf(ours: TargetResult, raw: TargetResult): { median: number; low: number; high: number } {
  const ratios = ours.rounds.map((r, i) => r.perSecond / raw.rounds[i]!.perSecond);
  return { median: median(ratios), low: Math.min(...ratios), high: Math.max(...ratios) };
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

    const chatskin = await startServerProcess({ kind: 'chatskin', dbPath }, profileFlags('full'));
    servers.push(chatskin);
    const chatskinNormal = await startServerProcess({ kind: 'chatskin', dbPath: normalDbPath, synchronous: 'NORMAL' }, profileFlags('normal'));
    servers.push(chatskinNormal);
    let baseline: { server: ServerProcess; key: string } | null = null;
    if (BASELINE_SCRIPT !== null) {
      const baselineDbPath = path.join(dir, 'bench-baseline.db');
      const baselineKey = await seed(baselineDbPath);
      baseline = { server: await startServerProcess({ kind: 'chatskin', dbPath: baselineDbPath }, profileFlags('baseline'), BASELINE_SCRIPT), key: baselineKey };
      servers.push(baseline.server);
    }
    const headers = { 'user-agent': 'chatskin-bench/1.0', accept: 'application/json', authorization: `Bearer ${key}` };
    const writeHeaders = { ...headers, 'content-type': 'application/json' };
    const getBytes = await sample(chatskin.origin, 'GET', headers);
    const putBytes = await sample(chatskin.origin, 'PUT', writeHeaders);
    const raw = await startServerProcess({
      kind: 'raw',
      routes: { [`GET ${PATH}`]: getBytes.toString('base64'), [`PUT ${PATH}`]: putBytes.toString('base64') },
    });
    servers.push(raw);

    console.log(`bench:api  ${ROUNDS} rounds per target, turns rotating (medians shown), concurrency ${CONCURRENCY} `
      + `over keep-alive (undici Pool), each server in its own process`);
    console.log(`  GET answer ${getBytes.length} B; PUT body ${Buffer.byteLength(putBody(0))} B, answer ${putBytes.length} B; `
      + 'chatskin = SQLite synchronous FULL (the default) unless marked NORMAL\n');

    const ratios = { GET: 0, PUT: 0 };
    let errors = 0;
    for (const method of ['GET', 'PUT'] as const) {
      const base: Omit<LoadSpec, 'origin' | 'requests'> = method === 'GET'
        ? { method, path: PATH, headers, concurrency: CONCURRENCY, expectStatus: 200 }
        : { method, path: PATH, headers: writeHeaders, body: putBody, concurrency: CONCURRENCY, expectStatus: 200 };
      const targets: Target[] = [
        { label: `raw ${method}`, server: raw, key },
        { label: `chatskin ${method}`, server: chatskin, key },
        ...(method === 'PUT' ? [{ label: 'chatskin PUT (NORMAL)', server: chatskinNormal, key: normalKey }] : []),
        ...(baseline === null ? [] : [{ label: `baseline ${method}`, server: baseline.server, key: baseline.key }]),
      ];
      const results = await measure(targets, base, method === 'GET' ? GET_REQUESTS_PER_ROUND : PUT_REQUESTS_PER_ROUND);
      for (const [label, result] of results) {
        errors += result.errors;
        console.log(row(label, result));
      }
      const rawResult = results.get(`raw ${method}`)!;
      const ours = results.get(`chatskin ${method}`)!;
      const ratio = ratioOf(ours, rawResult);
      ratios[method] = ratio.median;
      console.log(`  ${method} chatskin/raw throughput: ${ratio.median.toFixed(2)}x (aim >= ${AIMS[method]}x; rounds `
        + `${ratio.low.toFixed(2)}-${ratio.high.toFixed(2)}), server CPU per request `
        + `${(ours.cpuMicrosPerRequest / rawResult.cpuMicrosPerRequest).toFixed(2)}x raw's`);
      if (method === 'PUT') {
        const normal = ratioOf(results.get('chatskin PUT (NORMAL)')!, rawResult);
        console.log(`  PUT chatskin(NORMAL)/raw throughput: ${normal.median.toFixed(2)}x (rounds ${normal.low.toFixed(2)}-${normal.high.toFixed(2)})`);
      }
      const baselineResult = results.get(`baseline ${method}`);
      if (baselineResult !== undefined) {
        const versus = ratioOf(ours, baselineResult);
        console.log(`  ${method} chatskin/baseline: server CPU per request ${ours.cpuMicrosPerRequest.toFixed(1)} vs `
          + `${baselineResult.cpuMicrosPerRequest.toFixed(1)} us (${(ours.cpuMicrosPerRequest / baselineResult.cpuMicrosPerRequest).toFixed(3)}x), `
          + `throughput ${versus.median.toFixed(2)}x (rounds ${versus.low.toFixed(2)}-${versus.high.toFixed(2)})`);
      }
      console.log(`  service alone, in process, one call at a time (authenticate + operation): ${costFull[method].toFixed(1)} us`
        + (method === 'PUT' ? ` (FULL: one fsync per call, nothing to group), ${costNormal.PUT.toFixed(1)} us (NORMAL)` : '')
        + '\n');
    }
    for (const method of ['GET', 'PUT'] as const) {
      console.log(`${method}: ${ratios[method] >= AIMS[method] ? 'meets' : 'BELOW'} the aim (${ratios[method].toFixed(2)}x vs ${AIMS[method]}x)`);
    }
    if (PROFILE_DIR !== null) console.log(`CPU profiles of the chatskin servers: ${PROFILE_DIR}`);
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
