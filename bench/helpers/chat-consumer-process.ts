// A reader of the fake Twitch chat in its own process, so it does not share an event loop (or a
// core) with the fake that floods it. The parent (chat-consumer.ts) says what to run:
//   { kind: 'host', port, oauthUrl, dir } the whole chatskin (startChatskin: Twitch chat on, built-in
//                                 plugins, a SQLite file in `dir`, logs silent)
//   { kind: 'bare', port, echo }  a bare tmi.js client with the adapter's options; with `echo`
//                                 it answers `!style show <key>` at once (the latency floor)
// and gets { cmd: 'ready', overlaySocketUrl }. Then { cmd: 'arm', count } starts counting chat
// lines from other users; the child answers { cmd: 'armed' }, and { cmd: 'counted', ... } once
// `count` lines were seen (and, for the host, every viewer registration they started has
// settled). The host's count is taken by a transport subscriber registered after the host's own
// ones, so each line has been through overlay forwarding, viewer registration and the command
// router when it is counted; tmi.js's is its 'message' event.
import { performance } from 'node:perf_hooks';
import path from 'node:path';
import { pino } from 'pino';
import tmi from 'tmi.js';
import { parseConfig } from '../../src/config/index.ts';
import type { ChatTransportEvent } from '../../src/host/index.ts';
import { startChatskin } from '../../src/runtime/start-chatskin.ts';

export const BENCH_CHANNEL = 'alice';
export const BOT_LOGIN = 'chatskinbot';

export type ChatConsumerRequest =
  | { kind: 'host'; port: number; oauthUrl: string; dir: string }
  | { kind: 'bare'; port: number; echo: boolean };

export type ChatConsumerCommand = { cmd: 'arm'; count: number } | { cmd: 'stop' };

export type ChatConsumerReport =
  | { cmd: 'ready'; overlaySocketUrl: string | null }
  | { cmd: 'armed' }
  | {
    cmd: 'counted';
    /** Epoch ms (performance.timeOrigin + now), comparable across processes. */
    lastAt: number;
    /** When the last viewer registration settled (host; else lastAt). */
    settledAt: number;
    /** CPU time this process spent from arming to lastAt, in microseconds (user + system). */
    cpuMicros: number;
    registrations: { started: number; failed: number };
    /** Chat frames the push gateway dropped for a full socket buffer since arming (host). */
    droppedFrames: number;
  };

const epochNow = (): number => performance.timeOrigin + performance.now();
const send = (report: ChatConsumerReport): void => {
  process.send!(report);
};

/** What the counter reads from the reader it counts for. */
interface ConsumerProbes {
  registrations(): { started: number; failed: number; pending: number };
  droppedFrames(): number;
}

/**
 * Counts chat lines up to an armed target, then reports once nothing the lines started (viewer
 * registrations) is still pending.
 */
class LineCounter {
  readonly #probes: ConsumerProbes;
  #target = 0;
  #count = 0;
  #armedCpu = process.cpuUsage();
  #before = { started: 0, failed: 0, dropped: 0 };
  #lastSettledAt = 0;

  constructor(probes: ConsumerProbes) {
    this.#probes = probes;
  }

  arm(target: number): void {
    this.#count = 0;
    this.#lastSettledAt = 0;
    const now = this.#probes.registrations();
    this.#before = { started: now.started, failed: now.failed, dropped: this.#probes.droppedFrames() };
    this.#armedCpu = process.cpuUsage();
    this.#target = target;
  }

  /** A viewer registration settled. */
  settled(): void {
    this.#lastSettledAt = epochNow();
  }

