/**
 * FakeEventSub: Twitch's EventSub WebSocket server, for tests that drive the real
 * `@twurple/eventsub-ws` EventSubWsListener (or any EventSub WebSocket client).
 *
 * Two ways to serve it:
 *   const eventSub = await FakeEventSub.start();   // own port: eventSub.url = ws://127.0.0.1:PORT/ws
 *   const helix = await FakeHelix.start();         // or inside FakeHelix: helix.eventSub, on ws://127.0.0.1:HELIXPORT/ws
 *
 * With twurple, use the FakeHelix way: twurple 8 has no per-client "mock server" option;
 * the env var TWURPLE_MOCK_API_PORT redirects Helix, id.twitch.tv AND the EventSub
 * WebSocket (EventSubWsListener then ignores its `url` option and connects to
 * ws://127.0.0.1:PORT/ws), so all three must be one port - FakeHelix's.
 * A non-twurple client (or twurple in unmanaged mode) can use `eventSub.url`.
 *
 * Subscriptions: created through Helix `POST /eventsub/subscriptions` with
 * `transport: { method: 'websocket', session_id }`; FakeHelix calls
 * `createSubscription()` here, so the two share one registry.
 *
 * Protocol covered (field names and values as Twitch sends them):
 * - session_welcome: metadata { message_id, message_type, message_timestamp },
 *   payload.session { id, status: 'connected', keepalive_timeout_seconds, reconnect_url: null,
 *   connected_at }. `?keepalive_timeout_seconds=N` (10..600) is honoured.
 * - session_keepalive after `keepaliveIntervalMs` of silence (pausable).
 * - notification: metadata adds subscription_type / subscription_version; payload
 *   { subscription, event }; `sendRedemptionAdd()` for
 *   channel.channel_points_custom_reward_redemption.add v1, `notify()` for any type.
 * - session_reconnect: payload.session { id, status: 'reconnecting', keepalive_timeout_seconds: null,
 *   reconnect_url, connected_at }. The client connects to reconnect_url, gets a welcome with
 *   the SAME session id, subscriptions carry over. Notifications go to the old socket until the
 *   new one is welcomed, then to the new one; nothing is dropped. As on Twitch, the old socket
 *   gets no session_keepalive after the session_reconnect, and it is closed with 4004 when
 *   `reconnectGraceMs` (Twitch: 30 s) pass without the client reaching the reconnect_url (the
 *   session then ends, and its reconnect_url answers 4007), or after the handover without the
 *   client closing it.
 * - revocation: payload.subscription with the revoked status.
 * - a half-dead connection: `silenceSession()` keeps the socket open but lets nothing more
 *   through (keepalives and notifications are lost, `delivered: false`), as when a NAT or proxy
 *   drops a flow without closing it; the client has to notice by its keepalive timeout.
 * - duplicate delivery: `redeliver(messageId)` resends the identical message.
 * - a connection never welcomed: `withholdWelcome(count)` makes the next `count` new connections
 *   (not those to a reconnect_url) open and then hear nothing at all (no session, no welcome, no
 *   keepalive, no close), as a stuck endpoint or a proxy that took the upgrade and stalled; only
 *   the client can end them (`withheldConnections` tells how many opened and are still open).
 * - an upgrade that never completes: `stallUpgrades(count)` makes the next `count` upgrade
 *   requests (any path) get no answer at all, as an endpoint whose TCP accepts but whose HTTP
 *   stalls; the connection never opens, and only the client can give up on it
 *   (`stalledUpgrades` tells how many came and are still held).
 * - an endpoint that is down: `refuseUpgrades(count)` answers the next `count` upgrade requests
 *   with 503 Service Unavailable (`refusedUpgrades` counts them).
 * - close codes (EVENTSUB_CLOSE): 4001 when a client sends anything; 4003 when a new
 *   session has no subscription within `closeUnusedAfterMs`; 4004 grace expired;
 *   4007 unknown reconnect token; any code via `closeSession()`.
 * - A session whose socket closes (other than by reconnect) is gone; its
 *   subscriptions turn `websocket_disconnected`, as on Twitch.
 * Not covered: WebSocket ping/pong enforcement (4002), conduits, batching.
 *
 * API:
 *   FakeEventSub.start(options?) / FakeEventSub.create(options?) (no listener; see handleUpgrade)
 *   .url (start() only) / .handleUpgrade(req, socket, head)
 *   .sessions / .subscriptions / .deliveries / .connectionCount / .totalConnections
 *   .createSubscription(request) / .deleteSubscription(id) / .activeSubscriptions(filter?)
 *   .sendRedemptionAdd(event) / .notify(type, event, options?)   -> Delivery[]
 *   .requestReconnect(sessionId?)   -> Promise<void> (resolves when the new socket is welcomed)
 *   .revoke(subscriptionId, status?) / .redeliver(messageId) / .sendKeepalive(sessionId?)
 *   .closeSession(sessionId, code, reason?) / .dropAllConnections() / .setKeepalivesPaused(paused)
 *   .silenceSession(sessionId?)   (half-dead: socket open, nothing sent any more)
 *   .withholdWelcome(count?) / .withheldConnections   (opened, never welcomed)
 *   .stallUpgrades(count?) / .stalledUpgrades / .endStalledUpgrades()   (upgrade never answered, never opened; hung up at last)
 *   .refuseUpgrades(count?) / .refusedUpgrades   (upgrade answered 503)
 *   .waitForSession(opts?) / .waitForSubscription(type, opts?) / .waitForDisconnect(sessionId, opts?)
 *   .close()
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { Waiters, DEFAULT_WAIT_MS } from './waiters.ts';

export const EVENTSUB_CLOSE = {
  internalServerError: { code: 4000, reason: 'internal server error' },
  clientSentInboundTraffic: { code: 4001, reason: 'sending outgoing messages to the server is prohibited with the exception of pong messages' },
  clientFailedPingPong: { code: 4002, reason: 'client failed ping-pong' },
  connectionUnused: { code: 4003, reason: 'connection unused' },
  reconnectGraceTimeExpired: { code: 4004, reason: 'reconnect grace time expired' },
  networkTimeout: { code: 4005, reason: 'network timeout' },
  networkError: { code: 4006, reason: 'network error' },
  invalidReconnect: { code: 4007, reason: 'invalid reconnect' },
} as const;

export const REDEMPTION_ADD_TYPE = 'channel.channel_points_custom_reward_redemption.add';

export interface FakeEventSubOptions {
  /** start() only. */
  host?: string;
  port?: number;
  /** Advertised in session_welcome unless the client asks for another. Default 10 (Twitch's default). */
  keepaliveTimeoutSeconds?: number;
  /** Silence before a session_keepalive. Default: keepalive timeout minus one second. */
  keepaliveIntervalMs?: number;
  /** Close a new session with 4003 if it has no subscription by then. Default: keepalive timeout; false = never. */
  closeUnusedAfterMs?: number | false;
  /**
   * After a session_reconnect, the time the client has to reach the reconnect_url, and after the
   * handover to close its old socket, before the old socket is closed with 4004. Default 30 000
   * (Twitch's).
   */
  reconnectGraceMs?: number;
}

