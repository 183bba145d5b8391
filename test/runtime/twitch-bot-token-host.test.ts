// The whole host (startChatskin) with the bot's chat token in twitch.bot.tokenFile: the real tmi.js
// against the fake Twitch chat server, which lets in the tokens FakeHelix (id.twitch.tv) holds
// live, and twurple's refresh against FakeHelix. When Twitch expires the token, the bot refreshes
// it, saves it and answers moderators again; when Twitch refuses the refresh, the chat stops with
// the documented message while the rest of the host serves on, and the token `chatskin twitch auth
// --bot` then saves brings it back without a restart. No token reaches the log.
import { statSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTokenFile } from '../../src/adapters/twitch-auth/token-file.ts';
import type { StoredTwitchToken } from '../../src/adapters/twitch-auth/token-file.ts';
import { overlayUrl } from '../../src/runtime/public-url.ts';
import { startChatskin } from '../../src/runtime/start-chatskin.ts';
import type { RunningChatskin } from '../../src/runtime/start-chatskin.ts';
import { BOT, BOT_SCOPES, CLIENT_ID, CLIENT_SECRET, openBotTokenWorld } from '../adapters/twitch-chat/bot-token-world.ts';
import type { BotTokenWorld } from '../adapters/twitch-chat/bot-token-world.ts';
import { runTwitchAuthCli } from '../cli/twitch-auth-process.ts';
import { captureLogs, LEVEL } from '../host/log-capture.ts';
import { twitchHostConfig } from './twitch-host-config.ts';

const MOD = { login: 'modguy', mod: true };
const POLL = { timeout: 10_000, interval: 10 };

interface BotTokenHost {
  world: BotTokenWorld;
  running: RunningChatskin;
  logs: ReturnType<typeof captureLogs>;
  /** The token in the file when the host started. */
  first: StoredTwitchToken;
}

/**
 * A host for one describe block, its bot token in the file, looked at every second while the chat
 * is off; `twitch`: further keys of its twitch section.
 */
function botTokenHost(dirPrefix: string, twitch: Record<string, unknown> = {}): BotTokenHost {
  const host = {} as BotTokenHost;
  beforeAll(async () => {
    host.world = await openBotTokenWorld();
    host.first = host.world.issue();
    await host.world.save(host.first);
    // Told no secret: the tokens of the file must be learned by the logger when they are read.
    host.logs = captureLogs();
    const config = twitchHostConfig(host.world.irc, dirPrefix, {}, {
      clientId: CLIENT_ID, clientSecret: CLIENT_SECRET,
      bot: { login: BOT, tokenFile: host.world.tokenFile, tokenFileCheckSeconds: 1 },
      helix: { mockServerPort: host.world.helix.port },
      // The token file's token is checked at FakeHelix (the mock port's /auth), which issued it.
      oauth: { url: null },
      ...twitch,
    });
    host.running = await startChatskin(config, { logger: host.logs.logger, stdin: null });
    await host.world.irc.waitForJoin('alice');
  });
  afterAll(async () => {
    await host.running?.close();
    await host.world?.close();
  });
  return host;
}

/** A moderator's command in #alice, and the bot's answer to it. */
async function moderatorAnswered(host: BotTokenHost): Promise<void> {
  const since = host.world.irc.privmsgs.length;
  host.world.irc.sendPrivmsg('#alice', MOD, '!style show bubble.width');
  await host.world.irc.waitForPrivmsg((line) => line.login === BOT && /bubble\.width/.test(line.text), { since });
}

async function health(host: BotTokenHost): Promise<{ status: number; components: Record<string, string> }> {
  const response = await fetch(`${host.running.baseUrl}/healthz`);
  return { status: response.status, components: ((await response.json()) as { components: Record<string, string> }).components };
}

/** No token FakeHelix ever issued is in the log; and the logger scrubs those it learned from now on. */
function expectNoTokenLogged(host: BotTokenHost, learned: readonly string[]): void {
  const text = host.logs.lines.join('\n');
  for (const secret of host.world.issuedSecrets()) expect(text).not.toContain(secret);
  host.logs.logger.warn(`a library quoting ${learned.join(' and ')}`);
  for (const secret of learned) expect(host.logs.lines.at(-1)).not.toContain(secret);
}

describe('host whose bot token expires (twitch.bot.tokenFile)', () => {
  const host = botTokenHost('chatskin-bot-token-refresh-');

  it('answers a moderator with the file\'s token; after Twitch expires it and drops the connection, refreshes it, saves it (0600) and answers again', async () => {
    const { world, running, logs, first } = host;
    await moderatorAnswered(host);
    expect(world.passes()).toEqual([first.accessToken]);

    world.helix.expireAccessToken(first.accessToken);
    const since = world.irc.joins.length;
    world.irc.dropAllConnections();
    await world.irc.waitForJoin('alice', { since });

    const saved = (await readTokenFile(world.tokenFile))!;
    expect(saved).toMatchObject({ version: 1, clientId: CLIENT_ID, login: BOT, userId: world.bot.id, scope: BOT_SCOPES, refreshToken: first.refreshToken });
    expect(saved.accessToken).not.toBe(first.accessToken);
    expect(world.helix.isLiveUserToken(saved.accessToken, BOT)).toBe(true);
    expect(statSync(world.tokenFile).mode & 0o777).toBe(0o600);
    expect(world.passes()).toEqual([first.accessToken, first.accessToken, saved.accessToken]);
    expect(world.helix.calls.filter((call) => call.path === '/auth/token').map((call) => call.status)).toEqual([200]);

    await moderatorAnswered(host);
    expect(running.transports.twitch!.state).toBe('connected');
    expect(await health(host)).toMatchObject({ status: 200, components: { 'twitch-chat': 'connected' } });
    expect(logs.entries.filter((entry) => entry.level >= LEVEL.error)).toEqual([]);
    expectNoTokenLogged(host, [first.accessToken, first.refreshToken, saved.accessToken]);
  });
});

