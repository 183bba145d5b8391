// The HTTP client against the real bundled server where the server's own rules meet the
// client's: authentication, premium, the edge filter, and the real rate limit with Retry-After.
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHttpClient } from '../../src/client/http-client.ts';
import type { HttpClientOptions } from '../../src/client/http-client.ts';
import { OverlayStyleError } from '../../src/client/overlay-style-error.ts';
import { buildApiApp } from '../../src/service/http/index.ts';
import type { StyleService } from '../../src/service/style-service.ts';
import { startAnswerDroppingProxy } from './answer-dropping-proxy.ts';
import { seededService } from './contract-world.ts';

let service: StyleService;
let closeService: () => Promise<void>;
let neonId: number;
let app: ReturnType<typeof buildApiApp>;
let agent: Agent;
let baseUrl: string;
let apiKey: string;
/** The server's clock; the client's waits move it, so a rate-limit window passes without sleeping. */
let nowMs: number;
let waits: number[];

beforeEach(async () => {
  let ids;
  ({ service, close: closeService, ids } = await seededService());
  neonId = ids.ownSkin.id;
  apiKey = (await service.createKey('streamer')).token;
  nowMs = Date.parse('2025-01-01T12:00:00Z');
  waits = [];
  app = buildApiApp({
    operations: service, authenticate: service.authenticate, rateLimit: { perMinute: 2, now: () => nowMs },
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/v1`;
  agent = new Agent();
});

afterEach(async () => {
  await agent.close();
  await app.close();
  await closeService();
});

function client(options: Partial<HttpClientOptions> = {}) {
  return createHttpClient({
    baseUrl, apiKey, dispatcher: agent,
    sleep: async (ms) => {
      waits.push(ms);
      nowMs += ms;
    },
    ...options,
  });
}

async function refusal(promise: Promise<unknown>): Promise<OverlayStyleError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(OverlayStyleError);
  return error as OverlayStyleError;
}

describe('the HTTP client against the bundled server', () => {
  it('waits out the real rate limit\'s Retry-After and goes on', async () => {
    const overlay = client();
    await overlay.listSkins();
    await overlay.listSkins();
    nowMs += 15_000;
    await expect(overlay.getTemplate()).resolves.toMatchObject({ template_slug: 'bubbles' });
    // The window opened at the first request; 45 s of it were left.
    expect(waits).toEqual([45_000]);
  });

  it('gives up with the server\'s 429 when the wait is over the cap', async () => {
    const overlay = client({ maxRetryAfterMs: 10_000 });
    await overlay.listSkins();
    await overlay.listSkins();
    const error = await refusal(overlay.listSkins());
    expect(error).toMatchObject({ status: 429, message: 'Too Many Attempts.', retryAfter: 60 });
    expect(waits).toEqual([]);
  });

  it('answers 401 for a wrong key and for a revoked one, never retrying', async () => {
    const wrong = await refusal(client({ apiKey: `csk_${'A'.repeat(43)}` }).getTemplate());
    expect(wrong).toMatchObject({ status: 401, message: 'Unauthenticated.', kind: 'service' });

    await service.revokeKey('streamer');
    expect((await refusal(client().getTemplate())).status).toBe(401);
    expect(waits).toEqual([]);
  });

  it('answers 403 naming the subscription when premium is off', async () => {
    await service.setPremium('streamer', false);
    const error = await refusal(client().getTemplate());
    expect(error.status).toBe(403);
    expect(error.message).toMatch(/premium subscription/);
  });

  it('is refused by the edge filter when made to send a default agent', async () => {
    const error = await refusal(client({ userAgent: 'undici' }).getTemplate());
    expect(error.status).toBe(403);
    expect(error.message).toMatch(/User-Agent/);
  });

  it('says when an unlock\'s "already held" answers a repeat of an attempt whose answer was lost', async () => {
    const proxy = await startAnswerDroppingProxy(baseUrl);
    try {
      const overlay = client({ baseUrl: proxy.baseUrl });
      proxy.dropNextAnswer('POST /api/v1/viewers/unlock-skin ');
      // The first attempt made the grant; the connection dropped before its answer came.
      const repeated = await overlay.unlockSkin({ twitch_username: 'viewer_one', skin_id: neonId });
      expect(proxy.dropped).toBe(1);
      expect(repeated).toMatchObject({ created: false, afterLostAnswer: true, twitch_username: 'viewer_one' });
      // Asked again, with nothing lost: the viewer held it already.
      expect(await overlay.unlockSkin({ twitch_username: 'viewer_one', skin_id: neonId })).not.toHaveProperty('afterLostAnswer');
    } finally {
      await proxy.close();
    }
  });

  it('reports a base URL without the API prefix as a 404, not as data', async () => {
    const error = await refusal(client({ baseUrl: baseUrl.replace(/\/api\/v1$/, '') }).getTemplate());
    expect(error.status).toBe(404);
  });
});
