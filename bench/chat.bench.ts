// `npm run bench:chat`: how fast the host takes in Twitch chat, and how fast it answers a command.
//
//   npm run bench:chat
//   npm run bench:chat -- --messages 100000 --rounds 9 --latency-seconds 60 --load-rate 2000
//   npm run bench:chat -- --cpu-prof        # also writes .cpuprofile files of both readers' processes
//
// 1. Ingest. The fake Twitch chat (test/fakes) floods a realistic mix (bench/helpers/chat-mix.ts:
//    3,000 chatters, emotes, badges, 2% viewers' commands the router turns down) at the whole
//    chatskin (startChatskin: real tmi.js, the built-in plugins style, skins and grants, a SQLite
//    file, one overlay socket connected), and, in turn, at a bare tmi.js client with the same
//    options counting its 'message' events. Each reader runs in its own process, freshly started
//    per round and warmed up first; the median round counts. A line is counted in the host once
//    it has been through overlay forwarding, viewer registration and the command router.
// 2. Command-to-reply latency. A moderator sends `!style show bubble.width` at a steady rate the
//    reply queue allows without waiting (the bot is moderator: 100 lines per 30 s), timed from the
//    fake sending the line to the fake receiving the bot's answer; quiet, then under background
//    chat. The baseline is the bare tmi.js client answering the same line at once.
// 3. Viewer registration (bench/helpers/viewer-registration-bench.ts): first-time chatters
//    arriving one per event-loop turn, through the host's registration queue, against one
//    registerViewer call each (the baseline); COMMITs and CPU per chatter. No aim: it shows what
//    the queue saves where the flood above (200 lines per WebSocket frame) cannot.
//   npm run bench:chat -- --registrations 10000
//   npm run bench:chat -- --baseline ../old-checkout --latency-seconds 1   # A/B: that checkout's host in every ingest round too
// Aims: ingest >= 0.8x bare tmi.js; p99 < 50 ms. Prints figures and ratios and exits 0; the whole
// run is bounded by --timeout (default 300 s).
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import { FakeTwitchIrc } from '../test/fakes/fake-twitch-irc.ts';
import type { ChatUser } from '../test/fakes/fake-twitch-irc.ts';
import { stableNumericId } from '../test/fakes/stable-id.ts';
import { renderChatFrames, sendChatFrames } from './helpers/chat-frames.ts';
import { createChatMix } from './helpers/chat-mix.ts';
import type { ChatMix } from './helpers/chat-mix.ts';
import { BENCH_CHANNEL, BOT_LOGIN } from './helpers/chat-consumer-process.ts';
import { startChatConsumer } from './helpers/chat-consumer.ts';
import { measureViewerRegistration } from './helpers/viewer-registration-bench.ts';
import type { RegistrationResult } from './helpers/viewer-registration-bench.ts';
import type { ChatConsumer, CountedReport } from './helpers/chat-consumer.ts';

const { values } = parseArgs({
  options: {
    messages: { type: 'string', default: '60000' },
    warmup: { type: 'string', default: '10000' },
    rounds: { type: 'string', default: '5' },
    'latency-seconds': { type: 'string', default: '30' },
    'command-rate': { type: 'string', default: '2' },
    'load-rate': { type: 'string', default: '1000' },
    registrations: { type: 'string', default: '3000' },
    'cpu-prof': { type: 'boolean', default: false },
    timeout: { type: 'string', default: '300' },
    baseline: { type: 'string' },
  },
});
/** `--baseline DIR`: another checkout's host (its own consumer script and src), one more reader in every ingest round. */
const BASELINE_SCRIPT = ((dir: string | undefined): string | null => {
  if (dir === undefined) return null;
  const script = path.resolve(dir, 'bench/helpers/chat-consumer-process.ts');
  if (!existsSync(script)) throw new Error(`--baseline ${dir}: no ${script}`);
  return script;
})(values.baseline);
const MESSAGES = Number(values.messages);
const WARMUP = Number(values.warmup);
const ROUNDS = Number(values.rounds);
const LATENCY_SECONDS = Number(values['latency-seconds']);
/** Moderator commands per second: with the background's own answers, under Twitch's 100 per 30 s. */
const COMMAND_RATE = Number(values['command-rate']);
const LOAD_RATE = Number(values['load-rate']);
const REGISTRATIONS = Number(values.registrations);
const AIMS = { ingestRatio: 0.8, p99Ms: 50 } as const;
/** Distinct moderators, so each answer (`@Mod_k ...`) is matched to its own command. */
const MODERATORS = 50;
const LOAD_TICK_MS = 10;

