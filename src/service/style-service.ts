// The overlay style service: the spec's seven operations (StyleOperations), API keys, and the
// admin operations and read models the CLI, the host and the live overlay need, over one Store.
import { createApiKeys } from './api-keys.ts';
import type { ApiKeys } from './api-keys.ts';
import { createEventBus } from './events.ts';
import type { StyleEventBus } from './events.ts';
import { createAccountAdmin } from './operations/account-admin.ts';
import { createOverlayAdmin } from './operations/overlay-admin.ts';
import { createOverlaySnapshots } from './operations/overlay-snapshot.ts';
import { createRedemptionLedger } from './operations/redemption-ledger.ts';
import { createSkinAdmin } from './operations/skin-admin.ts';
import { createSkinOperations } from './operations/skin-operations.ts';
import { createTemplateOperations } from './operations/template-operations.ts';
import { createViewerAdmin } from './operations/viewer-admin.ts';
import { createViewerSkinOperations } from './operations/viewer-skin-operations.ts';
import type { ServiceContext } from './service-context.ts';
import type { Template } from './settings/templates.ts';
import type { Store } from './store/store.ts';
import { createTemplateCatalog, syncTemplates } from './template-catalog.ts';
import type { TemplateCatalog } from './template-catalog.ts';
import type { StyleOperations } from './types.ts';

export interface StyleServiceOptions {
  store: Store;
  /** From loadTemplates(dir); written into the store at start. */
  templates: readonly Template[];
  /** Default: a new bus, reachable as `service.events`. */
  events?: StyleEventBus;
  /** How many overlays' GET /template views to keep in memory (LRU). Default 256; 0 turns it off. */
  templateViewCacheEntries?: number;
}

type AccountAdmin = ReturnType<typeof createAccountAdmin>;
type OverlayAdmin = ReturnType<typeof createOverlayAdmin>;
type SkinAdmin = ReturnType<typeof createSkinAdmin>;
type ViewerAdmin = ReturnType<typeof createViewerAdmin>;
type OverlaySnapshots = ReturnType<typeof createOverlaySnapshots>;
type RedemptionLedger = ReturnType<typeof createRedemptionLedger>;

export interface StyleService
  extends StyleOperations, ApiKeys, AccountAdmin, OverlayAdmin, SkinAdmin, ViewerAdmin, OverlaySnapshots, RedemptionLedger {
  /** Announces committed changes (for the push gateway). */
  readonly events: StyleEventBus;
  readonly templates: TemplateCatalog;
  /**
   * Runs several service calls as one transaction: all commit together, or none does when `fn`
   * throws; events are announced after the commit.
   */
  runInTransaction<T>(fn: () => Promise<T>): Promise<T>;
}

/** Builds the service and syncs the configured templates into the store. */
export async function createStyleService(options: StyleServiceOptions): Promise<StyleService> {
  const context: ServiceContext = {
    store: options.store,
    templates: createTemplateCatalog(options.templates),
    events: options.events ?? createEventBus(),
  };
  await syncTemplates(context.store, context.templates);
  return {
    events: context.events,
    templates: context.templates,
    runInTransaction: (fn) => context.store.transaction(() => fn()),
    ...createTemplateOperations(context, { viewCacheEntries: options.templateViewCacheEntries }),
    ...createSkinOperations(context),
    ...createViewerSkinOperations(context),
    ...createApiKeys(context.store),
    ...createAccountAdmin(context),
    ...createOverlayAdmin(context),
    ...createSkinAdmin(context),
    ...createViewerAdmin(context),
    ...createOverlaySnapshots(context),
    ...createRedemptionLedger(context),
  };
}
