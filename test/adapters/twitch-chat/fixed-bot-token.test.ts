// The Twitch chat with a fixed twitch.bot.token, checked as Twitch asks of a chatbot
// (id.twitch.tv/oauth2/validate at start and hourly): the real tmi.js against FakeTwitchIrc, which
// lets in exactly the tokens FakeHelix (id.twitch.tv) holds live. A token Twitch does not take
// stops the chat before it logs in, saying what to do; one revoked while connected ends the session.
import { afterEach, describe, expect, it } from 'vitest';
import { createTwitchChatTransport, TwitchChatError } from '../../../src/adapters/twitch-chat/twitch-chat-transport.ts';
import type { TwitchChatState } from '../../../src/adapters/twitch-chat/twitch-chat-transport.ts';
import { captureLogs, LEVEL } from '../../host/log-capture.ts';
import { BOT, CLIENT_ID, openBotTokenWorld } from './bot-token-world.ts';
import type { BotTokenWorld } from './bot-token-world.ts';

const CHANNEL = 'somechannel';
const POLL = { timeout: 10_000, interval: 5 };
const HINT = `put a new user access token of ${BOT} with chat:read and chat:edit in twitch.bot.token and restart chatskin, `
  + 'or use twitch.bot.tokenFile with `chatskin twitch auth --bot` instead, whose token is renewed without a restart';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setUp(options: {
  token?: (world: BotTokenWorld) => string; oauthUrl?: string; validateIntervalMs?: number; httpTimeoutMs?: number; loginTimeoutMs?: number;
  before?: (world: BotTokenWorld) => void;
} = {}) {
  const world = await openBotTokenWorld();
  cleanups.push(() => world.close());
  const token = options.token ? options.token(world) : world.issue().accessToken;
  options.before?.(world);
  const logs = captureLogs([token]);
  const transport = createTwitchChatTransport({
    channels: [CHANNEL],
    identity: {
      login: BOT, token: `oauth:${token}`,
      check: {
        mockServerPort: world.helix.port, httpTimeoutMs: options.httpTimeoutMs ?? 2_000,
        ...(options.oauthUrl === undefined ? {} : { oauthUrl: options.oauthUrl }),
        ...(options.validateIntervalMs === undefined ? {} : { validateIntervalMs: options.validateIntervalMs }),
      },
    },
    reconnect: { initialDelayMs: 20, maxDelayMs: 100, jitter: 0 },
    server: { host: '127.0.0.1', port: world.irc.port, secure: false },
    ...(options.loginTimeoutMs === undefined ? {} : { loginTimeoutMs: options.loginTimeoutMs }),
  }, logs.logger);
  cleanups.push(() => transport.stop());
  const states: TwitchChatState[] = [];
  transport.onStateChange((change) => states.push(change.state));
  const validations = () => world.helix.calls.filter((call) => call.path === '/auth/validate');
  return { world, token, logs, transport, states, validations };
}

function errors(logs: ReturnType<typeof captureLogs>): string[] {
  return logs.entries.filter((entry) => entry.level >= LEVEL.error).map((entry) => String(entry.msg));
}

