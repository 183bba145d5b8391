// Property-based test of the overlay page's side of the push protocol, written from docs/push.md's
// rules for the page: the real page (its real routes and modules) in real headless Chromium, its
// clock under the test's control (page.clock: back-off and silence without real waits), against
// a scripted push socket that sends fast-check's sequences of snapshots, updates, chat frames
// (messages, deletions, user-cleared, clears), heartbeats, frames dropped (version gaps), frames
// sent again (covered versions), floods before the first snapshot, resync answers, server closes
// with each documented close code, silent connections and reconnects. After each step the page
// must show what a model of those rules says: its status and version, the latest style (the chat
// container's computed padding), the chat in order with removals applied, and exactly the
// resyncs the rules ask for; reconnects come within the documented back-off, and no page error
// or console error shows (other than the browser's own note of a refused socket).
import Fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { WebSocketServer } from 'ws';
import type { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerOverlayRoutes } from '../../src/overlay/overlay-routes.ts';
import { CLASSES } from '../../src/overlay/dom-classes.ts';
import { SETTINGS } from '../../src/service/settings/catalog.ts';
import type { ChatEvent, OverlayStyle, ServerFrame } from '../../src/service/push/protocol.ts';
import { haveChromium, launchChromium, NO_CHROMIUM_NOTE } from '../support/chromium.ts';

/** Sequences per run (PUSH_PAGE_RUNS raises it): some 20 s at the default. */
const RUNS = Number(process.env.PUSH_PAGE_RUNS ?? 12);
const TOKEN = 'scripted-overlay-token';
const USERS = ['u1', 'u2', 'u3'];
/** docs/push.md, "Heartbeats and dead sockets". */
const SILENCE_FACTOR = 2.5;
const RETRY_MIN_MS = 500;
const RETRY_MAX_MS = 15_000;
/** The jitter docs/push.md allows each wait: the nominal wait give or take a quarter. */
const JITTER = 0.25;
const CLOSE_CODES = [1001, 1008, 1009, 1013, 4004, 4008, 1006] as const;
type CloseCode = (typeof CLOSE_CODES)[number];

const BASE_SETTINGS = Object.fromEntries(SETTINGS.map((spec) => [spec.key, spec.default]));
function styleWith(padding: number): OverlayStyle {
  return {
    template: { id: 1, slug: 'bubbles', name: 'Bubbles' },
    settings: { ...BASE_SETTINGS, 'chat.padding': padding, 'bubble.animation-entrance': 'none' } as OverlayStyle['settings'],
    skins: [], roleSkins: {}, viewerSkins: {}, fonts: {},
  };
}

type ChatKind = { kind: 'message'; user: number } | { kind: 'delete'; pick: number } | { kind: 'user-cleared'; user: number } | { kind: 'chat-cleared' };
type Step =
  | { type: 'snapshot' }
  | { type: 'update'; padding: number; drop: boolean }
  | { type: 'chat'; chat: ChatKind; drop: boolean }
  | { type: 'heartbeat'; drop: boolean }
  | { type: 'again'; back: number }
  | { type: 'flood'; count: number }
  /** With 4004, `refusals` > 0: the overlay is gone for that many attempts (each refused with 404). */
  | { type: 'close'; code: CloseCode; refusals: number }
  | { type: 'silence' };

const chatKind: fc.Arbitrary<ChatKind> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('message' as const), user: fc.nat(2) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('user-cleared' as const), user: fc.nat(2) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'chat-cleared' as const }) },
);
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.constant({ type: 'snapshot' as const }) },
  { weight: 3, arbitrary: fc.record({ type: fc.constant('update' as const), padding: fc.integer({ min: 0, max: 40 }), drop: fc.boolean() }) },
  { weight: 8, arbitrary: fc.record({ type: fc.constant('chat' as const), chat: chatKind, drop: fc.boolean() }) },
  { weight: 3, arbitrary: fc.record({ type: fc.constant('heartbeat' as const), drop: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ type: fc.constant('again' as const), back: fc.nat(5) }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('flood' as const), count: fc.constantFrom(3, 1_100) }) },
  { weight: 2, arbitrary: fc.record({ type: fc.constant('close' as const), code: fc.constantFrom(...CLOSE_CODES), refusals: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 7 })) }) },
  { weight: 1, arbitrary: fc.constant({ type: 'silence' as const }) },
);
const scenario = fc.record({
  maxMessages: fc.constantFrom(3, 50),
  heartbeatMs: fc.constantFrom(10_000, 30_000),
  steps: fc.array(step, { minLength: 4, maxLength: 22 }),
});

