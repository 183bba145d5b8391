// Which chatters still need registering: every chat line names its chatter, but the service only
// needs to hear of one again when the login or display name changed.
//
// Memory stays bounded with two generations instead of an exact LRU: chatters are remembered in
// the current generation until it holds half of `maxEntries`, then it becomes the previous one
// (the one before is forgotten) and a new one starts; a chatter found in the previous generation
// moves back to the current one. So every chatter among the most recent maxEntries / 2 is
// remembered, never more than maxEntries are, and a line costs one or two Map reads, where an
// exact LRU's delete-and-reinsert on every line was a measurable share of a chat line's cost.
import type { ViewerIdentity } from './chat-event-mapping.ts';

export interface ViewerRegistrationFilter {
  /** True the first time a chatter is seen, and again after a rename; false otherwise. */
  needsRegistering(viewer: ViewerIdentity): boolean;
  /** Call when registering failed, so the next line tries again. */
  forget(twitchUserId: string): void;
}

interface KnownName {
  login: string;
  displayName: string;
}

export function createViewerRegistrationFilter(maxEntries = 10_000): ViewerRegistrationFilter {
  if (!Number.isInteger(maxEntries) || maxEntries < 2) throw new RangeError(`maxEntries must be a whole number of 2 or more, got ${maxEntries}`);
  const generationSize = Math.floor(maxEntries / 2);
  let current = new Map<string, KnownName>();
  let previous = new Map<string, KnownName>();

  const remember = (twitchUserId: string, name: KnownName): void => {
    if (current.size >= generationSize && !current.has(twitchUserId)) {
      previous = current;
      current = new Map();
    }
    current.set(twitchUserId, name);
  };

  return {
    needsRegistering(viewer) {
      const id = viewer.twitchUserId;
      const displayName = viewer.displayName ?? '';
      let known = current.get(id);
      if (known === undefined) {
        known = previous.get(id);
        if (known !== undefined) {
          previous.delete(id);
          remember(id, known);
        }
      }
      if (known !== undefined && known.login === viewer.login && known.displayName === displayName) return false;
      remember(id, { login: viewer.login, displayName });
      return true;
    },
    forget(twitchUserId) {
      current.delete(twitchUserId);
      previous.delete(twitchUserId);
    },
  };
}
