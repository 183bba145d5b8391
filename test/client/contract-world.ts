// The world the client contract runs in: the real service on a temp SQLite file, seeded with two
// channels, a global skin and two viewers; plus the two ways to reach it (in process, and the
// bundled HTTP server on a real socket).
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { createHttpClient } from '../../src/client/http-client.ts';
import { createInProcessClient } from '../../src/client/in-process-client.ts';
import type { OverlayStyleClient } from '../../src/client/overlay-style-client.ts';
import { buildApiApp } from '../../src/service/http/index.ts';
import { applySeed } from '../../src/service/seed.ts';
import type { StyleService } from '../../src/service/style-service.ts';
import { openHarness } from '../service/core/service-harness.ts';
import type { ContractWorld } from './overlay-client-contract.ts';

const CONTRACT_FIXTURE = {
  accounts: [
    {
      login: 'streamer',
      premium: true,
      overlays: [
        { name: 'Main', template: 'bubbles', default: true, values: {} },
        { name: 'Synced', template: 'bubbles', sync_source: 'Main', overrides: {} },
        { name: 'Ticker', template: 'ticker', values: {} },
      ],
      skins: [
        {
          slug: 'neon', name: 'Neon', description: 'Bright', template: 'bubbles', availability: 'purchase',
          values: { 'bubble.width': 320 },
        },
        { slug: 'retired', name: 'Retired', template: 'bubbles', availability: 'purchase', active: false, values: {} },
      ],
    },
    {
      login: 'other_channel',
      premium: true,
      overlays: [{ name: 'Main', template: 'bubbles', default: true, values: {} }],
      skins: [{ slug: 'foreign', name: 'Foreign', template: 'bubbles', availability: 'purchase', values: {} }],
    },
  ],
  global_skins: [{ slug: 'classic', name: 'Classic', template: 'bubbles', availability: 'free', values: {} }],
  viewers: [
    { twitch_user_id: '1001', twitch_username: 'viewer_one' },
    { twitch_user_id: '1002', twitch_username: 'viewer_two' },
  ],
};

type WorldIds = Omit<ContractWorld, 'client' | 'close'> & { accountId: number };

/** The real service on a temp SQLite file, seeded; `ids` names what the contract uses. */
export async function seededService(): Promise<{ service: StyleService; ids: WorldIds; close(): Promise<void> }> {
  // A short busy timeout: the contract locks the database from another connection once.
  const harness = await openHarness({ busyTimeoutMs: 200 });
  const seeded = await applySeed(harness.service, structuredClone(CONTRACT_FIXTURE));
  const streamer = seeded.accounts.streamer!;
  const other = seeded.accounts.other_channel!;
  return {
    service: harness.service,
    close: () => harness.close(),
    ids: {
      accountId: streamer.id,
      defaultPresetId: streamer.overlays.Main!,
      syncedPresetId: streamer.overlays.Synced!,
      tickerPresetId: streamer.overlays.Ticker!,
      ownSkin: { id: streamer.skins.neon!, name: 'Neon', slug: 'neon' },
      inactiveSkinId: streamer.skins.retired!,
      globalSkin: { id: seeded.global_skins.classic!, name: 'Classic', slug: 'classic' },
      foreignPresetId: other.overlays.Main!,
      foreignSkinId: other.skins.foreign!,
      viewer: { login: 'viewer_one', userId: '1001' },
      otherViewer: { login: 'viewer_two', userId: '1002' },
      dbPath: harness.dbPath,
    },
  };
}

/** The in-process client over the seeded service. */
export async function inProcessWorld(): Promise<ContractWorld> {
  const { service, ids, close } = await seededService();
  const { accountId, ...world } = ids;
  return { ...world, client: createInProcessClient(service, accountId), close };
}

/** The HTTP client over the bundled API server, listening on a real port, with a real key. */
export async function httpWorld(): Promise<ContractWorld & { baseUrl: string; apiKey: string }> {
  const { service, ids, close } = await seededService();
  const { accountId: _accountId, ...world } = ids;
  const { token } = await service.createKey('streamer');
  // The contract makes many calls per test; the rate limit is the HTTP client's own test's subject.
  const app = buildApiApp({ operations: service, authenticate: service.authenticate, rateLimit: { perMinute: 100_000 } });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/v1`;
  const agent = new Agent();
  const client: OverlayStyleClient = createHttpClient({ baseUrl, apiKey: token, dispatcher: agent, maxRetries: 0 });
  return {
    ...world,
    client,
    baseUrl,
    apiKey: token,
    async close() {
      await agent.close();
      await app.close();
      await close();
    },
  };
}
