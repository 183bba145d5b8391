// Redemption benchmark: 1,000 channel-point redemptions of a skin reward through the fake EventSub
// server (real twurple clients, the real host and skin-shop plugin, the bundled service on a
// SQLite file with synchronous=FULL), with a session_reconnect every 200 redemptions, duplicate
// deliveries, and one connection dropped outright in the middle (its redemptions are found by
// listing UNFULFILLED ones). Prints redemptions per second, latency from the notification to
// FULFILLED at Twitch (p50/p99), Helix calls, and the counts of lost and duplicated effects, which
// must be 0 (the exit code says so). A baseline runs the same schedule through bare twurple (the
// listener marking each redemption FULFILLED at once: no ledger, no effect, no catch-up), and the
// ratios are printed beside it.
//
//   npm run bench:redeem
//   npm run bench:redeem -- --count 2000 --burst 100 --interval-ms 50 --timeout 180
//
// The fake's Helix rate limit is lifted (Twitch allows 800 points a minute), so the run measures
// the software; the Helix call counts show what the batching saves against that budget.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { EventSubWsListener } from '@twurple/eventsub-ws';
import { createLogger } from '../src/host/logger.ts';
import { REDEMPTION_ADD_TYPE } from '../test/fakes/fake-eventsub.ts';
import { FakeHelix } from '../test/fakes/fake-helix.ts';
import type { RedemptionJson } from '../test/fakes/fake-helix.ts';
import { QUIET_TWURPLE_LOGGER, twurpleAgainstFakes } from '../test/fakes/twurple-against-fakes.ts';
import { openRedemptionWorld } from '../test/redemptions/redemption-world.ts';

const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '1000' },
    burst: { type: 'string', default: '50' },
    'interval-ms': { type: 'string', default: '20' },
    'reconnect-every': { type: 'string', default: '200' },
    timeout: { type: 'string', default: '120' },
  },
});
const COUNT = Number(values.count);
const BURST = Number(values.burst);
const INTERVAL_MS = Number(values['interval-ms']);
const RECONNECT_EVERY = Number(values['reconnect-every']);
const TIMEOUT_MS = Number(values.timeout) * 1000;
const LIFTED_RATE_LIMIT = 1_000_000;
/** Longer than a reconnect plus a listing of UNFULFILLED redemptions takes. */
const QUIET_MS = 5000;