type ReaderKind = 'host' | 'bare' | 'baseline';

interface IngestResult {
  kind: ReaderKind;
  perSecond: number;
  settledPerSecond: number;
  cpuMicrosPerLine: number;
  registrations: number;
  overlayFrames: number;
  droppedFrames: number;
}

interface LatencyResult {
  samples: number;
  p50: number;
  p99: number;
  max: number;
  lost: number;
}

const epochNow = (): number => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

function median<T>(items: readonly T[], by: (item: T) => number): T {
  return [...items].sort((a, b) => by(a) - by(b))[Math.floor(items.length / 2)]!;
}

/** One overlay page's push socket, counting the chat frames it receives (without parsing them). */
async function overlaySocket(url: string): Promise<{ chatFrames(): number; close(): void }> {
  const socket = new WebSocket(url, { perMessageDeflate: false });
  let chatFrames = 0;
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.on('message', (data: Buffer) => {
      // The snapshot comes first; then each chat line is one `{"type":"chat",...}` frame, several
      // to a message, one per line (docs/push.md).
      let sawOther = false;
      for (let start = 0; start < data.length;) {
        const end = data.indexOf(0x0a /* \n */, start);
        if (data.toString('latin1', start, start + 14) === '{"type":"chat"') chatFrames += 1;
        else sawOther = true;
        start = end === -1 ? data.length : end + 1;
      }
      if (sawOther) resolve();
    });
  });
  return { chatFrames: () => chatFrames, close: () => socket.terminate() };
}

class Bench {
  readonly irc: FakeTwitchIrc;
  readonly dir: string;
  readonly profileDir: string | null;
  readonly consumers = new Set<ChatConsumer>();
  #hostRuns = 0;

  constructor(irc: FakeTwitchIrc, dir: string, profileDir: string | null) {
    this.irc = irc;
    this.dir = dir;
    this.profileDir = profileDir;
  }

  /** A fresh reader (its own process, a new database for the host), joined and ready. */
  async reader(kind: ReaderKind, echo = false): Promise<ChatConsumer> {
    const joins = this.irc.joins.length;
    let consumer: ChatConsumer;
    // Both readers profiled, each kind in its own folder, so their tmi.js time can be compared.
    const execArgv = this.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${path.join(this.profileDir, kind)}`] : [];
    if (kind !== 'bare') {
      const dir = path.join(this.dir, `host-${++this.#hostRuns}`);
      mkdirSync(dir);
      const script = kind === 'baseline' ? BASELINE_SCRIPT ?? undefined : undefined;
      consumer = await startChatConsumer({ kind: 'host', port: this.irc.port, oauthUrl: this.irc.oauthUrl, dir }, { execArgv, script });
    } else {
      consumer = await startChatConsumer({ kind, port: this.irc.port, echo }, { execArgv });
    }
    this.consumers.add(consumer);
    await this.irc.waitForJoin(BENCH_CHANNEL, { since: joins });
    return consumer;
  }

  async stop(consumer: ChatConsumer): Promise<void> {
    await consumer.stop();
    this.consumers.delete(consumer);
  }

  /** Sends `count` lines of the mix (rendered beforehand) and waits until the reader has handled them all. */
  async flood(consumer: ChatConsumer, mix: ChatMix, count: number): Promise<{ startedAt: number; report: CountedReport }> {
    const chat = renderChatFrames(this.irc, BENCH_CHANNEL, count, (i) => mix.line(i));
    const { counted } = await consumer.arm(count);
    const startedAt = epochNow();
    sendChatFrames(this.irc, BENCH_CHANNEL, chat);
    return { startedAt, report: await counted };
  }

