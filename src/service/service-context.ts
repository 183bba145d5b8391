// What every service operation works with: the store, the templates in memory and the event bus.
import type { StyleEvent, StyleEventBus } from './events.ts';
import type { StoreTransaction, Store } from './store/store.ts';
import type { TemplateCatalog } from './template-catalog.ts';

export interface ServiceContext {
  store: Store;
  templates: TemplateCatalog;
  events: StyleEventBus;
}

/** Announces `event` once the transaction `tx` belongs to has committed; never if it rolls back. */
export function emitAfterCommit(context: ServiceContext, tx: StoreTransaction, event: StyleEvent): void {
  tx.afterCommit(() => context.events.emit(event));
}
