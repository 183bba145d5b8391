// Opens the bundled overlay style service from the config: the SQLite store and the templates.
// Used by `start` and by the admin commands (seed, keys, premium, overlays), which share the
// database file with a running server.
import type { Config } from '../config/index.ts';
import { loadFontCatalog } from '../service/settings/fonts.ts';
import { DEFAULT_TEMPLATES_DIR, loadTemplates } from '../service/settings/templates.ts';
import { openSqliteStore } from '../service/store/sqlite-store.ts';
import { StoreOpenError } from '../service/store/store-open-error.ts';
import { isStoreHostRunning } from './host-lock.ts';
import type { SqliteStore } from '../service/store/sqlite-store.ts';
import { createStyleService } from '../service/style-service.ts';
import type { StyleService } from '../service/style-service.ts';

export interface OpenService {
  service: StyleService;
  store: SqliteStore;
  close(): Promise<void>;
}

export async function openService(config: Config, options: { warmFonts?: boolean; adminCommand?: boolean } = {}): Promise<OpenService> {
  const store = openSqliteStore({
    path: config.store.path, synchronous: config.store.synchronous,
    ...(options.adminCommand ? { beforeUpgrade: refuseUpgradeUnderRunningHost(config.store.path) } : {}),
  });
  try {
    const service = await createStyleService({ store, templates: loadTemplates(DEFAULT_TEMPLATES_DIR) });
    // The font catalog is a 4 MB data file: load it before the first request, not during one.
    if (options.warmFonts) loadFontCatalog();
    return { service, store, close: () => store.close() };
  } catch (error) {
    await store.close();
    throw error;
  }
}

/**
 * An admin command of a newer chatskin would migrate the schema under a running older host, which
 * read the schema once at start and never again: it refuses instead, the database untouched.
 * (`chatskin start` holds the host lock before it opens the store, so no host runs beside it.)
 */
function refuseUpgradeUnderRunningHost(storePath: string): (found: number, latest: number) => void {
  return (found, latest) => {
    if (!isStoreHostRunning(storePath)) return;
    throw new StoreOpenError(storePath, `is in use by a running \`chatskin start\`, and this chatskin would upgrade its schema (version ${found} to ${latest}) under it: `
      + 'stop that host first, or run this command with the same chatskin version as the host.');
  };
}