  async ingestRound(kind: ReaderKind, round: number): Promise<IngestResult> {
    const consumer = await this.reader(kind);
    const overlay = consumer.overlaySocketUrl ? await overlaySocket(consumer.overlaySocketUrl) : null;
    try {
      // Warm-up chatters differ from the measured ones, so those are first seen (and registered) when measured.
      await this.flood(consumer, createChatMix({ userOffset: 500_000, skinSpammers: 5, seed: 7 + round }), WARMUP);
      const framesBefore = overlay?.chatFrames() ?? 0;
      const { startedAt, report } = await this.flood(consumer, createChatMix({ skinSpammers: 5, seed: 1 + round }), MESSAGES);
      // The last frames may still be on their way to the overlay socket.
      for (let i = 0; i < 100 && overlay && overlay.chatFrames() - framesBefore < MESSAGES - report.droppedFrames; i++) await sleep(10);
      return {
        kind,
        perSecond: MESSAGES / ((report.lastAt - startedAt) / 1000),
        settledPerSecond: MESSAGES / ((report.settledAt - startedAt) / 1000),
        cpuMicrosPerLine: report.cpuMicros / MESSAGES,
        registrations: report.registrations.started,
        overlayFrames: (overlay?.chatFrames() ?? 0) - framesBefore,
        droppedFrames: report.droppedFrames,
      };
    } finally {
      overlay?.close();
      await this.stop(consumer);
    }
  }

  /** Moderators' `!style show bubble.width` at `rate` per second for `seconds`; latencies in ms. */
  async commandLatencies(rate: number, seconds: number): Promise<LatencyResult> {
    const latencies: number[] = [];
    let lost = 0;
    const total = Math.round(rate * seconds);
    const waits: Promise<void>[] = [];
    const begin = performance.now();
    for (let i = 0; i < total; i++) {
      const due = begin + (i * 1000) / rate;
      const ahead = due - performance.now();
      if (ahead > 0) await sleep(ahead);
      const k = i % MODERATORS;
      const moderator: ChatUser = { login: `mod_${k}`, displayName: `Mod_${k}`, userId: stableNumericId(`mod_${k}`), mod: true };
      const since = this.irc.privmsgs.length;
      const sentAt = performance.now();
      this.irc.sendPrivmsg(BENCH_CHANNEL, moderator, '!style show bubble.width');
      waits.push(this.irc.waitForPrivmsg((m) => m.login === BOT_LOGIN && m.text.startsWith(`@Mod_${k} bubble.width`), { since, timeoutMs: 10_000 })
        .then(() => {
          latencies.push(performance.now() - sentAt);
        }, () => {
          lost += 1;
        }));
    }
    await Promise.all(waits);
    latencies.sort((a, b) => a - b);
    return { samples: latencies.length, p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: latencies.at(-1) ?? Number.NaN, lost };
  }

  /** Background chat at `rate` lines per second (a few lines every 10 ms) until stopped. */
  backgroundChat(rate: number): { stop(): Promise<number> } {
    // No per-user-cooldown spammers: the background's own answers stay at most 20 per 30 s (!skins).
    const mix = createChatMix({ userOffset: 200_000, seed: 99 });
    const perTick = Math.max(1, Math.round((rate * LOAD_TICK_MS) / 1000));
    let sent = 0;
    let running = true;
    const loop = (async () => {
      const begin = performance.now();
      for (let tick = 0; running; tick++) {
        const from = sent;
        await this.irc.floodPrivmsg(BENCH_CHANNEL, perTick, (i) => mix.line(from + i), { linesPerFrame: perTick });
        sent += perTick;
        const ahead = begin + (tick + 1) * LOAD_TICK_MS - performance.now();
        await sleep(Math.max(0, ahead));
      }
    })();
    return {
      async stop() {
        running = false;
        await loop;
        return sent;
      },
    };
  }

  async latencyPhases(kind: 'host' | 'bare', rate: number, seconds: number): Promise<{ quiet: LatencyResult; loaded: LatencyResult; loadRate: number }> {
    const consumer = await this.reader(kind, true);
    const overlay = consumer.overlaySocketUrl ? await overlaySocket(consumer.overlaySocketUrl) : null;
    try {
      // A few commands first, not counted: the first read of the template, compiled code paths.
      await this.commandLatencies(rate, Math.min(3, seconds));
      const quiet = await this.commandLatencies(rate, seconds);
      const background = this.backgroundChat(LOAD_RATE);
      await sleep(1_000);
      const started = performance.now();
      const loaded = await this.commandLatencies(rate, seconds);
      const elapsed = (performance.now() - started) / 1000;
      const sent = await background.stop();
      return { quiet, loaded, loadRate: sent / (elapsed + 1) };
    } finally {
      overlay?.close();
      await this.stop(consumer);
    }
  }
}

function ms(value: number): string {
  return `${value.toFixed(2)} ms`.padStart(10);
}

