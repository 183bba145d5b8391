// Which chatters still need registering: every chat line names its chatter, but the service only
// needs to hear of one again when the login or display name changed. Remembers the most recent
// `maxEntries` chatters (least recently seen forgotten first), so memory stays bounded.
import type { ViewerIdentity } from './chat-event-mapping.ts';

export interface ViewerRegistrationFilter {
  /** True the first time a chatter is seen, and again after a rename; false otherwise. */
  needsRegistering(viewer: ViewerIdentity): boolean;
  /** Call when registering failed, so the next line tries again. */
  forget(twitchUserId: string): void;
}

export function createViewerRegistrationFilter(maxEntries = 10_000): ViewerRegistrationFilter {
  if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new RangeError(`maxEntries must be a whole number of 1 or more, got ${maxEntries}`);
  // Map keeps insertion order: re-inserting on each sighting makes the first key the stalest.
  const seen = new Map<string, string>();
  return {
    needsRegistering(viewer) {
      const key = `${viewer.login}\u0000${viewer.displayName ?? ''}`;
      const known = seen.get(viewer.twitchUserId);
      seen.delete(viewer.twitchUserId);
      seen.set(viewer.twitchUserId, key);
      if (seen.size > maxEntries) seen.delete(seen.keys().next().value!);
      return known !== key;
    },
    forget(twitchUserId) {
      seen.delete(twitchUserId);
    },
  };
}
