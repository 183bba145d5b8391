// Remote mode under faults, as docs/client.md, docs/commands.md and docs/config.md promise it: a
// test host whose built-in plugins (style, grants, skins) call a second chatskin, a real
// `chatskin start` child process serving the API on a real socket, through a proxy that injects
// faults (fault-injecting-proxy.ts). Generated scripts of chat commands from chatters of several
// roles are interleaved with faults: the API process killed with SIGKILL (before or during a
// command) and restarted on the same port and database, answers lost after the server acted,
// 429s with Retry-After (short, and over maxRetryAfterMs), 503s, answers held past the timeout.
//
// Checked against a model of what the docs say the state is:
// - a change the bot acknowledged is in the service's state afterwards; a command that failed
//   may or may not have taken effect (an answer lost after the server acted), nothing else;
// - a grant is never made twice, nor said new when the viewer surely held it; a revoke is never
//   said to have found nothing when the viewer surely held the grant;
// - every moderator command gets exactly one reply: the documented success line or one of the
//   documented short failure lines (never silence, a stack, a URL or the key); a chatter below a
//   command's role gets none;
// - the host never crashes, and once the faults end commands work again without a restart;
// - a burst of `!style` typed with the service up, under at most its rate limit (429s with a
//   short Retry-After, which change nothing), is done in the order typed: the widths acknowledged
//   are answered in the order typed and the overlay ends on the last of them.
//
// CHATSKIN_REMOTE_FAULT_RUNS raises the number of generated scripts (default 6).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpClient } from '../../src/client/http-client.ts';
import type { OverlayStyleClient } from '../../src/client/overlay-style-client.ts';
import type { ChatTags } from '../../src/host/chat-transport.ts';
import { BUILT_IN_PLUGIN_DIR } from '../../src/host/plugin-loader.ts';
import { runCli, startHost, tempWorkspace } from '../cli/cli-process.ts';
import type { RunningHost } from '../cli/cli-process.ts';
import { startTestHost } from '../host/host-fixture.ts';
import type { TestHost } from '../host/host-fixture.ts';
import { broadcasterTags, chatTags, moderatorTags, subscriberTags, viewerTags, vipTags } from '../host/irc-tags.ts';
import { settle } from '../host/manual-clock.ts';
import { startFaultInjectingProxy } from './fault-injecting-proxy.ts';
import type { Fault, FaultInjectingProxy } from './fault-injecting-proxy.ts';

const RUNS = Number(process.env['CHATSKIN_REMOTE_FAULT_RUNS'] ?? 6);
// Per attempt: long enough that a loaded machine's ordinary answer is not taken for a lost one.
const TIMEOUT_MS = 1000;

const VIEWERS = ['viewer_one', 'viewer_two'] as const;
type Viewer = typeof VIEWERS[number];
const SKINS = { neon: 'Neon', tape: 'Tape' } as const;
type Skin = keyof typeof SKINS;

const FIXTURE = `
accounts:
  - login: alice
    premium: true
    overlays:
      - { name: Main, template: bubbles, default: true, values: { bubble.width: 420 } }
    skins:
      - { slug: neon, name: Neon, template: bubbles, availability: purchase, values: { bubble.background-color: "#ff00ff" } }
      - { slug: tape, name: Tape, template: bubbles, availability: purchase, values: { bubble.background-color: "#00ff00" } }
      - { slug: sunny, name: Sunny, template: bubbles, availability: free, values: { bubble.background-color: "#ffff00" } }
viewers:
  - { twitch_user_id: "${chatTags('viewer_one')['user-id'] as string}", twitch_username: viewer_one }
  - { twitch_user_id: "${chatTags('viewer_two')['user-id'] as string}", twitch_username: viewer_two }
`;

/** The documented short lines of a command that failed because the service is away or busy (docs/commands.md). */
const FAILURE_LINE = /^the overlay service (is not answering; try again in a moment|is busy; try again in (\d+ s|a moment)|failed; try again later|did not confirm it, but it may have been done; check, or try again in a moment)\.$/;

