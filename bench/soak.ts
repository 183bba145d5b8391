// `npm run bench:soak`: the whole host for minutes under a mixed, churning load, watching whether
// what it holds stays flat once warmed up (a leak shows as a trend, not as a figure).
//
//   npm run bench:soak
//   npm run bench:soak -- --seconds 600 --warmup 90 --sample 15 --chat-rate 300
//   npm run bench:soak -- --snapshots /tmp/soak-snaps   # heap snapshots after warm-up and at the end
//                                                      # (compare: node bench/helpers/heap-diff.ts A B)
//
// The host (startChatskin: real tmi.js against test/fakes' FakeTwitchIrc, EventSub and Helix
// against FakeHelix, the built-in plugins, a SQLite file) runs in its own process started with
// --expose-gc (bench/helpers/soak-host-process.ts); this process is the load:
// - chat at --chat-rate lines/s from the bench's chat mix, 40% of them from chatters never seen
//   before (viewer registration, its filter, cooldown maps), with moderators' deletes, timeouts
//   and a clear now and then;
// - moderators' !style / !theme (1/s) and viewers' !skin / !skins / !skin none from ever new
//   viewers (3/s), so the reply queue and the per-viewer cooldowns see churn;
// - GET and PUT /template (and GET /skins) with several accounts' API keys, plus refused keys;
// - overlay sockets opened and closed all the time (closed, terminated, some sending resync or a
//   bad frame), and some that never read, held until the gateway gives up on them or we do;
// - POST /local/chat messages and their deletes;
// - the Twitch chat connection dropped, asked to RECONNECT, the bot parted, slow mode toggled,
//   every --chaos seconds in turn;
// - channel-point redemptions (2/s) with an EventSub session_reconnect now and then and a dropped
//   EventSub connection.
// Every --sample seconds the host is asked for its heap used after a full GC, RSS, active
// handles by type and its listener counts; the table and the trend (after warm-up vs end) print.
import { fork } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import { writeTokenFile } from '../src/adapters/twitch-auth/token-file.ts';
import { FakeHelix } from '../test/fakes/fake-helix.ts';
import { FakeTwitchIrc } from '../test/fakes/fake-twitch-irc.ts';
import type { ChatUser, FloodBuild } from '../test/fakes/fake-twitch-irc.ts';
import { stableNumericId } from '../test/fakes/stable-id.ts';
import { createChatMix } from './helpers/chat-mix.ts';
import type { SoakHostCommand, SoakHostReady, SoakHostRequest, SoakSample } from './helpers/soak-host-process.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '300' },
    warmup: { type: 'string', default: '60' },
    sample: { type: 'string', default: '10' },
    'chat-rate': { type: 'string', default: '200' },
    'api-rate': { type: 'string', default: '8' },
    'socket-rate': { type: 'string', default: '6' },
    chaos: { type: 'string', default: '40' },
    snapshots: { type: 'string' },
    'inspect-host': { type: 'boolean', default: false },
  },
});
const SECONDS = Number(values.seconds);
const WARMUP = Number(values.warmup);
const SAMPLE_SECONDS = Number(values.sample);
const CHAT_RATE = Number(values['chat-rate']);
const API_RATE = Number(values['api-rate']);
const SOCKET_RATE = Number(values['socket-rate']);
const CHAOS_SECONDS = Number(values.chaos);

const CHANNEL = 'soakchannel';
const BOT = 'chatskinbot';
const CLIENT_ID = 'soakclientid';
const CLIENT_SECRET = 'soakclientsecret';
const OTHER_ACCOUNTS = ['otherone', 'othertwo', 'otherthree'];
const HOST_SCRIPT = fileURLToPath(new URL('./helpers/soak-host-process.ts', import.meta.url));
const MB = 1024 * 1024;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!;

/** What the load did, for the report. */
const sent = {
  chat: 0, newChatters: 0, modCommands: 0, viewerCommands: 0, api: 0, apiStatus: {} as Record<string, number>,
  socketsOpened: 0, socketsRefused: 0, stalledSockets: 0, localChat: 0, redemptions: 0, chaos: [] as string[],
};

