// The Twitch chat with its token in twitch.bot.tokenFile: the real tmi.js against FakeTwitchIrc,
// which lets in exactly the tokens FakeHelix (id.twitch.tv) holds live, and twurple's refresh
// against FakeHelix. A token Twitch refuses is refreshed and saved, and the chat logs in again; a
// refresh Twitch refuses is final until `chatskin twitch auth --bot` saves a new token, which is
// picked up without a restart. No token ever reaches the log.
import { chmodSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { readTokenFile } from '../../../src/adapters/twitch-auth/token-file.ts';
import type { StoredTwitchToken } from '../../../src/adapters/twitch-auth/token-file.ts';
import { createTwitchChatTransport, TwitchChatError } from '../../../src/adapters/twitch-chat/twitch-chat-transport.ts';
import type { TwitchChatState } from '../../../src/adapters/twitch-chat/twitch-chat-transport.ts';
import { captureLogs, LEVEL } from '../../host/log-capture.ts';
import { BOT, BOT_SCOPES, CLIENT_ID, CLIENT_SECRET, OTHER_CLIENT_ID, openBotTokenWorld } from './bot-token-world.ts';
import type { BotTokenWorld, BotTokenWorldOptions } from './bot-token-world.ts';

const CHANNEL = 'somechannel';
const POLL = { timeout: 10_000, interval: 5 };
const PICKED_UP = 'the running chatskin picks the new token up from twitch.bot.tokenFile within seconds and connects the chat again (no restart needed)';
const REAUTHORIZE = `run \`chatskin twitch auth --bot\`: ${PICKED_UP}`;

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Setup {
  world: BotTokenWorld;
  /** The token in the file at the start (null: no file). */
  first: StoredTwitchToken | null;
  logs: ReturnType<typeof captureLogs>;
  transport: ReturnType<typeof createTwitchChatTransport>;
  states: TwitchChatState[];
}

interface SetUpOptions {
  world?: BotTokenWorldOptions;
  refreshWaitMs?: number;
  /** How often the token in use is checked at id.twitch.tv/oauth2/validate (default: hourly). */
  validateIntervalMs?: number;
}

async function setUp(options: SetUpOptions & { first?: StoredTwitchToken | 'none' | ((world: BotTokenWorld) => StoredTwitchToken) } = {}): Promise<Setup> {
  const world = await openBotTokenWorld(options.world);
  cleanups.push(() => world.close());
  const first = options.first === 'none' ? null : typeof options.first === 'function' ? options.first(world) : (options.first ?? world.issue());
  if (first !== null) await world.save(first);
  // Told no secret: the tokens the chat reads from the file must be learned by the logger itself.
  const logs = captureLogs();
  const transport = createTwitchChatTransport({
    channels: [CHANNEL],
    identity: {
      login: BOT,
      tokenFile: {
        path: world.tokenFile, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, checkIntervalMs: 20, mockServerPort: world.helix.port,
        ...(options.refreshWaitMs === undefined ? {} : { refreshWaitMs: options.refreshWaitMs }),
        ...(options.validateIntervalMs === undefined ? {} : { validateIntervalMs: options.validateIntervalMs }),
      },
    },
    reconnect: { initialDelayMs: 20, maxDelayMs: 100, jitter: 0 },
    server: { host: '127.0.0.1', port: world.irc.port, secure: false },
  }, logs.logger);
  cleanups.push(() => transport.stop());
  const states: TwitchChatState[] = [];
  transport.onStateChange((change) => states.push(change.state));
  return { world, first, logs, transport, states };
}

/** Starts the chat and waits until it is in the channel. */
async function connected(setup: Setup): Promise<void> {
  await setup.transport.start();
  await setup.world.irc.waitForJoin(CHANNEL);
  await expect.poll(() => setup.transport.joinedChannels, POLL).toEqual([CHANNEL]);
}

/** setUp with a token in the file, then connected. */
async function setUpConnected(options: SetUpOptions = {}): Promise<Setup & { first: StoredTwitchToken }> {
  const setup = await setUp(options);
  await connected(setup);
  return { ...setup, first: setup.first! };
}

/** Twitch (the fake) drops the connection, as when a server restarts; resolves once the chat is back in the channel. */
async function dropAndRejoin(setup: Setup): Promise<void> {
  const since = setup.world.irc.joins.length;
  setup.world.irc.dropAllConnections();
  await setup.world.irc.waitForJoin(CHANNEL, { since });
}

/** The bot's owner withdrew the app's access: `token` has expired, and its refresh token no longer works. */
function withdrawAccess(world: BotTokenWorld, token: StoredTwitchToken): void {
  world.helix.revokeRefreshToken(token.refreshToken);
  world.helix.expireAccessToken(token.accessToken);
}

function refreshCalls(world: BotTokenWorld): number[] {
  return world.helix.calls.filter((call) => call.path === '/auth/token').map((call) => call.status);
}

function messages(logs: Setup['logs'], level: number): string[] {
  return logs.entries.filter((entry) => entry.level === level).map((entry) => String(entry.msg));
}

/** No token FakeHelix ever issued is in the log, and the logger scrubs those the chat read or got from now on. */
function expectNoTokenLogged(setup: Setup, learned: readonly string[]): void {
  const text = setup.logs.lines.join('\n');
  for (const secret of setup.world.issuedSecrets()) expect(text).not.toContain(secret);
  setup.logs.logger.warn(`a library quoting ${learned.join(' and ')}`);
  const last = setup.logs.lines.at(-1)!;
  for (const secret of learned) expect(last).not.toContain(secret);
}

describe('Twitch chat with twitch.bot.tokenFile', () => {
  it('logs in with the file\'s token; once Twitch refuses it (expired), refreshes it, saves it (0600) and logs in with the new one', async () => {
    const setup = await setUpConnected({ world: { helix: { rotateRefreshTokens: true } } });
    const { world, transport, states, logs, first } = setup;
    expect(world.passes()).toEqual([first.accessToken]);

    world.helix.expireAccessToken(first.accessToken);
    await dropAndRejoin(setup);

    const saved = (await readTokenFile(world.tokenFile))!;
    expect(saved).toMatchObject({ version: 1, clientId: CLIENT_ID, userId: world.bot.id, login: BOT, scope: BOT_SCOPES });
    expect(saved.accessToken).not.toBe(first.accessToken);
    // Twitch handed out a new refresh token and retired the old one: only the saved one works now.
    expect(saved.refreshToken).not.toBe(first.refreshToken);
    expect(world.helix.tokens.find((token) => token.accessToken === saved.accessToken)?.refreshToken).toBe(saved.refreshToken);
    expect(statSync(world.tokenFile).mode & 0o777).toBe(0o600);
    // The old token refused once, then the refreshed one, from the file as saved.
    expect(world.passes()).toEqual([first.accessToken, first.accessToken, saved.accessToken]);
    expect(refreshCalls(world)).toEqual([200]);
    expect(states).toEqual(['connecting', 'connected', 'reconnecting', 'connected']);
    expect(transport.lastError).toBeNull();
    expect(messages(logs, LEVEL.warn)).toContain('Twitch refused the bot\'s token (Login authentication failed): renewing it');
    expect(logs.entries.find((entry) => entry.msg === 'refreshed the bot\'s Twitch token and saved it'))
      .toMatchObject({ level: LEVEL.info, component: 'twitch-bot-token', tokenFile: world.tokenFile });
    // Counted as a reconnect, with the back-off.
    expect(logs.entries.find((entry) => entry.msg?.startsWith('Twitch chat connection lost (Twitch refused the bot\'s token; logging in with the refreshed one)')))
      .toMatchObject({ level: LEVEL.warn, attempt: 2 });

    await transport.say(CHANNEL, 'back with a fresh token');
    await world.irc.waitForPrivmsg((line) => line.text === 'back with a fresh token' && line.login === BOT);
    expectNoTokenLogged(setup, [first.accessToken, first.refreshToken, saved.accessToken, saved.refreshToken]);
  });

  it('saves a refreshed token that could not be saved once the fault passes, so a restart does not need the retired refresh token', async () => {
    const setup = await setUpConnected({ world: { helix: { rotateRefreshTokens: true } } });
    const { world, logs, first } = setup;
    // Where the file was, a folder (a full disk does the same): the refreshed token cannot be saved.
    rmSync(world.tokenFile);
    mkdirSync(world.tokenFile);
    world.helix.expireAccessToken(first.accessToken);
    await dropAndRejoin(setup);
    expect(messages(logs, LEVEL.error)).toHaveLength(1);
    expect(messages(logs, LEVEL.error)[0]).toMatch(/^refreshed the bot's Twitch token but could not save it \(.+\): it is saved as soon as it can be/);
    const refreshed = world.helix.tokens.filter((token) => token.userId === world.bot.id && token.refreshToken !== null).at(-1)!;
    expect(refreshed.accessToken).not.toBe(first.accessToken);

    // The fault passes; the chat stays up meanwhile, so no login would save it.
    rmSync(world.tokenFile, { recursive: true });
    await expect.poll(async () => (await readTokenFile(world.tokenFile).catch(() => null))?.accessToken, POLL).toBe(refreshed.accessToken);
    expect((await readTokenFile(world.tokenFile))?.refreshToken).toBe(refreshed.refreshToken);
    expect(messages(logs, LEVEL.info)).toContain('saved the refreshed bot token, which could not be saved before');
    expect(messages(logs, LEVEL.error)).toHaveLength(1);
    expect(refreshCalls(world)).toEqual([200]);
  });

  it('refreshes again when the refreshed token expires in its turn, once it has logged in: only a token refused right after its renewal is final', async () => {
    const setup = await setUpConnected();
    const { world, transport, first } = setup;

    world.helix.expireAccessToken(first.accessToken);
    await dropAndRejoin(setup);
    const second = (await readTokenFile(world.tokenFile))!;
    expect(second.accessToken).not.toBe(first.accessToken);
    await expect.poll(() => transport.state, POLL).toBe('connected');

    // Hours later (Twitch's user tokens last a few hours) the refreshed one expires too.
    world.helix.expireAccessToken(second.accessToken);
    await dropAndRejoin(setup);
    const third = (await readTokenFile(world.tokenFile))!;
    expect(third.accessToken).not.toBe(second.accessToken);
    expect(refreshCalls(world)).toEqual([200, 200]);
    expect(world.passes()).toEqual([first.accessToken, first.accessToken, second.accessToken, second.accessToken, third.accessToken]);
    await expect.poll(() => transport.state, POLL).toBe('connected');
    expect(transport.lastError).toBeNull();
    await transport.say(CHANNEL, 'still here');
    await world.irc.waitForPrivmsg((line) => line.text === 'still here' && line.login === BOT);
  });

  it('a refresh Twitch refuses is final and says to run `chatskin twitch auth --bot`; a token saved there later is picked up without a restart', async () => {
    const setup = await setUpConnected();
    const { world, transport, states, logs, first } = setup;

    withdrawAccess(world, first);
    world.irc.dropAllConnections();
    await expect.poll(() => transport.state, POLL).toBe('disconnected');

    const message = 'Twitch refused the bot\'s login as chatskinbot (Login authentication failed) and its token could not be renewed: '
      + `Twitch refused to refresh the bot's token (Twitch answered 400: Invalid refresh token); ${REAUTHORIZE}`;
    expect(transport.lastError).toBe(message);
    expect(messages(logs, LEVEL.error)).toContain(message);
    expect(states).toEqual(['connecting', 'connected', 'reconnecting', 'disconnected']);
    expect(refreshCalls(world)).toEqual([400]);
    await expect(transport.say(CHANNEL, 'anyone?')).rejects.toThrow(/^Twitch chat is disconnected \(Twitch refused the bot's login/);
    // Final: no more attempts with a token Twitch refuses.
    const connections = world.irc.totalConnections;
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(world.irc.totalConnections).toBe(connections);

    // `chatskin twitch auth --bot`, run meanwhile, saves a new token.
    const fresh = world.issue();
    const since = world.irc.joins.length;
    await world.save(fresh);
    await world.irc.waitForJoin(CHANNEL, { since });
    await expect.poll(() => transport.state, POLL).toBe('connected');
    expect(transport.lastError).toBeNull();
    expect(world.passes().at(-1)).toBe(fresh.accessToken);
    expect(states.slice(-3)).toEqual(['disconnected', 'connecting', 'connected']);
    expect(messages(logs, LEVEL.info)).toEqual(expect.arrayContaining([
      'took the new bot token saved by `chatskin twitch auth --bot`',
      'Twitch chat connecting again with the new bot token',
    ]));
    await transport.say(CHANNEL, 'back');
    await world.irc.waitForPrivmsg((line) => line.text === 'back');
    expectNoTokenLogged(setup, [fresh.accessToken, fresh.refreshToken]);
  });

  it('without a token file it says to authorize the bot, and connects once the file is there', async () => {
    const setup = await setUp({ first: 'none' });
    const { world, transport } = setup;
    const failure = await transport.start().then(() => null, (error: unknown) => error);
    expect(failure).toBeInstanceOf(TwitchChatError);
    expect((failure as Error).message).toBe(`Twitch chat cannot log in: there is no bot token at ${world.tokenFile}; ${REAUTHORIZE}`);
    expect(transport.state).toBe('disconnected');
    expect(world.irc.totalConnections).toBe(0);

    const token = world.issue();
    await world.save(token);
    await world.irc.waitForJoin(CHANNEL);
    await expect.poll(() => transport.state, POLL).toBe('connected');
    expect(world.passes()).toEqual([token.accessToken]);
    expectNoTokenLogged(setup, [token.accessToken, token.refreshToken]);
  });

  it('uses no token of another account, another application or without chat:edit, and says why once for each', async () => {
    const setup = await setUp({ first: (world) => world.issue({ login: 'someoneelse' }) });
    const { world, transport, logs } = setup;
    const file = world.tokenFile;
    const failure = await transport.start().then(() => null, (error: unknown) => error);
    expect((failure as Error).message)
      .toBe(`Twitch chat cannot log in: the token in ${file} belongs to "someoneelse", not twitch.bot.login "chatskinbot"; ${REAUTHORIZE}`);

    const changed = (why: string) => `the bot's token file changed, but it cannot be used: ${why}`;
    const warnings = () => messages(logs, LEVEL.warn).filter((message) => message.startsWith('the bot\'s token file changed'));
    await world.save(world.issue({ scopes: ['chat:read'] }));
    await expect.poll(warnings, POLL).toEqual([changed(`the token in ${file} lacks chat:edit; ${REAUTHORIZE}`)]);
    await world.save(world.issue({ clientId: OTHER_CLIENT_ID }));
    await expect.poll(() => warnings().length, POLL).toBe(2);
    expect(warnings()[1]).toBe(changed(`the token in ${file} was issued to the client id ${OTHER_CLIENT_ID}, not twitch.clientId; ${REAUTHORIZE}`));
    writeFileSync(file, '{ not json');
    await expect.poll(() => warnings().length, POLL).toBe(3);
    expect(warnings()[2]).toBe(changed(`${file}: is not valid JSON; run \`chatskin twitch auth --bot\` to write it again; `
      + 'the running chatskin picks a usable token up from there within seconds and connects the chat again (no restart needed)'));
    // Looked at many times since, said once each; and never tried at Twitch.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(warnings()).toHaveLength(3);
    expect(world.irc.totalConnections).toBe(0);

    const good = world.issue();
    await world.save(good);
    await world.irc.waitForJoin(CHANNEL);
    expect(world.passes()).toEqual([good.accessToken]);
  });

  it('takes a token saved to the file meanwhile at its next login, with no refresh', async () => {
    const setup = await setUpConnected();
    const { world } = setup;
    const fresh = world.issue();
    await world.save(fresh);
    await dropAndRejoin(setup);
    expect(world.passes()).toEqual([setup.first.accessToken, fresh.accessToken]);
    expect(refreshCalls(world)).toEqual([]);
  });

  it('refused while a new token is being saved to the file, takes that one instead of refreshing', async () => {
    const setup = await setUpConnected();
    const { world, transport, first } = setup;
    const fresh = world.issue();
    world.onLogin = (token) => {
      // `chatskin twitch auth --bot` saves its token just as Twitch refuses the old one.
      if (token === first.accessToken) writeFileSync(world.tokenFile, JSON.stringify(fresh));
    };
    world.helix.expireAccessToken(first.accessToken);
    await dropAndRejoin(setup);
    expect(world.passes()).toEqual([first.accessToken, first.accessToken, fresh.accessToken]);
    expect(refreshCalls(world)).toEqual([]);
    expect(transport.state).toBe('connected');
  });

  it('takes a token saved to the file while Twitch was refusing the refresh, instead of giving up', async () => {
    const setup = await setUpConnected();
    const { world, transport, states, logs, first } = setup;
    withdrawAccess(world, first);
    const held = world.helix.holdNext({ path: '/auth/token' });
    const since = world.irc.joins.length;
    world.irc.dropAllConnections();
    await held.arrived;
    // `chatskin twitch auth --bot` saves its token while the refresh is on its way to being refused.
    const fresh = world.issue();
    await world.save(fresh);
    held.release();
    await world.irc.waitForJoin(CHANNEL, { since });
    await expect.poll(() => transport.state, POLL).toBe('connected');
    expect(refreshCalls(world)).toEqual([400]);
    expect(world.passes().at(-1)).toBe(fresh.accessToken);
    expect(states).not.toContain('disconnected');
    expect(messages(logs, LEVEL.error)).toEqual([]);
  });

  it('retries a refresh that failed for a reason a later try may not have (Twitch 503), with back-off', async () => {
    const setup = await setUpConnected();
    const { world, transport, logs, first } = setup;
    world.helix.failNext({ status: 503, path: '/auth/token' });
    world.helix.expireAccessToken(first.accessToken);
    await dropAndRejoin(setup);
    expect(refreshCalls(world)).toEqual([503, 200]);
    expect(transport.state).toBe('connected');
    expect(messages(logs, LEVEL.warn).filter((message) => message.includes('renewing it failed'))).toEqual([
      'Twitch chat connection lost (Twitch refused the bot\'s token and renewing it failed: refreshing the bot\'s token failed '
      + '(Twitch answered 503: Service Unavailable)): reconnecting in 40 ms',
    ]);
    expect(messages(logs, LEVEL.error)).toEqual([]);
  });

  it('does not hang on a refresh Twitch never answers: tries the login again meanwhile, with no second refresh, and uses the late answer', async () => {
    const setup = await setUpConnected({ refreshWaitMs: 100 });
    const { world, transport, logs, first } = setup;
    const held = world.helix.holdNext({ path: '/auth/token' });
    world.helix.expireAccessToken(first.accessToken);
    const since = world.irc.joins.length;
    world.irc.dropAllConnections();
    await expect.poll(() => messages(logs, LEVEL.warn).filter((message) => message.includes('did not answer the bot\'s token refresh within 100 ms')).length, POLL)
      .toBeGreaterThanOrEqual(2);
    expect(transport.state).toBe('reconnecting');
    held.release();
    await world.irc.waitForJoin(CHANNEL, { since });
    await expect.poll(() => transport.state, POLL).toBe('connected');
    expect(refreshCalls(world)).toEqual([200]);
    expect(await readTokenFile(world.tokenFile)).toMatchObject({ login: BOT });
    expect(messages(logs, LEVEL.error)).toEqual([]);
  });

  it('stopped while a refresh is under way, saves the refreshed token before stop() resolves (Twitch may have retired the old refresh token)', async () => {
    const setup = await setUpConnected({ world: { helix: { rotateRefreshTokens: true } } });
    const { world, transport, first } = setup;
    const held = world.helix.holdNext({ path: '/auth/token' });
    world.helix.expireAccessToken(first.accessToken);
    world.irc.dropAllConnections();
    await held.arrived;
    const stopped = transport.stop();
    setTimeout(() => held.release(), 100);
    await stopped;
    const saved = (await readTokenFile(world.tokenFile))!;
    expect(saved.refreshToken).not.toBe(first.refreshToken);
    expect(world.helix.tokens.find((token) => token.accessToken === saved.accessToken)?.refreshToken).toBe(saved.refreshToken);
  });

  it('gives up when Twitch refuses the token it just refreshed too: no refresh loop', async () => {
    const setup = await setUpConnected();
    const { world, transport } = setup;
    // The account may no longer chat: every token is refused.
    world.refuseEveryLogin = true;
    world.helix.expireAccessToken(setup.first.accessToken);
    world.irc.dropAllConnections();
    await expect.poll(() => transport.state, POLL).toBe('disconnected');
    expect(transport.lastError).toBe('Twitch refused the bot\'s login as chatskinbot (Login authentication failed) again, with a token just renewed: '
      + `the account may not chat with it; ${REAUTHORIZE}`);
    expect(refreshCalls(world)).toEqual([200]);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(refreshCalls(world)).toEqual([200]);
  });

  it('gives up at once when Twitch refuses the new token saved to the file after it gave up: no refresh of a token just saved', async () => {
    const setup = await setUpConnected();
    const { world, transport, first } = setup;
    withdrawAccess(world, first);
    world.irc.dropAllConnections();
    await expect.poll(() => transport.state, POLL).toBe('disconnected');
    expect(refreshCalls(world)).toEqual([400]);

    // The account may no longer chat: the token `chatskin twitch auth --bot` saves is refused too.
    world.refuseEveryLogin = true;
    const fresh = world.issue();
    await world.save(fresh);
    await expect.poll(() => world.passes().at(-1), POLL).toBe(fresh.accessToken);
    await expect.poll(() => transport.lastError, POLL)
      .toBe(`Twitch refused the bot's login as chatskinbot (Login authentication failed) again, with a token just renewed: the account may not chat with it; ${REAUTHORIZE}`);
    expect(transport.state).toBe('disconnected');
    expect(refreshCalls(world)).toEqual([400]);
  });

  it('checks its token as Twitch asks of a chatbot (hourly): once the bot account disconnected the app, ends the session saying what to do, and comes back with the new token', async () => {
    const setup = await setUpConnected({ validateIntervalMs: 100 });
    const { world, transport, logs, first } = setup;
    const validations = () => world.helix.calls.filter((call) => call.path === '/auth/validate');
    await expect.poll(() => validations().length, POLL).toBeGreaterThan(0);
    expect(validations().every((call) => call.status === 200 && call.accessToken === first.accessToken)).toBe(true);

    // Twitch's chat keeps the connection up; the check is what finds the token gone.
    world.helix.disconnectApp(world.bot.id, CLIENT_ID);
    await expect.poll(() => transport.state, POLL).toBe('disconnected');
    const message = 'Twitch no longer accepts the bot\'s token (found by its hourly check at id.twitch.tv/oauth2/validate) and it could not be renewed: '
      + `Twitch refused to refresh the bot's token (Twitch answered 400: Invalid refresh token); ${REAUTHORIZE}`;
    expect(transport.lastError).toBe(message);
    expect(logs.entries.find((entry) => entry.msg === message)).toMatchObject({ level: LEVEL.error, transport: 'twitch' });
    await expect.poll(() => world.irc.connectionCount, POLL).toBe(0);
    await expect(transport.say(CHANNEL, 'not any more')).rejects.toThrow(TwitchChatError);
    // Said once, not at every check: none is made while the chat is off.
    const checked = validations().length;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(validations().length).toBe(checked);

    const fresh = world.issue();
    await world.save(fresh);
    await expect.poll(() => transport.state, POLL).toBe('connected');
    expect(world.passes().at(-1)).toBe(fresh.accessToken);
    await transport.say(CHANNEL, 'back');
    await world.irc.waitForPrivmsg((line) => line.text === 'back' && line.login === BOT);
    expect(logs.entries.filter((entry) => entry.level >= LEVEL.error).map((entry) => entry.msg)).toEqual([message]);
    expectNoTokenLogged(setup, [first.accessToken, first.refreshToken, fresh.accessToken, fresh.refreshToken]);
  });

  it('renews a token its check finds expired and saves it, with the session kept: the next login uses it, with no refused login first', async () => {
    const setup = await setUpConnected({ validateIntervalMs: 100, world: { helix: { rotateRefreshTokens: true } } });
    const { world, transport, states, first } = setup;
    world.helix.expireAccessToken(first.accessToken);
    await expect.poll(() => refreshCalls(world), POLL).toEqual([200]);
    await expect.poll(async () => (await readTokenFile(world.tokenFile))?.accessToken, POLL).not.toBe(first.accessToken);
    const saved = (await readTokenFile(world.tokenFile))!;
    expect(world.helix.isLiveUserToken(saved.accessToken, BOT)).toBe(true);
    expect(saved.refreshToken).not.toBe(first.refreshToken);
    expect(transport.state).toBe('connected');
    expect(world.irc.totalConnections).toBe(1);

    await dropAndRejoin(setup);
    expect(world.passes()).toEqual([first.accessToken, saved.accessToken]);
    expect(refreshCalls(world)).toEqual([200]);
    expect(states).toEqual(['connecting', 'connected', 'reconnecting', 'connected']);
    await transport.say(CHANNEL, 'still here');
    await world.irc.waitForPrivmsg((line) => line.text === 'still here' && line.login === BOT);
  });

  it('tightens a token file others may read to 600, and says so', async () => {
    const setup = await setUp();
    chmodSync(setup.world.tokenFile, 0o644);
    await connected(setup);
    expect(statSync(setup.world.tokenFile).mode & 0o777).toBe(0o600);
    expect(setup.logs.entries.find((entry) => entry.msg === 'the bot\'s token file was readable by others; its permissions are now 600'))
      .toMatchObject({ level: LEVEL.warn, mode: '644' });
  });

  it('stopped while waiting for a new token, looks at the file no more', async () => {
    const setup = await setUp({ first: 'none' });
    await expect(setup.transport.start()).rejects.toThrow(/there is no bot token/);
    await setup.transport.stop();
    await setup.world.save(setup.world.issue());
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(setup.world.irc.totalConnections).toBe(0);
    expect(setup.transport.state).toBe('disconnected');
  });
});
