// The CLI's failure message for each kind of error: the listen errors in the config's terms, a
// one-line unexpected error, and never a config secret, stack trace or not.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CliError } from '../../src/cli/cli-error.ts';
import { failureContext, formatFailure } from '../../src/cli/cli-failure.ts';
import type { FailureContext } from '../../src/cli/cli-failure.ts';
import { CONFIG_DEFAULT_PATH } from '../../src/config/config-path.ts';

const OWN: FailureContext = {
  configFile: '/home/me/chatskin.yaml', shippedDefault: false, http: { host: '127.0.0.1', port: 4477 }, secrets: [], debug: false,
};

function systemError(message: string, fields: Record<string, unknown>): Error {
  return Object.assign(new Error(message), fields);
}

const listen = (code: string, address: string, port: number) =>
  systemError(`listen ${code}: something ${address}:${port}`, { code, errno: -1, syscall: 'listen', address, port });

describe('formatFailure: the server cannot listen', () => {
  it('EACCES on a port below 1024: says why and to pick 1024 or above in http.port', () => {
    expect(formatFailure(listen('EACCES', '0.0.0.0', 80), OWN)).toBe('chatskin: cannot listen on 0.0.0.0:80 (EACCES): permission denied;'
      + ' ports below 1024 need administrator rights. Change http.port to 1024 or above in /home/me/chatskin.yaml.\n');
  });

  it('EACCES on a high port: names http.port and http.host', () => {
    expect(formatFailure(listen('EACCES', '127.0.0.1', 8080), OWN)).toContain('Change http.port (or http.host) in /home/me/chatskin.yaml.');
  });

  it('EADDRNOTAVAIL on an IPv6 address: brackets it, names http.host', () => {
    expect(formatFailure(listen('EADDRNOTAVAIL', 'fd00::1', 4477), OWN)).toBe('chatskin: cannot listen on [fd00::1]:4477 (EADDRNOTAVAIL):'
      + ' no network interface of this machine has the address fd00::1. Change http.host in /home/me/chatskin.yaml:'
      + ' 127.0.0.1 (this machine only), 0.0.0.0 (every interface) or an address of this machine.\n');
  });

  it('an http.host name that does not resolve: names it and http.host; another host name\'s lookup is not ours', () => {
    const context = { ...OWN, http: { host: 'overlay.invalid', port: 4477 } };
    const lookup = (hostname: string) => systemError(`getaddrinfo ENOTFOUND ${hostname}`, { code: 'ENOTFOUND', syscall: 'getaddrinfo', hostname });
    expect(formatFailure(lookup('overlay.invalid'), context)).toMatch(
      /^chatskin: cannot listen on overlay\.invalid:4477 \(ENOTFOUND\): the host name overlay\.invalid does not resolve to an address\. Change http\.host in \/home\/me\/chatskin\.yaml: /,
    );
    expect(formatFailure(lookup('irc-ws.chat.twitch.tv'), context)).toMatch(/^chatskin: unexpected error: getaddrinfo ENOTFOUND irc-ws\.chat\.twitch\.tv/);
  });

  it('with the shipped default config: says to pass a config of one\'s own with --config', () => {
    const context = { ...OWN, configFile: CONFIG_DEFAULT_PATH, shippedDefault: true };
    expect(formatFailure(listen('EADDRINUSE', '127.0.0.1', 4477), context)).toBe('chatskin: cannot listen on 127.0.0.1:4477 (EADDRINUSE):'
      + ' another program, perhaps another chatskin, is using that port. Stop the other program, or change http.port in a config file'
      + ` of your own, passed with --config FILE (the shipped ${CONFIG_DEFAULT_PATH} is in use now).\n`);
  });

  it('the same codes from another system call (reading a file, say) are unexpected errors', () => {
    const error = systemError('EACCES: permission denied, open \'/data/db\'', { code: 'EACCES', syscall: 'open', path: '/data/db' });
    expect(formatFailure(error, OWN)).toBe('chatskin: unexpected error: EACCES: permission denied, open \'/data/db\''
      + ' (run again with CHATSKIN_DEBUG=1 to see the stack trace)\n');
  });
});

