import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configSecrets } from '../../src/config/config-secrets.ts';
import { loadConfig, parseConfig } from '../../src/config/load-config.ts';
import { pino } from 'pino';
import { addLogSecrets, MAX_LEARNED_SECRETS, REDACTED } from '../../src/host/logger.ts';
import { captureLogs } from './log-capture.ts';

describe('createLogger: secrets never reach the log', () => {
  it('redacts secret-named keys at any depth (token, clientSecret, apiKey, Authorization, ...)', () => {
    const { logger, lines } = captureLogs();
    logger.info({
      config: { twitch: { clientSecret: 'cs-value-1', bot: { token: 'tok-value-2' } }, service: { apiKey: 'key-value-3' } },
      request: { headers: { Authorization: 'Bearer hdr-value-4', 'X-Api-Key': 'hdr-value-5', cookie: 'sid=cookie-value-6' } },
      access_token: 'at-value-7', refreshToken: 'rt-value-8', password: 'pw-value-9',
    }, 'startup');
    const line = lines.join('');
    for (let index = 1; index <= 9; index++) expect(line).not.toMatch(new RegExp(`value-${index}`));
    expect(JSON.parse(line).config.twitch.clientSecret).toBe(REDACTED);
    expect(JSON.parse(line).request.headers.Authorization).toBe(REDACTED);
  });

  it('scrubs the config\'s secret values wherever they appear, errors and messages included', () => {
    const config = parseConfig({
      twitch: { clientId: 'id', clientSecret: 'the-client-secret', bot: { login: 'bot', token: 'oauth:thebottoken' } },
      service: { mode: 'remote', baseUrl: 'https://styles.example/api/v1', apiKey: 'csk_remote_service_key_0123456789abcdefghijklmnopq' },
    });
    const { logger, lines } = captureLogs(configSecrets(config));
    logger.error({ err: new Error('login failed for thebottoken with the-client-secret') }, 'connect to https://x/?secret=the-client-secret');
    logger.warn({ url: 'https://styles.example/api/v1?key=csk_remote_service_key_0123456789abcdefghijklmnopq' }, 'remote');
    const text = lines.join('');
    expect(text).not.toContain('thebottoken');
    expect(text).not.toContain('the-client-secret');
    expect(text).not.toContain('csk_remote');
    expect(text).toContain(REDACTED);
  });

  it('scrubs token shapes it was not told about: oauth:..., Bearer ..., OAuth ..., chatskin API keys', () => {
    const { logger, lines } = captureLogs();
    logger.info('irc PASS oauth:abcdef123456 then Bearer eyJhbGciOi.x.y and OAuth zzzz9999 and csk_AAAAAAAAAAAAAAAAAAAAAAAAAA');
    const { msg } = JSON.parse(lines[0]!) as { msg: string };
    expect(msg).toBe(`irc PASS ${REDACTED} then Bearer ${REDACTED} and OAuth ${REDACTED} and ${REDACTED}`);
  });

  it('child loggers (plugins) are scrubbed too, and keep their bindings', () => {
    const { logger, entries } = captureLogs(['plugin-secret-1']);
    logger.child({ plugin: 'dice' }).info({ token: 'x' }, 'has plugin-secret-1');
    expect(entries[0]).toMatchObject({ plugin: 'dice', token: REDACTED, msg: `has ${REDACTED}` });
  });

  it('scrubs secrets learned while running (a token read from a file) from the root logger and every child, from then on', () => {
    const { logger, lines } = captureLogs();
    const child = logger.child({ component: 'twitch-bot-token' }).child({ tokenFile: 'bot.json' });
    child.info('read learnedtoken1');
    addLogSecrets(child, ['learnedtoken1']);
    child.info('child learnedtoken1');
    logger.child({ plugin: 'dice' }).info({ err: new Error('root learnedtoken1') }, 'sibling');
    expect(lines[0]).toContain('learnedtoken1');
    expect(lines.slice(1).join('')).not.toContain('learnedtoken1');
    expect(lines.slice(1).join('')).toContain(REDACTED);
  });

  it('keeps the newest MAX_LEARNED_SECRETS learned secrets (a year of refreshes must not slow every line), and the config\'s always', () => {
    const { logger, lines } = captureLogs(['configured-secret-value']);
    const learned = Array.from({ length: MAX_LEARNED_SECRETS * 3 }, (_, index) => `retired-secret-${index}-x`);
    for (let index = 0; index < learned.length; index += 2) addLogSecrets(logger, learned.slice(index, index + 2));
    const newest = learned.slice(-MAX_LEARNED_SECRETS);
    logger.info(`config configured-secret-value; newest ${newest.join(' ')}`);
    expect(lines[0]).not.toContain('configured-secret-value');
    for (const secret of newest) expect(lines[0]).not.toContain(secret);
    // Beyond the bound the oldest are dropped (so the scrubber's work stays bounded).
    logger.info(`oldest ${learned[0]}`);
    expect(lines[1]).toContain(learned[0]);
  });

  it('keeps a learned secret taught again as the newest: a refresh token Twitch hands back unchanged at every refresh stays scrubbed', () => {
    const { logger, lines } = captureLogs();
    // As each refresh teaches it: a new access token, and the refresh token still in use. After
    // every refresh (the 65th had let it go, until the next one brought it back).
    for (let refresh = 0; refresh < MAX_LEARNED_SECRETS * 3; refresh++) {
      addLogSecrets(logger, [`access-token-${refresh}-x`, 'still-used-refresh-token']);
      logger.info('a library quoting still-used-refresh-token');
      expect(lines.at(-1), `after refresh ${refresh}`).not.toContain('still-used-refresh-token');
    }
  });

  it('a logger it did not make has no scrubber to teach', () => {
    expect(() => addLogSecrets(pino({ level: 'silent' }), ['learnedtoken2'])).not.toThrow();
  });

  it('the config\'s secrets with a bot token file: the client secret (the file\'s tokens are learned when read)', () => {
    const config = parseConfig({ twitch: { clientId: 'id', clientSecret: 'the-client-secret', bot: { login: 'bot', tokenFile: './bot.json' } } });
    expect(configSecrets(config)).toEqual(['the-client-secret']);
  });

  it('the config\'s secrets include a plugin\'s settings under secret-looking keys and the text ${ENV} put into its settings', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'chatskin-secrets-')), 'config.yaml');
    writeFileSync(file, [
      'plugins:',
      '  hooks: { webhook: "https://hooks.example/h/${HOOK_SECRET}", auth: { apiToken: file-token-value, tokenFile: ./t.json }, rewardKey: unlock-neon }',
      '  style: {}',
    ].join('\n'));
    const secrets = configSecrets(loadConfig(file, { HOOK_SECRET: 'env-hook-secret' }));
    expect(secrets.sort()).toEqual(['env-hook-secret', 'file-token-value']);
    const { logger, lines } = captureLogs(secrets);
    logger.error('plugin hooks failed: POST https://hooks.example/h/env-hook-secret with file-token-value refused');
    expect(lines[0]).not.toMatch(/env-hook-secret|file-token-value/);
  });

  it('redacts any key that names a secret (botToken, twitchToken, X-Api-Key), a lowercase bearer, and name=value secrets in messages', () => {
    const { logger, lines } = captureLogs();
    logger.info({
      twitchToken: 'sv-1', botToken: 'sv-2', nested: { userPassword: 'sv-3', 'X-Api-Key': 'sv-4' },
      header: 'bearer sv-5', tokenFile: '/etc/chatskin/bot.json',
    }, 'refresh failed: token=sv-6&client_secret=sv-7 and access_token=sv-8');
    logger.error({ err: new Error('failed with token=sv-9 and password=sv-10') }, 'err');
    const text = lines.join('');
    for (let index = 1; index <= 10; index++) expect(text).not.toMatch(new RegExp(`sv-${index}\\b`));
    // Where a token is kept is not a secret.
    expect(JSON.parse(lines[0]!).tokenFile).toBe('/etc/chatskin/bot.json');
    expect(JSON.parse(lines[0]!).header).toBe(`bearer ${REDACTED}`);
  });

  it('leaves ordinary fields alone', () => {
    const { logger, entries } = captureLogs(['hunter2']);
    logger.info({ channel: 'streamer', tokens: 3, keyboard: 'qwerty' }, 'plain');
    expect(entries[0]).toMatchObject({ channel: 'streamer', tokens: 3, keyboard: 'qwerty', msg: 'plain' });
  });
});

