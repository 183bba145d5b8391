// Signing viewers in to the bundled service ("registered" when the bot first sees them,
// DESIGN.md section 2): a chatter on their lines, a viewer who redeemed a channel-point reward on
// the redemption. One filter (who still needs it: new, or renamed) and one queue (sent a few at a
// time, in one transaction) for both, so a viewer seen both ways is registered once, and a
// redemption's viewer is what a chat line would have made of them (login, display name).
// Here in the composition root: the service knows nothing of Twitch, the host nothing of viewers.
import type { Logger } from 'pino';
import { createViewerRegistrationFilter, createViewerRegistrationQueue, viewerIdentityFrom, viewerIdentityOf } from '../adapters/index.ts';
import { textTag } from '../host/index.ts';
import type { ChatTransportEvent } from '../host/index.ts';
import { storageFaultOf, storageFaultText } from '../service/store/storage-fault.ts';
import type { StorageFault } from '../service/store/storage-fault.ts';
import type { StyleService } from '../service/style-service.ts';

export interface ViewerRegistrations {
  /** Signs in a chat line's chatter (a `message` not the bot's own), when the filter lets them through. */
  chatLine(event: ChatTransportEvent): void;
  /**
   * Signs in a redemption's viewer as a chat line would, and gives their registration when it is
   * waiting or under way (sent at once; it never rejects: a failure is logged and forgotten, so
   * the next line or redemption tries again), else undefined.
   */
  redeemer(user: { id: string; login: string; displayName: string }): Promise<void> | undefined;
  /** The viewer's registration, when it is waiting or under way (sent at once); else undefined. */
  registeredFor(twitchUserId: string): Promise<void> | undefined;
  /** Sends what is waiting and waits for every registration (before the database closes). */
  stop(): Promise<void>;
}

export function createViewerRegistrations(deps: { service: Pick<StyleService, 'registerViewers'>; logger: Logger }): ViewerRegistrations {
  const { logger } = deps;
  const seen = createViewerRegistrationFilter();
  // A database that takes no writes (a full disk) fails every new viewer until mended: said once,
  // not once per viewer and line, until a registration goes through again.
  let storageFaultLogged: StorageFault | null = null;
  const registrations = createViewerRegistrationQueue({
    register: async (viewers) => {
      const outcomes = await deps.service.registerViewers(viewers);
      if (outcomes.some((outcome) => outcome.status === 'fulfilled')) storageFaultLogged = null;
      return outcomes;
    },
    onError(viewer, error) {
      seen.forget(viewer.twitchUserId);
      const fault = storageFaultOf(error);
      if (fault === null) {
        logger.warn({ err: error, login: viewer.login }, 'registering a chatter as a viewer failed');
      } else if (fault !== storageFaultLogged) {
        storageFaultLogged = fault;
        logger.error({ err: error, login: viewer.login, storageFault: fault },
          `registering chatters as viewers fails: ${storageFaultText(fault)}; each is tried again on their next line or redemption (said once until one is registered)`);
      }
    },
  });

  return {
    chatLine(event) {
      if (event.type !== 'message' || event.self) return;
      // The filter looks at the tags as sent; only a chatter it has not seen (or renamed) is checked
      // and normalized (viewerIdentityOf), which on every line cost more than the lookup itself.
      // textTag: a user id or display name "1" comes from tmi.js as true.
      const twitchUserId = textTag(event.tags['user-id']);
      const login = event.tags.username;
      if (twitchUserId === null || typeof login !== 'string') return;
      if (!seen.needsRegistering({ twitchUserId, login, displayName: textTag(event.tags['display-name']) ?? undefined })) return;
      const viewer = viewerIdentityOf(event);
      if (viewer) registrations.add(viewer);
    },
    redeemer(user) {
      if (seen.needsRegistering({ twitchUserId: user.id, login: user.login, displayName: user.displayName })) {
        const viewer = viewerIdentityFrom(user.id, user.login, user.displayName);
        if (viewer) registrations.add(viewer);
      }
      return registrations.registeredFor(user.id);
    },
    registeredFor: (twitchUserId) => registrations.registeredFor(twitchUserId),
    stop: () => registrations.stop(),
  };
}
