// Channel-point redemptions are handled exactly once when the host process is killed outright
// (SIGKILL: no shutdown step runs) at the worst moments, and started again on the same database:
// the real `chatskin start` in a child process, with the built-in skin-shop mapping a reward to the
// Neon skin, against FakeHelix (Helix, id.twitch.tv and the EventSub WebSocket, in this process:
// `twitch.helix.mockServerPort`) and the fake Twitch chat. Five runs of the host:
//
//   1. killed while notifications arrive: a burst is under way (the first status Twitch took is
//      the signal), and more redemptions are made while it is down (found by the listing);
//   2. killed right after an effect, before the ledger records it: a trigger the test puts in the
//      database stalls that one ledger write (`received` -> `effect-done`) after the grant is
//      committed; the kill comes once the grant is there (notifications sent meanwhile are in the
//      dead process's socket);
//   3. killed right after the effect was recorded, its status on its way: Twitch never gets the
//      status call (FakeHelix.stallNext);
//   4. started with Twitch refusing the statuses owed once (so the listing finds those redemptions
//      UNFULFILLED with their effect recorded, and sends only the status), then killed right after
//      a status call Twitch took, before its answer (FakeHelix.holdNext);
//   5. runs to the end, then stops cleanly.
//
// In the end every redemption has exactly one grant (read through the API) and one final status on
// Twitch (a single change, by the host), FULFILLED, or CANCELED for a viewer who already held the
// skin; the ledger has it settled, and its handler ran again only when a kill caught it `received`.
// The viewer's chat line (the handler's reply, said once Twitch has the status) is never said twice;
// one whose status a kill left owed (runs 3 and 4) is said by the next run, from the ledger.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTokenFile } from '../../src/adapters/twitch-auth/token-file.ts';
import { createStyleService } from '../../src/service/style-service.ts';
import { DEFAULT_TEMPLATES_DIR, loadTemplates } from '../../src/service/settings/templates.ts';
import { openSqliteStore } from '../../src/service/store/sqlite-store.ts';
import { REDEMPTION_ADD_TYPE } from '../fakes/fake-eventsub.ts';
import { FakeHelix } from '../fakes/fake-helix.ts';
import type { HelixCall, RedemptionJson } from '../fakes/fake-helix.ts';
import { FakeTwitchIrc } from '../fakes/fake-twitch-irc.ts';
import { CLIENT_HEADERS, runCli, startHost } from './cli-process.ts';
import type { RunningHost } from './cli-process.ts';

const CLIENT_ID = 'chatskinclientid';
const CLIENT_SECRET = 'chatskinclientsecret';
const SCOPES = ['channel:read:redemptions', 'channel:manage:redemptions'];
const STATUS_PATH = '/channel_points/custom_rewards/redemptions';
const NEON_TITLE = 'Unlock the Neon skin';
/** Viewers who hold Neon before they redeem it: their redemptions are refunded (the effect really fails). */
const HOLDERS = [{ login: 'holder_one', id: '7001' }, { login: 'holder_two', id: '7002' }];

interface LedgerRow {
  id: string;
  status: string;
  outcome: string | null;
  attempts: number;
}

