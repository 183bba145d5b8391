// A model-based property test of the Twitch chat connection's lifecycle, written from docs/chat.md
// (What it does, Reconnecting): the real tmi.js against FakeTwitchIrc, with generated schedules of
// faults and events over 1-3 channels (drops, RECONNECT, refused connections, a login never
// answered, a token refused for good, a channel's join refused, Twitch parting the bot, the bot
// banned and unbanned, chat, replies, quiet spells) on short back-off settings. Checked throughout
// and at the end: the states reported follow the documented machine (final stays final), the
// reconnect and rejoin waits keep to the back-off, every channel the server accepts is joined again
// and its chat reaches the listeners exactly once, replies wait through an outage and are sent
// once, and stop() leaves no connection or timer behind.
// CHAT_LIFECYCLE_RUNS raises the run count; CHAT_LIFECYCLE_SEED (and _PATH) replays one.
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { createTwitchChatTransport } from '../../../src/adapters/twitch-chat/twitch-chat-transport.ts';
import type { TwitchChatState, TwitchChatStateChange, TwitchChatTransport } from '../../../src/adapters/twitch-chat/twitch-chat-transport.ts';
import { createReplyQueue } from '../../../src/host/reply-queue.ts';
import type { ReplyQueue } from '../../../src/host/reply-queue.ts';
import { systemClock } from '../../../src/host/clock.ts';
import { FakeTwitchIrc } from '../../fakes/fake-twitch-irc.ts';
import { captureLogs, LEVEL } from '../../host/log-capture.ts';

const RUNS = Number(process.env.CHAT_LIFECYCLE_RUNS ?? 12);
const BOT = 'chatskinbot';
const TOKEN = 'goodtoken';
const ALL_CHANNELS = ['alpha', 'bravo', 'charlie'] as const;
const BACKOFF = { initialDelayMs: 40, maxDelayMs: 160, factor: 2, jitter: 0.2 };
const LOGIN_TIMEOUT_MS = 150;
/** tmi.js joins at least 300 ms apart, whatever it is given. */
const JOIN_INTERVAL_MS = 300;
/** Slack for timers and loopback. */
const SLACK_MS = 25;

type Step =
  | { kind: 'drop' }
  | { kind: 'reconnect' }
  | { kind: 'refuse'; ms: number }
  | { kind: 'hang'; ms: number }
  | { kind: 'deaf' }
  | { kind: 'revoke' }
  | { kind: 'suspend'; channel: number }
  | { kind: 'unsuspend'; channel: number }
  | { kind: 'part'; channel: number }
  | { kind: 'ban'; channel: number }
  | { kind: 'unban'; channel: number }
  | { kind: 'chat'; channel: number }
  | { kind: 'say'; channel: number; lines: number }
  | { kind: 'pause'; ms: number };

const channelIndex = fc.nat({ max: 2 });
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ kind: 'drop' } as const) },
  { weight: 2, arbitrary: fc.constant({ kind: 'reconnect' } as const) },
  { weight: 2, arbitrary: fc.integer({ min: 30, max: 300 }).map((ms) => ({ kind: 'refuse', ms }) as const) },
  { weight: 1, arbitrary: fc.integer({ min: LOGIN_TIMEOUT_MS + 50, max: 400 }).map((ms) => ({ kind: 'hang', ms }) as const) },
  { weight: 1, arbitrary: fc.constant({ kind: 'revoke' } as const) },
  { weight: 1, arbitrary: fc.constant({ kind: 'deaf' } as const) },
  { weight: 2, arbitrary: channelIndex.map((channel) => ({ kind: 'suspend', channel }) as const) },
  { weight: 2, arbitrary: channelIndex.map((channel) => ({ kind: 'unsuspend', channel }) as const) },
  { weight: 2, arbitrary: channelIndex.map((channel) => ({ kind: 'part', channel }) as const) },
  { weight: 1, arbitrary: channelIndex.map((channel) => ({ kind: 'ban', channel }) as const) },
  { weight: 1, arbitrary: channelIndex.map((channel) => ({ kind: 'unban', channel }) as const) },
  { weight: 3, arbitrary: channelIndex.map((channel) => ({ kind: 'chat', channel }) as const) },
  { weight: 3, arbitrary: fc.record({ channel: channelIndex, lines: fc.integer({ min: 1, max: 3 }) }).map((s) => ({ kind: 'say', ...s }) as const) },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 250 }).map((ms) => ({ kind: 'pause', ms }) as const) },
);
const scenario = fc.record({
  channels: fc.integer({ min: 1, max: 3 }),
  steps: fc.array(step, { minLength: 1, maxLength: 8 }),
  /** stop() right after the last step, with its faults still on (a back-off, a hung login, a lost network). */
  abrupt: fc.boolean(),
});

