// README.md's walk-through, run as the README runs it: `chatskin start` prints the lines the
// README shows (with this run's port and token), and the "Using the API from another tool"
// commands work against it as written.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHILD_OUTPUT, runCli, startHost } from './cli-process.ts';
import type { RunningHost } from './cli-process.ts';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

/** The fenced block that follows `marker` in the README. */
function blockAfter(marker: string): string {
  const start = README.indexOf(marker);
  expect(start, marker).toBeGreaterThanOrEqual(0);
  return /```\w*\n([\s\S]*?)```/.exec(README.slice(start))![1]!;
}

/** The README's default address, to be swapped for this run's. */
const README_ORIGIN = 'http://127.0.0.1:4477';

let host: RunningHost;
let dir: string;
let config: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'chatskin-readme-'));
  config = join(dir, 'config.yaml');
  // The embedded defaults but for the port and the database's place; the channel stays "streamer".
  writeFileSync(config, `http: { port: 0 }\nstore: { path: ${JSON.stringify(join(dir, 'db.sqlite'))} }\nlocalChat: { stdin: false }\nlog: { level: warn }\n`);
  host = await startHost(config);
}, 30_000);
afterAll(async () => {
  await host?.stop();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe('README.md', () => {
  it('`npm start` prints the lines the README shows', () => {
    const shown = blockAfter('It\nprints the API address').split('\n').filter((line) => line !== '')
      // The first line is printed only on a terminal (test/adapters/local-chat checks it).
      .filter((line) => !line.startsWith('Local chat on'));
    const printed = host.stdout().split('\n').filter((line) => line !== '');
    const origin = host.baseUrl;
    expect(printed).toHaveLength(shown.length);
    shown.forEach((line, index) => {
      const [before, after] = line.replaceAll(README_ORIGIN, origin).split(/\/overlay\/\S*…/);
      if (after === undefined) {
        expect(printed[index]).toBe(before);
      } else {
        // The overlay's token is random: the README shows its start.
        expect(printed[index]!.startsWith(`${before}/overlay/`), printed[index]).toBe(true);
        expect(printed[index]!.endsWith(after), printed[index]).toBe(true);
      }
    });
  });

  it('the API example: premium, a key from the last line of `keys create`, then the GET and PUT it shows', async () => {
    const commands = blockAfter('## Using the API from another tool');
    const env = { CHATSKIN_CONFIG: config };
    const login = /npx chatskin premium (\S+) on/.exec(commands)![1]!;
    expect((await runCli(['premium', login, 'on'], { env })).code).toBe(0);
    const created = await runCli(['keys', 'create', /keys create (\S+) \|/.exec(commands)![1]!], { env });
    expect(created.code).toBe(0);
    const key = created.stdout.trim().split('\n').at(-1)!;

    // Each curl as written: its method, headers (with $KEY), body and URL.
    const curls = commands.split(/^curl /m).slice(1).map((text) => text.replace(/\\\n\s*/g, ' '));
    expect(curls).toHaveLength(2);
    for (const curl of curls) {
      const headers = Object.fromEntries([...curl.matchAll(/-H ['"]([^:]+): ([^'"]+)['"]/g)]
        .map((match) => [match[1]!, match[2]!.replace('$KEY', key)]));
      const url = /(http:\/\/\S+)/.exec(curl)![1]!.replace(README_ORIGIN, host.baseUrl);
      const body = /-d '([^']*)'/.exec(curl)?.[1];
      const response = await fetch(url, { method: /-X (\w+)/.exec(curl)?.[1] ?? 'GET', headers, body });
      expect(response.status, curl).toBe(200);
      const answer = await response.json() as { data: { settings_values: Record<string, unknown> } };
      if (body !== undefined) {
        for (const [setting, value] of Object.entries((JSON.parse(body) as { values: Record<string, unknown> }).values)) {
          expect(answer.data.settings_values[setting]).toBe(value);
        }
      }
    }
  });

  it('`chatskin chat say "hello" --as alice` reaches the running host\'s local chat', async () => {
    const said = await runCli(['chat', 'say', 'hello', '--as', 'alice', '--url', host.baseUrl], { env: { CHATSKIN_CONFIG: config } });
    expect(said.code).toBe(0);
    await expect.poll(() => host.stdout(), CHILD_OUTPUT).toContain('alice: hello');
  });
});
