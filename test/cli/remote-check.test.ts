// `chatskin start` with service.mode remote checks the remote service once at start and says the
// outcome under its URLs (and in the log): a wrong address or a refused key shows then, not at the
// first command a moderator types. The host runs either way.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import type { Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer as createTlsServer } from 'node:tls';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/index.ts';
import { startChatskin } from '../../src/runtime/start-chatskin.ts';
import type { RunningChatskin } from '../../src/runtime/start-chatskin.ts';
import { runCli, startHost, tempWorkspace } from './cli-process.ts';
import type { RunningHost } from './cli-process.ts';

let host: RunningHost | undefined;
let remote: RunningChatskin | undefined;
let terminator: Server | undefined;
afterEach(async () => {
  await host?.stop();
  await new Promise((resolve) => (terminator ? terminator.close(resolve) : resolve(undefined)));
  await remote?.close();
  host = undefined;
  remote = undefined;
  terminator = undefined;
});

/** A certificate for 127.0.0.1 issued by a CA of our own (test/support/tls), served without that CA. */
const TLS = fileURLToPath(new URL('../support/tls/', import.meta.url));

/** HTTPS in front of `port`, as a reverse proxy ends TLS in front of a service: the bytes inside go through as they are. */
async function tlsInFrontOf(port: number): Promise<number> {
  const server = createTlsServer({ key: readFileSync(join(TLS, 'service-key.pem')), cert: readFileSync(join(TLS, 'service-cert.pem')) }, (socket) => {
    const inside = connect(port, '127.0.0.1');
    socket.pipe(inside).pipe(socket);
    socket.on('error', () => inside.destroy());
    inside.on('error', () => socket.destroy());
  });
  terminator = server;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** A port nothing listens on (taken, then given back). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A bundled chatskin in this process, for the CLI's host to use as its remote service. */
function startRemote(): Promise<RunningChatskin> {
  return startChatskin(parseConfig({
    http: { host: '127.0.0.1', port: 0 },
    store: { path: join(mkdtempSync(join(tmpdir(), 'chatskin-remote-')), 'db.sqlite') },
    channel: { login: 'streamer' },
    localChat: { enabled: false },
    log: { level: 'silent' },
  }), { logger: pino({ level: 'silent' }), stdin: null });
}

/** What /healthz says of the remote service. */
async function remoteHealth(running: RunningHost): Promise<unknown> {
  const body = await (await fetch(`${running.baseUrl}/healthz`)).json() as { components: Record<string, string> };
  return body.components['remote-service'];
}

async function remoteLine(running: RunningHost): Promise<string> {
  await expect.poll(() => running.stdout(), { timeout: 10_000 }).toMatch(/Remote: {2}check/);
  return /Remote: {2}(check.*)/.exec(running.stdout())![1]!;
}

describe('chatskin start, service.mode remote: the check at start', () => {
  it('passes against a remote chatskin that accepts the key, naming the overlay the plugins restyle', async () => {
    remote = await startRemote();
    await remote.service.setPremium('streamer', true);
    const { token } = await remote.service.createKey('streamer');
    const { dir, config } = tempWorkspace(`service: { mode: remote, baseUrl: "${remote.apiUrl}", apiKey: "${token}", maxRetries: 0 }`);
    host = await startHost(config, { cwd: dir });
    expect(await remoteLine(host)).toBe('check passed: it accepts the key; plugins restyle its overlay "Main"');
    expect(await remoteHealth(host)).toBe('ok');
  });

  it('says a remote that is not there, and logs why, while the host runs on', async () => {
    const port = await closedPort();
    const { dir, config } = tempWorkspace(`service: { mode: remote, baseUrl: "http://127.0.0.1:${port}/api/v1", apiKey: csk_wrong, maxRetries: 0 }`);
    host = await startHost(config, { cwd: dir });
    expect(await remoteLine(host)).toBe('check failed: the overlay service is not answering; try again in a moment. (details in the log)');
    expect(host.stderr()).toContain('remote overlay service check failed');
    expect(host.stderr()).toContain('ECONNREFUSED');
    const health = await fetch(`${host.baseUrl}/healthz`);
    expect(health.status).toBe(200);
    expect(await remoteHealth(host)).toBe('unreachable');
  });

  it('says a refused key', async () => {
    remote = await startRemote();
    const { dir, config } = tempWorkspace(`service: { mode: remote, baseUrl: "${remote.apiUrl}", apiKey: csk_not_a_key_of_anyone, maxRetries: 0 }`);
    host = await startHost(config, { cwd: dir });
    expect(await remoteLine(host)).toBe('check failed: the overlay service does not accept the bot\'s API key. (details in the log)');
    expect(host.stderr()).not.toContain('csk_not_a_key_of_anyone');
    expect(await remoteHealth(host)).toBe('key-refused');
  });

  it('an https remote whose certificate is of a CA of the streamer\'s own: told it cannot connect securely, and how to trust it; trusted with NODE_EXTRA_CA_CERTS', async () => {
    remote = await startRemote();
    await remote.service.setPremium('streamer', true);
    const { token } = await remote.service.createKey('streamer');
    const tlsPort = await tlsInFrontOf(remote.port);
    const { dir, config } = tempWorkspace(`service: { mode: remote, baseUrl: "https://127.0.0.1:${tlsPort}/api/v1/", apiKey: "${token}", maxRetries: 2 }`);
    host = await startHost(config, { cwd: dir, env: { NODE_EXTRA_CA_CERTS: undefined } });
    expect(await remoteLine(host)).toBe('check failed: the bot cannot connect to the overlay service securely; the streamer should check the service settings. (details in the log)');
    expect(host.stderr()).toContain('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
    expect(host.stderr()).toContain('NODE_EXTRA_CA_CERTS');
    expect(host.stderr()).not.toContain(token);
    await host.stop();

    host = await startHost(config, { cwd: dir, env: { NODE_EXTRA_CA_CERTS: join(TLS, 'ca.pem') } });
    expect(await remoteLine(host)).toBe('check passed: it accepts the key; plugins restyle its overlay "Main"');
  });
});

describe('chatskin overlays list, service.mode remote', () => {
  it('lists this host\'s own overlays, with a note that the plugins restyle the remote service\'s instead', async () => {
    const { dir, config } = tempWorkspace('service: { mode: remote, baseUrl: "https://styles.example.com/api/v1", apiKey: csk_abc }', '{ host: 127.0.0.1, port: 4477 }');
    writeFileSync(join(dir, 'fixture.yaml'), 'accounts: [ { login: alice } ]\n');
    expect((await runCli(['seed', join(dir, 'fixture.yaml'), '--config', config], { cwd: dir })).code).toBe(0);
    const listed = await runCli(['overlays', 'list', 'alice', '--config', config], { cwd: dir });
    expect(listed.code).toBe(0);
    expect(listed.stdout.split('\n')[1]).toMatch(/^\d+\tMain \(default\)\tbubbles\thttp:\/\/127\.0\.0\.1:4477\/overlay\/\S+$/);
    expect(listed.stderr).toBe(`chatskin: note: service.mode is remote in ${config}: these are this host's own overlays, which the plugins`
      + ' do not restyle (!style, !theme and skin edits go to https://styles.example.com/api/v1). Add that service\'s overlay to OBS;'
      + ' on a chatskin, `chatskin overlays list LOGIN` with its config lists it.\n');
  });
});
