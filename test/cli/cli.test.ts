// The CLI as people and scripts use it: real child processes on a real database file.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLIENT_HEADERS, runCli, startHost, tempWorkspace } from './cli-process.ts';
import type { RunningHost } from './cli-process.ts';
import { ISSUE_SEED_FIXTURE as FIXTURE } from '../support/issue-seed-fixture.ts';

describe('chatskin CLI', () => {
  it('prints help and refuses unknown commands with exit code 1', async () => {
    const help = await runCli(['--help']);
    expect(help.code).toBe(0);
    for (const command of ['start', 'seed FILE', 'keys create LOGIN', 'keys revoke LOGIN', 'premium LOGIN on|off', 'overlays list LOGIN', 'overlays new-url LOGIN ID']) {
      expect(help.stdout).toContain(command);
    }
    const unknown = await runCli(['frobnicate']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('Unknown command "frobnicate"');
  });

  it('--version and -v print the version on stdout with exit code 0, and run no command', async () => {
    const { version } = JSON.parse(readFileSync(join(import.meta.dirname, '../../package.json'), 'utf8')) as { version: string };
    for (const args of [['--version'], ['-v'], ['start', '--version']]) {
      expect(await runCli(args, { killAfterMs: 10_000 })).toEqual({ code: 0, stdout: `chatskin ${version}\n`, stderr: '' });
    }
  });

  it('names the file, the path and what is allowed for a bad config', async () => {
    const { config } = tempWorkspace('commands: { prefix: "two words" }');
    const result = await runCli(['overlays', 'list', 'alice', '--config', config]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(config);
    expect(result.stderr).toContain('commands.prefix');
    expect(result.stderr).not.toContain('    at ');
  });

  it('seeds idempotently and prints the ids in the documented shape', async () => {
    const { dir, config } = tempWorkspace();
    const fixture = join(dir, 'fixture.yaml');
    writeFileSync(fixture, FIXTURE);
    const first = await runCli(['seed', fixture, '--config', config]);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const ids = JSON.parse(first.stdout) as {
      accounts: Record<string, { id: number; overlays: Record<string, number>; skins: Record<string, number> }>;
      global_skins: Record<string, number>;
      viewers: Record<string, number>;
    };
    expect(Object.keys(ids)).toEqual(['accounts', 'global_skins', 'viewers']);
    expect(Object.keys(ids.accounts.alice!.overlays)).toEqual(expect.arrayContaining(['Main', 'Second']));
    expect(ids.accounts.alice!.skins.neon).toEqual(expect.any(Number));
    expect(ids.global_skins.classic).toEqual(expect.any(Number));
    expect(ids.viewers.viewer_one).toEqual(expect.any(Number));
    const second = await runCli(['seed', fixture, '--config', config]);
    expect(JSON.parse(second.stdout)).toEqual(ids);
  });

  it('seeds the fixture docs/cli.md shows and prints the ids docs/cli.md shows, on a new database', async () => {
    const docs = readFileSync(join(import.meta.dirname, '../../docs/cli.md'), 'utf8');
    const seedSection = docs.slice(docs.indexOf('## seed'), docs.indexOf('## keys'));
    const shownOutput = /```json\n(.*)\n```/.exec(seedSection)![1]!;
    const shownFixture = /```yaml\n([\s\S]*?)```/.exec(seedSection)![1]!;
    const { dir, config } = tempWorkspace();
    const fixture = join(dir, 'fixture.yaml');
    writeFileSync(fixture, shownFixture);
    const first = await runCli(['seed', fixture, '--config', config]);
    expect(first.stderr).toBe('');
    expect(first.stdout).toBe(`${shownOutput}\n`);
    expect((await runCli(['seed', fixture, '--config', config])).stdout).toBe(`${shownOutput}\n`);
  });

  it('`seed --help` and the docs that quote the seed\'s output quote the output docs/cli.md shows', async () => {
    const docs = readFileSync(join(import.meta.dirname, '../../docs/cli.md'), 'utf8');
    const seedSection = docs.slice(docs.indexOf('## seed'), docs.indexOf('## keys'));
    const shownOutput = /```json\n(.*)\n```/.exec(seedSection)![1]!;
    // The help wraps the JSON over lines, each further one indented by a space.
    const help = (await runCli(['seed', '--help'])).stdout.replace(/\n /g, '');
    expect(help).toContain(shownOutput);
    const docsDir = join(import.meta.dirname, '../../docs');
    const quoted = readdirSync(docsDir).filter((file) => file.endsWith('.md')).flatMap((file) =>
      [...readFileSync(join(docsDir, file), 'utf8').matchAll(/`([^`\n]*"(?:accounts|global_skins)":[^`\n]*)`/g)]
        .map((match) => ({ file, quote: match[1]! })));
    expect(quoted.length).toBeGreaterThan(0);
    expect(quoted.filter(({ quote }) => !shownOutput.includes(quote))).toEqual([]);
  });

  it('creates one key at a time, printing the token alone on the last line', async () => {
    const { dir, config } = tempWorkspace();
    const fixture = join(dir, 'fixture.yaml');
    writeFileSync(fixture, FIXTURE);
    await runCli(['seed', fixture, '--config', config]);
    const created = await runCli(['keys', 'create', 'alice', '--config', config]);
    expect(created.code).toBe(0);
    const token = created.stdout.trimEnd().split('\n').at(-1)!;
    expect(token).toMatch(/^\S{40,}$/);
    const again = await runCli(['keys', 'create', 'alice', '--config', config]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/active/i);
    expect(again.stdout).toBe('');
    expect((await runCli(['keys', 'revoke', 'alice', '--config', config])).code).toBe(0);
    const recreated = await runCli(['keys', 'create', 'alice', '--config', config]);
    expect(recreated.code).toBe(0);
    expect(recreated.stdout.trimEnd().split('\n').at(-1)).not.toBe(token);
  });

  describe('start', () => {
    const { dir, config } = tempWorkspace();
    let host: RunningHost;
    afterAll(async () => { await host?.stop(); });

    it('serves the API, /healthz and the overlay, and sees CLI changes on the next request', async () => {
      const fixture = join(dir, 'fixture.yaml');
      writeFileSync(fixture, FIXTURE);
      expect((await runCli(['seed', fixture, '--config', config])).code).toBe(0);
      host = await startHost(config, { cwd: dir });
      expect(host.apiUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1$/);

      const health = await fetch(`${host.baseUrl}/healthz`);
      expect(health.status).toBe(200);
      // No Twitch section: the local chat and the built-in plugins, redemptions off.
      const components = ((await health.json()) as { components: Record<string, string> }).components;
      expect(components).toMatchObject({ 'local-chat': 'running', 'plugin:style': 'running', redemptions: 'off' });
      expect(components['twitch-chat']).toBeUndefined();
      // `overlays list` prints the same browser-source URLs the running host serves.
      const listed = await runCli(['overlays', 'list', 'alice', '--config', config]);
      expect(listed.code).toBe(0);
      const page = await fetch(host.overlayUrls[0]!);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<script type="module"');

      const created = await runCli(['keys', 'create', 'alice', '--config', config]);
      const token = created.stdout.trimEnd().split('\n').at(-1)!;
      const get = () => fetch(`${host.apiUrl}/template`, { headers: { ...CLIENT_HEADERS, authorization: `Bearer ${token}` } });
      const ok = await get();
      expect(ok.status).toBe(200);
      expect(((await ok.json()) as { data: { settings_values: Record<string, unknown> } }).data.settings_values['bubble.width']).toBe(420);

      expect((await runCli(['premium', 'alice', 'off', '--config', config])).code).toBe(0);
      const noPremium = await get();
      expect(noPremium.status).toBe(403);
      expect(((await noPremium.json()) as { message: string }).message).toMatch(/premium/i);

      expect((await runCli(['premium', 'alice', 'on', '--config', config])).code).toBe(0);
      expect((await get()).status).toBe(200);
      expect((await runCli(['keys', 'revoke', 'alice', '--config', config])).code).toBe(0);
      const revoked = await get();
      expect(revoked.status).toBe(401);
      expect(await revoked.json()).toEqual({ message: 'Unauthenticated.' });
    });

    it('shuts down gracefully on SIGTERM with exit code 0', async () => {
      const code = await host.stop('SIGTERM');
      expect(code).toBe(0);
      await expect(fetch(`${host.baseUrl}/healthz`)).rejects.toThrow();
    });
  });
});