export interface RedemptionAddEvent {
  id: string;
  broadcaster_user_id: string;
  broadcaster_user_login: string;
  broadcaster_user_name: string;
  user_id: string;
  user_login: string;
  user_name: string;
  user_input: string;
  status: 'unfulfilled' | 'fulfilled' | 'canceled' | 'unknown';
  reward: { id: string; title: string; cost: number; prompt: string };
  redeemed_at: string;
}

export type SubscriptionStatus =
  | 'enabled'
  | 'websocket_disconnected'
  | 'authorization_revoked'
  | 'user_removed'
  | 'version_removed';

export interface SubscriptionRecord {
  id: string;
  status: SubscriptionStatus;
  type: string;
  version: string;
  condition: Record<string, string>;
  created_at: string;
  transport: { method: 'websocket'; session_id: string; connected_at: string; disconnected_at?: string };
  cost: number;
  /** Bookkeeping, never sent to clients: */
  clientId: string;
  userId: string | null;
  deleted: boolean;
}

/** The subscription object exactly as Twitch writes it in Helix responses and EventSub messages. */
export type SubscriptionJson = Omit<SubscriptionRecord, 'clientId' | 'userId' | 'deleted'>;

export interface CreateSubscriptionRequest {
  type: string;
  version: string;
  condition: Record<string, string>;
  sessionId: string;
  clientId: string;
  userId: string | null;
}

export type CreateSubscriptionResult =
  | { ok: true; subscription: SubscriptionRecord }
  | { ok: false; status: number; error: string; message: string };

export type SessionStatus = 'connected' | 'reconnecting' | 'disconnected';

export interface SessionInfo {
  id: string;
  status: SessionStatus;
  keepaliveTimeoutSeconds: number;
  connectedAt: string;
  /** Sockets still open for this session (2 during a reconnect handover). */
  openSockets: number;
  /** How many times the session moved to a new socket. */
  reconnects: number;
  /** silenceSession() was called: its socket stays open but nothing reaches the client. */
  silent: boolean;
}