interface RunResult {
  name: string;
  seconds: number;
  fulfilled: number;
  lost: number;
  duplicatedEffects: number;
  duplicatedStatuses: number;
  p50: number;
  p99: number;
  helixCalls: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/**
 * Fires COUNT redemptions in bursts, a session_reconnect every RECONNECT_EVERY, a redelivery of
 * every 20th message, and one dropped connection half-way; then waits for every FULFILLED (or the
 * deadline) and measures.
 */
async function drive(name: string, helix: FakeHelix, rewardId: string, deadline: number, effects: () => Map<string, number>): Promise<RunResult> {
  const fired: RedemptionJson[] = [];
  const firedAt = new Map<string, number>();
  const callsBefore = helix.calls.length;
  const started = Date.now();
  let subscriptionsSeen = helix.eventSub.subscriptions.length;
  for (let i = 0; i < COUNT; i++) {
    if (Date.now() > deadline) break;
    if (i > 0 && i % RECONNECT_EVERY === 0) await helix.eventSub.requestReconnect();
    if (i === Math.floor(COUNT / 2) + BURST / 2) {
      // A connection lost without a reconnect message: Twitch delivers nothing meanwhile.
      helix.eventSub.dropAllConnections();
      for (let k = 0; k < 5 && i < COUNT; k++, i++) {
        const { redemption } = helix.fireRedemption({ rewardId, user: { login: `viewer${i}` } });
        fired.push(redemption);
        firedAt.set(redemption.id, Date.now());
      }
      await helix.eventSub.waitForSubscription(REDEMPTION_ADD_TYPE, { since: subscriptionsSeen, timeoutMs: Math.max(1, deadline - Date.now()) }).catch(() => {});
      subscriptionsSeen = helix.eventSub.subscriptions.length;
    }
    const { redemption, deliveries } = helix.fireRedemption({ rewardId, user: { login: `viewer${i}` } });
    fired.push(redemption);
    firedAt.set(redemption.id, Date.now());
    if (i % 20 === 0 && deliveries[0]) helix.eventSub.redeliver(deliveries[0].messageId);
    if ((i + 1) % BURST === 0) await sleep(INTERVAL_MS);
  }
  // Until every one is FULFILLED, or nothing has changed for QUIET_MS (what is left is lost).
  const pending = (): number => fired.filter((r) => r.status === 'UNFULFILLED').length;
  let seenChanges = -1;
  let quietSince = Date.now();
  while (pending() > 0 && Date.now() < deadline && Date.now() - quietSince < QUIET_MS) {
    if (helix.redemptionChanges.length !== seenChanges) {
      seenChanges = helix.redemptionChanges.length;
      quietSince = Date.now();
    }
    await sleep(20);
  }
  const lastAt = Math.max(...helix.redemptionChanges.map((c) => c.at));
  const changes = new Map<string, number>();
  const latencies: number[] = [];
  for (const change of helix.redemptionChanges) {
    changes.set(change.redemptionId, (changes.get(change.redemptionId) ?? 0) + 1);
    const at = firedAt.get(change.redemptionId);
    if (at !== undefined && change.to === 'FULFILLED') latencies.push(change.at - at);
  }
  latencies.sort((a, b) => a - b);
  const effectCounts = effects();
  return {
    name,
    seconds: (lastAt - started) / 1000,
    fulfilled: fired.filter((r) => r.status === 'FULFILLED').length,
    lost: fired.filter((r) => r.status !== 'FULFILLED').length,
    duplicatedEffects: [...effectCounts.values()].filter((n) => n > 1).length,
    duplicatedStatuses: [...changes.values()].filter((n) => n > 1).length,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    helixCalls: helix.calls.length - callsBefore,
  };
}

async function runChatskin(deadline: number): Promise<RunResult> {
  const logger = createLogger({ level: (process.env.REDEEM_LOG_LEVEL ?? 'warn') as 'warn', destination: process.stderr });
  const world = await openRedemptionWorld({
    helix: { rateLimitPerMinute: LIFTED_RATE_LIMIT },
    rewards: { 'unlock-neon': { title: 'Unlock the Neon skin', cost: 500 } },
    skinShop: { rewards: { 'unlock-neon': 'neon' } },
    logger,
  });
  try {
    await world.start();
    await world.settled();
    const rewardId = await world.rewardId('unlock-neon');
    return await drive('chatskin (ledger + skin-shop unlock)', world.helix, rewardId, deadline, () => {
      const perViewer = new Map<string, number>();
      for (const call of world.unlocks) perViewer.set(call.viewerId, (perViewer.get(call.viewerId) ?? 0) + 1);
      return perViewer;
    });
  } finally {
    await world.close();
  }
}

async function runBareTwurple(deadline: number): Promise<RunResult> {
  const dir = mkdtempSync(path.join(tmpdir(), 'chatskin-redeem-bench-'));
  const helix = await FakeHelix.start({ rateLimitPerMinute: LIFTED_RATE_LIMIT });
  const bot = twurpleAgainstFakes(helix, { login: 'benchchannel' });
  const reward = helix.createReward(bot.broadcaster.id, { title: 'Bench', cost: 1 }, bot.clientId);
  const handled = new Map<string, number>();
  const listener = new EventSubWsListener({ apiClient: bot.apiClient, logger: QUIET_TWURPLE_LOGGER });
  listener.onChannelRedemptionAdd(bot.broadcaster.id, (event) => {
    handled.set(event.id, (handled.get(event.id) ?? 0) + 1);
    void bot.apiClient.channelPoints.updateRedemptionStatusByIds(event.broadcasterId, event.rewardId, [event.id], 'FULFILLED').catch(() => {});
  });
  try {
    listener.start();
    await helix.eventSub.waitForSubscription(REDEMPTION_ADD_TYPE, { userId: bot.broadcaster.id });
    return await drive('bare twurple (no ledger, no effect, no catch-up)', helix, reward.id, deadline, () => handled);
  } finally {
    listener.stop();
    await helix.close();
    bot.restoreEnv();
    rmSync(dir, { recursive: true, force: true });
  }
}

function line(result: RunResult): string {
  const perSecond = result.fulfilled / result.seconds;
  return [
    `${result.name}`,
    `  ${result.fulfilled}/${COUNT} fulfilled in ${result.seconds.toFixed(2)} s = ${perSecond.toFixed(0)} redemptions/s`,
    `  notification -> FULFILLED: p50 ${result.p50} ms, p99 ${result.p99} ms`,
    `  Helix calls: ${result.helixCalls}`,
    `  lost: ${result.lost}, duplicated effects: ${result.duplicatedEffects}, duplicated statuses: ${result.duplicatedStatuses}`,
  ].join('\n');
}

async function main(): Promise<number> {
  const deadline = Date.now() + TIMEOUT_MS;
  process.stdout.write(`redeem bench: ${COUNT} redemptions, bursts of ${BURST} every ${INTERVAL_MS} ms, `
    + `session_reconnect every ${RECONNECT_EVERY}, one dropped connection, every 20th message delivered twice\n\n`);
  const chatskin = await runChatskin(deadline);
  process.stdout.write(`${line(chatskin)}\n\n`);
  const bare = await runBareTwurple(deadline);
  process.stdout.write(`${line(bare)}\n\n`);
  const ratio = (a: number, b: number) => (b > 0 ? (a / b).toFixed(2) : 'n/a');
  process.stdout.write([
    'chatskin / bare twurple:',
    `  throughput ${ratio(chatskin.fulfilled / chatskin.seconds, bare.fulfilled / bare.seconds)}x`,
    `  p50 latency ${ratio(chatskin.p50, bare.p50)}x, p99 latency ${ratio(chatskin.p99, bare.p99)}x`,
    `  Helix calls ${ratio(chatskin.helixCalls, bare.helixCalls)}x`,
    `  lost ${chatskin.lost} vs ${bare.lost} (the bare listener has no catch-up after the dropped connection)`,
  ].join('\n') + '\n');
  if (Date.now() > deadline) {
    process.stdout.write(`\nFAILED: the run did not finish within ${TIMEOUT_MS / 1000} s\n`);
    return 1;
  }
  const ok = chatskin.lost === 0 && chatskin.duplicatedEffects === 0 && chatskin.duplicatedStatuses === 0;
  process.stdout.write(ok ? '\nOK: no lost and no duplicated effects\n' : '\nFAILED: lost or duplicated effects\n');
  return ok ? 0 : 1;
}

const watchdog = setTimeout(() => {
  process.stdout.write(`\nFAILED: gave up after ${TIMEOUT_MS / 1000 + 30} s\n`);
  process.exit(1);
}, TIMEOUT_MS + 30_000);
// twurple's own message-id timers (10 minutes, in the bare run) would hold the process: exit explicitly.
main().then((code) => {
  clearTimeout(watchdog);
  process.exit(code);
}, (error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