type Chatter = 'mod' | 'broadcaster' | 'vip' | 'sub' | 'viewer';
const TAGS: Record<Chatter, () => ChatTags> = {
  mod: () => moderatorTags('mod_mia'),
  broadcaster: () => broadcasterTags('streamer'),
  vip: () => vipTags('vip_vic'),
  sub: () => subscriberTags('sub_sam'),
  viewer: () => viewerTags('viewer_one'),
};
const NAME: Record<Chatter, string> = { mod: 'Mod_mia', broadcaster: 'Streamer', vip: 'Vip_vic', sub: 'Sub_sam', viewer: 'Viewer_one' };
const isModerator = (chatter: Chatter) => chatter === 'mod' || chatter === 'broadcaster';

type Command =
  | { kind: 'style'; chatter: Chatter; width: number }
  | { kind: 'grant'; chatter: Chatter; viewer: Viewer; skin: Skin }
  | { kind: 'revoke'; chatter: Chatter; viewer: Viewer; skin: Skin }
  | { kind: 'skins'; viewer: Viewer };

type Step =
  | { kind: 'command'; command: Command }
  | { kind: 'faults'; faults: Fault[] }
  /** The API process killed; the commands typed while it is down; then restarted. */
  | { kind: 'outage'; commands: Command[] }
  /** The API process killed `afterMs` after the command was typed, and restarted at once. */
  | { kind: 'killDuring'; command: Command; afterMs: number }
  /** Moderator widths typed at once, with no fault under way but these 429s (and passes). */
  | { kind: 'burst'; widths: number[]; rateLimits: Fault[] };

const chatter = fc.constantFrom<Chatter>('mod', 'mod', 'mod', 'mod', 'broadcaster', 'broadcaster', 'vip', 'sub', 'viewer');
const viewer = fc.constantFrom(...VIEWERS);
const skin = fc.constantFrom<Skin>('neon', 'tape');
const width = fc.integer({ min: 0, max: 10_000 });
const command: fc.Arbitrary<Command> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('style' as const), chatter, width }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('grant' as const), chatter, viewer, skin }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('revoke' as const), chatter, viewer, skin }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('skins' as const), viewer }) },
);
const fault: fc.Arbitrary<Fault> = fc.oneof(
  fc.constant<Fault>({ kind: 'pass' }),
  fc.constant<Fault>({ kind: 'drop' }),
  fc.constant<Fault>({ kind: '503' }),
  fc.constant<Fault>({ kind: 'slow', delayMs: TIMEOUT_MS + 150 }),
  fc.constantFrom(1, 2, 120).map((retryAfterSeconds): Fault => ({ kind: '429', retryAfterSeconds })),
);
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 8, arbitrary: command.map((c): Step => ({ kind: 'command', command: c })) },
  { weight: 5, arbitrary: fc.array(fault, { minLength: 1, maxLength: 5 }).map((faults): Step => ({ kind: 'faults', faults })) },
  { weight: 1, arbitrary: fc.array(command, { maxLength: 2 }).map((commands): Step => ({ kind: 'outage', commands })) },
  { weight: 1, arbitrary: fc.record({ command, afterMs: fc.integer({ min: 0, max: 15 }) }).map((s): Step => ({ kind: 'killDuring', ...s })) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('burst' as const),
      widths: fc.array(width, { minLength: 2, maxLength: 4 }),
      rateLimits: fc.array(fc.oneof(
        fc.constant<Fault>({ kind: 'pass' }),
        fc.constantFrom(1, 2).map((retryAfterSeconds): Fault => ({ kind: '429', retryAfterSeconds })),
      ), { maxLength: 4 }),
    }),
  },
);
/** At most one process kill per script: each restart costs about a second. */
const script = fc.array(step, { minLength: 4, maxLength: 12 })
  .filter((steps) => steps.filter((s) => s.kind === 'outage' || s.kind === 'killDuring').length <= 1);

