// Acknowledged writes survive the process that acknowledged them (docs/architecture.md,
// "Durability"; docs/cli.md, "start"): a real `chatskin start` child on a SQLite database in a temp
// folder gets a generated workload of concurrent HTTP writes (PUT /template in each scope, with
// `null` removals, PUT /skins/{id}, unlocks and revokes), invalid writes mixed in (a value out of
// range, a scope that does not fit, a global skin, a bad colour, a body over 64 KiB, malformed
// JSON, two identifiers naming different viewers, revoking a purchase), moderator lines through
// the local chat (`!style`, `!grant`), and API keys of a second account made and revoked with the
// CLI meanwhile, and a new URL for an overlay. Then it is stopped at a generated moment: SIGKILL, or SIGTERM (graceful).
// A fresh `chatskin start` on the same database must start at once (no lock left behind) and answer,
// and what it serves is checked against a model of the acknowledged writes:
// - each group of settings is written whole by every write (one stamp in all of its keys), so a
//   half-applied write shows as mixed stamps; the group's value is that of a write that may have
//   been the last applied (one answered 2xx, with no 2xx write sent after that answer; or one
//   whose answer never came), or the value before the run when no write to it was answered 2xx;
// - a write answered 4xx changed nothing: its stamp is nowhere; it never got 2xx or 5xx;
// - a grant is one register per viewer and skin, checked the same way; a purchase is never
//   revoked;
// - a key made (exit 0) and not revoked works, a revoked one is refused (401); an overlay's new
//   URL works and the one it replaced answers 404;
// - with SIGTERM: exit code 0, every request answered (never 5xx) or its connection refused or cut,
//   and nothing logged as an error; with SIGKILL: the process dies by the signal.
//
// ACK_WRITES_RUNS raises the number of generated workloads (default 18); ACK_WRITES_SEED replays one.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_HEADERS, runCli, startHost, tempWorkspace } from './cli-process.ts';
import type { RunningHost } from './cli-process.ts';

const RUNS = Number(process.env['ACK_WRITES_RUNS'] ?? 18);
const SEED = process.env['ACK_WRITES_SEED'] === undefined ? undefined : Number(process.env['ACK_WRITES_SEED']);

const FIXTURE = `
accounts:
  - login: alice
    premium: true
    overlays:
      - { name: Main, template: bubbles, default: true }
      - { name: Second, template: bubbles, sync_source: Main }
    skins:
      - { slug: neon, name: Neon, template: bubbles, availability: purchase, values: {} }
      - { slug: tape, name: Tape, template: bubbles, availability: purchase, values: {} }
  - login: bob
    premium: true
    skins:
      - { slug: bobs, name: Bobs, template: bubbles, availability: purchase, values: {} }
global_skins:
  - { slug: classic, name: Classic, template: bubbles, availability: free, values: {} }
viewers:
  - { twitch_user_id: "1001", twitch_username: viewer_one }
  - { twitch_user_id: "1002", twitch_username: viewer_two }
  - { twitch_user_id: "1003", twitch_username: viewer_three }
purchases:
  - { account: alice, viewer: viewer_three, skin: neon }
`;

/** Where a group of settings is stored, and its keys (each write sets all of them, to one stamp or to null). */
const GROUPS = {
  /** Main's own values: `independent` on Main, `source` on Second. */
  main: ['bubble.border-width', 'bubble.padding', 'chat.padding'],
  /** Second's overrides: `override` on Second. */
  second: ['message.font-size', 'username.font-size', 'bubble.border-radius'],
  neon: ['bubble.border-width', 'bubble.padding', 'bubble.gap'],
  tape: ['bubble.border-width', 'bubble.padding', 'bubble.gap'],
} as const;
type Group = keyof typeof GROUPS;
const VIEWERS = ['viewer_one', 'viewer_two'] as const;
type Viewer = typeof VIEWERS[number];
const GRANT_SKINS = ['neon', 'tape', 'classic'] as const;
type GrantSkin = typeof GRANT_SKINS[number];
/** The cell `!style avatar.size N` writes on the default overlay (Main), which no HTTP write touches. */
const CHAT_KEY = 'avatar.size';

