// Opens the bundled overlay style service from the config: the SQLite store and the templates.
// Used by `start` and by the admin commands (seed, keys, premium, overlays), which share the
// database file with a running server.
import type { Config } from '../config/index.ts';
import { loadFontCatalog } from '../service/settings/fonts.ts';
import { DEFAULT_TEMPLATES_DIR, loadTemplates } from '../service/settings/templates.ts';
import { openSqliteStore } from '../service/store/sqlite-store.ts';
import type { SqliteStore } from '../service/store/sqlite-store.ts';
import { createStyleService } from '../service/style-service.ts';
import type { StyleService } from '../service/style-service.ts';

export interface OpenService {
  service: StyleService;
  store: SqliteStore;
  close(): Promise<void>;
}

export async function openService(config: Config, options: { warmFonts?: boolean } = {}): Promise<OpenService> {
  const store = openSqliteStore({ path: config.store.path, synchronous: config.store.synchronous });
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