/** One socket of the page, as the scripted server sees it. */
interface Connection {
  ws: WebSocket;
  resyncs: number;
  /** Resyncs a snapshot has answered. */
  answered: number;
  snapshotSent: boolean;
  /** Every frame sent, for sending again. */
  sent: ServerFrame[];
  other: string[];
  closed: Promise<void>;
  isClosed: boolean;
}

/** The page as docs/push.md describes it. */
interface Model {
  held: number | null;
  awaiting: boolean;
  early: ChatEvent[];
  shown: { id: string; userId: string }[];
  padding: number | null;
  resyncs: number;
  /** Reconnects since the last snapshot (the back-off's doublings). */
  failures: number;
  everConnected: boolean;
  status: 'connecting' | 'live' | 'reconnecting' | 'not-found';
  /** data-version: the last version applied. */
  version: number | null;
}

describe.skipIf(!haveChromium)(`overlay page against a scripted push socket${haveChromium ? '' : ` (skipped: ${NO_CHROMIUM_NOTE})`}`, () => {
  let app: FastifyInstance;
  let origin: string;
  let browser: Browser;
  let known = true;
  /** Socket upgrades seen (accepted or refused), and the accepted ones in order. */
  let attempts = 0;
  /** HEAD requests of the page's own address (what it asks when its socket could not open or got 4004). */
  let heads = 0;
  const connections: Connection[] = [];
  let connectionWaiters: (() => void)[] = [];

  beforeAll(async () => {
    app = Fastify();
    app.addHook('onRequest', async (request) => { if (request.method === 'HEAD') heads++; });
    registerOverlayRoutes(app, { findOverlayByToken: (token) => (known && token === TOKEN ? { id: 1 } : null) });
    const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
    app.server.on('upgrade', (request, socket, head) => {
      attempts++;
      if (request.url !== `/overlay/${TOKEN}/ws` || !known) {
        socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
        for (const wake of connectionWaiters.splice(0)) wake();
        return;
      }
      wss.handleUpgrade(request, socket, head, (ws) => {
        let closedResolve!: () => void;
        const connection: Connection = {
          ws, resyncs: 0, answered: 0, snapshotSent: false, sent: [], other: [], isClosed: false,
          closed: new Promise<void>((resolve) => { closedResolve = resolve; }),
        };
        ws.on('message', (data) => {
          const text = String(data);
          if (text === '{"type":"resync"}') connection.resyncs++;
          else connection.other.push(text);
        });
        ws.on('close', () => { connection.isClosed = true; closedResolve(); });
        connections.push(connection);
        for (const wake of connectionWaiters.splice(0)) wake();
      });
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    for (const connection of connections) connection.ws.terminate();
    await app?.close();
  });

  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  /** Resolves at the next socket upgrade (accepted or refused), or after `ms`. */
  function nextAttempt(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      connectionWaiters.push(() => { clearTimeout(timer); resolve(); });
    });
  }

  /**
   * Opens a page, plays `steps` against it and checks it after each. `random`: what the page's
   * Math.random returns (the back-off's jitter), for an example at the jitter's extreme.
   */
  async function play({ maxMessages, heartbeatMs, steps }: { maxMessages: number; heartbeatMs: number; steps: Step[] }, random?: number): Promise<void> {
    known = true;
    connectionWaiters = [];
    const errors: string[] = [];
    let context: BrowserContext | null = null;
    try {
      context = await browser.newContext();
      const page: Page = await context.newPage();
      page.on('pageerror', (error) => errors.push(`page error: ${String(error)}`));
      page.on('console', (message) => {
        if (process.env.PUSH_PAGE_DEBUG) console.log('CONSOLE', message.type(), message.text());
        // The browser's own note of a socket the server refused (the overlay gone) or a HEAD 404.
        if (message.type() !== 'error' || /WebSocket connection to .* failed|status of 404/.test(message.text())) return;
        errors.push(`console error: ${message.text()}`);
      });
      if (random !== undefined) await page.addInitScript((value) => { Math.random = () => value; }, random);
      const start = Date.now();
      await page.clock.install({ time: start });
      await page.clock.pauseAt(start + 1_000);

      let V = 1;
      let padding = 0;
      let line = 0;
      const ids: string[] = [];
      const model: Model = { held: null, awaiting: true, early: [], shown: [], padding: null, resyncs: 0, failures: 0, everConnected: false, status: 'connecting', version: null };
      const log: string[] = [];

      const before = connections.length;
      await page.goto(`${origin}/overlay/${TOKEN}`);
      for (let i = 0; i < 100 && connections.length === before; i++) await sleep(20);
      expect(connections.length, 'the page opened its socket').toBe(before + 1);
      let connection = connections.at(-1)!;

      function applyChat(event: ChatEvent): void {
        switch (event.type) {
          case 'message':
            model.shown.push({ id: event.id, userId: event.userId });
            if (model.shown.length > maxMessages) model.shown.shift();
            break;
          case 'message-deleted': model.shown = model.shown.filter((shown) => shown.id !== event.messageId); break;
          case 'user-cleared': model.shown = model.shown.filter((shown) => shown.userId !== event.userId); break;
          case 'chat-cleared': model.shown = []; break;
        }
      }
      function gap(): void {
        if (model.awaiting) return; // one resync covers every gap until its snapshot
        model.awaiting = true;
        model.resyncs++;
      }
      /** What the page does with a frame (docs/push.md, "Versions" and "snapshot"). */
      function receive(frame: ServerFrame): void {
        switch (frame.type) {
          case 'snapshot':
            model.held = frame.version;
            model.awaiting = false;
            model.padding = frame.style.settings['chat.padding'] as number;
            for (const event of model.early.splice(0)) applyChat(event);
            model.failures = 0;
            model.everConnected = true;
            model.status = 'live';
            model.version = frame.version;
            return;
          case 'heartbeat':
            if (model.held !== null && frame.version > model.held) gap();
            return;
          default:
            if (model.held === null) {
              if (frame.type === 'chat') model.early.push(frame.event);
              return;
            }
            if (frame.version <= model.held) return;
            if (frame.version > model.held + 1) gap();
            model.held = frame.version;
            model.version = frame.version;
            if (frame.type === 'update') model.padding = frame.style.settings['chat.padding'] as number;
            else applyChat(frame.event);
        }
      }
      function send(frames: ServerFrame[]): void {
        if (frames.length === 0) return;
        connection.ws.send(frames.map((frame) => JSON.stringify(frame)).join('\n'));
        connection.sent.push(...frames);
        for (const frame of frames) receive(frame);
      }
      function message(user: number): ChatEvent {
        const id = `m${line++}`;
        ids.push(id);
        return { type: 'message', id, userId: USERS[user]!, login: USERS[user]!, displayName: USERS[user]!, color: null, text: `line ${id}`, emotes: '', badges: [], avatarUrl: null };
      }

      type Seen = { status: string | undefined; version: string | undefined; ids: string[]; padding: string | null };
      const seen = (): Promise<Seen> => page.evaluate((chat) => ({
        status: document.body.dataset.status,
        version: document.body.dataset.version,
        ids: [...document.querySelectorAll<HTMLElement>('.cs-msg')].map((element) => element.dataset.messageId!),
        padding: document.querySelector<HTMLElement>(`.${chat}`) === null ? null : getComputedStyle(document.querySelector(`.${chat}`)!).paddingTop,
      }), CLASSES.chat);
      /** The page's state must come to what the model says (frames take a moment to arrive). */
      async function check(settle = 0): Promise<void> {
        if (settle > 0) await sleep(settle);
        const want = () => ({
          status: model.status,
          version: model.version === null ? undefined : String(model.version),
          ids: model.shown.map((shown) => shown.id),
          padding: model.padding === null ? '0px' : `${model.padding}px`,
          resyncs: model.resyncs,
        });
        let got: Seen & { resyncs: number } = { ...(await seen()), resyncs: connection.resyncs };
        for (let i = 0; i < 150 && JSON.stringify(got) !== JSON.stringify(want()); i++) {
          await sleep(20);
          got = { ...(await seen()), resyncs: connection.resyncs };
        }
        expect({ ...got, log }).toEqual({ ...want(), log });
        expect(connection.other, 'the page sends only resync frames').toEqual([]);
        expect(errors).toEqual([]);
      }

      /** The page's socket went; it must come back within the back-off (docs/push.md). */
      async function reconnect(refusals: number): Promise<void> {
        await check();
        for (;;) {
          const nominal = Math.min(RETRY_MIN_MS * 2 ** model.failures, RETRY_MAX_MS);
          model.failures++;
          const early = Math.floor(nominal * (1 - JITTER)) - 5;
          const seenBefore = attempts;
          await page.clock.runFor(early);
          await sleep(60);
          expect(attempts, `no reconnect before ${early} ms (nominal ${nominal})`).toBe(seenBefore);
          const waiting = nextAttempt(3_000);
          const headsBefore = heads;
          // Never longer than the documented most, jitter included.
          const latest = Math.min(Math.ceil(nominal * (1 + JITTER)), RETRY_MAX_MS);
          await page.clock.runFor(latest + 5 - early);
          await waiting;
          expect(attempts, `a reconnect within ${latest} ms (nominal ${nominal})`).toBe(seenBefore + 1);
          model.shown = []; // each attempt starts with the chat cleared (removals were lost)
          if (refusals === 0) break;
          // Refused with 404: the page asks its own address, says "Overlay not found" and keeps
          // trying; then the overlay is back (once that answer is in).
          for (let i = 0; i < 150 && heads === headsBefore; i++) await sleep(20);
          expect(heads, 'the page asked its own address').toBeGreaterThan(headsBefore);
          model.status = 'not-found';
          await check(50);
          if (--refusals === 0) known = true;
        }
        for (let i = 0; i < 100 && connections.at(-1) === connection; i++) await sleep(20);
        expect(connections.at(-1), 'a new socket').not.toBe(connection);
        connection = connections.at(-1)!;
        // A new socket starts from its snapshot, the chat on screen cleared (removals were lost).
        Object.assign(model, { held: null, awaiting: true, early: [], shown: [], resyncs: 0 });
        // A socket let in: the address names an overlay, so no "Overlay not found" (docs/push.md).
        model.status = model.everConnected ? 'reconnecting' : 'connecting';
      }

      await check();
      for (const s of steps) {
        log.push(JSON.stringify(s));
        const first = !connection.snapshotSent;
        switch (s.type) {
          case 'snapshot':
            if (!first && connection.answered === connection.resyncs) break; // nothing asked
            connection.snapshotSent = true;
            connection.answered = connection.resyncs;
            send([{ type: 'snapshot', version: V, overlay: { id: 1, name: 'Main' }, style: styleWith(padding), options: { maxMessages, emoteBaseUrl: `${origin}/emotes`, fontStylesheetBaseUrl: null, heartbeatMs } }]);
            break;
          case 'update':
            V++;
            padding = s.padding;
            // Not sent before the first snapshot, which covers it.
            if (!s.drop && !first) send([{ type: 'update', version: V, causes: ['template'], style: styleWith(padding) }]);
            break;
          case 'chat': {
            V++;
            const c = s.chat;
            const event: ChatEvent = c.kind === 'message' ? message(c.user)
              : c.kind === 'delete' ? { type: 'message-deleted', messageId: ids.length === 0 ? 'none' : ids[ids.length - 1 - (c.pick % ids.length)]! }
                : c.kind === 'user-cleared' ? { type: 'user-cleared', userId: USERS[c.user]! }
                  : { type: 'chat-cleared' };
            // Only a message may be dropped; a removal that does not fit closes the socket (4008).
            if (!(s.drop && event.type === 'message')) send([{ type: 'chat', version: V, event }]);
            break;
          }
          case 'heartbeat':
            if (!s.drop && !first) send([{ type: 'heartbeat', version: V }]);
            break;
          case 'again': {
            // A frame sent before, sent again: its version is covered.
            if (first) break;
            const frames = connection.sent.filter((frame) => frame.type !== 'snapshot');
            if (frames.length > 0) send([frames[frames.length - 1 - (s.back % frames.length)]!]);
            break;
          }
          case 'flood': {
            if (!first) break;
            const frames: ServerFrame[] = [];
            // Mostly messages, with removals among them (of lines of the flood, and of users).
            for (let i = 0; i < s.count; i++) {
              const event: ChatEvent = i % 97 === 50 ? { type: 'user-cleared', userId: USERS[i % USERS.length]! }
                : i % 13 === 12 ? { type: 'message-deleted', messageId: ids[ids.length - 1 - (i % 5)]! }
                  : message(i % USERS.length);
              frames.push({ type: 'chat', version: ++V, event });
            }
            send(frames);
            break;
          }
          case 'close': {
            const refusals = s.code === 4004 ? s.refusals : 0;
            const gone = refusals > 0;
            if (gone) known = false;
            if (s.code === 1006) connection.ws.terminate();
            else connection.ws.close(s.code);
            await connection.closed;
            if (gone) model.status = 'not-found';
            else model.status = 'reconnecting';
            await reconnect(refusals);
            break;
          }
          case 'silence': {
            if (first) break;
            send([{ type: 'heartbeat', version: V }]); // re-arms the page's timer now
            await check();
            const silence = heartbeatMs * SILENCE_FACTOR;
            await page.clock.runFor(silence - 50);
            await sleep(60);
            expect(connection.isClosed, `still open ${silence - 50} ms after the last frame`).toBe(false);
            await page.clock.runFor(51); // 1 ms past: the back-off's wait starts then
            await Promise.race([connection.closed, sleep(3_000)]);
            expect(connection.isClosed, `closed once silent for ${silence} ms`).toBe(true);
            model.status = 'reconnecting';
            await reconnect(0);
            break;
          }
        }
        await check();
      }
      await check(100);
    } finally {
      await context?.close();
    }
  }

  it('follows docs/push.md: versions, gaps and resyncs, early chat, styles, removals, close codes, silence and back-off', async () => {
    await fc.assert(fc.asyncProperty(scenario, (s) => play(s)), { numRuns: RUNS, ...(process.env.PUSH_PAGE_SEED ? { seed: Number(process.env.PUSH_PAGE_SEED), path: process.env.PUSH_PAGE_PATH, endOnFailure: true } : {}) });
  }, 300_000);

  it('drops "Overlay not found" once a socket is let in, even if it closes before its snapshot (docs/push.md, 4004)', async () => {
    await play({ maxMessages: 3, heartbeatMs: 30_000, steps: [{ type: 'snapshot' }, { type: 'close', code: 4004, refusals: 1 }, { type: 'close', code: 1001, refusals: 0 }, { type: 'snapshot' }] });
  }, 60_000);

  it('never waits longer than 15 s between reconnects, jitter included (docs/push.md)', async () => {
    // The overlay gone for seven attempts: the waits double past 15 s; the jitter at its top.
    await play({ maxMessages: 3, heartbeatMs: 30_000, steps: [{ type: 'snapshot' }, { type: 'close', code: 4004, refusals: 7 }, { type: 'snapshot' }] }, 0.999);
  }, 60_000);
});
