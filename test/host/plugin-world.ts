// A built-in plugin in a test host (memory chat, manual clock), talking through the in-process
// client to the real service on a temp SQLite database seeded with a fixture; the database is
// closed when the test ends. The plugin tests under plugins/ share it.
import { pino } from 'pino';
import { onTestFinished } from 'vitest';
import { createInProcessClient } from '../../src/client/in-process-client.ts';
import type { OverlayStyleClient } from '../../src/client/overlay-style-client.ts';
import { BUILT_IN_PLUGIN_DIR } from '../../src/host/plugin-loader.ts';
import { createViewerRegistrations } from '../../src/runtime/viewer-registrations.ts';
import { applySeed } from '../../src/service/seed.ts';
import type { SqliteStoreOptions } from '../../src/service/store/sqlite-store.ts';
import type { SeedResult } from '../../src/service/seed.ts';
import { openHarness } from '../service/core/service-harness.ts';
import type { Harness } from '../service/core/service-harness.ts';
import { startTestHost } from './host-fixture.ts';
import type { TestHost } from './host-fixture.ts';

export interface PluginWorldOptions {
  /** Seed fixture (applySeed); its account `streamer` is the host's channel. */
  fixture: unknown;
  plugin: string;
  /** The plugin's settings, from the seeded ids. Default {}. */
  settings?: (ids: SeedResult) => Record<string, unknown>;
  /** Wraps the client the plugin gets (to count or fail calls). */
  wrapClient?: (client: OverlayStyleClient) => OverlayStyleClient;
  /** More of the host's config (e.g. `commands`); `plugins` comes from plugin and settings. */
  config?: Record<string, unknown>;
  /** Options of the service's SQLite store (e.g. a short busy timeout). */
  store?: Partial<SqliteStoreOptions>;
  /**
   * Whether the viewer who redeems is signed in to the service before the handler runs, as
   * chatskin's start does with the bundled service (src/runtime/viewer-registrations.ts). Default
   * true; false for a plugin that plays against a remote service, which the host signs no one in to.
   */
  signsInRedeemers?: boolean;
}

export interface PluginWorld {
  test: TestHost;
  /** The in-process client of `streamer` (unwrapped). */
  client: OverlayStyleClient;
  harness: Harness;
  ids: SeedResult;
  accountId: number;
}

export async function startPluginWorld(options: PluginWorldOptions): Promise<PluginWorld> {
  const harness = await openHarness(options.store);
  onTestFinished(() => harness.close());
  const ids = await applySeed(harness.service, structuredClone(options.fixture));
  const accountId = ids.accounts['streamer']!.id;
  const client = createInProcessClient(harness.service, accountId);
  const registrations = createViewerRegistrations({ service: harness.service, logger: pino({ level: 'silent' }) });
  onTestFinished(() => registrations.stop());
  const test = await startTestHost({
    builtInPluginDir: BUILT_IN_PLUGIN_DIR,
    ...(options.signsInRedeemers === false ? {} : { beforeRedemption: (user) => registrations.redeemer(user) }),
    overlayClient: options.wrapClient ? options.wrapClient(client) : client,
    config: { ...options.config, plugins: { [options.plugin]: options.settings?.(ids) ?? {} } },
  });
  return { test, client, harness, ids, accountId };
}