export interface Delivery {
  messageId: string;
  messageType: 'session_welcome' | 'session_keepalive' | 'notification' | 'session_reconnect' | 'revocation';
  sessionId: string;
  subscriptionId: string | null;
  /** The exact JSON text. */
  text: string;
  /** false when the session had no open socket (the message is lost, as on Twitch). */
  delivered: boolean;
  at: number;
}

export interface NotifyOptions {
  version?: string;
  /** Only this subscription. */
  subscriptionId?: string;
  /** Default: now. Twurple drops notifications older than 10 minutes. */
  messageTimestamp?: Date;
}

interface Session {
  id: string;
  status: SessionStatus;
  keepaliveTimeoutSeconds: number;
  connectedAt: string;
  /** The socket that receives messages now. */
  socket: WebSocket | null;
  /** Old sockets kept open after a reconnect until the client closes them. */
  retiring: Set<WebSocket>;
  baseUrl: string;
  reconnectToken: string | null;
  reconnects: number;
  /** Half-dead: nothing is sent to the socket any more (see silenceSession). */
  silent: boolean;
  /** Messages held while between sockets during a reconnect. */
  held: Array<{ text: string; delivery: Delivery }>;
  keepaliveTimer: NodeJS.Timeout | undefined;
  unusedTimer: NodeJS.Timeout | undefined;
  graceTimer: NodeJS.Timeout | undefined;
  /** From a session_reconnect until the client reaches the reconnect_url (see requestReconnect). */
  reconnectTimer: NodeJS.Timeout | undefined;
}

/** RFC3339 with nanoseconds, as Twitch writes EventSub timestamps. */
export function twitchTimestamp(date: Date = new Date()): string {
  const nanos = String(process.hrtime.bigint() % 1_000_000n).padStart(6, '0');
  return date.toISOString().replace('Z', `${nanos}Z`);
}

function conditionMatches(condition: Record<string, string>, event: Record<string, unknown>): boolean {
  for (const [key, wanted] of Object.entries(condition)) {
    if (!wanted) continue;
    const actual = key === 'reward_id' ? (event['reward'] as { id?: unknown } | undefined)?.id : event[key];
    if (actual !== undefined && actual !== wanted) return false;
  }
  return true;
}

export function subscriptionJson(record: SubscriptionRecord): SubscriptionJson {
  return {
    id: record.id,
    status: record.status,
    type: record.type,
    version: record.version,
    condition: record.condition,
    created_at: record.created_at,
    transport: record.transport,
    cost: record.cost,
  };
}

export class FakeEventSub {
  readonly subscriptions: SubscriptionRecord[] = [];
  readonly deliveries: Delivery[] = [];

  readonly #options: FakeEventSubOptions;
  readonly #wss = new WebSocketServer({ noServer: true });
  readonly #sessions = new Map<string, Session>();
  readonly #waiters = new Waiters();
  readonly #sessionLog: Session[] = [];
  #httpServer: Server | null = null;
  #totalConnections = 0;
  #keepalivesPaused = false;
  #closed = false;
  /** How many of the next new connections get no welcome (see withholdWelcome). */
  #welcomesToWithhold = 0;
  #withheldTotal = 0;
  /** Connections whose welcome was withheld, while open. */
  readonly #withheld = new Set<WebSocket>();
  /** How many of the next upgrade requests get no answer (see stallUpgrades). */
  #upgradesToStall = 0;
  #stalledTotal = 0;
  /** Raw sockets of unanswered upgrade requests, while the client keeps them. */
  readonly #stalled = new Set<Duplex>();
  /** How many of the next upgrade requests are refused (see refuseUpgrades). */
  #upgradesToRefuse = 0;
  #refusedTotal = 0;
  /** How many of the next new connections are closed at once, unwelcomed (see closeNewConnections). */
  #connectionsToClose = 0;
  #closeOnAccept: { code: number; reason: string } = EVENTSUB_CLOSE.internalServerError;
  #closedOnAcceptTotal = 0;

  private constructor(options: FakeEventSubOptions) {
    this.#options = options;
  }

  /** A fake with no listener of its own; feed it upgrades with `handleUpgrade` (FakeHelix does). */
  static create(options: FakeEventSubOptions = {}): FakeEventSub {
    return new FakeEventSub(options);
  }