describe('formatFailure: other errors', () => {
  it('a CliError is its message alone', () => {
    expect(formatFailure(new CliError('Usage: chatskin seed FILE'), { ...OWN, debug: true })).toBe('chatskin: Usage: chatskin seed FILE\n');
  });

  it('an unexpected error is one line with its type and cause; the stack only when debugging', () => {
    const error = new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED 127.0.0.1:9') });
    expect(formatFailure(error, OWN)).toBe('chatskin: unexpected error: TypeError: fetch failed (cause: connect ECONNREFUSED 127.0.0.1:9)'
      + ' (run again with CHATSKIN_DEBUG=1 to see the stack trace)\n');
    const debug = formatFailure(error, { ...OWN, debug: true });
    expect(debug.split('\n')[0]).toBe('chatskin: unexpected error: TypeError: fetch failed (cause: connect ECONNREFUSED 127.0.0.1:9)');
    expect(debug).toMatch(/\n {4}at .*cli-failure\.test\.ts/);
    expect(debug).toContain('[cause]: Error: connect ECONNREFUSED');
  });

  it('a thrown non-error is printed as text', () => {
    expect(formatFailure('boom', OWN)).toBe('chatskin: unexpected error: boom (run again with CHATSKIN_DEBUG=1 to see the stack trace)\n');
  });

  it('never prints a config secret or a token, in the line or in the stack trace', () => {
    const secrets = ['client-secret-value-123', 'oauth:bottoken123456'];
    const error = new Error('Twitch answered 400 for client_secret=client-secret-value-123 with Bearer abc.def.ghi and oauth:bottoken123456',
      { cause: new Error('token client-secret-value-123 refused') });
    for (const debug of [false, true]) {
      const text = formatFailure(error, { ...OWN, secrets, debug });
      expect(text).not.toContain('client-secret-value-123');
      expect(text).not.toContain('bottoken123456');
      expect(text).not.toContain('abc.def.ghi');
      expect(text).toContain('client_secret=[redacted]');
    }
  });

  it('the stack trace shows no secret-named field of the error, such as a token read from a token file it holds', () => {
    const error = Object.assign(new Error('refresh refused'), {
      token: { accessToken: 'learned-access-token-1', refreshToken: 'learned-refresh-token-2', scope: ['chat:read'] },
      request: { headers: { 'Client-Secret': 'learned-secret-3' } },
    });
    const text = formatFailure(error, { ...OWN, debug: true });
    expect(text).not.toMatch(/learned-/);
    expect(text).toContain("accessToken: '[redacted]'");
    expect(text).toContain("'chat:read'");
  });
});

describe('failureContext', () => {
  const dirs: string[] = [];
  afterAll(() => { for (const dir of dirs) rmSync(dir, { recursive: true, force: true }); });
  function configFile(yaml: string): string {
    const dir = mkdtempSync(join(tmpdir(), 'chatskin-failure-'));
    dirs.push(dir);
    const file = join(dir, 'config.yaml');
    writeFileSync(file, yaml);
    return file;
  }

  it('reads the config named by --config: its file, http keys and secrets', () => {
    const file = configFile([
      'http: { host: 0.0.0.0, port: 8080 }',
      'twitch: { enabled: true, clientId: id1, clientSecret: "${TEST_SECRET}", bot: { login: bot, token: "oauth:tok123456" } }',
    ].join('\n'));
    const context = failureContext(file, { TEST_SECRET: 'from-the-env-999' });
    expect(context).toMatchObject({ configFile: resolve(file), shippedDefault: false, http: { host: '0.0.0.0', port: 8080 }, debug: false });
    expect(context.secrets).toEqual(expect.arrayContaining(['from-the-env-999', 'oauth:tok123456', 'tok123456']));
  });

  it('CHATSKIN_CONFIG when there is no --config; the shipped default when neither; a bad config gives no http keys', () => {
    const bad = configFile('http: { port: eighty }');
    expect(failureContext(undefined, { CHATSKIN_CONFIG: bad })).toMatchObject({ configFile: bad, shippedDefault: false, secrets: [] });
    expect(failureContext(undefined, { CHATSKIN_CONFIG: bad }).http).toBeUndefined();
    expect(failureContext(undefined, {})).toMatchObject({ configFile: resolve(CONFIG_DEFAULT_PATH), shippedDefault: true });
  });

  it('CHATSKIN_DEBUG turns the stack trace on, except empty, 0 or false', () => {
    const debug = (value: string) => failureContext(undefined, { CHATSKIN_DEBUG: value }).debug;
    expect([debug('1'), debug('yes'), debug(''), debug('0'), debug('false')]).toEqual([true, true, false, false, false]);
  });
});
