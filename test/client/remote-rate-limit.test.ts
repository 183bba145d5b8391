// A burst of chat commands against a remote service that rate limits: the real bundled API on a
// real socket (its fixed-window limiter, its 429 with Retry-After), a host whose plugins use the
// HTTP client. The limiter's clock runs 60 times fast and the client sleeps 60 times shorter, so
// a 60 s window passes in one real second. The commands must take effect in the order typed, each
// answered once, in that order; and a call made while the gate is closed longer than the client
// waits is refused at once, unsent.
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent } from 'undici';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createHttpClient } from '../../src/client/http-client.ts';
import type { HttpClientOptions } from '../../src/client/http-client.ts';
import { overlayErrorLine } from '../../src/client/overlay-error-line.ts';
import { OverlayStyleError } from '../../src/client/overlay-style-error.ts';
import { BUILT_IN_PLUGIN_DIR } from '../../src/host/plugin-loader.ts';
import { buildApiApp } from '../../src/service/http/index.ts';
import { applySeed } from '../../src/service/seed.ts';
import { startTestHost } from '../host/host-fixture.ts';
import { moderatorTags } from '../host/irc-tags.ts';
import { openHarness } from '../service/core/service-harness.ts';

const SPEED = 60;

async function rateLimitedRemote(perMinute: number, client: Partial<HttpClientOptions> = {}) {
  const harness = await openHarness();
  onTestFinished(() => harness.close());
  await applySeed(harness.service, {
    accounts: [{ login: 'streamer', premium: true, overlays: [{ name: 'Main', template: 'bubbles', default: true, values: {} }] }],
  });
  const { token } = await harness.service.createKey('streamer');
  const started = Date.now();
  const requests: string[] = [];
  const app = buildApiApp({
    operations: harness.service,
    authenticate: harness.service.authenticate,
    rateLimit: { perMinute, now: () => started + (Date.now() - started) * SPEED },
  });
  app.addHook('onResponse', async (request, reply) => { requests.push(`${request.method} ${reply.statusCode}`); });
  await app.listen({ host: '127.0.0.1', port: 0 });
  onTestFinished(() => app.close());
  const agent = new Agent();
  onTestFinished(() => agent.close());
  const overlay = createHttpClient({
    baseUrl: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/v1`,
    apiKey: token,
    dispatcher: agent,
    sleep: (ms) => sleep(ms / SPEED),
    ...client,
  });
  const width = async () => (await harness.service.getTemplate((await harness.service.findAccount('streamer'))!.id)).settings_values['bubble.width'];
  return { overlay, requests, width };
}

describe('a burst of commands against a remote service that rate limits (real API, real socket)', () => {
  it('takes effect in the order typed, and answers in that order', async () => {
    const remote = await rateLimitedRemote(4, { maxRetries: 6 });
    const test = await startTestHost({ builtInPluginDir: BUILT_IN_PLUGIN_DIR, overlayClient: remote.overlay, config: { plugins: { style: {} } } });
    onTestFinished(() => test.host.stop());
    // 10 commands, two requests each: five windows' worth at four requests a window.
    const widths = Array.from({ length: 10 }, (_, index) => 301 + index);
    for (const value of widths) test.chat.message('#streamer', `!style bubble.width ${value}`, moderatorTags());
    await expect.poll(() => test.said().length, { timeout: 20_000, interval: 20 }).toBe(widths.length);
    expect(test.said()).toEqual(widths.map((value) => `@Mod_mia bubble.width is now ${value}.`));
    expect(await remote.width()).toBe(310);
    // Refused requests were few: calls waited for the window rather than each trying it.
    expect(remote.requests.filter((line) => line.endsWith(' 429')).length).toBeLessThanOrEqual(5);
  }, 30_000);

  it('refuses at once, unsent, a call made while the rate limit outlasts what the client waits', async () => {
    const remote = await rateLimitedRemote(1, { maxRetries: 2, maxRetryAfterMs: 10_000 });
    await remote.overlay.getTemplate();
    // The window's last 59-60 s: longer than maxRetryAfterMs, so this one gives up at once...
    const first = await remote.overlay.getTemplate().then(() => undefined, (error: unknown) => error);
    expect(first).toMatchObject({ status: 429, kind: 'service' });
    const sent = remote.requests.length;
    // ...and so does the next, without asking the service again.
    const second = await remote.overlay.listSkins().then(() => undefined, (error: unknown) => error);
    expect(second).toBeInstanceOf(OverlayStyleError);
    expect(second).toMatchObject({ status: 429, kind: 'service', message: 'Too Many Attempts.' });
    expect((second as OverlayStyleError).retryAfter).toBeGreaterThan(10);
    expect(overlayErrorLine(second as OverlayStyleError)).toMatch(/^the overlay service is busy; try again in \d+ s\.$/);
    expect(remote.requests.length).toBe(sent);
  });
});
