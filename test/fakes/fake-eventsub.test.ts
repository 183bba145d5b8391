import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { EventSubWsListener } from '@twurple/eventsub-ws';
import { EVENTSUB_CLOSE, FakeEventSub, REDEMPTION_ADD_TYPE, type FakeEventSubOptions } from './fake-eventsub.ts';
import { FakeHelix } from './fake-helix.ts';
import { QUIET_TWURPLE_LOGGER, twurpleAgainstFakes, type TwurpleAgainstFakes } from './twurple-against-fakes.ts';

interface EventSubMessage {
  metadata: Record<string, string>;
  payload: Record<string, unknown> & { session?: Record<string, unknown> };
}

/** A bare client that records every message and close, to check the wire format. */
class RawEventSubClient {
  readonly messages: EventSubMessage[] = [];
  readonly ws: WebSocket;
  readonly closed: Promise<{ code: number; reason: string }>;
  readonly #waiting: Array<{ pred: (m: EventSubMessage) => boolean; resolve: (m: EventSubMessage) => void }> = [];

  constructor(url: string) {
    this.ws = new WebSocket(url);
    this.ws.on('message', (data) => {
      const message = JSON.parse(data.toString()) as EventSubMessage;
      this.messages.push(message);
      for (const w of [...this.#waiting]) {
        if (w.pred(message)) {
          this.#waiting.splice(this.#waiting.indexOf(w), 1);
          w.resolve(message);
        }
      }
    });
    this.closed = new Promise((resolve) => this.ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  }

  next(type: string, pred: (m: EventSubMessage) => boolean = () => true): Promise<EventSubMessage> {
    const match = (m: EventSubMessage): boolean => m.metadata['message_type'] === type && pred(m);
    const found = this.messages.find(match);
    if (found) return Promise.resolve(found);
    return new Promise((resolve) => this.#waiting.push({ pred: match, resolve }));
  }

  async sessionId(): Promise<string> {
    const welcome = await this.next('session_welcome');
    return welcome.payload.session?.['id'] as string;
  }

  /**
   * Resolves once every message the fake wrote before now has been read: a ping's pong is written
   * after them on the same socket, so it arrives after them, however slow the machine.
   */
  async drained(): Promise<void> {
    const pong = new Promise<void>((resolve) => this.ws.once('pong', () => resolve()));
    this.ws.ping();
    await pong;
  }
}

/** The event class twurple hands to onChannelRedemptionAdd (its package is not a direct dependency). */
type EventSubChannelRedemptionAddEvent = Parameters<Parameters<EventSubWsListener['onChannelRedemptionAdd']>[1]>[0];

const redemptionEvent = (id: string) => ({
  id,
  broadcaster_user_id: '1234',
  broadcaster_user_login: 'somechannel',
  broadcaster_user_name: 'SomeChannel',
  user_id: '5678',
  user_login: 'fan',
  user_name: 'Fan',
  user_input: 'neon please',
  status: 'unfulfilled' as const,
  reward: { id: 'reward-1', title: 'Unlock neon', cost: 500, prompt: 'Unlocks the neon skin' },
  redeemed_at: new Date().toISOString(),
});

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startEventSub(options: FakeEventSubOptions = {}): Promise<FakeEventSub> {
  const fake = await FakeEventSub.start(options);
  cleanups.push(() => fake.close());
  return fake;
}

function rawClient(url: string): RawEventSubClient {
  const client = new RawEventSubClient(url);
  cleanups.push(() => client.ws.terminate());
  return client;
}

function subscribe(fake: FakeEventSub, sessionId: string, condition: Record<string, string> = { broadcaster_user_id: '1234' }) {
  const result = fake.createSubscription({ type: REDEMPTION_ADD_TYPE, version: '1', condition, sessionId, clientId: 'c', userId: '1234' });
  if (!result.ok) throw new Error(result.message);
  return result.subscription;
}

describe('FakeEventSub wire protocol', () => {
  it('welcomes with the session object Twitch sends and honours keepalive_timeout_seconds', async () => {
    const fake = await startEventSub();
    const client = rawClient(`${fake.url}?keepalive_timeout_seconds=30`);
    const welcome = await client.next('session_welcome');
    expect(Object.keys(welcome.metadata).sort()).toEqual(['message_id', 'message_timestamp', 'message_type']);
    expect(welcome.metadata['message_timestamp']).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z$/);
    expect(welcome.payload.session).toMatchObject({ status: 'connected', keepalive_timeout_seconds: 30, reconnect_url: null });
    expect(welcome.payload.session?.['id']).toBe(fake.sessions[0]?.id);
    expect(typeof welcome.payload.session?.['connected_at']).toBe('string');

    const clamped = rawClient(`${fake.url}?keepalive_timeout_seconds=3`);
    expect((await clamped.next('session_welcome')).payload.session?.['keepalive_timeout_seconds']).toBe(10);
  });

  it('sends session_keepalive after a quiet spell, none while paused, and one on demand', async () => {
    const fake = await startEventSub({ keepaliveIntervalMs: 10, closeUnusedAfterMs: false });
    const client = rawClient(fake.url);
    const keepalive = await client.next('session_keepalive');
    expect(keepalive.payload).toEqual({});
    fake.setKeepalivesPaused(true);
    await client.drained(); // a keepalive written before the pause has landed
    const count = client.messages.length;
    await new Promise((resolve) => setTimeout(resolve, 100)); // ten intervals
    expect(client.messages.length).toBe(count);
    fake.sendKeepalive();
    await client.next('session_keepalive', (m) => client.messages.indexOf(m) >= count);
  });

  it('keeps a silenced (half-dead) session\'s socket open but lets nothing through, until the client closes it', async () => {
    const fake = await startEventSub({ keepaliveIntervalMs: 10, closeUnusedAfterMs: false });
    const client = rawClient(fake.url);
    const sessionId = await client.sessionId();
    const subscription = subscribe(fake, sessionId);
    await client.next('session_keepalive');
    fake.silenceSession(sessionId);
    const [lost] = fake.sendRedemptionAdd(redemptionEvent('lost'));
    expect(lost).toMatchObject({ sessionId, subscriptionId: subscription.id, delivered: false });
    await client.drained(); // a keepalive written before the silence has landed
    const count = client.messages.length;
    await new Promise((resolve) => setTimeout(resolve, 100)); // ten keepalive intervals
    expect(client.messages.length).toBe(count);
    expect(client.messages.some((m) => m.metadata['message_type'] === 'notification')).toBe(false);
    // Open on both ends; to the fake the session is still there, its subscription enabled.
    expect(client.ws.readyState).toBe(WebSocket.OPEN);
    expect(fake.sessions[0]).toMatchObject({ id: sessionId, status: 'connected', openSockets: 1, silent: true });
    expect(subscription.status).toBe('enabled');

    // A new connection is not silenced.
    const other = rawClient(fake.url);
    const otherId = await other.sessionId();
    await other.next('session_keepalive');
    expect(fake.sessions[1]).toMatchObject({ id: otherId, silent: false });

    // Only the client ends it.
    client.ws.close();
    await fake.waitForDisconnect(sessionId);
    expect(subscription.status).toBe('websocket_disconnected');
  });

  it('withholds the welcome from the next connections: they open and hear nothing, never closed by the fake, until the client closes them', async () => {
    const fake = await startEventSub({ keepaliveIntervalMs: 10, closeUnusedAfterMs: 50 });
    fake.withholdWelcome(1);
    expect(fake.withheldConnections).toEqual({ opened: 0, open: 0, pending: 1 });
    const stalled = rawClient(fake.url);
    await new Promise((resolve) => stalled.ws.once('open', resolve));
    await expect.poll(() => fake.withheldConnections).toEqual({ opened: 1, open: 1, pending: 0 });
    expect(fake.sessions).toEqual([]);

    // Only the next connection was withheld: this one is welcomed, kept alive, and closed unused
    // (4003) - all of which a session opened for the stalled socket would have had too.
    const welcomed = rawClient(fake.url);
    const sessionId = await welcomed.sessionId();
    await welcomed.next('session_keepalive');
    expect((await welcomed.closed).code).toBe(4003);
    expect(stalled.messages).toEqual([]);
    expect(stalled.ws.readyState).toBe(WebSocket.OPEN);
    // Sending is no reason to close it either (a welcomed socket gets 4001 for it).
    stalled.ws.send('{"hello":true}');
    expect(fake.sessions.map((s) => s.id)).toEqual([sessionId]);
    expect(fake.totalConnections).toBe(2);
    await expect.poll(() => fake.connectionCount).toBe(1);

    // Only the client ends it.
    stalled.ws.close();
    expect((await stalled.closed).code).toBe(1005);
    await expect.poll(() => fake.withheldConnections).toEqual({ opened: 1, open: 0, pending: 0 });
    expect(fake.connectionCount).toBe(0);
    expect(stalled.messages).toEqual([]);
  });

  it('leaves the next upgrade requests unanswered: the connection never opens until the client gives up, then the next one opens', async () => {
    const fake = await startEventSub({ closeUnusedAfterMs: false });
    fake.stallUpgrades(1);
    expect(fake.stalledUpgrades).toEqual({ came: 0, held: 0, pending: 1 });
    const stalled = rawClient(fake.url);
    // Giving up on a connection that never opened is an error for ws.
    stalled.ws.on('error', () => {});
    await expect.poll(() => fake.stalledUpgrades).toEqual({ came: 1, held: 1, pending: 0 });
    // Nothing answers it: no 101, no error status, no close.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(stalled.ws.readyState).toBe(WebSocket.CONNECTING);
    expect(fake.totalConnections).toBe(0);

    // The next upgrade is answered and welcomed as usual.
    const welcomed = rawClient(fake.url);
    await welcomed.sessionId();
    expect(fake.totalConnections).toBe(1);

    // Only the client ends the stalled request.
    stalled.ws.terminate();
    await expect.poll(() => fake.stalledUpgrades).toEqual({ came: 1, held: 0, pending: 0 });
    expect(stalled.messages).toEqual([]);

    // Counts add up; stallUpgrades(0) cancels what is pending; close() ends held requests.
    fake.stallUpgrades(2);
    fake.stallUpgrades(1);
    expect(fake.stalledUpgrades.pending).toBe(3);
    fake.stallUpgrades(0);
    expect(fake.stalledUpgrades.pending).toBe(0);
    fake.stallUpgrades(1);
    const held = rawClient(fake.url);
    held.ws.on('error', () => {});
    await expect.poll(() => fake.stalledUpgrades.held).toBe(1);
    await fake.close();
    expect((await held.closed).code).toBe(1006);
    expect(() => fake.stallUpgrades(-1)).toThrow(/a count of upgrade requests/);
  });

  it('refuses the next upgrade requests with 503, then accepts again', async () => {
    const fake = await startEventSub({ closeUnusedAfterMs: false });
    fake.refuseUpgrades(2);
    for (let i = 1; i <= 2; i++) {
      const refused = rawClient(fake.url);
      const status = await new Promise<number | undefined>((resolve) => refused.ws.once('unexpected-response', (_req, res) => resolve(res.statusCode)));
      expect(status).toBe(503);
      refused.ws.on('error', () => {});
      refused.ws.terminate();
      expect(fake.refusedUpgrades).toBe(i);
    }
    expect(fake.totalConnections).toBe(0);
    await rawClient(fake.url).sessionId();
    expect(fake.refusedUpgrades).toBe(2);
    fake.refuseUpgrades(3);
    fake.refuseUpgrades(0);
    await rawClient(fake.url).sessionId();
    expect(fake.refusedUpgrades).toBe(2);
    expect(() => fake.refuseUpgrades(1.5)).toThrow(/a count of upgrade requests/);
  });

  it('withholds welcomes from new connections only: one to a reconnect_url is welcomed, and counts add up', async () => {
    const fake = await startEventSub({ closeUnusedAfterMs: false });
    const old = rawClient(fake.url);
    const sessionId = await old.sessionId();
    fake.withholdWelcome(1);
    fake.withholdWelcome(1);
    const handover = fake.requestReconnect();
    const reconnect = await old.next('session_reconnect');
    const fresh = rawClient(reconnect.payload.session?.['reconnect_url'] as string);
    expect(await fresh.sessionId()).toBe(sessionId);
    await handover;
    expect(fake.withheldConnections).toEqual({ opened: 0, open: 0, pending: 2 });

    const stalled = [rawClient(fake.url), rawClient(fake.url)];
    await expect.poll(() => fake.withheldConnections).toEqual({ opened: 2, open: 2, pending: 0 });
    const third = rawClient(fake.url);
    expect(await third.sessionId()).not.toBe(sessionId);
    expect(stalled.map((c) => c.messages)).toEqual([[], []]);

    // withholdWelcome(0) cancels what is still pending.
    fake.withholdWelcome(3);
    fake.withholdWelcome(0);
    expect(fake.withheldConnections.pending).toBe(0);
    await rawClient(fake.url).sessionId();
    // close() ends the stalled sockets too.
    await fake.close();
    expect(await Promise.all(stalled.map((c) => c.closed.then((closed) => closed.code)))).toEqual([1006, 1006]);
  });

  it('closes with 4001 when the client sends anything', async () => {
    const fake = await startEventSub();
    const client = rawClient(fake.url);
    await client.next('session_welcome');
    client.ws.send('{"hello":true}');
    expect(await client.closed).toEqual({ code: 4001, reason: EVENTSUB_CLOSE.clientSentInboundTraffic.reason });
  });

  it('closes an unused session with 4003 and its subscriptions go websocket_disconnected', async () => {
    const fake = await startEventSub({ closeUnusedAfterMs: 20 });
    const unused = rawClient(fake.url);
    expect((await unused.closed).code).toBe(4003);

    const used = rawClient(fake.url);
    const sessionId = await used.sessionId();
    const subscription = subscribe(fake, sessionId);
    used.ws.close();
    await fake.waitForDisconnect(sessionId);
    expect(subscription.status).toBe('websocket_disconnected');
    expect(subscription.transport.disconnected_at).toBeDefined();
    const again = fake.createSubscription({ type: REDEMPTION_ADD_TYPE, version: '1', condition: {}, sessionId, clientId: 'c', userId: '1' });
    expect(again).toMatchObject({ ok: false, status: 400 });
  });

  it('refuses an unknown reconnect token with 4007', async () => {
    const fake = await startEventSub();
    const client = rawClient(`${fake.url}?reconnect_token=nope`);
    expect((await client.closed).code).toBe(4007);
  });

  it('delivers redemption notifications only to matching subscriptions, with subscription metadata', async () => {
    const fake = await startEventSub();
    const client = rawClient(fake.url);
    const sessionId = await client.sessionId();
    const forChannel = subscribe(fake, sessionId);
    subscribe(fake, sessionId, { broadcaster_user_id: '9999' });
    const forOtherReward = subscribe(fake, sessionId, { broadcaster_user_id: '1234', reward_id: 'reward-2' });

    const event = redemptionEvent('r-1');
    const deliveries = fake.sendRedemptionAdd(event);
    expect(deliveries.map((d) => d.subscriptionId)).toEqual([forChannel.id]);
    const notification = await client.next('notification');
    expect(notification.metadata).toMatchObject({
      message_id: deliveries[0]?.messageId,
      subscription_type: REDEMPTION_ADD_TYPE,
      subscription_version: '1',
    });
    expect(notification.payload['subscription']).toMatchObject({
      id: forChannel.id,
      status: 'enabled',
      type: REDEMPTION_ADD_TYPE,
      version: '1',
      condition: { broadcaster_user_id: '1234' },
      transport: { method: 'websocket', session_id: sessionId },
      cost: 0,
    });
    expect(notification.payload['event']).toEqual(event);
    expect(forOtherReward.status).toBe('enabled');
  });

  it('redelivers the identical message for duplicate-delivery tests', async () => {
    const fake = await startEventSub();
    const client = rawClient(fake.url);
    const sessionId = await client.sessionId();
    subscribe(fake, sessionId);
    const [delivery] = fake.sendRedemptionAdd(redemptionEvent('r-dup'));
    fake.redeliver(delivery?.messageId as string);
    await client.next('notification', (m) => client.messages.filter((x) => x.metadata['message_id'] === m.metadata['message_id']).length === 2);
    const copies = client.messages.filter((m) => m.metadata['message_type'] === 'notification');
    expect(copies).toHaveLength(2);
    expect(copies[0]).toEqual(copies[1]);
  });

  it('hands a session over to the reconnect_url without losing messages and closes a lingering old socket with 4004', async () => {
    const fake = await startEventSub({ reconnectGraceMs: 20 });
    const old = rawClient(fake.url);
    const sessionId = await old.sessionId();
    subscribe(fake, sessionId);

    const handover = fake.requestReconnect();
    const reconnect = await old.next('session_reconnect');
    expect(reconnect.payload.session).toMatchObject({ id: sessionId, status: 'reconnecting', keepalive_timeout_seconds: null });
    fake.sendRedemptionAdd(redemptionEvent('during'));
    const fresh = rawClient(reconnect.payload.session?.['reconnect_url'] as string);
    expect(await fresh.sessionId()).toBe(sessionId);
    await handover;
    fake.sendRedemptionAdd(redemptionEvent('after'));

    const eventIds = (c: RawEventSubClient) =>
      c.messages.filter((m) => m.metadata['message_type'] === 'notification').map((m) => (m.payload['event'] as { id: string }).id);
    await fresh.next('notification');
    expect(eventIds(old)).toEqual(['during']);
    expect(eventIds(fresh)).toEqual(['after']);
    expect((await old.closed).code).toBe(4004);
    await expect.poll(() => fake.sessions[0]?.openSockets).toBe(1);
    expect(fake.sessions[0]).toMatchObject({ id: sessionId, status: 'connected', reconnects: 1 });
  });

  it('after session_reconnect sends no keepalive to the old socket, and closes it with 4004 when the reconnect_url is not reached in time', async () => {
    const fake = await startEventSub({ keepaliveIntervalMs: 20, reconnectGraceMs: 300 });
    const old = rawClient(fake.url);
    const sessionId = await old.sessionId();
    subscribe(fake, sessionId);
    await old.next('session_keepalive');

    void fake.requestReconnect(sessionId, { timeoutMs: 2000 }).catch(() => {});
    const reconnect = await old.next('session_reconnect');
    const reconnectAt = old.messages.indexOf(reconnect);
    // Notifications still reach the old socket until the client moves...
    fake.sendRedemptionAdd(redemptionEvent('before-the-grace-ends'));
    await old.next('notification');
    // ...but no keepalive does, and the client never connects to the reconnect_url.
    expect(await old.closed).toEqual({ code: 4004, reason: 'reconnect grace time expired' });
    expect(old.messages.slice(reconnectAt + 1).map((m) => m.metadata['message_type'])).toEqual(['notification']);
    await fake.waitForDisconnect(sessionId);
    expect(fake.activeSubscriptions({ sessionId })[0]?.status).toBe('websocket_disconnected');
    // The reconnect_url is dead from then on.
    const late = rawClient(reconnect.payload.session?.['reconnect_url'] as string);
    expect((await late.closed).code).toBe(4007);
  });

  it('holds messages for a client that closed its old socket before reaching the reconnect_url', async () => {
    const fake = await startEventSub();
    const old = rawClient(fake.url);
    const sessionId = await old.sessionId();
    subscribe(fake, sessionId);
    void fake.requestReconnect();
    const reconnect = await old.next('session_reconnect');
    old.ws.close();
    await old.closed;
    await expect.poll(() => fake.sessions[0]?.openSockets).toBe(0);
    const [held] = fake.sendRedemptionAdd(redemptionEvent('held'));
    expect(held?.delivered).toBe(false);
    const fresh = rawClient(reconnect.payload.session?.['reconnect_url'] as string);
    const notification = await fresh.next('notification');
    expect((notification.payload['event'] as { id: string }).id).toBe('held');
    expect(held?.delivered).toBe(true);
  });

  it('loses messages for a session whose socket dropped without a reconnect, as Twitch does', async () => {
    const fake = await startEventSub();
    const client = rawClient(fake.url);
    const sessionId = await client.sessionId();
    subscribe(fake, sessionId);
    fake.dropAllConnections();
    await fake.waitForDisconnect(sessionId);
    expect(fake.sendRedemptionAdd(redemptionEvent('lost'))).toEqual([]);
    expect(fake.connectionCount).toBe(0);
  });

  it('closes a session with any Twitch close code on request', async () => {
    const fake = await startEventSub();
    const client = rawClient(fake.url);
    const sessionId = await client.sessionId();
    fake.closeSession(sessionId, EVENTSUB_CLOSE.networkError.code, EVENTSUB_CLOSE.networkError.reason);
    expect(await client.closed).toEqual({ code: 4006, reason: 'network error' });
  });
});

describe('FakeEventSub with the real twurple EventSubWsListener (through FakeHelix)', () => {
  async function setUp(): Promise<{ helix: FakeHelix; bot: TwurpleAgainstFakes; listener: EventSubWsListener; rewardId: string; received: EventSubChannelRedemptionAddEvent[] }> {
    const helix = await FakeHelix.start();
    cleanups.push(() => helix.close());
    const bot = twurpleAgainstFakes(helix, { login: 'somechannel' });
    cleanups.push(bot.restoreEnv);
    const reward = helix.createReward(bot.broadcaster.id, { title: 'Unlock neon', cost: 500, prompt: 'Unlocks neon' }, bot.clientId);
    // The env var makes twurple ignore `url` and use ws://127.0.0.1:PORT/ws; the url here would only matter without it.
    const listener = new EventSubWsListener({ apiClient: bot.apiClient, url: 'ws://127.0.0.1:1/unused', logger: QUIET_TWURPLE_LOGGER });
    cleanups.push(() => listener.stop());
    const received: EventSubChannelRedemptionAddEvent[] = [];
    listener.onChannelRedemptionAdd(bot.broadcaster.id, (event) => {
      received.push(event);
    });
    listener.start();
    await helix.eventSub.waitForSubscription(REDEMPTION_ADD_TYPE, { userId: bot.broadcaster.id });
    return { helix, bot, listener, rewardId: reward.id, received };
  }

  async function until(check: () => boolean): Promise<void> {
    await expect.poll(check, { timeout: 5000, interval: 5 }).toBe(true);
  }

  it('subscribes through Helix with the websocket session and receives a redemption', async () => {
    const { helix, bot, rewardId, received } = await setUp();
    const [subscription] = helix.eventSub.activeSubscriptions();
    expect(subscription).toMatchObject({
      type: REDEMPTION_ADD_TYPE,
      version: '1',
      condition: { broadcaster_user_id: bot.broadcaster.id },
      transport: { method: 'websocket', session_id: helix.eventSub.sessions[0]?.id },
      clientId: bot.clientId,
    });
    const createCall = helix.calls.find((c) => c.method === 'POST' && c.path === '/eventsub/subscriptions');
    expect(createCall?.status).toBe(202);

    const { redemption, deliveries } = helix.fireRedemption({ rewardId, user: { login: 'fan', displayName: 'Fan' }, userInput: 'neon please' });
    expect(deliveries).toHaveLength(1);
    await until(() => received.length === 1);
    const event = received[0] as EventSubChannelRedemptionAddEvent;
    expect(event.id).toBe(redemption.id);
    expect(event.rewardId).toBe(rewardId);
    expect(event.rewardTitle).toBe('Unlock neon');
    expect(event.rewardCost).toBe(500);
    expect(event.rewardPrompt).toBe('Unlocks neon');
    expect(event.userName).toBe('fan');
    expect(event.userDisplayName).toBe('Fan');
    expect(event.input).toBe('neon please');
    expect(event.status).toBe('unfulfilled');
    expect(event.broadcasterId).toBe(bot.broadcaster.id);
    expect(event.redemptionDate.toISOString()).toBe(redemption.redeemed_at);
  });

  it('survives session_reconnect without losing a notification sent before, during or after it', async () => {
    const { helix, rewardId, received } = await setUp();
    const sessionId = helix.eventSub.sessions[0]?.id;
    const subscriptionsBefore = helix.eventSub.subscriptions.length;

    helix.fireRedemption({ rewardId, user: { login: 'before' } });
    const handover = helix.eventSub.requestReconnect();
    helix.fireRedemption({ rewardId, user: { login: 'during' } });
    await handover;
    helix.fireRedemption({ rewardId, user: { login: 'after' } });

    await until(() => received.length === 3);
    expect(received.map((e) => e.userName)).toEqual(['before', 'during', 'after']);
    // Same session, same subscription: twurple must not resubscribe after a reconnect.
    expect(helix.eventSub.sessions).toHaveLength(1);
    expect(helix.eventSub.sessions[0]?.id).toBe(sessionId);
    expect(helix.eventSub.subscriptions).toHaveLength(subscriptionsBefore);
    // twurple closes the old socket itself once welcomed on the new one.
    await until(() => helix.eventSub.sessions[0]?.openSockets === 1);
  });

  it('hands duplicate deliveries to twurple, which calls the handler once', async () => {
    const { helix, rewardId, received } = await setUp();
    const { deliveries } = helix.fireRedemption({ rewardId, user: { login: 'fan' } });
    helix.eventSub.redeliver(deliveries[0]?.messageId as string);
    helix.fireRedemption({ rewardId, user: { login: 'next' } });
    await until(() => received.some((e) => e.userName === 'next'));
    expect(received.map((e) => e.userName)).toEqual(['fan', 'next']);
  });

  it('lists the subscription through Helix and deletes it when twurple stops it', async () => {
    const { helix, bot, listener } = await setUp();
    const listed = await bot.apiClient.asUser(bot.broadcaster.id, async (ctx) => ctx.eventSub.getSubscriptions());
    expect(listed.data.map((s) => [s.type, s.status, s.transportMethod])).toEqual([[REDEMPTION_ADD_TYPE, 'enabled', 'websocket']]);
    const registered = new Promise<void>((resolve) => listener.onSubscriptionCreateSuccess(() => resolve()));
    const second = listener.onChannelRedemptionAddForReward(bot.broadcaster.id, 'reward-x', () => {});
    const created = await helix.eventSub.waitForSubscription(REDEMPTION_ADD_TYPE, { since: 1 });
    expect(created.condition).toEqual({ broadcaster_user_id: bot.broadcaster.id, reward_id: 'reward-x' });
    await registered;
    second.stop();
    await helix.waitForCall((c) => c.method === 'DELETE' && c.path === '/eventsub/subscriptions' && c.status === 204);
    expect(created.deleted).toBe(true);
    expect(helix.eventSub.activeSubscriptions()).toHaveLength(1);
  });

  it('tells twurple about a revocation', async () => {
    const { helix, listener } = await setUp();
    const revoked = new Promise<string>((resolve) => listener.onRevoke((_subscription, status) => resolve(status)));
    const [subscription] = helix.eventSub.activeSubscriptions();
    helix.eventSub.revoke(subscription?.id as string, 'authorization_revoked');
    expect(await revoked).toBe('authorization_revoked');
    expect(helix.eventSub.activeSubscriptions()).toHaveLength(0);
  });

  it('after Twitch closes the session (4000) twurple opens a new session and subscribes again', async () => {
    const { helix, rewardId, received } = await setUp();
    const first = helix.eventSub.sessions[0]?.id as string;
    const mark = helix.eventSub.subscriptions.length;
    helix.eventSub.closeSession(first, EVENTSUB_CLOSE.internalServerError.code, EVENTSUB_CLOSE.internalServerError.reason);
    const again = await helix.eventSub.waitForSubscription(REDEMPTION_ADD_TYPE, { since: mark });
    expect(again.transport.session_id).not.toBe(first);
    expect(helix.eventSub.subscriptions[0]?.status).toBe('websocket_disconnected');
    helix.fireRedemption({ rewardId, user: { login: 'fan' } });
    await until(() => received.length === 1);
  });
});