function latencyRow(label: string, result: LatencyResult): string {
  return `  ${label.padEnd(30)} p50 ${ms(result.p50)}   p99 ${ms(result.p99)}   max ${ms(result.max)}   `
    + `(${result.samples} samples${result.lost > 0 ? `, ${result.lost} unanswered` : ''})`;
}

async function main(): Promise<void> {
  const startedAt = Date.now();
  const dir = mkdtempSync(path.join(tmpdir(), 'chatskin-bench-chat-'));
  const profileDir = values['cpu-prof'] ? mkdtempSync(path.join(tmpdir(), 'chatskin-chat-prof-')) : null;
  // The bot is a moderator in the channel (USERSTATE badge), so its replies may use 100 per 30 s.
  const irc = await FakeTwitchIrc.start({ userBadges: (login): Record<string, string> => (login === BOT_LOGIN ? { moderator: '1' } : {}) });
  const bench = new Bench(irc, dir, profileDir);
  const deadline = setTimeout(() => {
    console.error(`bench:chat: over the ${values.timeout} s bound; stopping.`);
    for (const consumer of bench.consumers) void consumer.stop();
    setTimeout(() => process.exit(2), 6_000).unref();
  }, Number(values.timeout) * 1000);
  deadline.unref();
  try {
    console.log(`bench:chat  ingest: ${MESSAGES} lines per round (after ${WARMUP} warm-up lines) from 3,000 chatters, 2% of them `
      + `viewers' commands; ${ROUNDS} rounds per reader, median round shown; each reader in its own fresh process`);
    const ingest: IngestResult[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate who goes first, so a drift in the machine's load does not favour one side.
      const order: ReaderKind[] = round % 2 === 0 ? ['bare', 'host'] : ['host', 'bare'];
      // The baseline right before or after the host, alternating too, for A/B pairs.
      if (BASELINE_SCRIPT !== null) order.splice(order.indexOf('host') + (round % 4 < 2 ? 0 : 1), 0, 'baseline');
      for (const kind of order) ingest.push(await bench.ingestRound(kind, round));
    }
    const bare = median(ingest.filter((r) => r.kind === 'bare'), (r) => r.perSecond);
    const host = median(ingest.filter((r) => r.kind === 'host'), (r) => r.perSecond);
    const hostSettled = median(ingest.filter((r) => r.kind === 'host'), (r) => r.settledPerSecond);
    const ratio = host.perSecond / bare.perSecond;
    console.log(`  bare tmi.js ('message' events)  ${bare.perSecond.toFixed(0).padStart(7)} lines/s   ${bare.cpuMicrosPerLine.toFixed(1)} us CPU/line`);
    console.log(`  chatskin host                   ${host.perSecond.toFixed(0).padStart(7)} lines/s   ${host.cpuMicrosPerLine.toFixed(1)} us CPU/line   `
      + `(${host.registrations} viewers registered, ${host.overlayFrames} chat frames at the overlay, ${host.droppedFrames} dropped)`);
    console.log(`  chatskin host, until every viewer registration committed: ${hostSettled.settledPerSecond.toFixed(0)} lines/s `
      + `(${(hostSettled.settledPerSecond / bare.perSecond).toFixed(2)}x bare)`);
    console.log(`  all rounds, lines/s: bare ${ingest.filter((r) => r.kind === 'bare').map((r) => r.perSecond.toFixed(0)).join(', ')}; `
      + `host ${ingest.filter((r) => r.kind === 'host').map((r) => r.perSecond.toFixed(0)).join(', ')}`);
    const baselineRounds = ingest.filter((r) => r.kind === 'baseline');
    if (baselineRounds.length > 0) {
      const hostRounds = ingest.filter((r) => r.kind === 'host');
      const baseline = median(baselineRounds, (r) => r.perSecond);
      console.log(`  baseline host (${values.baseline})  ${baseline.perSecond.toFixed(0).padStart(7)} lines/s   ${baseline.cpuMicrosPerLine.toFixed(1)} us CPU/line`);
      console.log(`  CPU per line by round, host vs baseline: ${hostRounds.map((r, i) => `${r.cpuMicrosPerLine.toFixed(2)}/${baselineRounds[i]!.cpuMicrosPerLine.toFixed(2)}`).join(', ')}; `
        + `median ${median(hostRounds, (r) => r.cpuMicrosPerLine).cpuMicrosPerLine.toFixed(2)} vs ${median(baselineRounds, (r) => r.cpuMicrosPerLine).cpuMicrosPerLine.toFixed(2)} us; `
        + `lines/s ${hostRounds.map((r, i) => `${r.perSecond.toFixed(0)}/${baselineRounds[i]!.perSecond.toFixed(0)}`).join(', ')}`);
    }
    console.log(`  ingest host/bare: ${ratio.toFixed(2)}x (aim >= ${AIMS.ingestRatio}x); CPU per line ${(host.cpuMicrosPerLine / bare.cpuMicrosPerLine).toFixed(2)}x bare\n`);

    const bareSeconds = Math.max(5, Math.round(LATENCY_SECONDS / 2));
    console.log(`bench:chat  command-to-reply latency: moderators' "!style show bubble.width", host at ${COMMAND_RATE}/s for `
      + `${LATENCY_SECONDS} s per phase (bot is moderator: 100 lines per 30 s); background chat at ${LOAD_RATE} lines/s`);
    const hostLatency = await bench.latencyPhases('host', COMMAND_RATE, LATENCY_SECONDS);
    const bareLatency = await bench.latencyPhases('bare', COMMAND_RATE * 2, bareSeconds);
    console.log(latencyRow('bare tmi.js echo, quiet', bareLatency.quiet));
    console.log(latencyRow(`bare tmi.js echo, ${bareLatency.loadRate.toFixed(0)} lines/s`, bareLatency.loaded));
    console.log(latencyRow('chatskin host, quiet', hostLatency.quiet));
    console.log(latencyRow(`chatskin host, ${hostLatency.loadRate.toFixed(0)} lines/s`, hostLatency.loaded));
    const times = (host_: number, bare_: number) => `${(host_ / bare_).toFixed(2)}x`;
    console.log(`  host/bare: quiet p50 ${times(hostLatency.quiet.p50, bareLatency.quiet.p50)}, p99 ${times(hostLatency.quiet.p99, bareLatency.quiet.p99)}; `
      + `loaded p50 ${times(hostLatency.loaded.p50, bareLatency.loaded.p50)}, p99 ${times(hostLatency.loaded.p99, bareLatency.loaded.p99)} `
      + `(with ~${hostLatency.quiet.samples} samples, p99 is the slowest one or two)\n`);

    console.log(`bench:chat  viewer registration: ${REGISTRATIONS} first-time chatters, one per event-loop turn, SQLite synchronous=FULL`);
    // Interleaved, twice each; the second of each counts (the first warms the code paths).
    const registration = { 'one-each': [] as RegistrationResult[], queued: [] as RegistrationResult[] };
    for (let i = 0; i < 2; i++) {
      for (const mode of ['one-each', 'queued'] as const) registration[mode].push(await measureViewerRegistration(mode, REGISTRATIONS));
    }
    const oneEach = registration['one-each'].at(-1)!;
    const queued = registration.queued.at(-1)!;
    const registrationRow = (label: string, r: RegistrationResult) =>
      `  ${label.padEnd(30)} ${String(r.commits).padStart(5)} COMMITs   ${r.cpuMicrosPerViewer.toFixed(1).padStart(6)} us CPU per chatter   ${r.wallMs.toFixed(0)} ms`;
    console.log(registrationRow('one registerViewer each', oneEach));
    console.log(registrationRow('registration queue (host)', queued));
    console.log(`  queue/one each: CPU per chatter ${(queued.cpuMicrosPerViewer / oneEach.cpuMicrosPerViewer).toFixed(2)}x, `
      + `COMMITs ${(queued.commits / oneEach.commits).toFixed(3)}x\n`);

    const worstP99 = Math.max(hostLatency.quiet.p99, hostLatency.loaded.p99);
    console.log(`ingest: ${ratio >= AIMS.ingestRatio ? 'meets' : 'BELOW'} the aim (${ratio.toFixed(2)}x vs ${AIMS.ingestRatio}x)`);
    console.log(`latency: ${worstP99 < AIMS.p99Ms ? 'meets' : 'ABOVE'} the aim (p99 ${worstP99.toFixed(2)} ms vs < ${AIMS.p99Ms} ms)`);
    if (profileDir) console.log(`CPU profiles of the readers' processes: ${profileDir}/host and ${profileDir}/bare`);
    console.log(`done in ${((Date.now() - startedAt) / 1000).toFixed(1)} s`);
  } finally {
    clearTimeout(deadline);
    await Promise.all([...bench.consumers].map((consumer) => consumer.stop()));
    await irc.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