type Op =
  | { kind: 'template'; target: 'main-independent' | 'second-source' | 'second-override'; remove: boolean }
  | { kind: 'skin'; skin: 'neon' | 'tape'; remove: boolean }
  | { kind: 'unlock' | 'revoke'; viewer: Viewer; skin: GrantSkin; byId: boolean }
  | { kind: 'bad'; what: 'range' | 'scope' | 'global-skin' | 'colour' | 'too-large' | 'malformed' | 'two-viewers' | 'revoke-purchase' | 'other-skin' }
  | { kind: 'chat-style'; size: number }
  | { kind: 'chat-grant'; viewer: Viewer; skin: 'neon' | 'tape' };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('template' as const), target: fc.constantFrom('main-independent' as const, 'second-source' as const, 'second-override' as const), remove: fc.boolean() }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('skin' as const), skin: fc.constantFrom('neon' as const, 'tape' as const), remove: fc.boolean() }) },
  { weight: 5, arbitrary: fc.record({ kind: fc.constantFrom('unlock' as const, 'revoke' as const), viewer: fc.constantFrom(...VIEWERS), skin: fc.constantFrom(...GRANT_SKINS), byId: fc.boolean() }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('bad' as const), what: fc.constantFrom('range' as const, 'scope' as const, 'global-skin' as const, 'colour' as const, 'too-large' as const, 'malformed' as const, 'two-viewers' as const, 'revoke-purchase' as const, 'other-skin' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('chat-style' as const), size: fc.integer({ min: 1, max: 10_000 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('chat-grant' as const), viewer: fc.constantFrom(...VIEWERS), skin: fc.constantFrom('neon' as const, 'tape' as const) }) },
);

/** bob's key made or revoked, or a new URL for alice's overlay Second, with the CLI. */
type KeyOp = 'create' | 'revoke' | 'new-url';
interface Workload {
  ops: Array<{ op: Op; delayMs: number }>;
  keyOps: KeyOp[];
  stop: { signal: 'SIGKILL' | 'SIGTERM'; afterMs: number };
  /** Every write sent at once (so they share group commits), the stop within 30 ms of them. */
  burst: boolean;
}
const workload: fc.Arbitrary<Workload> = fc.record({
  ops: fc.array(fc.record({ op, delayMs: fc.integer({ min: 0, max: 80 }) }), { minLength: 4, maxLength: 24 }),
  keyOps: fc.array(fc.constantFrom<KeyOp>('create', 'revoke', 'new-url'), { maxLength: 2 }),
  stop: fc.record({ signal: fc.constantFrom('SIGKILL' as const, 'SIGTERM' as const), afterMs: fc.integer({ min: 0, max: 150 }) }),
  burst: fc.boolean(),
});

/** What became of one request: its status, or no answer (`null`), with when it was sent and answered. */
interface Outcome { status: number | null; error?: string; sentAt: number; answeredAt: number }
/** A write to a register (a group, a grant): its value, and what became of it. */
interface RegisterWrite { value: string; outcome: Outcome; acknowledged: boolean | 'unknown' }

interface State {
  groups: Record<Group, string>;
  chatCell: number;
  grants: Record<string, boolean>;
}

/** docs/api.md, Errors: the 503 of a request that arrived while chatskin stops. */
const STOPPING = 'The service is stopping; nothing was done. Try again once it runs again.';

const grantCell = (viewer: Viewer, skin: GrantSkin) => `${viewer}/${skin}`;
const vector = (values: unknown[]) => JSON.stringify(values);

describe('acknowledged writes survive a killed or stopped chatskin start (docs/architecture.md, Durability)', () => {
  let dir: string;
  let config: string;
  let host: RunningHost | undefined;
  let headers: Record<string, string>;
  let ids: { main: number; second: number; neon: number; tape: number; classic: number; bobs: number };
  /** bob's key as the model has it: the token of the key made last, and whether it is active. */
  let bobKey: { token: string | null; active: boolean; revoked: string[] } = { token: null, active: false, revoked: [] };
  /** Second's overlay page: the path it has now, and the ones it had before. */
  let overlayPaths: { now: string; old: string[] } = { now: '', old: [] };
  let runIndex = 0;

  beforeAll(async () => {
    ({ dir, config } = tempWorkspace('api: { rateLimit: { perMinute: 100000, failedAuthPerMinute: 100000 } }'));
    const fixture = join(dir, 'fixture.yaml');
    writeFileSync(fixture, FIXTURE);
    const seeded = await runCli(['seed', fixture, '--config', config]);
    expect(seeded.code, seeded.stderr).toBe(0);
    const out = JSON.parse(seeded.stdout) as {
      accounts: Record<string, { overlays: Record<string, number>; skins: Record<string, number> }>; global_skins: Record<string, number>;
    };
    const alice = out.accounts['alice']!;
    ids = {
      main: alice.overlays['Main']!, second: alice.overlays['Second']!, neon: alice.skins['neon']!, tape: alice.skins['tape']!,
      classic: out.global_skins['classic']!, bobs: out.accounts['bob']!.skins['bobs']!,
    };
    const created = await runCli(['keys', 'create', 'alice', '--config', config]);
    expect(created.code, created.stderr).toBe(0);
    headers = { ...CLIENT_HEADERS, authorization: `Bearer ${created.stdout.trimEnd().split('\n').at(-1)!}`, 'content-type': 'application/json' };
    const listed = await runCli(['overlays', 'list', 'alice', '--config', config]);
    expect(listed.code, listed.stderr).toBe(0);
    overlayPaths = { now: listed.stdout.split('\n').find((line) => line.startsWith(`${ids.second}\t`))!.split('\t').at(-1)!, old: [] };
    host = await startHost(config, { cwd: dir });
  }, 60_000);

  afterAll(async () => {
    if (host !== undefined && host.child.exitCode === null && host.child.signalCode === null) await host.stop('SIGKILL');
  });

  async function call(running: RunningHost, method: string, path: string, body?: string, extraHeaders: Record<string, string> = {}): Promise<Outcome> {
    const sentAt = performance.now();
    try {
      const answer = await fetch(`${running.apiUrl}${path}`, { method, headers: { ...headers, ...extraHeaders }, body, signal: AbortSignal.timeout(20_000) });
      const text = await answer.text();
      return { status: answer.status, ...(answer.status >= 500 ? { error: text.slice(0, 300) } : {}), sentAt, answeredAt: performance.now() };
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      return { status: null, error: `${(error as Error).name}: ${cause?.code ?? cause?.message ?? (error as Error).message}`, sentAt, answeredAt: Infinity };
    }
  }

  async function read<T>(path: string): Promise<T> {
    const answer = await fetch(`${host!.apiUrl}${path}`, { headers });
    expect(answer.status, path).toBe(200);
    return ((await answer.json()) as { data: T }).data;
  }

  async function readState(): Promise<State> {
    const main = await read<{ settings_values: Record<string, unknown> }>(`/template?preset_id=${ids.main}`);
    const second = await read<{ override_values: Record<string, unknown>; sync_source_preset_id: number | null }>(`/template?preset_id=${ids.second}`);
    expect(second.sync_source_preset_id).toBe(ids.main);
    const skins = await read<Array<{ id: number; settings_values: Record<string, unknown> }>>('/skins');
    const skinValues = (id: number) => skins.find((s) => s.id === id)!.settings_values;
    const grants: Record<string, boolean> = {};
    for (const viewer of VIEWERS) {
      const held = await read<Array<{ id: number }>>(`/viewers/${viewer}/skins`);
      // One grant per viewer and skin: never two rows.
      expect(new Set(held.map((s) => s.id)).size).toBe(held.length);
      for (const skin of GRANT_SKINS) grants[grantCell(viewer, skin)] = held.some((s) => s.id === ids[skin]);
    }
    return {
      groups: {
        main: vector(GROUPS.main.map((k) => main.settings_values[k])),
        second: vector(GROUPS.second.map((k) => second.override_values[k] ?? null)),
        neon: vector(GROUPS.neon.map((k) => skinValues(ids.neon)[k])),
        tape: vector(GROUPS.tape.map((k) => skinValues(ids.tape)[k])),
      },
      chatCell: main.settings_values[CHAT_KEY] as number,
      grants,
    };
  }

  /** The group's value as read back after a write of `stamp` (or of null when `stamp` is null). */
  function written(group: Group, stamp: number | null): string {
    if (stamp !== null) return vector(GROUPS[group].map(() => stamp));
    // null: back to the template default (the skins' and Main's), or no override left (Second).
    if (group === 'second') return vector([null, null, null]);
    if (group === 'main') return vector([0, 0, 0]);
    return vector([0, 0, 10]);
  }

  /** Which values a register may hold now: docs/architecture.md, every write atomic, answered after it commits. */
  function allowed(before: string, writes: RegisterWrite[]): Set<string> {
    const acked = writes.filter((w) => w.acknowledged === true);
    const result = new Set<string>();
    if (acked.length === 0) result.add(before);
    for (const w of writes) {
      if (w.acknowledged === false) continue;
      // An answered write is overwritten by any write acknowledged that was sent after its answer.
      if (w.acknowledged === true && acked.some((later) => later.outcome.sentAt > w.outcome.answeredAt)) continue;
      result.add(w.value);
    }
    return result;
  }

  it('keeps every write answered 2xx, applies none by half, changes nothing on a 4xx, and starts again cleanly', async () => {
    await fc.assert(fc.asyncProperty(workload, async (w) => {
      runIndex += 1;
      const log: string[] = [`run ${runIndex}: ${w.burst ? 'burst, ' : ''}${w.stop.signal} after ${w.burst ? w.stop.afterMs % 30 : w.stop.afterMs} ms; key ops ${JSON.stringify(w.keyOps)}`];
      const running = host!;
      const before = await readState();
      // Stamps unique in this run and unlike any of the runs just before (1..9999; defaults are 0, 10, 14, 60).
      const stampBase = 100 * (1 + (runIndex % 97));
      const groupWrites: Record<Group, RegisterWrite[]> = { main: [], second: [], neon: [], tape: [] };
      const grantWrites: Record<string, RegisterWrite[]> = {};
      const badStamps: number[] = [];
      const chatSizes: number[] = [];
      const requests: Array<Promise<void>> = [];
      const outcomes: Array<{ label: string; outcome: Outcome; expect: 'write' | '4xx' | 'revoke' }> = [];
      const t0 = performance.now();

      w.ops.forEach(({ op: o, delayMs }, index) => {
        const stamp = stampBase + 1 + index;
        requests.push((async () => {
          if (!w.burst) await new Promise((resolve) => setTimeout(resolve, delayMs));
          const put = (method: string, path: string, body: unknown) => call(running, method, path, JSON.stringify(body));
          switch (o.kind) {
            case 'template': {
              const group: Group = o.target === 'second-override' ? 'second' : 'main';
              const values = Object.fromEntries(GROUPS[group].map((k) => [k, o.remove ? null : stamp]));
              const scope = o.target === 'main-independent' ? 'independent' : o.target === 'second-source' ? 'source' : 'override';
              const preset = o.target === 'main-independent' ? ids.main : ids.second;
              const outcome = await put('PUT', '/template', { scope, preset_id: preset, values });
              groupWrites[group].push({ value: written(group, o.remove ? null : stamp), outcome, acknowledged: ack(outcome) });
              outcomes.push({ label: `${o.target} ${o.remove ? 'null' : stamp}`, outcome, expect: 'write' });
              break;
            }
            case 'skin': {
              const values = Object.fromEntries(GROUPS[o.skin].map((k) => [k, o.remove ? null : stamp]));
              const outcome = await put('PUT', `/skins/${ids[o.skin]}`, { values });
              groupWrites[o.skin].push({ value: written(o.skin, o.remove ? null : stamp), outcome, acknowledged: ack(outcome) });
              outcomes.push({ label: `skin ${o.skin} ${o.remove ? 'null' : stamp}`, outcome, expect: 'write' });
              break;
            }
            case 'unlock':
            case 'revoke': {
              const who = o.byId ? { twitch_user_id: o.viewer === 'viewer_one' ? '1001' : '1002' } : { twitch_username: o.viewer };
              const outcome = await call(running, o.kind === 'unlock' ? 'POST' : 'DELETE', '/viewers/unlock-skin', JSON.stringify({ ...who, skin_id: ids[o.skin] }));
              const cell = grantCell(o.viewer, o.skin);
              // A revoke answered 404 found no grant: it wrote nothing.
              const acknowledged = o.kind === 'revoke' && outcome.status === 404 ? false : ack(outcome);
              (grantWrites[cell] ??= []).push({ value: String(o.kind === 'unlock'), outcome, acknowledged });
              outcomes.push({ label: `${o.kind} ${cell}`, outcome, expect: o.kind === 'revoke' ? 'revoke' : 'write' });
              break;
            }
            case 'bad': {
              badStamps.push(stamp);
              const main = Object.fromEntries(GROUPS.main.map((k) => [k, stamp]));
              const skin = Object.fromEntries(GROUPS.neon.map((k) => [k, stamp]));
              let outcome: Outcome;
              switch (o.what) {
                case 'range': outcome = await call(running, 'PUT', '/template', JSON.stringify({ scope: 'independent', preset_id: ids.main, values: { ...main, 'bubble.width': 10_001 } })); break;
                case 'scope': outcome = await call(running, 'PUT', '/template', JSON.stringify({ scope: 'independent', preset_id: ids.second, values: Object.fromEntries(GROUPS.second.map((k) => [k, stamp])) })); break;
                case 'global-skin': outcome = await call(running, 'PUT', `/skins/${ids.classic}`, JSON.stringify({ values: skin })); break;
                case 'other-skin': outcome = await call(running, 'PUT', `/skins/${ids.bobs}`, JSON.stringify({ values: skin })); break;
                case 'colour': outcome = await call(running, 'PUT', `/skins/${ids.tape}`, JSON.stringify({ values: { ...skin, 'bubble.border-color': '#12345' } })); break;
                case 'too-large': outcome = await call(running, 'PUT', '/template', JSON.stringify({ scope: 'independent', values: main, padding: 'x'.repeat(70_000) })); break;
                case 'malformed': outcome = await call(running, 'PUT', '/template', `{"scope":"independent","values":${JSON.stringify(main)}`); break;
                case 'two-viewers': outcome = await call(running, 'POST', '/viewers/unlock-skin', JSON.stringify({ twitch_username: 'viewer_one', twitch_user_id: '1002', skin_id: ids.tape })); break;
                case 'revoke-purchase': outcome = await call(running, 'DELETE', '/viewers/unlock-skin', JSON.stringify({ twitch_username: 'viewer_three', skin_id: ids.neon })); break;
              }
              outcomes.push({ label: `bad ${o.what} ${stamp}`, outcome, expect: '4xx' });
              break;
            }
            case 'chat-style':
            case 'chat-grant': {
              // The local chat's 202 says the line reached the chat, not that its command was done.
              const text = o.kind === 'chat-style' ? `!style ${CHAT_KEY} ${o.size}` : `!grant @${o.viewer} ${o.skin}`;
              if (o.kind === 'chat-style') chatSizes.push(o.size);
              const sentAt = performance.now();
              let status: number | null = null;
              try {
                const answer = await fetch(`${running.baseUrl}/local/chat/say`, {
                  method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text, login: 'mia', role: 'mod' }), signal: AbortSignal.timeout(20_000),
                });
                status = answer.status;
                await answer.arrayBuffer();
              } catch { /* the host went away */ }
              if (o.kind === 'chat-grant') (grantWrites[grantCell(o.viewer, o.skin)] ??= []).push({ value: 'true', outcome: { status, sentAt, answeredAt: Infinity }, acknowledged: 'unknown' });
              log.push(`chat ${text} -> ${status}`);
              break;
            }
          }
        })());
      });

      // bob's keys, made and revoked with the CLI while the host serves (and is stopped).
      const keyChain = (async () => {
        for (const k of w.keyOps) {
          if (k === 'new-url') {
            const result = await runCli(['overlays', 'new-url', 'alice', String(ids.second), '--config', config]);
            log.push(`overlays new-url -> ${result.code} ${result.stdout.trim()} ${result.stderr.trim()}`);
            expect(result.code, log.join('\n')).toBe(0);
            overlayPaths = { now: result.stdout.trim().split('\n').at(-1)!, old: [...overlayPaths.old, overlayPaths.now] };
            continue;
          }
          const result = await runCli(['keys', k, 'bob', '--config', config]);
          const expected = k === 'create' ? !bobKey.active : bobKey.active;
          log.push(`keys ${k} bob -> ${result.code} ${result.stderr.trim()}`);
          expect(result.code, log.join('\n')).toBe(expected ? 0 : 1);
          if (result.code !== 0) continue;
          if (k === 'create') bobKey = { ...bobKey, token: result.stdout.trimEnd().split('\n').at(-1)!, active: true };
          else bobKey = { token: null, active: false, revoked: bobKey.token === null ? bobKey.revoked : [...bobKey.revoked, bobKey.token] };
        }
      })();

      await new Promise((resolve) => setTimeout(resolve, w.burst ? w.stop.afterMs % 30 : w.stop.afterMs));
      const stoppedAt = performance.now();
      const code = await running.stop(w.stop.signal);
      await Promise.all(requests);
      await keyChain;
      for (const { label, outcome } of outcomes) {
        log.push(`${label} -> ${outcome.status ?? ''} ${outcome.error ?? ''} (sent ${Math.round(outcome.sentAt - t0)} ms${outcome.status === null ? '' : `, answered ${Math.round(outcome.answeredAt - t0)} ms`})`);
      }
      log.push(`stopped at ${Math.round(stoppedAt - t0)} ms, exit ${code}`);
      const where = () => log.join('\n');
      if (process.env['ACK_WRITES_VERBOSE'] === '1') console.log(where());

      // How it ended: SIGTERM is a graceful stop, exit code 0 (docs/cli.md, "start"); SIGKILL kills.
      if (w.stop.signal === 'SIGTERM') {
        const errors = running.stderr().split('\n').filter((line) => /"level":(50|60)/.test(line));
        expect(errors, where()).toEqual([]);
        expect(code, where()).toBe(0);
      } else {
        expect(code, where()).toBeNull();
      }
      for (const { label, outcome, expect: kind } of outcomes) {
        // Bad input never causes a 5xx. A graceful stop answers what is under way, refuses a request
        // that arrives on an open connection once it began with 503 in the API's envelope (docs/api.md,
        // Errors; nothing was done: ack() counts it refused), or refuses or cuts the connection.
        if (outcome.status !== null && outcome.status >= 500) {
          expect(w.stop.signal, `${where()}\n${label}`).toBe('SIGTERM');
          expect(outcome.status, `${where()}\n${label}`).toBe(503);
          expect(JSON.parse(outcome.error!), `${where()}\n${label}`).toEqual({ message: STOPPING });
          continue;
        }
        if (outcome.status === null) expect(outcome.error, `${where()}\n${label}`).not.toMatch(/Timeout|Abort/);
        // A graceful stop answers the requests under way (docs/cli.md, "start"): one sent well before
        // the signal (100 ms: long since read by the host) was answered, never cut.
        if (w.stop.signal === 'SIGTERM' && outcome.sentAt < stoppedAt - 100) expect(outcome.status, `${where()}\n${label}: sent before the stop, not answered`).not.toBeNull();
        if (kind === '4xx' && outcome.status !== null) expect(outcome.status, `${where()}\n${label}`).toBeGreaterThanOrEqual(400);
        if (kind === 'write' && outcome.status !== null) expect(outcome.status, `${where()}\n${label}`).toBeLessThan(300);
        if (kind === 'revoke' && outcome.status !== null && outcome.status !== 404) expect(outcome.status, `${where()}\n${label}`).toBe(200);
      }

      // The next start on the same database works at once, and answers.
      host = await startHost(config, { cwd: dir });
      const after = await readState();
      log.push(`before ${JSON.stringify(before)}\nafter  ${JSON.stringify(after)}`);

      for (const group of Object.keys(GROUPS) as Group[]) {
        const may = allowed(before.groups[group], groupWrites[group]);
        expect([...may], `${where()}\ngroup ${group} is ${after.groups[group]}`).toContain(after.groups[group]);
      }
      for (const viewer of VIEWERS) {
        for (const skin of GRANT_SKINS) {
          const cell = grantCell(viewer, skin);
          const may = allowed(String(before.grants[cell]), grantWrites[cell] ?? []);
          expect([...may], `${where()}\ngrant ${cell} is ${after.grants[cell]}`).toContain(String(after.grants[cell]));
        }
      }
      // A 4xx changed nothing: its stamp is nowhere.
      const everything = JSON.stringify(after.groups);
      for (const stamp of badStamps) expect(everything, `${where()}\nstamp ${stamp} of a refused write was stored`).not.toMatch(new RegExp(`\\b${stamp}\\b`));
      // The chat's !style: the value before, or one a moderator typed.
      expect([before.chatCell, ...chatSizes], where()).toContain(after.chatCell);
      // The purchase is still there: unlocking it makes nothing new.
      const purchase = await call(host, 'POST', '/viewers/unlock-skin', JSON.stringify({ twitch_username: 'viewer_three', skin_id: ids.neon }));
      expect(purchase.status, where()).toBe(200);
      // bob's keys: the active one works, revoked ones are refused.
      const bobCall = (token: string) => fetch(`${host!.apiUrl}/template`, { headers: { ...CLIENT_HEADERS, authorization: `Bearer ${token}` } });
      if (bobKey.active) expect((await bobCall(bobKey.token!)).status, where()).toBe(200);
      for (const token of bobKey.revoked.slice(-2)) expect((await bobCall(token)).status, where()).toBe(401);
      // Second's overlay page: its newest URL works, the ones it replaced answer 404.
      expect((await fetch(`${host.baseUrl}${overlayPaths.now}`)).status, where()).toBe(200);
      for (const path of overlayPaths.old.slice(-2)) expect((await fetch(`${host.baseUrl}${path}`)).status, where()).toBe(404);
    }), { numRuns: RUNS, endOnFailure: true, ...(SEED === undefined ? {} : { seed: SEED }) });
  }, 600_000);
});

/** 2xx: acknowledged; no answer: unknown; anything else: refused. */
function ack(outcome: Outcome): boolean | 'unknown' {
  if (outcome.status === null) return 'unknown';
  return outcome.status >= 200 && outcome.status < 300;
}