function countStatus(status: number | string): void {
  sent.apiStatus[status] = (sent.apiStatus[status] ?? 0) + 1;
}

/** Calls `tick` every `intervalMs` until `running()` is false; errors are counted, not fatal. */
function every(intervalMs: number, running: () => boolean, tick: (n: number) => unknown): Promise<void> {
  return (async () => {
    const begin = performance.now();
    for (let n = 0; running(); n++) {
      try {
        await tick(n);
      } catch (error) {
        countStatus(`error: ${(error as Error).message.slice(0, 60)}`);
      }
      await sleep(Math.max(0, begin + (n + 1) * intervalMs - performance.now()));
    }
  })();
}

interface Host {
  ready: SoakHostReady;
  request<T>(command: SoakHostCommand, answer: string): Promise<T>;
  stop(): Promise<void>;
}

async function startHost(request: SoakHostRequest): Promise<Host> {
  const child = fork(HOST_SCRIPT, [], {
    execArgv: ['--disable-warning=ExperimentalWarning', '--expose-gc', ...(values['inspect-host'] ? ['--inspect=0'] : [])],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const next = <T>(cmd: string): Promise<T> => new Promise((resolve, reject) => {
    const onMessage = (message: { cmd: string }) => {
      if (message.cmd !== cmd) return;
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve(message as T);
    };
    const onExit = (code: number | null) => reject(new Error(`soak host exited (${code}) while waiting for ${cmd}`));
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
  const ready = next<SoakHostReady>('ready');
  child.send(request);
  return {
    ready: await ready,
    request<T>(command: SoakHostCommand, answer: string) {
      const result = next<T>(answer);
      child.send(command);
      return result;
    },
    stop: () => new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      child.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      child.send({ cmd: 'stop' });
    }),
  };
}

// ---- the load ---------------------------------------------------------------------------

function chatLoad(irc: FakeTwitchIrc, running: () => boolean): Promise<void> {
  const mix = createChatMix({ users: 2_000, skinSpammers: 5, seed: 11 });
  const tickMs = 50;
  const perTick = Math.max(1, Math.round((CHAT_RATE * tickMs) / 1000));
  let index = 0;
  let fresh = 0;
  const line = (): FloodBuild => {
    const built = mix.line(index++);
    if (Math.random() < 0.4) {
      // A chatter never seen before: the filter, the registration queue and the store see churn.
      const login = `newcomer_${fresh++}`;
      sent.newChatters += 1;
      return { ...built, user: { login, userId: stableNumericId(login), color: '#1E90FF', subscriber: fresh % 5 === 0 ? 3 : undefined } };
    }
    return built;
  };
  return every(tickMs, running, async (n) => {
    await irc.floodPrivmsg(CHANNEL, perTick, () => line(), { linesPerFrame: perTick });
    sent.chat += perTick;
    // Moderation now and then: a delete (of a line never sent: harmless), a timeout, a clear.
    if (n % 40 === 0) irc.deleteMessage(CHANNEL, { login: 'chatter_1', targetMsgId: crypto.randomUUID(), text: 'gone' });
    if (n % 200 === 0) irc.timeoutUser(CHANNEL, { login: `newcomer_${Math.max(0, fresh - 5)}` }, 60);
    if (n % 1200 === 600) irc.clearChat(CHANNEL);
  });
}

function commandLoad(irc: FakeTwitchIrc, running: () => boolean): Promise<void> {
  const keys = ['bubble.width', 'bubble.border-radius', 'message.font-size'];
  let viewer = 0;
  return every(250, running, (n) => {
    if (n % 4 === 0) {
      const k = n % 10;
      const mod: ChatUser = { login: `mod_${k}`, displayName: `Mod_${k}`, userId: stableNumericId(`mod_${k}`), mod: true };
      const key = pick(keys);
      const text = pick([
        `!style ${key} ${10 + (n % 300)}`, `!style reset ${key}`, `!style show ${key}`, `!theme ${pick(['neon', 'plain'])}`,
        `!grant @newcomer_${n} golden`, `!style nosuch.key 3`,
      ]);
      irc.sendPrivmsg(CHANNEL, mod, text);
      sent.modCommands += 1;
    } else {
      const login = `skinfan_${viewer++}`;
      const user: ChatUser = { login, userId: stableNumericId(login), vip: viewer % 17 === 0 };
      const text = pick(['!skin golden', '!skin ocean', '!skin none', '!skin', '!skins', '!skin nosuchskin', '!pickskin forest']);
      irc.sendPrivmsg(CHANNEL, user, text);
      // Some try again at once: the cooling-down notice and its map.
      if (viewer % 5 === 0) irc.sendPrivmsg(CHANNEL, user, text);
      sent.viewerCommands += 1;
    }
  });
}

function apiLoad(ready: SoakHostReady, running: () => boolean): Promise<void> {
  const logins = Object.keys(ready.keys);
  const headers = (key: string) => ({ 'User-Agent': 'SoakTool/1.0', Accept: 'application/json', Authorization: `Bearer ${key}` });
  const settingKeys = ['bubble.width', 'bubble.border-radius', 'message.font-size', 'bubble.background-color'];
  const value = (key: string, n: number) => (key === 'bubble.background-color' ? `#${(n * 2654435761 >>> 8).toString(16).padStart(6, '0').slice(0, 6)}` : 5 + (n % 200));
  return every(1000 / API_RATE, running, async (n) => {
    const login = logins[n % logins.length]!;
    const overlays = ready.overlays[login]!;
    const preset = pick(overlays);
    const roll = Math.random();
    let response: Response;
    if (roll < 0.05) {
      response = await fetch(`${ready.apiUrl}/template`, { headers: headers(`csk_wrong${n}`) });
    } else if (roll < 0.45) {
      response = await fetch(`${ready.apiUrl}/template?preset_id=${preset}`, { headers: headers(ready.keys[login]!) });
    } else if (roll < 0.55) {
      response = await fetch(`${ready.apiUrl}/skins?preset_id=${preset}`, { headers: headers(ready.keys[login]!) });
    } else {
      const key = pick(settingKeys);
      const scope = pick(['independent', 'override', 'source']);
      response = await fetch(`${ready.apiUrl}/template`, {
        method: 'PUT',
        headers: { ...headers(ready.keys[login]!), 'Content-Type': 'application/json' },
        body: JSON.stringify({ scope, preset_id: preset, values: { [key]: value(key, n) } }),
      });
    }
    await response.arrayBuffer();
    sent.api += 1;
    countStatus(response.status);
  });
}

/** Overlay sockets: short-lived readers, and a few that never read their socket. */
function socketLoad(ready: SoakHostReady, running: () => boolean): Promise<void> {
  const base = `ws://127.0.0.1:${ready.port}/overlay`;
  const open = new Set<WebSocket>();
  const loop = every(1000 / SOCKET_RATE, running, (n) => {
    if (open.size > 60) return;
    const token = pick(ready.overlayTokens);
    const stalled = n % 8 === 0;
    const socket = new WebSocket(`${base}/${token}/ws`, { perMessageDeflate: false });
    open.add(socket);
    sent.socketsOpened += 1;
    socket.on('error', () => {});
    socket.on('unexpected-response', () => {
      sent.socketsRefused += 1;
      socket.terminate();
    });
    socket.on('close', () => open.delete(socket));
    socket.on('open', () => {
      if (stalled) {
        // Never reads again: the server's buffer for it fills, pings go unanswered.
        sent.stalledSockets += 1;
        (socket as unknown as { _socket: { pause(): void } })._socket.pause();
        setTimeout(() => socket.terminate(), 20_000 + Math.random() * 50_000).unref();
        return;
      }
      const roll = Math.random();
      if (roll < 0.1) socket.send('{"type":"resync"}');
      else if (roll < 0.13) socket.send('{"type":"nonsense"}');
      setTimeout(() => {
        if (Math.random() < 0.5) socket.close(1000);
        else socket.terminate();
      }, 100 + Math.random() * 4_000).unref();
    });
  });
  return loop.finally(() => {
    for (const socket of open) socket.terminate();
  });
}

function localChatLoad(ready: SoakHostReady, running: () => boolean): Promise<void> {
  const url = `http://127.0.0.1:${ready.port}/local/chat`;
  const post = async (event: object) => {
    const response = await fetch(url, {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ token: ready.overlayTokens[0], event }),
    });
    const body = await response.json() as { data?: { id: string } };
    sent.localChat += 1;
    return body;
  };
  const say = async (body: object) => {
    const response = await fetch(`${url}/say`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    await response.arrayBuffer();
    sent.localChat += 1;
  };
  return every(1000, running, async (n) => {
    const { data } = await post({ type: 'message', login: `local_${n}`, text: `local line ${n} Kappa`, emotes: '25:16-20' });
    if (data) await post({ type: 'message-deleted', messageId: data.id });
    // The local chat's transport (no chat limits): commands the bot answers there.
    await say(n % 3 === 0
      ? { text: pick(['!style show bubble.width', `!style bubble.width ${100 + (n % 50)}`, '!theme']), login: `localmod_${n % 7}`, role: 'mod' }
      : { text: pick(['!skin golden', '!skin', '!skins', '!skin nosuch', 'hello from the local chat']), login: `localfan_${n}` });
  });
}

function redemptionLoad(helix: FakeHelix, running: () => boolean): Promise<void> {
  return every(500, running, (n) => {
    const reward = helix.rewards.find((r) => r.json.title === 'Unlock the Neon skin');
    if (!reward) return;
    helix.fireRedemption({ rewardId: reward.json.id, user: { login: `redeemer_${n}` } });
    sent.redemptions += 1;
  });
}

function chaosLoad(irc: FakeTwitchIrc, helix: FakeHelix, running: () => boolean): Promise<void> {
  const steps: Array<[string, () => unknown]> = [
    ['irc drop', () => irc.dropAllConnections()],
    ['eventsub reconnect', () => helix.eventSub.requestReconnect().catch(() => {})],
    ['irc RECONNECT', () => irc.sendReconnect()],
    ['irc part', () => irc.partChannel(CHANNEL, BOT)],
    ['eventsub drop', () => helix.eventSub.dropAllConnections()],
    ['slow mode 30', () => irc.setSlowMode(CHANNEL, 30)],
    ['irc drop', () => irc.dropAllConnections()],
    ['slow mode off', () => irc.setSlowMode(CHANNEL, 0)],
    ['irc silent 25 s + drop', () => {
      // Connections open but never log in: the login watchdog gives up on each (a fresh tmi.js client).
      irc.silent = true;
      irc.dropAllConnections();
      setTimeout(() => {
        irc.silent = false;
      }, 25_000).unref();
    }],
    ['eventsub welcome withheld + drop', () => {
      helix.eventSub.withholdWelcome(1);
      helix.eventSub.dropAllConnections();
    }],
  ];
  return every(CHAOS_SECONDS * 1000, running, (n) => {
    if (n === 0) return;
    const [name, step] = steps[(n - 1) % steps.length]!;
    sent.chaos.push(name);
    return step();
  });
}

/** The fakes record everything they see; a soak must not grow this process without bound either. */
function trimFakes(irc: FakeTwitchIrc, helix: FakeHelix): void {
  irc.sent.length = 0;
  irc.privmsgs.length = 0;
  irc.joins.length = 0;
  helix.calls.length = 0;
  helix.redemptionChanges.length = 0;
  helix.eventSub.deliveries.length = 0;
}

// ---- report -------------------------------------------------------------------------------

const mb = (bytes: number) => (bytes / MB).toFixed(1).padStart(6);
const handleSummary = (s: SoakSample) => Object.entries(s.resources).sort().map(([type, count]) => `${type.replace(/Wrap$/, '')} ${count}`).join(', ');

function row(t: number, s: SoakSample): string {
  return `${String(Math.round(t)).padStart(5)} s  heap ${mb(s.heapUsed)} of ${mb(s.heapTotal)} MB  rss ${mb(s.rss)} MB  ext ${mb(s.external)} MB  `
    + `handles ${String(Object.values(s.resources).reduce((a, b) => a + b, 0)).padStart(3)}  `
    + `listeners ${String(s.emitters.listeners).padStart(5)} on ${String(s.emitters.live).padStart(4)} emitters  `
    + `sockets ${String(s.gateway['sockets']).padStart(2)}  chat ${s.twitchState}`;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'chatskin-soak-'));
  const irc = await FakeTwitchIrc.start({ userBadges: (login): Record<string, string> => (login === BOT ? { moderator: '1' } : {}) });
  const helix = await FakeHelix.start({ rateLimitPerMinute: 1_000_000 });
  helix.registerClient(CLIENT_ID, CLIENT_SECRET);
  const broadcaster = helix.addUser({ login: CHANNEL });
  const token = helix.issueUserToken({ clientId: CLIENT_ID, userId: broadcaster.id, scopes: ['channel:read:redemptions', 'channel:manage:redemptions'] });
  // The host checks the bot's token at FakeHelix's /validate (twitch.helix.mockServerPort).
  const botToken = helix.issueUserToken({ clientId: CLIENT_ID, userId: helix.addUser({ login: BOT }).id, scopes: ['chat:read', 'chat:edit'] });
  const tokenFile = path.join(dir, 'twitch', 'broadcaster-token.json');
  await writeTokenFile(tokenFile, {
    version: 1, clientId: CLIENT_ID, userId: broadcaster.id, login: CHANNEL, accessToken: token.accessToken,
    refreshToken: token.refreshToken!, scope: token.scope, expiresIn: token.expiresIn, obtainmentTimestamp: token.obtainmentTimestamp,
  });
  const host = await startHost({
    cmd: 'start', dir, ircPort: irc.port, helixPort: helix.port, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET,
    broadcasterTokenFile: tokenFile, channel: CHANNEL, bot: BOT, botToken: botToken.accessToken, otherAccounts: OTHER_ACCOUNTS, apiPerMinute: 600,
  });
  await irc.waitForJoin(CHANNEL, { timeoutMs: 20_000 });
  console.log(`bench:soak  ${SECONDS} s (first ${WARMUP} s warm-up), sample every ${SAMPLE_SECONDS} s; ${os.cpus().length} x ${os.cpus()[0]?.model.trim()}, Node ${process.version}`);
  console.log(`  load: chat ${CHAT_RATE} lines/s (40% new chatters), mod commands 1/s, viewer commands 3/s, API ${API_RATE}/s over ${Object.keys(host.ready.keys).length} keys, `
    + `overlay sockets ${SOCKET_RATE}/s (1 in 8 never reads), local chat 2 displayed + 1 said (commands)/s, redemptions 2/s, chaos every ${CHAOS_SECONDS} s`);

  // Before any load: what the idle host holds, to compare with the end once the load has stopped.
  const idle = await host.request<SoakSample>({ cmd: 'sample' }, 'sample');
  console.log(`${row(0, idle)}   (idle, before the load)`);
  const startedAt = performance.now();
  const elapsed = () => (performance.now() - startedAt) / 1000;
  let running = true;
  const isRunning = () => running;
  const loads = [
    chatLoad(irc, isRunning), commandLoad(irc, isRunning), apiLoad(host.ready, isRunning), socketLoad(host.ready, isRunning),
    localChatLoad(host.ready, isRunning), redemptionLoad(helix, isRunning), chaosLoad(irc, helix, isRunning),
  ];
  const samples: Array<{ t: number; sample: SoakSample }> = [];
  let snapshotAtWarmup = false;
  if (values.snapshots) mkdirSync(values.snapshots, { recursive: true });
  while (elapsed() < SECONDS) {
    await sleep(Math.max(0, (samples.length + 1) * SAMPLE_SECONDS * 1000 - (performance.now() - startedAt)));
    trimFakes(irc, helix);
    const sample = await host.request<SoakSample>({ cmd: 'sample' }, 'sample');
    const t = elapsed();
    samples.push({ t, sample });
    console.log(row(t, sample));
    for (const warning of sample.warnings) console.log(`        warning in the host: ${warning}`);
    if (values.snapshots && !snapshotAtWarmup && t >= WARMUP) {
      snapshotAtWarmup = true;
      const { file } = await host.request<{ file: string }>({ cmd: 'snapshot', file: path.join(values.snapshots, 'after-warmup.heapsnapshot') }, 'snapshot');
      console.log(`        heap snapshot: ${file}`);
    }
  }
  running = false;
  await Promise.all(loads);
  // Quiet for a while: what the load left behind (sockets closing, timers) should drain.
  await sleep(Math.min(10_000, SAMPLE_SECONDS * 1000));
  const quiet = await host.request<SoakSample>({ cmd: 'sample' }, 'sample');
  console.log(`${row(elapsed(), quiet)}   (load stopped)`);
  if (values.snapshots) {
    const { file } = await host.request<{ file: string }>({ cmd: 'snapshot', file: path.join(values.snapshots, 'end.heapsnapshot') }, 'snapshot');
    console.log(`        heap snapshot: ${file}`);
  }

  const first = samples[0]!;
  const warm = samples.find((s) => s.t >= WARMUP) ?? first;
  const last = samples.at(-1)!;
  const perMinute = (a: number, b: number) => ((b - a) / ((last.t - warm.t) / 60));
  console.log('\ntrend (after warm-up -> end of load):');
  console.log(`  heap after GC  ${mb(idle.heapUsed)} (idle) ${mb(first.sample.heapUsed)} (start) ${mb(warm.sample.heapUsed)} (warm) ${mb(last.sample.heapUsed)} (end) ${mb(quiet.heapUsed)} (quiet) MB; `
    + `${(perMinute(warm.sample.heapUsed, last.sample.heapUsed) / MB).toFixed(2)} MB/min after warm-up`);
  console.log(`  rss            ${mb(idle.rss)} (idle) ${mb(first.sample.rss)} (start) ${mb(warm.sample.rss)} (warm) ${mb(last.sample.rss)} (end) ${mb(quiet.rss)} (quiet) MB`);
  console.log(`  handles        idle:  ${handleSummary(idle)}\n                 start: ${handleSummary(first.sample)}\n                 warm:  ${handleSummary(warm.sample)}\n`
    + `                 end:   ${handleSummary(last.sample)}\n                 quiet: ${handleSummary(quiet)}`);
  console.log(`  listeners      ${idle.emitters.listeners} (idle) ${first.sample.emitters.listeners} (start) ${warm.sample.emitters.listeners} (warm) ${last.sample.emitters.listeners} (end) ${quiet.emitters.listeners} (quiet)`);
  console.log(`  most listeners at the end: ${Object.entries(quiet.topListeners).map(([k, v]) => `${k}: ${v}`).join('; ')}`);
  console.log(`  gateway (quiet): ${JSON.stringify(quiet.gateway)}`);
  console.log(`  load sent: ${sent.chat} chat lines (${sent.newChatters} from new chatters), ${sent.modCommands} mod and ${sent.viewerCommands} viewer commands, `
    + `${sent.api} API calls ${JSON.stringify(sent.apiStatus)}, ${sent.socketsOpened} sockets (${sent.stalledSockets} never read, ${sent.socketsRefused} refused), `
    + `${sent.localChat} local chat posts, ${sent.redemptions} redemptions; chaos: ${sent.chaos.join(', ')}`);
  console.log(`  redemptions fulfilled at the fake: ${helix.redemptions.filter((r) => r.status === 'FULFILLED').length} of ${helix.redemptions.length}`);

  await host.stop();
  await irc.close();
  await helix.close();
  rmSync(dir, { recursive: true, force: true });
}

await main();
