// A fixed amount of HTTP load over keep-alive connections from an undici Pool: `concurrency`
// workers each send their share of `requests` one after another. Reports throughput and latency
// percentiles; any status other than `expectStatus` is counted as an error.
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';

export interface LoadSpec {
  origin: string;
  method: 'GET' | 'PUT';
  path: string;
  headers: Record<string, string>;
  /** A fixed body, or one per request index (to alternate between writes). */
  body?: string | ((index: number) => string);
  requests: number;
  concurrency: number;
  expectStatus: number;
}

export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)]!;
}

export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const pool = new Pool(spec.origin, { connections: spec.concurrency, pipelining: 1 });
  const latencies = new Float64Array(spec.requests);
  let next = 0;
  let errors = 0;
  const bodyOf = typeof spec.body === 'function' ? spec.body : () => spec.body as string | undefined;
  const worker = async () => {
    for (;;) {
      const index = next++;
      if (index >= spec.requests) return;
      const started = performance.now();
      const response = await pool.request({
        origin: spec.origin, method: spec.method, path: spec.path, headers: spec.headers, body: bodyOf(index),
      });
      await response.body.arrayBuffer();
      latencies[index] = performance.now() - started;
      if (response.statusCode !== spec.expectStatus) errors++;
    }
  };
  const started = performance.now();
  try {
    await Promise.all(Array.from({ length: spec.concurrency }, worker));
  } finally {
    await pool.close();
  }
  const seconds = (performance.now() - started) / 1000;
  latencies.sort();
  return {
    requests: spec.requests,
    errors,
    seconds,
    perSecond: spec.requests / seconds,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
  };
}
