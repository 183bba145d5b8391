// A built-in plugin in a test host (memory chat, manual clock) whose ctx.overlay is the HTTP
// client of a remote service: the real bundled API server on a real socket, over the real service
// on a temp SQLite database seeded with a fixture, reached with a real API key of `streamer`. The
// plugin tests' remote cases share it; everything is closed when the test ends.
//
// Chat answers here travel over real HTTP, so they take real time: use remoteChatAnswers, not
// chatAnswers (which gives a handler only a few event-loop turns).
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { onTestFinished } from 'vitest';
import { createHttpClient } from '../../src/client/http-client.ts';
import { startAnswerDroppingProxy } from './answer-dropping-proxy.ts';
import type { AnswerDroppingProxy } from './answer-dropping-proxy.ts';
import type { OverlayStyleClient } from '../../src/client/overlay-style-client.ts';
import type { ChatTags } from '../../src/host/chat-transport.ts';
import { BUILT_IN_PLUGIN_DIR } from '../../src/host/plugin-loader.ts';
import { buildApiApp } from '../../src/service/http/index.ts';
import { applySeed } from '../../src/service/seed.ts';
import type { SeedResult } from '../../src/service/seed.ts';
import { startTestHost } from '../host/host-fixture.ts';
import type { TestHost } from '../host/host-fixture.ts';
import { settle } from '../host/manual-clock.ts';
import { openHarness } from '../service/core/service-harness.ts';
import type { Harness } from '../service/core/service-harness.ts';

export interface RemotePluginWorldOptions {
  /** Seed fixture (applySeed); its account `streamer` is the remote account the key belongs to. It must be premium. */
  fixture: unknown;
  /** The host's `plugins` section: plugin name -> settings. */
  plugins: Record<string, unknown>;
  /** The base URL's path the client is given; default the API's prefix, `/api/v1`. */
  basePath?: string;
  /** The client's retries (default 0). */
  maxRetries?: number;
  /** Put a proxy that can lose answers between the client and the service (`proxy`). */
  answerDroppingProxy?: boolean;
}

export interface RemotePluginWorld {
  test: TestHost;
  /** The HTTP client the plugins were given. */
  client: OverlayStyleClient;
  /** The remote service itself (to look behind the API). */
  harness: Harness;
  ids: SeedResult;
  accountId: number;
  /** `METHOD /path` of every request the remote API received, in order. */
  requests: string[];
  /** With `answerDroppingProxy`: the proxy the client goes through. */
  proxy: AnswerDroppingProxy | null;
}

export async function startRemotePluginWorld(options: RemotePluginWorldOptions): Promise<RemotePluginWorld> {
  const harness = await openHarness();
  const cleanups: Array<() => Promise<unknown>> = [() => harness.close()];
  onTestFinished(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  const ids = await applySeed(harness.service, structuredClone(options.fixture));
  const accountId = ids.accounts['streamer']!.id;
  const { token } = await harness.service.createKey('streamer');

  const requests: string[] = [];
  // The default rate limit (30 a minute per key), as a remote service has it.
  const app = buildApiApp({ operations: harness.service, authenticate: harness.service.authenticate });
  app.addHook('onRequest', async (request) => { requests.push(`${request.method} ${request.url}`); });
  await app.listen({ host: '127.0.0.1', port: 0 });
  cleanups.push(() => app.close());
  let baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}${options.basePath ?? '/api/v1'}`;
  let proxy: AnswerDroppingProxy | null = null;
  if (options.answerDroppingProxy === true) {
    proxy = await startAnswerDroppingProxy(baseUrl);
    cleanups.push(() => proxy!.close());
    baseUrl = proxy.baseUrl;
  }
  const agent = new Agent();
  cleanups.push(() => agent.close());
  const client = createHttpClient({
    baseUrl, apiKey: token, dispatcher: agent, maxRetries: options.maxRetries ?? 0, backoff: { baseDelayMs: 1, maxDelayMs: 1 },
  });

  const test = await startTestHost({ builtInPluginDir: BUILT_IN_PLUGIN_DIR, overlayClient: client, config: { plugins: options.plugins } });
  // Plugins finish what they are doing before the server and the database close.
  cleanups.push(() => test.host.stop());
  return { test, client, harness, ids, accountId, requests, proxy };
}

/**
 * Sends a chat line to #streamer and returns the `lines` answers the bot sent to it (plus any
 * further ones sent meanwhile), waiting up to `timeoutMs` of real time for them.
 */
export async function remoteChatAnswers(test: TestHost, text: string, tags: ChatTags, lines = 1, timeoutMs = 5_000): Promise<string[]> {
  const before = test.chat.sent.length;
  test.chat.message('#streamer', text, tags);
  const deadline = Date.now() + timeoutMs;
  while (test.chat.sent.length < before + lines && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  await settle();
  return test.chat.sent.slice(before).map((line) => line.text);
}
