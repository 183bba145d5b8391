// The whole chatskin for `npm run bench:soak` (bench/soak.ts), in its own process started with
// --expose-gc, so what it holds can be measured without the load generator's own memory mixed
// in. The parent sends { cmd: 'start', ... } and gets { cmd: 'ready', ... } with what the load
// needs (API keys, overlay tokens); then { cmd: 'sample' } answers with the heap used after a
// full GC, RSS, active handles by type and the listener counts of long-lived emitters, and
// { cmd: 'snapshot', file } writes a heap snapshot.
import { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';
import path from 'node:path';
import v8 from 'node:v8';
import { pino } from 'pino';

/**
 * Every EventEmitter that ever got a listener, held weakly: at each sample the live ones with the
 * most listeners are listed, so a listener added per connection or per request to an emitter
 * that lives on shows as a count that keeps rising.
 */
const emitters: WeakRef<EventEmitter>[] = [];
const tracked = new WeakSet<EventEmitter>();

/** Wraps the prototype's listener-adding methods so each emitter that gets a listener is remembered (weakly). */
function trackEmitters(prototype: EventEmitter, methods: readonly ('on' | 'addListener' | 'once' | 'prependListener' | 'prependOnceListener')[]): void {
  for (const method of methods) {
    const original = prototype[method];
    if (typeof original !== 'function') continue;
    prototype[method] = function (this: EventEmitter, ...args: Parameters<typeof original>) {
      if (!tracked.has(this)) {
        tracked.add(this);
        emitters.push(new WeakRef(this));
      }
      return original.apply(this, args);
    } as typeof original;
  }
}

trackEmitters(EventEmitter.prototype, ['on', 'addListener', 'once', 'prependListener', 'prependOnceListener']);
// tmi.js has an EventEmitter of its own (the Twitch chat client's events): watched the same way.
const tmiEvents = createRequire(import.meta.url)('tmi.js/lib/events.js') as { EventEmitter: typeof EventEmitter } | typeof EventEmitter;
trackEmitters(('EventEmitter' in tmiEvents ? tmiEvents.EventEmitter : tmiEvents).prototype, ['on', 'addListener', 'once']);

const warnings: string[] = [];
process.on('warning', (warning) => {
  if (warnings.length < 50) warnings.push(`${warning.name}: ${warning.message}`);
});

// Imported after the hook, so every emitter the host makes is seen.
const { parseConfig } = await import('../../src/config/index.ts');
const { startChatskin } = await import('../../src/runtime/start-chatskin.ts');
const { applySeed } = await import('../../src/service/seed.ts');

export interface SoakHostRequest {
  cmd: 'start';
  dir: string;
  ircPort: number;
  helixPort: number;
  clientId: string;
  clientSecret: string;
  broadcasterTokenFile: string;
  channel: string;
  bot: string;
  /** The bot's user access token (FakeHelix's, which the host checks at its /validate). */
  botToken: string;
  /** Further premium accounts, each with its own API key. */
  otherAccounts: string[];
  apiPerMinute: number;
}

export interface SoakHostReady {
  cmd: 'ready';
  port: number;
  apiUrl: string;
  /** login -> API key */
  keys: Record<string, string>;
  /** login -> overlay ids */
  overlays: Record<string, number[]>;
  /** The channel's overlay tokens (for sockets and /local/chat). */
  overlayTokens: string[];
}

export interface SoakSample {
  cmd: 'sample';
  heapUsed: number;
  heapTotal: number;
  rss: number;
  external: number;
  arrayBuffers: number;
  /** process.getActiveResourcesInfo() counted by type. */
  resources: Record<string, number>;
  /** Live emitters that hold listeners: how many, and how many listeners in all. */
  emitters: { live: number; listeners: number };
  /** The live emitters with the most listeners: "Constructor event" -> count (top 12). */
  topListeners: Record<string, number>;
  gateway: Record<string, number>;
  twitchState: string;
  redemptions: string;
  warnings: string[];
}

export type SoakHostCommand = SoakHostRequest | { cmd: 'sample' } | { cmd: 'snapshot'; file: string } | { cmd: 'stop' };

async function fullGc(): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('soak host: start node with --expose-gc');
  // Twice, with turns between, so finalizers and weak callbacks run and what they free goes too.
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
}

function listenerCounts(): SoakSample['emitters'] & { top: Record<string, number> } {
  let live = 0;
  let listeners = 0;
  const rows: Array<[string, number]> = [];
  for (let i = emitters.length - 1; i >= 0; i--) {
    const emitter = emitters[i]!.deref();
    if (emitter === undefined) {
      emitters[i] = emitters.at(-1)!;
      emitters.pop();
      continue;
    }
    live += 1;
    const names = typeof emitter.eventNames === 'function' ? emitter.eventNames() : Object.keys((emitter as unknown as { _events?: object })._events ?? {});
    for (const name of names) {
      const count = emitter.listenerCount(name);
      listeners += count;
      rows.push([`${emitter.constructor?.name ?? '?'} ${String(name)}`, count]);
    }
  }
  rows.sort((a, b) => b[1] - a[1]);
  return { live, listeners, top: Object.fromEntries(rows.slice(0, 12)) };
}