interface LogLine {
  msg?: string;
  redemption?: string;
  attempt?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

describe('chatskin start killed with SIGKILL while it handles channel-point redemptions', () => {
  let helix: FakeHelix;
  let irc: FakeTwitchIrc;
  let dir: string;
  let config: string;
  let database: string;
  let host: RunningHost | undefined;
  /** Every line the hosts wrote to stderr (JSON log lines), run after run. */
  const logs: string[] = [];

  beforeAll(async () => {
    helix = await FakeHelix.start();
    irc = await FakeTwitchIrc.start();
    helix.registerClient(CLIENT_ID, CLIENT_SECRET);
    const broadcaster = helix.addUser({ login: 'alice' });
    const token = helix.issueUserToken({ clientId: CLIENT_ID, userId: broadcaster.id, scopes: SCOPES });
    dir = mkdtempSync(join(tmpdir(), 'chatskin-killed-redemptions-'));
    database = join(dir, 'db.sqlite');
    const tokenFile = join(dir, 'twitch', 'broadcaster-token.json');
    await writeTokenFile(tokenFile, {
      version: 1, clientId: CLIENT_ID, userId: broadcaster.id, login: 'alice', accessToken: token.accessToken,
      refreshToken: token.refreshToken!, scope: token.scope, expiresIn: token.expiresIn, obtainmentTimestamp: token.obtainmentTimestamp,
    });
    config = join(dir, 'config.yaml');
    writeFileSync(config, JSON.stringify({
      http: { host: '127.0.0.1', port: 0 },
      store: { path: database },
      channel: { login: 'alice' },
      localChat: { enabled: false },
      // The grants of every viewer are read through the API at the end.
      api: { rateLimit: { perMinute: 1000 } },
      log: { level: 'info' },
      twitch: {
        enabled: true, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET,
        bot: { login: 'chatskinbot', token: 'oauth:testtoken' },
        chat: irc.tmiConnection,
        // The fixed bot token is checked at start and hourly (id.twitch.tv's /validate): here, not at FakeHelix, which never issued it.
        oauth: { url: irc.oauthUrl },
        helix: { mockServerPort: helix.port },
        broadcaster: { tokenFile },
        // Only the start's and the subscription's listings: no timer finds anything behind the test's back.
        redemptions: { reconcileIntervalSeconds: 3600 },
        rewards: { 'unlock-neon': { title: NEON_TITLE, cost: 500 } },
      },
      plugins: { 'skin-shop': { rewards: { 'unlock-neon': 'neon' }, retryDelayMs: 0 } },
    }));
  });

  afterAll(async () => {
    if (host?.child.exitCode === null && host.child.signalCode === null) await host.stop('SIGKILL');
    await irc?.close();
    await helix?.close();
  });

  /** A fresh connection for each look (the host's own stays its own), closed at once. */
  function withDatabase<T>(use: (db: DatabaseSync) => T): T {
    const db = new DatabaseSync(database);
    try {
      return use(db);
    } finally {
      db.close();
    }
  }

  const ledger = (): Map<string, LedgerRow> => withDatabase((db) => new Map(
    (db.prepare('SELECT id, status, outcome, attempts FROM processed_redemptions').all() as unknown as LedgerRow[])
      .map((row) => [row.id, { ...row }])));

  const holdsNeon = (login: string): boolean => withDatabase((db) => db.prepare(
    `SELECT 1 FROM entitlements e JOIN viewers v ON v.id = e.viewer_id JOIN skins s ON s.id = e.skin_id
     WHERE v.twitch_username = ? AND s.slug = 'neon'`).get(login) !== undefined);

  async function start(): Promise<RunningHost> {
    const since = helix.eventSub.subscriptions.length;
    const running = await startHost(config, { cwd: dir });
    host = running;
    // Subscribed: notifications reach it from now on.
    await helix.eventSub.waitForSubscription(REDEMPTION_ADD_TYPE, { since, timeoutMs: 15_000 });
    return running;
  }

  /** SIGKILL; the host's log lines are kept, and the ledger as the kill left it is returned. */
  async function kill(running: RunningHost): Promise<Map<string, LedgerRow>> {
    const exited = running.stop('SIGKILL');
    expect(await exited).toBeNull();
    expect(running.child.signalCode).toBe('SIGKILL');
    logs.push(...running.stderr().split('\n').filter((line) => line.length > 0));
    return ledger();
  }

  /** Every redemption made so far has left UNFULFILLED on Twitch, and the ledger owes nothing. */
  async function settled(fired: RedemptionJson[]): Promise<void> {
    await until(() => fired.every((r) => r.status !== 'UNFULFILLED'), 'every redemption to be resolved on Twitch');
    await until(() => [...ledger().values()].every((row) => row.status === 'status-sent'), 'the ledger to owe nothing');
  }

  /** The bot's chat lines to a redemption's viewer (skin-shop's reply starts with `@<display name> `). */
  const linesTo = (redemption: RedemptionJson): string[] => irc.privmsgs
    .filter((message) => message.text.startsWith(`@${redemption.user_name} `)).map((message) => message.text);

  let viewerNumber = 0;
  function redeem(rewardId: string, fired: RedemptionJson[], user?: { login: string; id: string }): RedemptionJson {
    viewerNumber++;
    const { redemption } = helix.fireRedemption({ rewardId, user: user ?? { login: `viewer_${viewerNumber}` } });
    fired.push(redemption);
    return redemption;
  }

  it('gives every redemption one unlock and one final status, none lost, none run twice', { timeout: 60_000 }, async () => {
    writeFileSync(join(dir, 'fixture.yaml'), JSON.stringify({
      accounts: [{
        login: 'alice', premium: true,
        overlays: [{ name: 'Main', template: 'bubbles', default: true }],
        skins: [{ slug: 'neon', name: 'Neon', template: 'bubbles', availability: 'purchase', values: { 'bubble.background-color': '#ff00ff' } }],
      }],
      viewers: HOLDERS.map((holder) => ({ twitch_user_id: holder.id, twitch_username: holder.login })),
      grants: HOLDERS.map((holder) => ({ account: 'alice', viewer: holder.login, skin: 'neon' })),
    }));
    const seed = await runCli(['seed', join(dir, 'fixture.yaml'), '--config', config]);
    expect(seed.code, seed.stderr).toBe(0);
    const neon = (JSON.parse(seed.stdout) as { accounts: Record<string, { skins: Record<string, number> }> }).accounts.alice!.skins.neon!;
    const key = await runCli(['keys', 'create', 'alice', '--config', config]);
    expect(key.code, key.stderr).toBe(0);
    const headers = { ...CLIENT_HEADERS, authorization: `Bearer ${key.stdout.trimEnd().split('\n').at(-1)!}` };

    const fired: RedemptionJson[] = [];
    /** Redemptions a kill caught `received` (their handler may run again), with how many times. */
    const caughtReceived = new Map<string, number>();
    const noteReceived = (snapshot: Map<string, LedgerRow>): void => {
      for (const row of snapshot.values()) if (row.status === 'received') caughtReceived.set(row.id, (caughtReceived.get(row.id) ?? 0) + 1);
    };

    // ---- 1. Killed while notifications arrive. -------------------------------------------------
    let running = await start();
    const rewardId = helix.rewards.find((reward) => reward.json.title === NEON_TITLE)!.json.id;
    const firstStatus = helix.waitForCall((call) => call.method === 'PATCH' && call.path === STATUS_PATH && call.status === 200,
      { since: helix.calls.length, timeoutMs: 15_000 });
    for (let i = 0; i < 12; i++) redeem(rewardId, fired);
    redeem(rewardId, fired, HOLDERS[0]);
    // The stream goes on, every few milliseconds, through the kill and while the host is down.
    const stream = (async () => {
      for (let i = 0; i < 10; i++) {
        await sleep(4);
        redeem(rewardId, fired);
      }
    })();
    await firstStatus;
    const afterRun1 = await kill(running);
    await stream;
    noteReceived(afterRun1);
    // Made while it is down: Twitch has no session to send them to.
    for (let i = 0; i < 3; i++) redeem(rewardId, fired);
    // Left behind: effects recorded with their status owed, and redemptions it never heard of.
    expect([...afterRun1.values()].some((row) => row.status === 'effect-done')).toBe(true);
    expect(fired.filter((r) => !afterRun1.has(r.id)).length).toBeGreaterThanOrEqual(3);

    // ---- 2. Killed right after an effect, before the ledger records it. ------------------------
    const victimId = 'redemption-killed-after-its-unlock';
    withDatabase((db) => db.exec(`CREATE TRIGGER test_stall_after_effect BEFORE UPDATE OF status ON processed_redemptions
      WHEN NEW.id = '${victimId}' AND NEW.status = 'effect-done'
      BEGIN SELECT count(*) FROM sqlite_master a, sqlite_master b, sqlite_master c, sqlite_master d, sqlite_master e, sqlite_master f; END`));
    running = await start();
    await settled(fired);
    const victim = helix.fireRedemption({ rewardId, id: victimId, user: { login: 'victim' } }).redemption;
    fired.push(victim);
    // The grant is committed; the ledger's next write is stalled (the host's thread with it).
    await until(() => holdsNeon('victim'), 'the victim\'s grant');
    // Twitch delivers these to the stalled process: they are in its socket when it dies.
    for (let i = 0; i < 3; i++) redeem(rewardId, fired);
    const afterRun2 = await kill(running);
    noteReceived(afterRun2);
    expect(afterRun2.get(victimId)).toMatchObject({ status: 'received', attempts: 1 });
    expect(holdsNeon('victim')).toBe(true);
    withDatabase((db) => db.exec('DROP TRIGGER test_stall_after_effect'));

    // ---- 3. Killed right after the effect was recorded, its status call never reaching Twitch. --
    running = await start();
    await settled(fired);
    const stalled = helix.stallNext({ method: 'PATCH', path: STATUS_PATH });
    const run3 = Array.from({ length: 6 }, () => redeem(rewardId, fired));
    const lostCall: HelixCall = await stalled;
    const afterRun3 = await kill(running);
    noteReceived(afterRun3);
    const lostIds = lostCall.query['id'] ?? [];
    expect(lostIds.length).toBeGreaterThan(0);
    for (const id of lostIds) {
      expect(afterRun3.get(id)).toMatchObject({ status: 'effect-done', outcome: 'fulfill' });
      expect(fired.find((r) => r.id === id)?.status).toBe('UNFULFILLED');
    }
    expect(run3.map((r) => r.id)).toEqual(expect.arrayContaining(lostIds));

    // ---- 4. Killed right after a status call Twitch took, before its answer. -------------------
    // At the start, Twitch refuses the statuses owed: the listing then finds those redemptions
    // still UNFULFILLED with their effect recorded, and sends only their status.
    helix.failNext({ status: 400, method: 'PATCH', path: STATUS_PATH, message: 'not this time' });
    running = await start();
    await settled(fired);
    const run4Lines = (): LogLine[] => running.stderr().split('\n').filter((line) => line.length > 0).map((line) => JSON.parse(line) as LogLine);
    expect(helix.calls.filter((call) => call.method === 'PATCH' && call.path === STATUS_PATH && call.status === 400)).toHaveLength(1);
    for (const id of lostIds) {
      expect(run4Lines().filter((line) => line.redemption === id).map((line) => line.msg))
        .toContain('redemption effect already done: sending its status only');
    }
    // Their lines, kept by the ledger through the kill, are said now that Twitch has the status.
    const lost = lostIds.map((id) => fired.find((r) => r.id === id)!);
    await until(() => lost.every((r) => linesTo(r).length > 0), 'the lines of the redemptions run 3 left owed their status');
    for (const redemption of lost) expect(linesTo(redemption), redemption.user_login).toEqual([`@${redemption.user_name} the Neon skin is yours!`]);
    const held = helix.holdNext({ method: 'PATCH', path: STATUS_PATH });
    for (let i = 0; i < 6; i++) redeem(rewardId, fired);
    const heldCall = await held.arrived;
    const afterRun4 = await kill(running);
    held.release();
    noteReceived(afterRun4);
    const takenIds = heldCall.query['id'] ?? [];
    expect(takenIds.length).toBeGreaterThan(0);
    for (const id of takenIds) {
      expect(afterRun4.get(id)).toMatchObject({ status: 'effect-done', outcome: 'fulfill' });
      expect(fired.find((r) => r.id === id)?.status).toBe('FULFILLED');
    }

    // ---- 5. Redemptions made while it was down; then it runs to the end. -----------------------
    for (const user of [{ login: 'offline_one', id: '7101' }, { login: 'offline_two', id: '7102' }, HOLDERS[1]!]) {
      fired.push(helix.addOfflineRedemption({ rewardId, user }));
    }
    const callsBeforeRun5 = helix.calls.length;
    running = await start();
    await settled(fired);
    // The statuses Twitch took before the last kill were sent again (and found already set: their
    // one change is checked below).
    for (const id of takenIds) {
      expect(helix.calls.slice(callsBeforeRun5).some((call) => call.method === 'PATCH' && call.path === STATUS_PATH
        && (call.query['id'] ?? []).includes(id)), id).toBe(true);
    }

    // The lines of the statuses Twitch took before the last kill: said by this run, from the ledger.
    const taken = takenIds.map((id) => fired.find((r) => r.id === id)!);
    await until(() => taken.every((r) => linesTo(r).length > 0), 'the lines of the redemptions whose status run 4 never heard taken');
    for (const redemption of taken) expect(linesTo(redemption), redemption.user_login).toEqual([`@${redemption.user_name} the Neon skin is yours!`]);

    // Every viewer holds Neon once, read through the API.
    const read = async (path: string): Promise<unknown> => {
      const answer = await fetch(`${running.apiUrl}${path}`, { headers });
      expect(answer.status, path).toBe(200);
      return ((await answer.json()) as { data: unknown }).data;
    };
    const viewers = new Set(fired.map((r) => r.user_login));
    expect(viewers.size).toBe(fired.length);
    for (const login of viewers) expect(await read(`/viewers/${login}/skins`), login).toEqual([{ id: neon, name: 'Neon', slug: 'neon' }]);

    expect(await running.stop('SIGTERM')).toBe(0);
    logs.push(...running.stderr().split('\n').filter((line) => line.length > 0));

    // No viewer was told twice (a line a kill caught between the ledger's record and the chat is lost, never repeated).
    for (const redemption of fired) expect(linesTo(redemption).length, redemption.user_login).toBeLessThanOrEqual(1);
    // Nothing is left kept in the ledger.
    expect(withDatabase((db) => db.prepare('SELECT count(*) AS n FROM processed_redemptions WHERE reply_texts IS NOT NULL OR reply_target IS NOT NULL').get()!.n)).toBe(0);

    // One final status per redemption on Twitch, set once, by the host.
    const holderIds = new Set(fired.filter((r) => HOLDERS.some((holder) => holder.login === r.user_login)).map((r) => r.id));
    for (const redemption of fired) {
      const changes = helix.redemptionChanges.filter((change) => change.redemptionId === redemption.id);
      expect(changes.map((change) => [change.from, change.clientId]), redemption.user_login).toEqual([['UNFULFILLED', CLIENT_ID]]);
      expect(changes[0]!.to).toBe(redemption.status);
    }

    // The ledger, read through the service: every redemption settled with its outcome.
    const store = openSqliteStore({ path: database });
    try {
      const service = await createStyleService({ store, templates: loadTemplates(DEFAULT_TEMPLATES_DIR) });
      const accountId = (await service.findAccount('alice'))!.id;
      const parsed = logs.map((line) => JSON.parse(line) as LogLine);
      for (const redemption of fired) {
        const entry = await service.findRedemptionEntry(accountId, redemption.id);
        const reruns = caughtReceived.get(redemption.id) ?? 0;
        // The handler ran once, and once more only for each kill that caught it `received`.
        expect(entry, redemption.user_login).toMatchObject({ state: 'status-sent', attempts: 1 + reruns });
        const runs = parsed.filter((line) => line.redemption === redemption.id
          && (line.msg === 'unlocked a skin' || line.msg === 'refunding the skin redemption'));
        expect(runs.length, redemption.user_login).toBeGreaterThanOrEqual(1);
        expect(runs.length, redemption.user_login).toBeLessThanOrEqual(1 + reruns);
        if (holderIds.has(redemption.id) && reruns === 0) {
          // The skin was held before: the effect really failed, the points are refunded.
          expect([entry!.outcome, redemption.status], redemption.user_login).toEqual(['refund', 'CANCELED']);
        } else {
          // A holder's redemption run again after a kill counts the held skin as its own (docs/redemptions.md).
          expect([entry!.outcome, redemption.status], redemption.user_login).toEqual(['fulfill', 'FULFILLED']);
        }
      }
      expect(reRunOf(parsed, victimId)).toEqual([2]);
    } finally {
      await store.close();
    }
  });
});

/** The attempts a redemption's handler ran with again (the pipeline's warning when it resumes one). */
function reRunOf(lines: LogLine[], id: string): number[] {
  return lines.filter((line) => line.redemption === id && line.msg?.startsWith('redemption effect was interrupted') === true)
    .map((line) => line.attempt ?? 0);
}