  /** A fake on its own port, serving ws://127.0.0.1:PORT/ws. */
  static async start(options: FakeEventSubOptions = {}): Promise<FakeEventSub> {
    const fake = new FakeEventSub(options);
    const server = createServer((_req, res) => {
      res.writeHead(426, { 'Content-Type': 'text/plain' }).end('WebSocket only');
    });
    server.on('upgrade', (req, socket, head) => fake.handleUpgrade(req, socket, head));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve);
    });
    fake.#httpServer = server;
    return fake;
  }

  get url(): string {
    const address = this.#httpServer?.address();
    if (!address || typeof address === 'string') throw new Error('fake EventSub: no own listener (created with create())');
    return `ws://127.0.0.1:${address.port}/ws`;
  }

  /** Open connections, withheld ones (never welcomed) included. */
  get connectionCount(): number {
    let open = this.#withheld.size;
    for (const session of this.#sessions.values()) open += (session.socket ? 1 : 0) + session.retiring.size;
    return open;
  }

  get totalConnections(): number {
    return this.#totalConnections;
  }

  /**
   * Connections that got no welcome (withholdWelcome): how many opened, how many are still open,
   * and how many welcomes are still to be withheld.
   */
  get withheldConnections(): { opened: number; open: number; pending: number } {
    return { opened: this.#withheldTotal, open: this.#withheld.size, pending: this.#welcomesToWithhold };
  }

  /** Every session ever opened, oldest first. */
  get sessions(): SessionInfo[] {
    return this.#sessionLog.map((s) => ({
      id: s.id,
      status: s.status,
      keepaliveTimeoutSeconds: s.keepaliveTimeoutSeconds,
      connectedAt: s.connectedAt,
      openSockets: (s.socket ? 1 : 0) + s.retiring.size,
      reconnects: s.reconnects,
      silent: s.silent,
    }));
  }

  /** Upgrades left unanswered (stallUpgrades): how many came, how many the client still holds, how many are still to stall. */
  get stalledUpgrades(): { came: number; held: number; pending: number } {
    return { came: this.#stalledTotal, held: this.#stalled.size, pending: this.#upgradesToStall };
  }

  /** New connections closed at once, unwelcomed (closeNewConnections). */
  get closedNewConnections(): number {
    return this.#closedOnAcceptTotal;
  }

  /** Upgrade requests answered 503 (refuseUpgrades). */
  get refusedUpgrades(): number {
    return this.#refusedTotal;
  }

  /** Takes over an HTTP upgrade request (any path; the query may carry keepalive_timeout_seconds or a reconnect token). */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    if (this.#closed) {
      socket.destroy();
      return;
    }
    if (this.#upgradesToRefuse > 0) {
      this.#upgradesToRefuse--;
      this.#refusedTotal++;
      socket.on('error', () => {});
      socket.end('HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: 19\r\n\r\nService Unavailable');
      this.#waiters.check();
      return;
    }
    if (this.#upgradesToStall > 0) {
      this.#upgradesToStall--;
      this.#stalledTotal++;
      this.#stalled.add(socket);
      socket.on('error', () => {});
      // Read and ignore whatever comes, so the client's hang-up is seen (the HTTP server keeps
      // sockets half-open: its end is closed here).
      socket.on('data', () => {});
      socket.once('end', () => socket.destroy());
      socket.once('close', () => {
        this.#stalled.delete(socket);
        this.#waiters.check();
      });
      this.#waiters.check();
      return;
    }
    this.#wss.handleUpgrade(req, socket, head, (ws) => this.#accept(ws, req));
  }

  // ---- subscriptions (called by FakeHelix) ----------------------------

  createSubscription(request: CreateSubscriptionRequest): CreateSubscriptionResult {
    const session = this.#sessions.get(request.sessionId);
    if (!session || session.status === 'disconnected') {
      return { ok: false, status: 400, error: 'Bad Request', message: 'websocket transport session does not exist or has already disconnected' };
    }
    const duplicate = this.activeSubscriptions().find(
      (s) =>
        s.clientId === request.clientId &&
        s.type === request.type &&
        s.version === request.version &&
        s.transport.session_id === request.sessionId &&
        JSON.stringify(s.condition) === JSON.stringify(request.condition),
    );
    if (duplicate) return { ok: false, status: 409, error: 'Conflict', message: 'subscription already exists' };
    const record: SubscriptionRecord = {
      id: randomUUID(),
      status: 'enabled',
      type: request.type,
      version: request.version,
      condition: { ...request.condition },
      created_at: twitchTimestamp(),
      transport: { method: 'websocket', session_id: session.id, connected_at: session.connectedAt },
      cost: 0,
      clientId: request.clientId,
      userId: request.userId,
      deleted: false,
    };
    this.subscriptions.push(record);
    clearTimeout(session.unusedTimer);
    this.#waiters.check();
    return { ok: true, subscription: record };
  }

  deleteSubscription(id: string): boolean {
    const record = this.subscriptions.find((s) => s.id === id && !s.deleted);
    if (!record) return false;
    record.deleted = true;
    this.#waiters.check();
    return true;
  }

  /** Subscriptions not deleted, optionally filtered. */
  activeSubscriptions(filter: { type?: string; status?: SubscriptionStatus; clientId?: string; sessionId?: string } = {}): SubscriptionRecord[] {
    return this.subscriptions.filter(
      (s) =>
        !s.deleted &&
        (filter.type === undefined || s.type === filter.type) &&
        (filter.status === undefined || s.status === filter.status) &&
        (filter.clientId === undefined || s.clientId === filter.clientId) &&
        (filter.sessionId === undefined || s.transport.session_id === filter.sessionId),
    );
  }

  // ---- driving the client ---------------------------------------------

  /**
   * The next `count` new connections (not those to a reconnect_url) are accepted and then hear
   * nothing: no session is opened, no session_welcome, no keepalive, and they are never closed by
   * the fake (anything the client sends is ignored). A client has to give up on them by itself.
   * Counts add up; `withholdWelcome(0)` cancels what is still pending.
   */
  withholdWelcome(count = 1): void {
    if (!Number.isInteger(count) || count < 0) throw new Error(`fake EventSub: withholdWelcome(${count}): a count of connections`);
    this.#welcomesToWithhold = count === 0 ? 0 : this.#welcomesToWithhold + count;
  }

  /**
   * The next `count` upgrade requests get no answer: no 101, no error, no close; the request just
   * hangs until the client gives up on it. Counts add up; `stallUpgrades(0)` cancels what is
   * still pending.
   */
  stallUpgrades(count = 1): void {
    if (!Number.isInteger(count) || count < 0) throw new Error(`fake EventSub: stallUpgrades(${count}): a count of upgrade requests`);
    this.#upgradesToStall = count === 0 ? 0 : this.#upgradesToStall + count;
  }

  /** Hangs up every upgrade held by stallUpgrades (an endpoint that gave up at last): the client sees its attempt fail. */
  endStalledUpgrades(): void {
    for (const socket of this.#stalled) socket.destroy();
  }

  /** The next `count` upgrade requests are answered 503 Service Unavailable. Counts add up; 0 cancels. */
  refuseUpgrades(count = 1): void {
    if (!Number.isInteger(count) || count < 0) throw new Error(`fake EventSub: refuseUpgrades(${count}): a count of upgrade requests`);
    this.#upgradesToRefuse = count === 0 ? 0 : this.#upgradesToRefuse + count;
  }

  /**
   * The next `count` new connections (not a reconnect_url's) are accepted, then closed at once
   * with `close` (default 4000 internal server error) and no session_welcome: an endpoint that
   * takes sockets and drops them. Counts add up; 0 cancels what is still pending.
   */
  closeNewConnections(count = 1, close: { code: number; reason: string } = EVENTSUB_CLOSE.internalServerError): void {
    if (!Number.isInteger(count) || count < 0) throw new Error(`fake EventSub: closeNewConnections(${count}): a count of connections`);
    this.#connectionsToClose = count === 0 ? 0 : this.#connectionsToClose + count;
    this.#closeOnAccept = close;
  }

  /** A channel point redemption, to every enabled subscription whose condition matches. */
  sendRedemptionAdd(event: RedemptionAddEvent, options: NotifyOptions = {}): Delivery[] {
    return this.notify(REDEMPTION_ADD_TYPE, event as unknown as Record<string, unknown>, { version: '1', ...options });
  }

  /** A notification of `type` to every enabled subscription whose condition matches the event. */
  notify(type: string, event: Record<string, unknown>, options: NotifyOptions = {}): Delivery[] {
    const targets = this.activeSubscriptions({ type, status: 'enabled' }).filter(
      (s) =>
        (options.subscriptionId === undefined || s.id === options.subscriptionId) &&
        (options.version === undefined || s.version === options.version) &&
        conditionMatches(s.condition, event),
    );
    const deliveries: Delivery[] = [];
    for (const subscription of targets) {
      const session = this.#sessions.get(subscription.transport.session_id);
      if (!session) continue;
      deliveries.push(
        this.#send(session, 'notification', { subscription: subscriptionJson(subscription), event }, {
          subscriptionId: subscription.id,
          metadataExtra: { subscription_type: subscription.type, subscription_version: subscription.version },
          timestamp: options.messageTimestamp,
        }),
      );
    }
    return deliveries;
  }

  /** Sends the exact same message again (same message_id), as Twitch does when unsure it arrived. */
  redeliver(messageId: string): Delivery {
    const original = this.deliveries.find((d) => d.messageId === messageId);
    if (!original) throw new Error(`fake EventSub: no message ${messageId} to redeliver`);
    const session = this.#sessions.get(original.sessionId);
    const delivery: Delivery = { ...original, delivered: false, at: Date.now() };
    if (session) this.#transmit(session, original.text, delivery);
    this.deliveries.push(delivery);
    return delivery;
  }

  sendKeepalive(sessionId?: string): void {
    for (const session of this.#targetSessions(sessionId)) this.#send(session, 'session_keepalive', {});
  }

  /** Stops (or resumes) automatic keepalives, to test the client's keepalive timeout. */
  setKeepalivesPaused(paused: boolean): void {
    this.#keepalivesPaused = paused;
  }

  /**
   * The connection goes half-dead (default: every live session): its socket stays open and the
   * session stays `connected`, but from now on nothing reaches the client, neither keepalives nor
   * notifications (their deliveries say `delivered: false`: lost, as on Twitch when the flow is
   * gone). Only the client can end it, by closing the socket once its keepalive timeout passed;
   * the session then ends as any closed one. Sessions opened later are not silenced.
   */
  silenceSession(sessionId?: string): void {
    for (const session of this.#targetSessions(sessionId)) {
      session.silent = true;
      clearTimeout(session.keepaliveTimer);
    }
  }

  /**
   * Sends session_reconnect; resolves when the client has connected to the
   * reconnect_url and been welcomed there (same session id).
   */
  requestReconnect(sessionId?: string, options: { timeoutMs?: number } = {}): Promise<void> {
    const [session] = this.#targetSessions(sessionId);
    if (!session) return Promise.reject(new Error('fake EventSub: no connected session to reconnect'));
    const token = randomBytes(12).toString('base64url');
    session.reconnectToken = token;
    session.status = 'reconnecting';
    // Twitch sends the old connection no keepalive after session_reconnect (#armKeepalive), and
    // closes it with 4004 when the client has not reached the reconnect_url within the grace time.
    clearTimeout(session.keepaliveTimer);
    clearTimeout(session.reconnectTimer);
    session.reconnectTimer = setTimeout(() => {
      if (session.status !== 'reconnecting' || session.reconnectToken !== token) return;
      const { code, reason } = EVENTSUB_CLOSE.reconnectGraceTimeExpired;
      if (session.socket === null && session.retiring.size === 0) this.#endSession(session);
      else this.closeSession(session.id, code, reason);
      this.#waiters.check();
    }, this.#options.reconnectGraceMs ?? 30_000);
    const reconnects = session.reconnects;
    this.#send(session, 'session_reconnect', {
      session: {
        id: session.id,
        status: 'reconnecting',
        keepalive_timeout_seconds: null,
        reconnect_url: `${session.baseUrl}?reconnect_token=${token}`,
        connected_at: session.connectedAt,
      },
    });
    return this.#waiters.waitFor(
      () => (session.reconnects > reconnects ? true : undefined),
      `session ${session.id} to reconnect`,
      options.timeoutMs ?? DEFAULT_WAIT_MS,
    ).then(() => undefined);
  }

  /** Twitch revoked the subscription (the client gets a revocation message). */
  revoke(subscriptionId: string, status: Exclude<SubscriptionStatus, 'enabled' | 'websocket_disconnected'> = 'authorization_revoked'): Delivery {
    const record = this.subscriptions.find((s) => s.id === subscriptionId && !s.deleted);
    if (!record) throw new Error(`fake EventSub: no subscription ${subscriptionId}`);
    record.status = status;
    const session = this.#sessions.get(record.transport.session_id);
    if (!session) throw new Error(`fake EventSub: subscription ${subscriptionId} has no live session`);
    const delivery = this.#send(session, 'revocation', { subscription: subscriptionJson(record) }, {
      subscriptionId: record.id,
      metadataExtra: { subscription_type: record.type, subscription_version: record.version },
    });
    record.deleted = true;
    this.#waiters.check();
    return delivery;
  }

  /** Closes every socket of the session with a Twitch close code; the session ends. */
  closeSession(sessionId: string, code: number, reason = ''): void {
    const session = this.#sessions.get(sessionId);
    if (!session) return;
    // A close ends the session even mid-reconnect: no new socket may take it over.
    session.reconnectToken = null;
    session.status = 'connected';
    for (const ws of [session.socket, ...session.retiring]) ws?.close(code, reason);
  }

  /** Kills every socket without a close frame. */
  dropAllConnections(): void {
    for (const session of this.#sessions.values()) {
      session.reconnectToken = null;
      session.status = 'connected';
      for (const ws of [session.socket, ...session.retiring]) ws?.terminate();
    }
  }

  // ---- waiting ---------------------------------------------------------

  /** The session at position `since` (default 0) of `sessions`, once it has been opened. */
  waitForSession(options: { since?: number; timeoutMs?: number } = {}): Promise<SessionInfo> {
    const since = options.since ?? 0;
    return this.#waiters.waitFor(
      () => this.sessions[since],
      `EventSub session #${since + 1}`,
      options.timeoutMs ?? DEFAULT_WAIT_MS,
    );
  }

  /** The first enabled subscription of `type` (created at index >= since in `subscriptions`). */
  waitForSubscription(type: string, options: { since?: number; userId?: string; timeoutMs?: number } = {}): Promise<SubscriptionRecord> {
    let cursor = options.since ?? 0;
    return this.#waiters.waitFor(
      () => {
        for (; cursor < this.subscriptions.length; cursor++) {
          const s = this.subscriptions[cursor] as SubscriptionRecord;
          if (s.type === type && s.status === 'enabled' && !s.deleted && (options.userId === undefined || s.userId === options.userId)) return s;
        }
        return undefined;
      },
      `an enabled ${type} subscription`,
      options.timeoutMs ?? DEFAULT_WAIT_MS,
    );
  }

  /** Resolves when the session has ended (all its sockets closed). */
  waitForDisconnect(sessionId: string, options: { timeoutMs?: number } = {}): Promise<void> {
    return this.#waiters.waitFor(
      () => (this.#sessionLog.find((s) => s.id === sessionId)?.status === 'disconnected' ? true : undefined),
      `session ${sessionId} to disconnect`,
      options.timeoutMs ?? DEFAULT_WAIT_MS,
    ).then(() => undefined);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#waiters.cancelAll('EventSub server closed');
    for (const session of this.#sessions.values()) {
      this.#stopTimers(session);
      for (const ws of [session.socket, ...session.retiring]) ws?.terminate();
    }
    for (const ws of this.#withheld) ws.terminate();
    for (const socket of this.#stalled) socket.destroy();
    // Any other socket still open (an ended session's retiring one, one closed with a code whose
    // close handshake the client never finished) would hold the server's close for ever.
    for (const ws of this.#wss.clients) ws.terminate();
    this.#wss.close();
    const server = this.#httpServer;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  // ---- internals -------------------------------------------------------

  #targetSessions(sessionId?: string): Session[] {
    const live = [...this.#sessions.values()].filter((s) => s.status !== 'disconnected');
    return sessionId === undefined ? live : live.filter((s) => s.id === sessionId);
  }

  #accept(ws: WebSocket, req: IncomingMessage): void {
    this.#totalConnections++;
    const url = new URL(req.url ?? '/', 'ws://fake');
    const baseUrl = `ws://${req.headers.host ?? '127.0.0.1'}${url.pathname}`;
    ws.on('error', () => {
      // A client vanishing is part of what these tests exercise.
    });
    const token = url.searchParams.get('reconnect_token');
    if (token !== null) {
      const session = [...this.#sessions.values()].find((s) => s.reconnectToken === token);
      if (!session) {
        ws.close(EVENTSUB_CLOSE.invalidReconnect.code, EVENTSUB_CLOSE.invalidReconnect.reason);
        return;
      }
      this.#handOver(session, ws);
      return;
    }
    if (this.#connectionsToClose > 0) {
      this.#connectionsToClose--;
      this.#closedOnAcceptTotal++;
      ws.close(this.#closeOnAccept.code, this.#closeOnAccept.reason);
      this.#waiters.check();
      return;
    }
    if (this.#welcomesToWithhold > 0) {
      this.#welcomesToWithhold--;
      this.#withheldTotal++;
      this.#withheld.add(ws);
      ws.on('close', () => {
        this.#withheld.delete(ws);
        this.#waiters.check();
      });
      this.#waiters.check();
      return;
    }
    const session: Session = {
      id: 'AQoQ' + randomBytes(18).toString('base64url'),
      status: 'connected',
      keepaliveTimeoutSeconds: this.#keepaliveSeconds(url.searchParams.get('keepalive_timeout_seconds')),
      connectedAt: twitchTimestamp(),
      socket: ws,
      retiring: new Set(),
      baseUrl,
      reconnectToken: null,
      reconnects: 0,
      silent: false,
      held: [],
      keepaliveTimer: undefined,
      unusedTimer: undefined,
      graceTimer: undefined,
      reconnectTimer: undefined,
    };
    this.#sessions.set(session.id, session);
    this.#sessionLog.push(session);
    this.#watchSocket(session, ws);
    this.#sendWelcome(session);
    const unusedMs = this.#options.closeUnusedAfterMs ?? session.keepaliveTimeoutSeconds * 1000;
    if (unusedMs !== false) {
      session.unusedTimer = setTimeout(() => {
        if (this.activeSubscriptions({ sessionId: session.id }).length === 0) {
          this.closeSession(session.id, EVENTSUB_CLOSE.connectionUnused.code, EVENTSUB_CLOSE.connectionUnused.reason);
        }
      }, unusedMs);
    }
    this.#waiters.check();
  }

  #keepaliveSeconds(asked: string | null): number {
    const fallback = this.#options.keepaliveTimeoutSeconds ?? 10;
    if (asked === null || !/^\d+$/.test(asked)) return fallback;
    return Math.min(600, Math.max(10, Number(asked)));
  }

  #handOver(session: Session, ws: WebSocket): void {
    const old = session.socket;
    if (old) session.retiring.add(old);
    session.socket = ws;
    session.reconnectToken = null;
    session.status = 'connected';
    clearTimeout(session.reconnectTimer);
    this.#watchSocket(session, ws);
    this.#sendWelcome(session);
    session.reconnects++;
    for (const { text, delivery } of session.held.splice(0)) this.#transmit(session, text, delivery);
    clearTimeout(session.graceTimer);
    session.graceTimer = setTimeout(() => {
      for (const retiring of session.retiring) {
        retiring.close(EVENTSUB_CLOSE.reconnectGraceTimeExpired.code, EVENTSUB_CLOSE.reconnectGraceTimeExpired.reason);
      }
    }, this.#options.reconnectGraceMs ?? 30_000);
    this.#waiters.check();
  }

  #watchSocket(session: Session, ws: WebSocket): void {
    ws.on('message', () => {
      ws.close(EVENTSUB_CLOSE.clientSentInboundTraffic.code, EVENTSUB_CLOSE.clientSentInboundTraffic.reason);
    });
    ws.on('close', () => {
      session.retiring.delete(ws);
      if (session.socket === ws) {
        session.socket = null;
        // Between sockets during a reconnect the session lives on, holding messages,
        // until the client comes back or the grace time runs out.
        if (session.status !== 'reconnecting') this.#endSession(session);
        else {
          clearTimeout(session.graceTimer);
          session.graceTimer = setTimeout(() => {
            if (session.socket === null) this.#endSession(session);
          }, this.#options.reconnectGraceMs ?? 30_000);
        }
      }
      this.#waiters.check();
    });
  }

  #endSession(session: Session): void {
    session.status = 'disconnected';
    this.#stopTimers(session);
    this.#sessions.delete(session.id);
    const now = twitchTimestamp();
    for (const subscription of this.activeSubscriptions({ sessionId: session.id })) {
      if (subscription.status === 'enabled') {
        subscription.status = 'websocket_disconnected';
        subscription.transport.disconnected_at = now;
      }
    }
  }

  #stopTimers(session: Session): void {
    clearTimeout(session.keepaliveTimer);
    clearTimeout(session.unusedTimer);
    clearTimeout(session.graceTimer);
    clearTimeout(session.reconnectTimer);
  }

  #sendWelcome(session: Session): void {
    this.#send(session, 'session_welcome', {
      session: {
        id: session.id,
        status: 'connected',
        keepalive_timeout_seconds: session.keepaliveTimeoutSeconds,
        reconnect_url: null,
        connected_at: session.connectedAt,
      },
    });
  }

  #send(
    session: Session,
    messageType: Delivery['messageType'],
    payload: unknown,
    extra: { subscriptionId?: string; metadataExtra?: Record<string, string>; timestamp?: Date | undefined } = {},
  ): Delivery {
    const messageId = randomUUID();
    const text = JSON.stringify({
      metadata: {
        message_id: messageId,
        message_type: messageType,
        message_timestamp: twitchTimestamp(extra.timestamp),
        ...extra.metadataExtra,
      },
      payload,
    });
    const delivery: Delivery = {
      messageId,
      messageType,
      sessionId: session.id,
      subscriptionId: extra.subscriptionId ?? null,
      text,
      delivered: false,
      at: Date.now(),
    };
    this.deliveries.push(delivery);
    this.#transmit(session, text, delivery);
    return delivery;
  }

  #transmit(session: Session, text: string, delivery: Delivery): void {
    // Half-dead: the message is lost on the way and no keepalive follows.
    if (session.silent) return;
    const ws = session.socket;
    if (ws && ws.readyState === ws.OPEN) {
      ws.send(text);
      delivery.delivered = true;
      this.#armKeepalive(session);
    } else if (session.status === 'reconnecting') {
      session.held.push({ text, delivery });
    }
  }

  #armKeepalive(session: Session): void {
    clearTimeout(session.keepaliveTimer);
    // None after a session_reconnect until the new socket is welcomed (which arms it again).
    if (session.status === 'reconnecting') return;
    const interval = this.#options.keepaliveIntervalMs ?? Math.max(1000, session.keepaliveTimeoutSeconds * 1000 - 1000);
    session.keepaliveTimer = setTimeout(() => {
      if (session.status === 'disconnected') return;
      if (this.#keepalivesPaused) this.#armKeepalive(session);
      else this.#send(session, 'session_keepalive', {});
    }, interval);
  }
}