describe('createLogger: errors under err', () => {
  it('says a cause once: a wrapper that quotes its cause keeps its message, one that does not gets the cause added', () => {
    const { logger, entries } = captureLogs();
    const node = new Error("Cannot find module '/opt/chatskin/src/sdk'");
    logger.error({ err: new Error(`index.ts could not be loaded: ${node.message}`, { cause: node }) }, 'quoting');
    logger.error({ err: new Error('setup failed', { cause: node }) }, 'not quoting');
    const [quoting, notQuoting] = entries.map((entry) => entry.err as { message: string; stack: string });
    expect(quoting!.message).toBe("index.ts could not be loaded: Cannot find module '/opt/chatskin/src/sdk'");
    expect(quoting!.stack).toContain("caused by: Error: Cannot find module '/opt/chatskin/src/sdk'");
    expect(notQuoting!.message).toBe("setup failed: Cannot find module '/opt/chatskin/src/sdk'");
  });

  it('leaves what is no error as it is, and a cause chain that loops ends', () => {
    const { logger, entries } = captureLogs();
    const looped = new Error('a') as Error & { cause?: unknown };
    looped.cause = new Error('b', { cause: looped });
    logger.error({ err: undefined }, 'nothing');
    logger.error({ err: 'just text' }, 'text');
    logger.error({ err: looped }, 'loop');
    expect(entries.map((entry) => entry.err)).toEqual([undefined, 'just text', expect.objectContaining({ message: 'a: b' })]);
  });
});