async function start(request: SoakHostRequest): Promise<void> {
  const config = parseConfig({
    http: { host: '127.0.0.1', port: 0 },
    store: { path: path.join(request.dir, 'chatskin.sqlite'), synchronous: 'normal' },
    channel: { login: request.channel },
    localChat: { enabled: true, stdin: false },
    api: { rateLimit: { perMinute: request.apiPerMinute } },
    twitch: {
      enabled: true, clientId: request.clientId, clientSecret: request.clientSecret,
      bot: { login: request.bot, token: request.botToken },
      channels: [request.channel],
      chat: { server: '127.0.0.1', port: request.ircPort, secure: false },
      helix: { mockServerPort: request.helixPort },
      broadcaster: { tokenFile: request.broadcasterTokenFile },
      redemptions: { enabled: true, reconcileIntervalSeconds: 20 },
      rewards: { 'unlock-neon': { title: 'Unlock the Neon skin', cost: 500 } },
    },
    plugins: {
      style: { themes: { neon: { 'bubble.background-color': '#ff00ff' }, plain: { 'bubble.background-color': null } } },
      skins: {},
      grants: {},
      'skin-shop': { rewards: { 'unlock-neon': 'neon' } },
    },
    log: { level: 'silent' },
  });
  const running = await startChatskin(config, { logger: pino({ level: 'silent' }), stdin: null, stdout: { write: () => true } });
  const skins = (names: string[]) => names.map((slug) => ({ slug, name: slug[0]!.toUpperCase() + slug.slice(1), template: 'bubbles', availability: 'free', values: { 'bubble.background-color': '#123456' } }));
  await applySeed(running.service, {
    accounts: [
      {
        login: request.channel,
        premium: true,
        overlays: [
          { name: 'Main', template: 'bubbles', default: true },
          { name: 'Synced', template: 'bubbles', sync_source: 'Main' },
          { name: 'Solo', template: 'bubbles' },
        ],
        skins: [
          ...skins(['golden', 'ocean', 'forest']),
          { slug: 'neon', name: 'Neon', template: 'bubbles', availability: 'purchase', values: { 'bubble.background-color': '#ff00ff' } },
          { slug: 'royal', name: 'Royal', template: 'bubbles', availability: 'free', roles: ['moderator'], values: {} },
        ],
      },
      ...request.otherAccounts.map((login) => ({
        login,
        premium: true,
        overlays: [{ name: 'Main', template: 'bubbles', default: true }, { name: 'Second', template: 'bubbles', sync_source: 'Main' }],
        skins: skins(['golden']),
      })),
    ],
  });
  const keys: Record<string, string> = {};
  const overlays: Record<string, number[]> = {};
  for (const login of [request.channel, ...request.otherAccounts]) {
    keys[login] = (await running.service.createKey(login)).token;
    const account = await running.service.ensureAccount(login);
    overlays[login] = (await running.service.listOverlays(account.id)).map((o) => o.id);
  }
  const overlayTokens = (await running.service.listOverlays(running.account.id)).map((o) => o.token);

  process.on('message', async (message: SoakHostCommand) => {
    if (message.cmd === 'sample') {
      await fullGc();
      const memory = process.memoryUsage();
      const resources: Record<string, number> = {};
      for (const type of process.getActiveResourcesInfo()) resources[type] = (resources[type] ?? 0) + 1;
      const counts = listenerCounts();
      const stats = running.gateway.stats();
      const sample: SoakSample = {
        cmd: 'sample',
        heapUsed: memory.heapUsed, heapTotal: memory.heapTotal, rss: memory.rss, external: memory.external, arrayBuffers: memory.arrayBuffers,
        resources, emitters: { live: counts.live, listeners: counts.listeners }, topListeners: counts.top,
        gateway: { ...stats },
        twitchState: running.transports.twitch?.state ?? 'none',
        redemptions: JSON.stringify(running.redemptions.status()).slice(0, 200),
        warnings: warnings.splice(0),
      };
      process.send!(sample);
    } else if (message.cmd === 'snapshot') {
      await fullGc();
      const file = v8.writeHeapSnapshot(message.file);
      process.send!({ cmd: 'snapshot', file });
    } else if (message.cmd === 'stop') {
      await running.close();
      process.exit(0);
    }
  });
  process.on('disconnect', () => {
    void running.close().finally(() => process.exit(0));
  });
  const ready: SoakHostReady = { cmd: 'ready', port: running.port, apiUrl: running.apiUrl, keys, overlays, overlayTokens };
  process.send!(ready);
}

process.once('message', (request: SoakHostRequest) => {
  start(request).catch((error: unknown) => {
    console.error('soak host failed to start:', error);
    process.exit(1);
  });
});