describe('host whose bot token cannot be refreshed (twitch.bot.tokenFile)', () => {
  const host = botTokenHost('chatskin-bot-token-refused-');

  it('stops the chat with the documented message, serves on, and chats again with the token `chatskin twitch auth --bot` saves, no restart', async () => {
    const { world, running, logs, first } = host;
    await moderatorAnswered(host);

    world.helix.revokeRefreshToken(first.refreshToken);
    world.helix.expireAccessToken(first.accessToken);
    world.irc.dropAllConnections();
    const twitch = running.transports.twitch!;
    await expect.poll(() => twitch.state, POLL).toBe('disconnected');
    const message = 'Twitch refused the bot\'s login as chatskinbot (Login authentication failed) and its token could not be renewed: '
      + 'Twitch refused to refresh the bot\'s token (Twitch answered 400: Invalid refresh token); run `chatskin twitch auth --bot`: '
      + 'the running chatskin picks the new token up from twitch.bot.tokenFile within seconds and connects the chat again (no restart needed)';
    expect(twitch.lastError).toBe(message);
    expect(logs.entries.find((entry) => entry.msg === message)).toMatchObject({ level: LEVEL.error, transport: 'twitch' });

    // The rest of the host serves on: its health, its plugins, the overlay page.
    expect(await health(host)).toMatchObject({ status: 200, components: { 'twitch-chat': 'failed', 'plugin:style': 'running' } });
    const overlay = (await running.service.listOverlays(running.account.id))[0]!;
    expect((await fetch(overlayUrl(running.baseUrl, overlay.token))).status).toBe(200);

    // Authorized again while the host runs: the real CLI, approved as the bot.
    const since = world.irc.joins.length;
    const auth = await runTwitchAuthCli({
      helix: world.helix, dir: world.dir, channel: 'alice', args: ['--bot'], approveAs: BOT,
      twitch: { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, bot: { login: BOT, tokenFile: world.tokenFile } },
    });
    expect(auth).toMatchObject({ code: 0, stderr: '' });
    const saved = (await readTokenFile(world.tokenFile))!;
    await world.irc.waitForJoin('alice', { since });
    await expect.poll(() => twitch.state, POLL).toBe('connected');
    expect(twitch.lastError).toBeNull();
    expect(world.passes().at(-1)).toBe(saved.accessToken);
    await moderatorAnswered(host);
    expect(await health(host)).toMatchObject({ components: { 'twitch-chat': 'connected' } });
    expectNoTokenLogged(host, [first.accessToken, first.refreshToken, saved.accessToken, saved.refreshToken]);
  });
});

describe('host whose bot token refresh Twitch never answers (twitch.httpTimeoutSeconds)', () => {
  const host = botTokenHost('chatskin-bot-token-unanswered-', { httpTimeoutSeconds: 1 });

  it('gives the refresh up after the bound as a passing fault, serves on meanwhile, refreshes again and answers moderators', async () => {
    const { world, running, logs, first } = host;
    await moderatorAnswered(host);
    const held = world.helix.holdNext({ path: '/auth/token' });
    world.helix.expireAccessToken(first.accessToken);
    const since = world.irc.joins.length;
    world.irc.dropAllConnections();
    await held.arrived;

    // The refresh Twitch took and never answered ends, saying so; the host serves on meanwhile.
    const twitch = running.transports.twitch!;
    const failed = 'Twitch chat connection lost (Twitch refused the bot\'s token and renewing it failed: refreshing the bot\'s token failed '
      + '(Twitch did not answer within 1 s))';
    await expect.poll(() => logs.entries.filter((entry) => entry.level === LEVEL.warn).map((entry) => String(entry.msg)), POLL)
      .toContainEqual(expect.stringContaining(failed));
    expect((await health(host)).components).toMatchObject({ 'plugin:style': 'running' });

    // The next login refreshes afresh, and Twitch answers that one; then the chat's back-off (1, 2, 4 s) lets it in.
    await world.irc.waitForJoin('alice', { since, timeoutMs: 20_000 });
    await expect.poll(() => twitch.state, POLL).toBe('connected');
    expect(world.helix.calls.filter((call) => call.path === '/auth/token').length).toBe(2);
    const saved = (await readTokenFile(world.tokenFile))!;
    expect(world.passes().at(-1)).toBe(saved.accessToken);
    await moderatorAnswered(host);
    expect(logs.entries.filter((entry) => entry.level >= LEVEL.error)).toEqual([]);
    held.release();
  });
});