  /** A chat line from another user was handled. */
  seen(): void {
    if (this.#target === 0) return;
    this.#count += 1;
    if (this.#count < this.#target) return;
    this.#target = 0;
    const lastAt = epochNow();
    const cpu = process.cpuUsage(this.#armedCpu);
    const finish = (): void => {
      const now = this.#probes.registrations();
      if (now.pending > 0) {
        setTimeout(finish, 2);
        return;
      }
      send({
        cmd: 'counted', lastAt, settledAt: Math.max(lastAt, this.#lastSettledAt), cpuMicros: cpu.user + cpu.system,
        registrations: { started: now.started - this.#before.started, failed: now.failed - this.#before.failed },
        droppedFrames: this.#probes.droppedFrames() - this.#before.dropped,
      });
    };
    finish();
  }
}

async function runHost(port: number, oauthUrl: string, dir: string): Promise<void> {
  const config = parseConfig({
    http: { host: '127.0.0.1', port: 0 },
    store: { path: path.join(dir, 'chatskin.sqlite') },
    channel: { login: BENCH_CHANNEL },
    localChat: { enabled: false },
    twitch: {
      enabled: true, clientId: 'bench-client', clientSecret: 'bench-secret',
      bot: { login: BOT_LOGIN, token: 'oauth:benchtoken' },
      channels: [BENCH_CHANNEL],
      chat: { server: '127.0.0.1', port, secure: false },
      // The fixed bot token's check at start (id.twitch.tv's /validate), answered by the fake.
      oauth: { url: oauthUrl },
      redemptions: { enabled: false },
    },
    log: { level: 'silent' },
  });
  const running = await startChatskin(config, { logger: pino({ level: 'silent' }), stdin: null });
  const twitch = running.transports.twitch!;

  // Viewer registration (a database write) runs on after the line was handled: wrapping the
  // service's method (the object the composition root calls) tells when it has all settled.
  let started = 0;
  let failed = 0;
  let pending = 0;
  const register = running.service.registerViewers.bind(running.service);
  const counter = new LineCounter({
    registrations: () => ({ started, failed, pending }),
    droppedFrames: () => running.gateway.stats().droppedFrames,
  });
  running.service.registerViewers = (viewers) => {
    started += viewers.length;
    pending += viewers.length;
    const settle = (failures: number): void => {
      pending -= viewers.length;
      failed += failures;
      counter.settled();
    };
    return register(viewers).then(
      (outcomes) => {
        settle(outcomes.filter((outcome) => outcome.status === 'rejected').length);
        return outcomes;
      },
      (error: unknown) => {
        settle(viewers.length);
        throw error;
      },
    );
  };
  // Subscribed after startChatskin: runs after the overlay/viewer wiring and the host's router.
  twitch.subscribe((event: ChatTransportEvent) => {
    if (event.type === 'message' && !event.self) counter.seen();
  });
  const [overlay] = await running.service.listOverlays(running.account.id);
  serve(counter, `ws://127.0.0.1:${running.port}/overlay/${overlay!.token}/ws`, () => running.close());
}

async function runBare(port: number, echo: boolean): Promise<void> {
  const client = new tmi.Client({
    // The options the Twitch chat adapter gives tmi.js.
    options: { skipUpdatingEmotesets: true, skipMembership: true },
    connection: { server: '127.0.0.1', port, secure: false, reconnect: false },
    identity: { username: BOT_LOGIN, password: 'oauth:benchtoken' },
    channels: [BENCH_CHANNEL],
    logger: { info: () => {}, warn: () => {}, error: () => {} },
  });
  const counter = new LineCounter({ registrations: () => ({ started: 0, failed: 0, pending: 0 }), droppedFrames: () => 0 });
  client.on('message', (channel, tags, text, self) => {
    if (self) return;
    counter.seen();
    if (echo && tags.mod === true && text.startsWith('!style show ')) {
      void client.raw(`PRIVMSG ${channel} :@${tags['display-name']} ${text.slice('!style show '.length)} is 420.`);
    }
  });
  await client.connect();
  serve(counter, null, async () => {
    await client.disconnect().catch(() => {});
  });
}

function serve(counter: LineCounter, overlaySocketUrl: string | null, close: () => Promise<void>): void {
  process.on('message', async (message: ChatConsumerCommand) => {
    if (message.cmd === 'arm') {
      counter.arm(message.count);
      send({ cmd: 'armed' });
    } else if (message.cmd === 'stop') {
      await close();
      process.exit(0);
    }
  });
  process.on('disconnect', () => {
    void close().finally(() => process.exit(0));
  });
  send({ cmd: 'ready', overlaySocketUrl });
}

process.once('message', async (request: ChatConsumerRequest) => {
  if (request.kind === 'host') await runHost(request.port, request.oauthUrl, request.dir);
  else await runBare(request.port, request.echo);
});
