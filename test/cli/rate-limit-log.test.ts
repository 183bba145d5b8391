// An API caller held back by a rate limit is a fault the operator can only act on if the log says
// so: a tool that calls too often (its key's 30 requests a minute used up), or an address failing
// authentication (a revoked key still in use, or someone guessing keys). Each is one warning per
// window, naming whose key or which address and what to change, never the key itself; the 429s
// after it within the same window add nothing.
import { afterEach, describe, expect, it } from 'vitest';
import { CHILD_OUTPUT, CLIENT_HEADERS, runCli, startHost, tempWorkspace } from './cli-process.ts';
import type { RunningHost } from './cli-process.ts';

let host: RunningHost | undefined;
afterEach(async () => {
  await host?.stop();
  host = undefined;
});

function logLines(stderr: string): Record<string, unknown>[] {
  return stderr.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Record<string, unknown>);
}

async function statuses(url: string, authorization: (i: number) => string, count: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    const response = await fetch(url, { headers: { ...CLIENT_HEADERS, authorization: authorization(i) } });
    await response.arrayBuffer();
    out.push(response.status);
  }
  return out;
}

describe('rate limits in the log', () => {
  it('a key that used up its window is one warning naming its account, without the key; a failed-auth limit is one naming the address', async () => {
    const { config } = tempWorkspace('api: { rateLimit: { perMinute: 5, failedAuthPerMinute: 4 } }');
    host = await startHost(config);
    expect((await runCli(['premium', 'alice', 'on', '--config', config])).code).toBe(0);
    const created = await runCli(['keys', 'create', 'alice', '--config', config]);
    expect(created.code).toBe(0);
    const key = created.stdout.trim().split('\n').at(-1)!;

    const template = `${host.apiUrl}/template`;
    expect(await statuses(template, () => `Bearer ${key}`, 9)).toEqual([200, 200, 200, 200, 200, 429, 429, 429, 429]);
    await expect.poll(() => logLines(host!.stderr()).filter((line) => /rate limit/.test(String(line.msg))), CHILD_OUTPUT).toHaveLength(1);
    const [keyLine] = logLines(host.stderr()).filter((line) => /rate limit/.test(String(line.msg)));
    expect(keyLine).toMatchObject({ level: 40, account: 'alice', limit: 5 });
    expect(String(keyLine!.msg)).toMatch(/alice/);
    expect(String(keyLine!.msg)).toMatch(/api\.rateLimit\.perMinute/);

    expect(await statuses(template, (i) => `Bearer csk_not_a_key_${i}xxxxxxxx`, 7)).toEqual([401, 401, 401, 401, 429, 429, 429]);
    await expect.poll(() => logLines(host!.stderr()).filter((line) => /failed authentication/.test(String(line.msg))), CHILD_OUTPUT).toHaveLength(1);
    const [authLine] = logLines(host.stderr()).filter((line) => /failed authentication/.test(String(line.msg)));
    expect(authLine).toMatchObject({ level: 40, address: '127.0.0.1', limit: 4 });
    expect(String(authLine!.msg)).toMatch(/api\.rateLimit\.failedAuthPerMinute/);

    // More refusals in the same windows add no lines.
    await statuses(template, () => `Bearer ${key}`, 3);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(logLines(host.stderr()).filter((line) => /rate limit|failed authentication/.test(String(line.msg)))).toHaveLength(2);
    expect(host.stderr()).not.toContain(key);
  });
});
