// What the service announces after a write has committed, for the push gateway to fan out to
// live overlays. Emitted only after commit, never for a refused or rolled-back write. Every
// overlay named here already has its version bumped in the same transaction as the change.
//
// Changes made by another process on the same database (the CLI) are not announced here; the
// gateway finds them by the overlay's stored version at its next heartbeat (docs/push.md, `external`).
import { createListenerSet } from './listener-set.ts';
import type { ListenerSet } from './listener-set.ts';

export type StyleEvent =
  /** An overlay's own settings changed (PUT /template; for a sync source, also its synced overlays). */
  | { type: 'overlay-changed'; overlayIds: number[] }
  /**
   * A skin in use on some channel (role-assigned or picked) changed, or a role's skin assignment
   * changed (skinId is then the newly assigned skin, or the one just unassigned).
   */
  | { type: 'skin-changed'; skinId: number; overlayIds: number[] }
  /** A viewer's picked skin on a channel changed (picked, cleared, or lost with a revoked grant). */
  | { type: 'viewer-skin-changed'; accountId: number; viewerId: number; overlayIds: number[] };

export type StyleEventListener = (event: StyleEvent) => void;

export type StyleEventBus = ListenerSet<StyleEvent>;

export function createEventBus(options: { onListenerError?: (error: unknown, event: StyleEvent) => void } = {}): StyleEventBus {
  return createListenerSet<StyleEvent>(options.onListenerError
    ?? ((error: unknown) => process.emitWarning(`style event listener failed: ${(error as Error)?.stack ?? String(error)}`)));
}
