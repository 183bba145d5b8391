// What the push gateway needs from the service: token lookup, the current style of an overlay,
// and the committed-change events. `servicePushSource` builds it from the service core.
import type { StyleEvent } from '../events.ts';
import type { OverlayStyle } from './protocol.ts';

export type PushSourceEvent = StyleEvent;

type MaybePromise<T> = T | Promise<T>;

export interface PushSource {
  /**
   * The overlay a page token names, or null/undefined for an unknown token. `version` is the
   * stored overlay version (bumped by every change to what it shows); with it the gateway can
   * serve a newcomer's snapshot from its last read instead of reading again.
   */
  findOverlayByToken(token: string): MaybePromise<{ id: number; accountId: number; version?: number } | null | undefined>;
  /** The overlay's current style (and stored version), or null when the overlay no longer exists. */
  readOverlayStyle(overlayId: number): MaybePromise<{ overlay: { id: number; name: string }; style: OverlayStyle; version?: number } | null>;
  /** Calls `listener` after every committed change; returns the unsubscribe function. */
  subscribe(listener: (event: PushSourceEvent) => void): () => void;
}