describe('Twitch chat with a fixed twitch.bot.token', () => {
  it('checks the token before its first login: one Twitch no longer accepts stops the chat there, in one line saying what to do', async () => {
    const setup = await setUp({ token: (world) => {
      const issued = world.issue();
      world.helix.disconnectApp(world.bot.id, CLIENT_ID);
      return issued.accessToken;
    } });
    const failure = await setup.transport.start().then(() => null, (error: unknown) => error);
    const message = `Twitch chat cannot log in: Twitch does not accept twitch.bot.token (id.twitch.tv/oauth2/validate: it expired or was revoked); ${HINT}`;
    expect(failure).toBeInstanceOf(TwitchChatError);
    expect((failure as Error).message).toBe(message);
    expect(setup.transport.lastError).toBe(message);
    expect(setup.states).toEqual(['connecting', 'disconnected']);
    expect(setup.validations().map((call) => call.status)).toEqual([401]);
    // Never tried at Twitch's chat, and not tried again.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(setup.world.irc.totalConnections).toBe(0);
    expect(errors(setup.logs)).toEqual([message]);
    expect(setup.logs.lines.join('\n')).not.toContain(setup.token);
  });

  it('refuses at start a token of another account, or without chat:edit, naming what is wrong', async () => {
    const other = await setUp({ token: (world) => world.issue({ login: 'someoneelse' }).accessToken });
    await expect(other.transport.start()).rejects.toThrow(`Twitch chat cannot log in: twitch.bot.token belongs to "someoneelse", not twitch.bot.login "${BOT}"; ${HINT}`);
    const readOnly = await setUp({ token: (world) => world.issue({ scopes: ['chat:read'] }).accessToken });
    await expect(readOnly.transport.start()).rejects.toThrow(`Twitch chat cannot log in: twitch.bot.token lacks chat:edit; ${HINT}`);
    expect(other.world.irc.totalConnections + readOnly.world.irc.totalConnections).toBe(0);
  });

  it('logs in when the check at start gets no answer (the login tells)', async () => {
    const setup = await setUp({ oauthUrl: 'http://127.0.0.1:1/oauth2' });
    await setup.transport.start();
    await setup.world.irc.waitForJoin(CHANNEL);
    expect(setup.logs.entries.some((entry) => entry.level === LEVEL.warn && String(entry.msg).startsWith('the bot\'s token could not be checked at start'))).toBe(true);
  });

  it('a check at start id.twitch.tv takes and never answers ends after twitch.httpTimeoutSeconds, saying so, and then the chat logs in: the login wait is not spent on it', async () => {
    // The check may wait (1.5 s) longer than a login may take (0.4 s).
    const setup = await setUp({ httpTimeoutMs: 1_500, loginTimeoutMs: 400, before: (world) => void world.helix.stallNext({ path: '/auth/validate' }) });
    const startedAt = Date.now();
    await setup.transport.start();
    await setup.world.irc.waitForJoin(CHANNEL);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(1_400);
    const warnings = setup.logs.entries.filter((entry) => entry.level === LEVEL.warn).map((entry) => String(entry.msg));
    expect(warnings).toEqual([
      'the bot\'s token could not be checked at start (Twitch did not answer within 1.5 s at id.twitch.tv/oauth2/validate (twitch.httpTimeoutSeconds)); logging in with it tells',
    ]);
    // One login, not one dropped for want of a login while the check waited.
    expect(setup.world.irc.totalConnections).toBe(1);
    expect(setup.states).toEqual(['connecting', 'connected']);
    expect(setup.validations().map((call) => call.status)).toEqual([0]);
  });

  it('checks its token while connected (hourly): once the bot account disconnected the app, ends the session with what to do, for good', async () => {
    const setup = await setUp({ validateIntervalMs: 100 });
    const { world, transport, logs, validations } = setup;
    await transport.start();
    await world.irc.waitForJoin(CHANNEL);
    await expect.poll(() => validations().length, POLL).toBeGreaterThan(1);
    expect(validations().every((call) => call.status === 200)).toBe(true);
    expect(transport.state).toBe('connected');

    // Twitch's chat keeps the connection up; the check is what finds the token gone.
    world.helix.disconnectApp(world.bot.id, CLIENT_ID);
    await expect.poll(() => transport.state, POLL).toBe('disconnected');
    const message = 'Twitch no longer accepts the bot\'s token (found by its hourly check at id.twitch.tv/oauth2/validate) and it could not be renewed: '
      + `twitch.bot.token is a fixed token, which chatskin cannot renew; ${HINT}`;
    expect(transport.lastError).toBe(message);
    await expect.poll(() => world.irc.connectionCount, POLL).toBe(0);
    await expect(transport.say(CHANNEL, 'not any more')).rejects.toThrow(TwitchChatError);
    // Said once; no check, and no login, while the chat is off.
    const checked = validations().length;
    const connections = world.irc.totalConnections;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(validations().length).toBe(checked);
    expect(world.irc.totalConnections).toBe(connections);
    expect(errors(logs)).toEqual([message]);
    expect(logs.lines.join('\n')).not.toContain(setup.token);
  });
});
