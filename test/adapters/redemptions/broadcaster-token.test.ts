// The broadcaster's token at run time: read from its 0600 file, refreshed by twurple when FakeHelix
// says it expired, saved back (so a restart uses the new one), and refresh failures reported.
import { chmodSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readTokenFile } from '../../../src/adapters/twitch-auth/token-file.ts';
import { ManualClock } from '../../host/manual-clock.ts';
import { CHANNEL, CLIENT_ID, openRedemptionWorld, waitUntil } from '../../redemptions/redemption-world.ts';
import type { RedemptionWorld } from '../../redemptions/redemption-world.ts';

const worlds: RedemptionWorld[] = [];
afterEach(async () => {
  for (const world of worlds.splice(0)) await world.close();
});

/** A world whose skin shop sells neon for the reward unlock-neon. */
async function open(options: { httpTimeoutSeconds?: number; clock?: ManualClock; reconcileIntervalSeconds?: number } = {}): Promise<RedemptionWorld> {
  const world = await openRedemptionWorld({ skinShop: { rewards: { 'unlock-neon': 'neon' } }, rewards: { 'unlock-neon': { title: 'Neon', cost: 5 } }, ...options });
  worlds.push(world);
  return world;
}

describe('the broadcaster token', () => {
  it('refreshes an expired access token, saves the new one (0600) and a restart uses it', async () => {
    const world = await open();
    const redemptions = await world.start();
    await world.settled();
    world.helix.expireAccessToken(world.token.accessToken);
    await redemptions.reconcile();
    await waitUntil(() => !readFileSync(world.tokenFile, 'utf8').includes(world.token.accessToken), 'the refreshed token to be saved');

    const saved = await readTokenFile(world.tokenFile);
    expect(world.helix.tokens.find((t) => t.accessToken === saved?.accessToken)).toMatchObject({ userId: world.broadcaster.id, revoked: false });
    expect(saved).toMatchObject({ clientId: CLIENT_ID, userId: world.broadcaster.id, login: CHANNEL, refreshToken: world.token.refreshToken });
    expect(statSync(world.tokenFile).mode & 0o777).toBe(0o600);
    expect(redemptions.status().auth).toMatchObject({ state: 'ok', refreshes: 1, error: null });
    expect(world.helix.calls.filter((c) => c.path === '/auth/token').map((c) => c.status)).toEqual([200]);
    // Read from the file, or refreshed: the logger scrubs them wherever they turn up.
    world.logger.warn(`quoting ${world.token.accessToken} ${world.token.refreshToken} ${saved!.accessToken}`);
    expect(world.logs.at(-1)?.msg).toBe('quoting [redacted] [redacted] [redacted]');

    await world.stop();
    const mark = world.helix.calls.length;
    await world.start();
    const used = world.helix.calls.slice(mark).filter((c) => c.path.startsWith('/channel_points'));
    expect(used.length).toBeGreaterThan(0);
    expect(used.every((c) => c.accessToken === saved?.accessToken && c.status === 200)).toBe(true);
    expect(world.helix.calls.slice(mark).some((c) => c.path === '/auth/token')).toBe(false);
  });

  it('says when a refreshed token could not be saved, and is ok again once a later one is', async () => {
    const world = await open();
    const redemptions = await world.start();
    await world.settled();
    // Where the file was, a folder: the refreshed token cannot be renamed into place.
    rmSync(world.tokenFile);
    mkdirSync(world.tokenFile);
    writeFileSync(path.join(world.tokenFile, 'in-the-way'), '');
    world.helix.expireAccessToken(world.token.accessToken);
    await redemptions.reconcile();
    await waitUntil(() => redemptions.status().auth?.state === 'save-failed', 'the failed save to be reported');
    expect(redemptions.status().auth?.error).toMatch(/could not be saved to .*after a restart before then the old one may no longer work/);

    rmSync(world.tokenFile, { recursive: true });
    const refreshed = world.helix.tokens.filter((t) => t.userId === world.broadcaster.id && !t.revoked).at(-1)!;
    world.helix.expireAccessToken(refreshed.accessToken);
    await redemptions.reconcile();
    await waitUntil(() => redemptions.status().auth?.state === 'ok', 'the next save to clear the state');
    expect(redemptions.status().auth).toMatchObject({ state: 'ok', refreshes: 2, error: null });
    expect((await readTokenFile(world.tokenFile))?.accessToken).not.toBe(refreshed.accessToken);
  });

  it('saves a refreshed token that could not be saved once the fault passes, with no further refresh: a restart then works', async () => {
    // Twitch retires the refresh token a refresh replaces: the file's old one stops working.
    const world = await openRedemptionWorld({ helix: { rotateRefreshTokens: true }, rewards: {}, skinShop: {}, tokenFileCheckMs: 20 });
    worlds.push(world);
    const redemptions = await world.start();
    // Where the file was, a folder (a full disk does the same): the refreshed token cannot be saved.
    rmSync(world.tokenFile);
    mkdirSync(world.tokenFile);
    world.helix.expireAccessToken(world.token.accessToken);
    await redemptions.reconcile();
    await waitUntil(() => redemptions.status().auth?.state === 'save-failed', 'the failed save to be reported');
    const refreshed = world.helix.tokens.filter((t) => t.userId === world.broadcaster.id && !t.revoked).at(-1)!;

    // The fault passes (the folder is gone); nothing calls Twitch meanwhile.
    rmSync(world.tokenFile, { recursive: true });
    await waitUntil(() => redemptions.status().auth?.state === 'ok', 'the token to be saved after all', 5_000);
    expect(redemptions.status().auth).toMatchObject({ refreshes: 1, error: null });
    expect(await readTokenFile(world.tokenFile)).toMatchObject({ accessToken: refreshed.accessToken, refreshToken: refreshed.refreshToken });
    expect(world.logs.filter((l) => l.level === 50).map((l) => l.msg)).toHaveLength(1);
    expect(world.logs.some((l) => l.msg === 'saved the refreshed broadcaster token, which could not be saved before')).toBe(true);

    await world.stop();
    const mark = world.helix.calls.length;
    await world.start();
    expect(world.helix.calls.slice(mark).filter((c) => c.path.startsWith('/channel_points')).every((c) => c.status === 200)).toBe(true);
    expect(world.redemptions!.status().auth).toMatchObject({ state: 'ok' });
  });

  it('keeps a rotated refresh token', async () => {
    const world = await openRedemptionWorld({ helix: { rotateRefreshTokens: true }, rewards: {}, skinShop: {} });
    worlds.push(world);
    const redemptions = await world.start();
    world.helix.expireAccessToken(world.token.accessToken);
    await redemptions.reconcile();
    await waitUntil(() => !readFileSync(world.tokenFile, 'utf8').includes(world.token.accessToken), 'the refreshed token to be saved');
    const saved = await readTokenFile(world.tokenFile);
    expect(saved?.refreshToken).not.toBe(world.token.refreshToken);
    // The old refresh token no longer works on a rotating server; the saved one does.
    expect(world.helix.tokens.some((t) => t.refreshToken === saved?.refreshToken)).toBe(true);
    expect(world.helix.tokens.some((t) => t.refreshToken === world.token.refreshToken)).toBe(false);
  });

  it('refreshes once for calls Twitch refuses together: a one-use refresh token is not spent twice, and both redemptions finish', async () => {
    // Twitch retires a refresh token once it is used (public clients; any client may get a new one).
    const world = await openRedemptionWorld({ helix: { rotateRefreshTokens: true } });
    worlds.push(world);
    const redemptions = await world.start();
    await world.settled();
    const neon = await world.rewardId('unlock-neon');
    const ghost = await world.rewardId('unlock-ghost');
    // The access token stops working before its expiry (Twitch: answer the 401, do not go by expires_in).
    world.helix.expireAccessToken(world.token.accessToken);
    const refresh = world.helix.holdNext({ method: 'POST', path: '/auth/token' });
    const fulfilled = world.helix.fireRedemption({ rewardId: neon, user: { login: 'first' } });
    const refunded = world.helix.fireRedemption({ rewardId: ghost, user: { login: 'second' } });
    // Both statuses go out with the old token and are refused before the refresh is answered.
    const refused = () => world.helix.calls.filter((c) => c.method === 'PATCH' && c.status === 401).length;
    await expect.poll(refused, { timeout: 10_000 }).toBe(2);
    refresh.release();

    await world.helix.waitForRedemptionStatus(fulfilled.redemption.id, 'FULFILLED', { timeoutMs: 10_000 });
    await world.helix.waitForRedemptionStatus(refunded.redemption.id, 'CANCELED', { timeoutMs: 10_000 });
    expect(world.helix.calls.filter((c) => c.path === '/auth/token').map((c) => c.status)).toEqual([200]);
    expect(redemptions.status().auth).toMatchObject({ state: 'ok', refreshes: 1, error: null });
    expect(world.logs.some((l) => /Twitch refused to refresh/.test(String(l.msg)))).toBe(false);
    expect(world.unlocks).toHaveLength(1);
    // The file holds the refresh token Twitch handed out, so a restart works.
    await waitUntil(() => !readFileSync(world.tokenFile, 'utf8').includes(world.token.accessToken), 'the refreshed token to be saved');
    const saved = await readTokenFile(world.tokenFile);
    expect(world.helix.tokens.some((t) => t.refreshToken === saved?.refreshToken)).toBe(true);
  });

  describe('checked hourly at id.twitch.tv/oauth2/validate, as Twitch asks', () => {
    const HOUR = 3_600_000;
    /** Started on a clock moved by hand, with no periodic listing within the test to call Helix behind its back. */
    async function started() {
      const clock = new ManualClock(Date.now());
      const world = await open({ clock, reconcileIntervalSeconds: 86_400 });
      const redemptions = await world.start();
      await world.settled();
      const validations = () => world.helix.calls.filter((c) => c.path === '/auth/validate').map((c) => c.status);
      return { clock, world, redemptions, validations };
    }

    it('refreshes (and saves) a token the check finds expired, before any call to Twitch is refused', async () => {
      const { clock, world, redemptions, validations } = await started();
      await clock.advance(HOUR);
      await expect.poll(validations).toEqual([200]);
      expect(world.helix.calls.some((c) => c.path === '/auth/token')).toBe(false);

      world.helix.expireAccessToken(world.token.accessToken);
      const helixMark = world.helix.calls.filter((c) => !c.path.startsWith('/auth/')).length;
      await clock.advance(HOUR);
      await expect.poll(validations).toEqual([200, 401]);
      await waitUntil(() => !readFileSync(world.tokenFile, 'utf8').includes(world.token.accessToken), 'the refreshed token to be saved');
      expect(world.helix.calls.filter((c) => c.path === '/auth/token').map((c) => c.status)).toEqual([200]);
      expect(redemptions.status().auth).toMatchObject({ state: 'ok', refreshes: 1, error: null });
      // No Helix call was made with the expired token, let alone refused.
      expect(world.helix.calls.filter((c) => !c.path.startsWith('/auth/')).length).toBe(helixMark);
    });

    it('once the broadcaster disconnected the app, reports the refused refresh with what to do', async () => {
      const { clock, world, redemptions, validations } = await started();
      world.helix.disconnectApp(world.broadcaster.id, CLIENT_ID);
      await clock.advance(HOUR);
      await expect.poll(validations).toEqual([401]);
      await waitUntil(() => redemptions.status().auth?.state === 'refresh-failed', 'the refused refresh to be reported');
      expect(redemptions.status().auth?.error).toBe(
        'Twitch refused to refresh the broadcaster\'s token (Twitch answered 400: Invalid refresh token); '
        + 'run `chatskin twitch auth` to authorize the channel again; the running chatskin takes the new token over within seconds',
      );
      // Refused for good: no further check until a new token is taken over.
      await clock.advance(HOUR);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(validations()).toEqual([401]);
      expect(world.helix.calls.filter((c) => c.path === '/auth/token').map((c) => c.status)).toEqual([400]);
    });
  });

  it('reports a refresh Twitch refuses in the status and the log, with what to do', async () => {
    const world = await open();
    const redemptions = await world.start();
    await world.settled();
    world.helix.expireAccessToken(world.token.accessToken);
    world.helix.revokeRefreshToken(world.token.refreshToken!);
    const report = await redemptions.reconcile();
    expect(report?.failures.length).toBeGreaterThan(0);
    const status = redemptions.status();
    expect(status.auth).toMatchObject({ state: 'refresh-failed' });
    expect(status.auth?.error).toBe(
      'Twitch refused to refresh the broadcaster\'s token (Twitch answered 400: Invalid refresh token); '
      + 'run `chatskin twitch auth` to authorize the channel again; the running chatskin takes the new token over within seconds',
    );
    expect(status.problem).toContain('run `chatskin twitch auth`');
    expect(world.logs.some((l) => l.level === 50 && /Twitch refused to refresh/.test(String(l.msg)))).toBe(true);
    // Neither the refresh token nor the client secret leaks into the logs (twurple's error quotes the refresh URL).
    const logged = JSON.stringify(world.logs);
    expect(logged).not.toContain(world.token.refreshToken);
    expect(logged).not.toContain('client_secret=');
  });

  it.each([500, 503])('a refresh that fails for a passing fault (%i) is a warning and is tried again: redemptions recover by themselves', async (status) => {
    const world = await open();
    const redemptions = await world.start();
    await world.settled();
    const rewardId = await world.rewardId('unlock-neon');
    world.helix.expireAccessToken(world.token.accessToken);
    world.helix.failNext({ method: 'POST', path: '/auth/token', status, times: 1 });
    const during = world.helix.fireRedemption({ rewardId, user: { login: 'first', displayName: 'First' } });
    await expect.poll(() => world.helix.calls.filter((c) => c.path === '/auth/token').length, { timeout: 10_000 }).toBe(1);
    expect(redemptions.status().auth).toMatchObject({ state: 'ok', error: null });
    expect(world.logs.some((l) => l.level === 40 && String(l.msg).startsWith(`refreshing the broadcaster's token failed (Twitch answered ${status}`))).toBe(true);
    expect(world.logs.some((l) => /Twitch refused to refresh/.test(String(l.msg)))).toBe(false);

    // The endpoint answers again: the next call to Twitch refreshes, and what was owed is done.
    await redemptions.reconcile();
    await world.helix.waitForRedemptionStatus(during.redemption.id, 'FULFILLED', { timeoutMs: 10_000 });
    expect(world.helix.calls.filter((c) => c.path === '/auth/token').map((c) => c.status)).toEqual([status, 200]);
    expect(redemptions.status().auth).toMatchObject({ state: 'ok', refreshes: 1 });
    expect(world.unlocks.length).toBe(1);
  });

  it('a refresh Twitch takes and never answers fails after twitch.httpTimeoutSeconds, a passing fault: a warning, tried again, redemptions recover', async () => {
    const world = await open({ httpTimeoutSeconds: 1 });
    const redemptions = await world.start();
    await world.settled();
    const rewardId = await world.rewardId('unlock-neon');
    world.helix.expireAccessToken(world.token.accessToken);
    const held = world.helix.holdNext({ method: 'POST', path: '/auth/token' });
    const during = world.helix.fireRedemption({ rewardId, user: { login: 'first', displayName: 'First' } });
    await held.arrived;
    const warning = 'refreshing the broadcaster\'s token failed (Twitch did not answer within 1 s); it is tried again on the next call to Twitch';
    await expect.poll(() => world.logs.filter((l) => l.level === 40).map((l) => l.msg), { timeout: 10_000 }).toContain(warning);
    expect(redemptions.status().auth).toMatchObject({ state: 'ok', error: null });

    await redemptions.reconcile();
    await world.helix.waitForRedemptionStatus(during.redemption.id, 'FULFILLED', { timeoutMs: 10_000 });
    expect(world.helix.calls.filter((c) => c.path === '/auth/token').length).toBe(2);
    expect(redemptions.status().auth).toMatchObject({ state: 'ok', refreshes: 1 });
    expect(world.unlocks.length).toBe(1);
    expect(world.logs.some((l) => /Twitch refused to refresh/.test(String(l.msg)))).toBe(false);
    held.release();
  });

  it('a Helix call Twitch takes and never answers is tried again after twitch.httpTimeoutSeconds: the listing of missed redemptions completes', async () => {
    const world = await open({ httpTimeoutSeconds: 1 });
    const redemptions = await world.start();
    await world.settled();
    const rewardId = await world.rewardId('unlock-neon');
    const missed = world.helix.addOfflineRedemption({ rewardId, user: { login: 'first', displayName: 'First' } });
    const listing = { method: 'GET', path: '/channel_points/custom_rewards/redemptions' };
    const held = world.helix.holdNext(listing);

    const report = await redemptions.reconcile();
    expect(report?.failures).toEqual([]);
    await world.helix.waitForRedemptionStatus(missed.id, 'FULFILLED', { timeoutMs: 10_000 });
    expect(world.unlocks.length).toBe(1);
    // The held listing, then twurple's own retry of it.
    expect(world.helix.calls.filter((c) => c.method === listing.method && c.path === listing.path).length).toBeGreaterThanOrEqual(2);
    held.release();
  });

  it('without a token file, does not start and says to run `chatskin twitch auth` (no restart needed)', async () => {
    const world = await open();
    rmSync(world.tokenFile);
    const redemptions = await world.start();
    expect(redemptions.status()).toMatchObject({ state: 'needs-auth', auth: null, eventsub: null });
    expect(redemptions.status().problem).toBe(
      `there is no broadcaster token at ${world.tokenFile}: run \`chatskin twitch auth\`; `
      + 'the running chatskin picks the token up within seconds and starts the redemptions (no restart needed)',
    );
    expect(world.helix.calls).toEqual([]);
    expect(await redemptions.reconcile()).toBeNull();
  });

  it('refuses a token of another account, a broken file, or one missing a scope', async () => {
    const world = await open();
    const good = readFileSync(world.tokenFile, 'utf8');

    // Each start waits for a usable token (watching the file) until stopped.
    writeFileSync(world.tokenFile, good.replace(`"login": "${CHANNEL}"`, '"login": "someoneelse"'));
    expect((await world.start()).status().problem).toBe(
      `the token in ${world.tokenFile} belongs to "someoneelse", not the channel "somechannel"; run \`chatskin twitch auth\` to authorize the channel again; `
      + 'the running chatskin picks the new token up within seconds and starts the redemptions (no restart needed)',
    );
    await world.stop();

    writeFileSync(world.tokenFile, '{ not json');
    expect((await world.start()).status().problem).toMatch(/is not valid JSON; run `chatskin twitch auth` to write it again; the running chatskin picks a usable token up/);
    await world.stop();

    writeFileSync(world.tokenFile, good.replace('"channel:manage:redemptions"', '"chat:read"'));
    expect((await world.start()).status().problem).toMatch(/lacks channel:manage:redemptions; run `chatskin twitch auth`/);
    expect(world.helix.calls).toEqual([]);
  });

  it('tightens a token file others could read to 0600 and says so', async () => {
    const world = await open();
    chmodSync(world.tokenFile, 0o644);
    await world.start();
    expect(statSync(world.tokenFile).mode & 0o777).toBe(0o600);
    expect(world.logs.some((l) => l.level === 40 && /readable by others/.test(String(l.msg)))).toBe(true);
  });
});