/** docs/chat.md, For developers: the states and the changes between them. */
const ALLOWED: Record<TwitchChatState, readonly TwitchChatState[]> = {
  disconnected: ['connecting'],
  connecting: ['connected', 'reconnecting', 'disconnected'],
  connected: ['reconnecting', 'disconnected'],
  reconnecting: ['connected', 'disconnected'],
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(what: string, condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

const timeouts = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
const sockets = () => process.getActiveResourcesInfo().filter((kind) => kind === 'TCPSocketWrap').length;

let irc: FakeTwitchIrc | null = null;
let transport: TwitchChatTransport | null = null;
let queue: ReplyQueue | null = null;

afterEach(async () => {
  queue?.stop();
  await transport?.stop();
  await irc?.close();
  irc = null;
  transport = null;
  queue = null;
});

async function play({ channels: count, steps, abrupt }: { channels: number; steps: Step[]; abrupt: boolean }): Promise<void> {
  const t0 = Date.now();
  const phase = (what: string) => { if (process.env.CHAT_LIFECYCLE_DEBUG) console.log(what, Date.now() - t0); };
  const channels = ALL_CHANNELS.slice(0, count);
  const timersBefore = timeouts();
  const socketsBefore = sockets();
  let revoked = false;
  const fake = irc = await FakeTwitchIrc.start({
    acceptToken: (token) => !(revoked && token === TOKEN),
    userBadges: (login): Record<string, string> => (login === BOT ? { moderator: '1' } : {}),
  });
  const logs = captureLogs([TOKEN]);
  const chat = transport = createTwitchChatTransport({
    channels: [...channels],
    identity: { login: BOT, token: `oauth:${TOKEN}` },
    reconnect: BACKOFF,
    loginTimeoutMs: LOGIN_TIMEOUT_MS,
    stableAfterMs: 300,
    joinWatchMs: 150,
    joinIntervalMs: JOIN_INTERVAL_MS,
    sendTimeoutMs: 5_000,
    pingIntervalMs: 100,
    pingTimeoutMs: 100,
    server: { host: '127.0.0.1', port: fake.port, secure: false },
  }, logs.logger);
  const replies = queue = createReplyQueue({ transport: chat, clock: systemClock, logger: logs.logger });
  const changes: Array<TwitchChatStateChange & { at: number }> = [];
  const problems: string[] = [];
  let final = false;
  chat.onStateChange((change) => {
    if (final) problems.push(`a change after the final state: ${change.previous} -> ${change.state}`);
    if (!ALLOWED[change.previous].includes(change.state)) problems.push(`impossible change ${change.previous} -> ${change.state} (${change.reason})`);
    if (changes.length > 0 && changes.at(-1)!.state !== change.previous) problems.push(`change from ${change.previous}, last reported ${changes.at(-1)!.state}`);
    if (change.state !== chat.state) problems.push(`reported ${change.state} while state is ${chat.state}`);
    changes.push({ ...change, at: Date.now() });
  });
  const received = new Map<string, number>();
  const refusedLost = new Set<string>();
  chat.subscribe((event) => {
    if (event.type === 'message' && !event.self) {
      const id = String(event.tags.id);
      received.set(id, (received.get(id) ?? 0) + 1);
    }
    if (event.type === 'userstate') replies.setBotState(event.channel, event.tags);
    if (event.type === 'room-state') replies.setSlowMode(event.channel, event.slowSeconds);
    if (event.type === 'line-refused') {
      if (event.reason === 'connection lost') refusedLost.add(event.text);
      replies.refused(event.channel, event.text, event.reason, event.remedy);
    }
  });
  const chatSent: Array<{ id: string; channel: string; delivered: number }> = [];
  const said: Array<{ channel: string; text: string; outcome: Promise<{ status: string }> }> = [];
  const everBanned = new Set<string>();
  let lineNumber = 0;

  const botConnectionsIn = (channel: string) => fake.connections.filter((c) => c.login === BOT && c.loggedIn && c.channels.includes(`#${channel}`)).length;
  const finalNow = () => revoked && chat.state === 'disconnected' && chat.lastError !== null;

  const starting = chat.start().then(() => null, (error: unknown) => error as Error);
  await until('the first login', () => chat.state === 'connected' || chat.state === 'disconnected');

  for (const s of steps) {
    const name = s.kind === 'say' || s.kind === 'chat' || 'channel' in s ? channels[(s as { channel: number }).channel % channels.length]! : '';
    switch (s.kind) {
      case 'drop':
        fake.dropAllConnections();
        break;
      case 'reconnect':
        fake.sendReconnect();
        break;
      case 'refuse':
        fake.refuseConnections = true;
        fake.dropAllConnections();
        await sleep(s.ms);
        fake.refuseConnections = false;
        break;
      case 'hang':
        fake.silent = true;
        fake.dropAllConnections();
        await sleep(s.ms);
        fake.silent = false;
        break;
      case 'revoke':
        revoked = true;
        break;
      case 'deaf':
        // The network to the open connections goes away: nothing passes, nothing closes.
        fake.loseNetwork();
        break;
      case 'suspend':
        fake.suspendedChannels.add(name);
        break;
      case 'unsuspend':
        fake.suspendedChannels.delete(name);
        break;
      case 'part':
        fake.partChannel(name, BOT);
        break;
      case 'ban':
        everBanned.add(name);
        fake.bannedIn.add(name);
        fake.banUser(name, { login: BOT });
        break;
      case 'unban':
        fake.bannedIn.delete(name);
        break;
      case 'chat': {
        const delivered = botConnectionsIn(name);
        if (delivered > 1) problems.push(`${delivered} connections of the bot in #${name} at once`);
        chatSent.push({ id: fake.sendPrivmsg(name, { login: 'viewer_val' }, `hello ${chatSent.length}`).id, channel: name, delivered });
        break;
      }
      case 'say':
        for (let i = 0; i < s.lines; i++) {
          const text = `line ${++lineNumber}`;
          said.push({ channel: name, text, outcome: replies.enqueue(name, text) });
        }
        break;
      case 'pause':
        await sleep(s.ms);
        break;
    }
    if (finalNow()) final = true;
    await sleep(5);
    expect(problems).toEqual([]);
  }

  phase('steps done');
  if (abrupt) {
    replies.stop();
    await chat.stop();
    expect(chat.state).toBe('disconnected');
    expect(await starting === null || (await starting) instanceof Error).toBe(true);
  }
  // Heal: the server accepts everything again (but a revoked token).
  fake.suspendedChannels.clear();
  fake.bannedIn.clear();
  fake.silent = false;
  fake.refuseConnections = false;
  if (abrupt) {
    // Stopped: nothing more comes.
  } else if (revoked) {
    // A refused token is final once a login is tried: make sure one is.
    fake.dropAllConnections();
    await until('the refused login', () => chat.state === 'disconnected', 3_000);
    expect(chat.lastError).toMatch(/Twitch refused the bot's login as chatskinbot/);
    const attempts = fake.connectionAttempts.length;
    await sleep(BACKOFF.maxDelayMs * 2);
    expect(fake.connectionAttempts.length, 'no attempt after a refused fixed token').toBe(attempts);
    expect(chat.state).toBe('disconnected');
  } else {
    // Every configured channel is joined again, on one connection, and its chat arrives once.
    await until(`every channel joined (state ${chat.state}, joined ${chat.joinedChannels.join(',')})`,
      () => chat.state === 'connected' && channels.every((channel) => chat.joinedChannels.includes(channel) && botConnectionsIn(channel) === 1), 5_000);
    expect(await starting).toBeNull();
    for (const channel of channels) {
      chatSent.push({ id: fake.sendPrivmsg(channel, { login: 'viewer_val' }, `after all ${channel}`).id, channel, delivered: 1 });
      said.push({ channel, text: `line ${++lineNumber}`, outcome: replies.enqueue(channel, `line ${lineNumber}`) });
    }
    const lastChat = chatSent.slice(-channels.length);
    await until('the last chat lines', () => lastChat.every(({ id }) => received.get(id) === 1), 3_000);
  }

  phase('healed');
  // Chat: never twice; exactly once where a connection of the bot was in the channel at the end.
  for (const { id, delivered } of chatSent) {
    expect(received.get(id) ?? 0, `chat ${id}`).toBeLessThanOrEqual(Math.min(1, delivered));
  }
  // Replies: each settles; one sent reached the channel (twice only where its answer was lost with a connection, which docs/chat.md allows where the bot is a moderator).
  const outcomes = await Promise.all(said.map((line) => line.outcome));
  const deliveredOf = (text: string) => fake.privmsgs.filter((m) => m.text === text && m.refused === null && m.joined).length;
  // The queue's 'sent' is the line handed to the chat; Twitch's answer (or a lost connection's re-send) comes after.
  const due = said.filter((line, index) => !abrupt && !revoked && !everBanned.has(line.channel) && outcomes[index]!.status === 'sent');
  await until(`the replies delivered (${due.filter((line) => deliveredOf(line.text) === 0).map((line) => line.text).join(', ')} not)`,
    () => due.every((line) => deliveredOf(line.text) >= 1), 5_000).catch((error: Error) => problems.push(error.message));
  said.forEach((line, index) => {
    const outcome = outcomes[index]!;
    const delivered = deliveredOf(line.text);
    expect(delivered, `${line.text} (${outcome.status}) delivered`).toBeLessThanOrEqual(refusedLost.has(line.text) ? 2 : 1);
    // Only a ban or a token refused for good may stop a line that waited through an outage.
    if (outcome.status !== 'sent' && !abrupt && !revoked && !everBanned.has(line.channel)) problems.push(`${line.text} to #${line.channel}: ${JSON.stringify(outcome)}`);
  });
  // A line Twitch refused for a ban is not sent again (docs/chat.md, What it does).
  for (const line of said) {
    const records = fake.privmsgs.filter((m) => m.text === line.text);
    const banned = records.findIndex((m) => m.refused === 'msg_banned');
    if (banned >= 0 && banned < records.length - 1) problems.push(`${line.text} sent again after msg_banned`);
    if (records.length > 3) problems.push(`${line.text} sent ${records.length} times`);
  }
  expect(problems).toEqual([]);

  phase('replies');
  // The back-off (docs/chat.md, Reconnecting): each wait within its bounds, and the next attempt not before it.
  for (const entry of logs.entries) {
    if (entry.level !== LEVEL.warn) continue;
    const lost = entry.msg?.startsWith('Twitch chat connection lost');
    const rejoin = entry.msg?.startsWith('Twitch chat is not in #');
    if (!lost && !rejoin) continue;
    const attempt = entry.attempt as number;
    const delayMs = entry.delayMs as number;
    const base = Math.min(BACKOFF.maxDelayMs, BACKOFF.initialDelayMs * BACKOFF.factor ** (attempt - 1));
    expect(delayMs, entry.msg).toBeGreaterThanOrEqual(Math.floor(base * (1 - BACKOFF.jitter)));
    expect(delayMs, entry.msg).toBeLessThanOrEqual(Math.min(BACKOFF.maxDelayMs, Math.ceil(base * (1 + BACKOFF.jitter))));
    if (lost) {
      const at = entry.time as number;
      const next = fake.connectionAttempts.find((t) => t > at);
      if (next !== undefined) expect(next - at, `${entry.msg}: the next attempt came early`).toBeGreaterThanOrEqual(delayMs - SLACK_MS);
    }
  }
  // A channel's JOINs on one connection keep at least the first delay apart (a refused or parted
  // one's rejoins), and a login joins each channel once.
  const joinsSent = fake.sent.filter((line) => line.message.command === 'JOIN');
  for (const channel of channels) {
    const byConnection = new Map<number, number[]>();
    for (const line of joinsSent) {
      if (!line.message.params[0]?.split(',').includes(`#${channel}`)) continue;
      byConnection.set(line.connectionId, [...(byConnection.get(line.connectionId) ?? []), line.at]);
    }
    for (const times of byConnection.values()) {
      for (let i = 1; i < times.length; i++) {
        expect(times[i]! - times[i - 1]!, `JOINs of #${channel} on one connection`).toBeGreaterThanOrEqual(BACKOFF.initialDelayMs * (1 - BACKOFF.jitter) - SLACK_MS);
      }
    }
  }

  // stop() ends everything: no connection left, no attempt later, no timer of its own.
  replies.stop();
  phase('stopping');
  await chat.stop();
  phase('stopped');
  expect(chat.state).toBe('disconnected');
  const attempts = fake.connectionAttempts.length;
  // Both ends of each connection are in this process. Only those whose network was lost may stay
  // open: the fake never reads their close, and Node's WebSocket waits for its answer until TCP
  // gives up (docs/chat.md, For developers); every other one closes, at both ends.
  await until(`the connections closed (${sockets() - socketsBefore} sockets, ${JSON.stringify(fake.connections)} at the fake)`, () => {
    const open = fake.connections;
    return open.every((c) => c.lost) && sockets() - socketsBefore <= 2 * open.length;
  }, 3_000);
  await sleep(BACKOFF.maxDelayMs * 2);
  expect(fake.connectionAttempts.length, 'no attempt after stop()').toBe(attempts);
  expect(problems).toEqual([]);
  await fake.close();
  irc = null;
  transport = null;
  queue = null;
  phase('closed');
  await until(`the timers gone (${timeouts()} now, ${timersBefore} before)`, () => timeouts() <= timersBefore, 3_000);
  phase('end');
}

describe('Twitch chat lifecycle against the fake Twitch IRC (docs/chat.md), on generated schedules of faults', () => {
  it('keeps the documented states, back-off, rejoins, exactly-once chat and replies, and stops clean', async () => {
    await fc.assert(fc.asyncProperty(scenario, play), {
      numRuns: RUNS,
      ...(process.env.CHAT_LIFECYCLE_SEED ? { seed: Number(process.env.CHAT_LIFECYCLE_SEED), path: process.env.CHAT_LIFECYCLE_PATH, endOnFailure: true } : {}),
    });
  }, 600_000);
});