/** What the docs let the service's state be: each value it may have. */
interface Model {
  width: Set<number>;
  grants: Map<string, Set<boolean>>;
}
const grantKey = (v: Viewer, s: Skin) => `${v}/${s}`;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('remote mode under faults (docs/client.md, docs/commands.md)', () => {
  let api: RunningHost | undefined;
  let config: string;
  let dir: string;
  let proxy: FaultInjectingProxy;
  let agent: Agent;
  let direct: OverlayStyleClient;
  let test: TestHost;
  let apiKey: string;
  let skinIds: Record<Skin, number>;
  let presetId: number;
  const clientLog: string[] = [];

  beforeAll(async () => {
    const port = await freePort();
    ({ dir, config } = tempWorkspace('api: { rateLimit: { perMinute: 100000 } }', `{ host: 127.0.0.1, port: ${port} }`));
    const fixture = join(dir, 'fixture.yaml');
    writeFileSync(fixture, FIXTURE);
    const seeded = await runCli(['seed', fixture, '--config', config]);
    expect(seeded.code, seeded.stderr).toBe(0);
    const ids = (JSON.parse(seeded.stdout) as { accounts: { alice: { skins: Record<string, number>; overlays: Record<string, number> } } }).accounts.alice;
    skinIds = { neon: ids.skins['neon']!, tape: ids.skins['tape']! };
    presetId = Object.values(ids.overlays)[0]!;
    const created = await runCli(['keys', 'create', 'alice', '--config', config]);
    expect(created.code, created.stderr).toBe(0);
    apiKey = created.stdout.trimEnd().split('\n').at(-1)!;
    api = await startHost(config, { cwd: dir });
    proxy = await startFaultInjectingProxy(port, '/api/v1', 10);
    agent = new Agent();
    direct = createHttpClient({ baseUrl: api.apiUrl, apiKey, dispatcher: agent, userAgent: 'ChatskinTests/1.0' });
    const client = createHttpClient({
      baseUrl: proxy.baseUrl, apiKey, dispatcher: agent, userAgent: 'ChatskinTests/1.0', timeoutMs: TIMEOUT_MS,
      backoff: { baseDelayMs: 20, maxDelayMs: 50 },
      // Waits as the client asks, but at most 50 ms of real time: a Retry-After is seconds.
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, Math.min(ms, 50))),
      logger: { warn: (_details, message) => { clientLog.push(message); }, error: (_details, message) => { clientLog.push(message); } },
    });
    test = await startTestHost({ builtInPluginDir: BUILT_IN_PLUGIN_DIR, overlayClient: client, config: { plugins: { style: {}, grants: {}, skins: {} } } });
  }, 60_000);

  afterAll(async () => {
    await test?.host.stop();
    await proxy?.close();
    await agent?.close();
    if (api !== undefined && api.child.exitCode === null) await api.stop('SIGKILL');
  });

  /** SIGKILL; the proxy in front goes down with it (its port refuses, its connections are cut). */
  async function kill(): Promise<void> {
    const killed = api!.child.exitCode === null && api!.child.signalCode === null ? api!.stop('SIGKILL') : Promise.resolve(null);
    await proxy.down();
    await killed;
  }

  async function restart(): Promise<void> {
    await kill();
    api = await startHost(config, { cwd: dir });
    await proxy.up();
  }

  async function readState(): Promise<{ width: number; grants: Map<string, boolean> }> {
    const view = await direct.getTemplate(presetId);
    const grants = new Map<string, boolean>();
    for (const v of VIEWERS) {
      const held = await direct.listViewerSkins(v);
      // A grant is one row: never two of one skin.
      expect(new Set(held.map((s) => s.id)).size).toBe(held.length);
      for (const s of Object.keys(SKINS) as Skin[]) grants.set(grantKey(v, s), held.some((h) => h.id === skinIds[s]));
    }
    return { width: view.settings_values['bubble.width'] as number, grants };
  }

  function text(c: Command): { line: string; tags: ChatTags; answered: boolean } {
    switch (c.kind) {
      case 'style': return { line: `!style bubble.width ${c.width}`, tags: TAGS[c.chatter](), answered: isModerator(c.chatter) };
      case 'grant': return { line: `!grant @${c.viewer} ${c.skin}`, tags: TAGS[c.chatter](), answered: isModerator(c.chatter) };
      case 'revoke': return { line: `!revoke @${c.viewer} ${c.skin}`, tags: TAGS[c.chatter](), answered: isModerator(c.chatter) };
      case 'skins': return { line: '!skins', tags: viewerTags(c.viewer), answered: true };
    }
  }

  /** Types the line; returns the function that waits for its one reply (or its silence). */
  async function type(c: Command): Promise<() => Promise<string | null>> {
    if (c.kind === 'skins') await test.clock.advance(31_000);   // past !skins' cooldowns
    const { line, tags, answered } = text(c);
    const before = test.chat.sent.length;
    test.chat.message('#streamer', line, tags);
    return async () => {
      if (!answered) {
        await settle();
        return null;
      }
      const deadline = Date.now() + 15_000;
      while (test.chat.sent.length <= before && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
      return test.chat.sent[before]?.text ?? '(silence)';
    };
  }

  /** Checks the reply against the docs and moves the model. */
  function judge(model: Model, c: Command, reply: string | null, log: string[]): void {
    log.push(`${text(c).line} (${c.kind === 'skins' ? c.viewer : c.chatter}) -> ${reply}`);
    if (!text(c).answered) {
      expect(reply, log.join('\n')).toBeNull();
      return;
    }
    const who = c.kind === 'skins' ? c.viewer[0]!.toUpperCase() + c.viewer.slice(1) : NAME[c.chatter];
    expect(reply, log.join('\n')).toMatch(new RegExp(`^@${who} `));
    const body = reply!.slice(who.length + 2);
    expect(body, log.join('\n')).not.toMatch(/Error|\bat |https?:|stack|Bearer/);
    expect(body, log.join('\n')).not.toContain(apiKey);
    const failed = FAILURE_LINE.test(body);
    switch (c.kind) {
      case 'style': {
        if (failed) { model.width.add(c.width); return; }
        expect(body, log.join('\n')).toBe(`bubble.width is now ${c.width}.`);
        model.width = new Set([c.width]);
        return;
      }
      case 'grant': {
        const key = grantKey(c.viewer, c.skin);
        const possible = model.grants.get(key)!;
        if (failed) { possible.add(true); return; }
        const name = SKINS[c.skin];
        if (body === `granted ${name} to ${c.viewer}.`) {
          // A new grant: the viewer cannot have surely held it.
          expect(possible.has(false), `${log.join('\n')}\nsaid new although surely held`).toBe(true);
        } else if (body === `${c.viewer} already has ${name}.`) {
          expect(possible.has(true), `${log.join('\n')}\nsaid held although surely not`).toBe(true);
        } else {
          expect(body, log.join('\n')).toBe(`${c.viewer} has ${name} now.`);
        }
        model.grants.set(key, new Set([true]));
        return;
      }
      case 'revoke': {
        const key = grantKey(c.viewer, c.skin);
        const possible = model.grants.get(key)!;
        if (failed) { possible.add(false); return; }
        const name = SKINS[c.skin];
        if (body !== `revoked ${name} from ${c.viewer}.`) {
          expect(body, log.join('\n')).toBe(`${c.viewer} has no grant of "${c.skin}" to revoke (a purchase is never revoked).`);
          expect(possible.has(false), `${log.join('\n')}\nsaid not held although surely held`).toBe(true);
        }
        model.grants.set(key, new Set([false]));
        return;
      }
      case 'skins': {
        if (failed) return;
        const held = (Object.keys(SKINS) as Skin[]).filter((s) => model.grants.get(grantKey(c.viewer, s))!.size === 1 && model.grants.get(grantKey(c.viewer, s))!.has(true));
        if (held.length === 0 && [...model.grants.entries()].every(([k, v]) => !k.startsWith(`${c.viewer}/`) || (v.size === 1 && v.has(false)))) {
          expect(body, log.join('\n')).toBe('skins granted to you: none yet. Free for everyone: Sunny.');
        } else {
          expect(body, log.join('\n')).toMatch(/^skins granted to you: [A-Za-z, ]+\. Free for everyone: Sunny\.$/);
          for (const s of held) expect(body, log.join('\n')).toContain(SKINS[s]);
        }
        return;
      }
    }
  }

  it('keeps every acknowledged change, applies nothing twice, answers every command in one documented line, and works again after the faults', async () => {
    await fc.assert(fc.asyncProperty(script, async (steps) => {
      proxy.disarm();
      const start = await readState();
      const model: Model = { width: new Set([start.width]), grants: new Map([...start.grants].map(([k, v]) => [k, new Set([v])])) };
      const log: string[] = [];
      const linesBefore = test.chat.sent.length;
      let replies = 0;
      const run = async (c: Command) => {
        const reply = await (await type(c))();
        if (reply !== null) replies += 1;
        judge(model, c, reply, log);
      };
      for (const s of steps) {
        switch (s.kind) {
          case 'command': await run(s.command); break;
          case 'faults': log.push(`faults ${JSON.stringify(s.faults)}`); proxy.arm(s.faults); break;
          case 'outage': {
            log.push('API killed');
            await kill();
            for (const c of s.commands) await run(c);
            await restart();
            log.push('API restarted');
            break;
          }
          case 'killDuring': {
            const wait = await type(s.command);
            await new Promise((resolve) => setTimeout(resolve, s.afterMs));
            log.push(`API killed ${s.afterMs} ms after the next line`);
            const restarted = restart();
            const reply = await wait();
            if (reply !== null) replies += 1;
            judge(model, s.command, reply, log);
            await restarted;
            break;
          }
          case 'burst': {
            if (proxy.armed > 0) break;
            proxy.arm(s.rateLimits);
            const before = test.chat.sent.length;
            const waits = [];
            for (const w of s.widths) waits.push(await type({ kind: 'style', chatter: 'mod', width: w }));
            await Promise.all(waits.map((w) => w()));
            const deadline = Date.now() + 15_000;
            while (test.chat.sent.length < before + s.widths.length && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
            await new Promise((resolve) => setTimeout(resolve, 20));
            const said = test.chat.sent.slice(before).map((line) => line.text);
            log.push(`burst ${s.widths.join(' ')} under ${JSON.stringify(s.rateLimits)} -> ${JSON.stringify(said)}`);
            expect(said, log.join('\n')).toHaveLength(s.widths.length);
            replies += s.widths.length;
            // Each is done, or refused by the rate limit (which changes nothing)...
            for (const line of said) expect(line, log.join('\n')).toMatch(/^@Mod_mia (bubble\.width is now \d+|the overlay service is busy; try again in \d+ s)\.$/);
            // ...the ones done answered in the order typed, the overlay ending on the last of them.
            const done = said.map((line) => /is now (\d+)\./.exec(line)?.[1]).filter((w) => w !== undefined).map(Number);
            let next = 0;
            for (const w of done) {
              while (next < s.widths.length && s.widths[next] !== w) next += 1;
              expect(next, `${log.join('\n')}\nanswered out of the order typed`).toBeLessThan(s.widths.length);
              next += 1;
            }
            if (done.length > 0) model.width = new Set([done.at(-1)!]);
            break;
          }
        }
      }
      // The faults end.
      proxy.disarm();
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(test.chat.sent.length - linesBefore, `${log.join('\n')}\nreplies: ${JSON.stringify(test.chat.sent.slice(linesBefore).map((l) => l.text))}`).toBe(replies);
      // The host never failed: no command threw, nothing was logged as an error.
      expect(test.logs.filter((entry) => entry.level >= 50).map((entry) => entry.msg), log.join('\n')).toEqual([]);
      const end = await readState();
      expect([...model.width], `${log.join('\n')}\nwidth ${end.width}`).toContain(end.width);
      for (const [key, held] of end.grants) expect([...model.grants.get(key)!], `${log.join('\n')}\n${key} ${held}`).toContain(held);
      // Commands work again at once, without a restart of either side.
      const healed = 1 + (end.width % 9000);
      const reply = await (await type({ kind: 'style', chatter: 'mod', width: healed }))();
      expect(reply, log.join('\n')).toBe(`@Mod_mia bubble.width is now ${healed}.`);
      const grantReply = await (await type({ kind: 'grant', chatter: 'mod', viewer: 'viewer_two', skin: 'tape' }))();
      expect(grantReply, log.join('\n')).toMatch(/^@Mod_mia (granted Tape to viewer_two|viewer_two already has Tape)\.$/);
    }), { numRuns: RUNS });
  }, 240_000);
});
