// Viewers, for the host and the seed: sign-in (the bot sees them), purchases, picking a skin,
// and the skin a viewer picked (the overlay decides what a message renders with: src/overlay/chat-roles.ts).
import { emitAfterCommit } from '../service-context.ts';
import type { ServiceContext } from '../service-context.ts';
import type { ViewerSignInRecord } from '../store/store.ts';
import { isUsableSkin } from '../skin-settings.ts';
import type { Viewer } from '../types.ts';
import { ServiceError, validationError } from '../types.ts';
import { notFound } from '../request-fields.ts';
import { VIEWER_NOT_FOUND, findViewerByIdentifier } from '../viewer-lookup.ts';
import { normalizeLogin, normalizeTwitchUserId } from './account-admin.ts';
import { SKIN_NOT_FOUND } from './skin-operations.ts';
import { skinSummary } from './skin-admin.ts';
import type { SkinSummary } from './skin-admin.ts';
import { SKIN_INACTIVE } from './viewer-skin-operations.ts';

export interface ViewerSignIn {
  twitchUserId: string;
  /** The current login (any case; stored lowercase). */
  login: string;
  /** Left as it is when undefined. */
  displayName?: string | null;
}

/** What a purchase did: a new entitlement, an API grant turned into a purchase, or nothing. */
export type PurchaseOutcome = 'created' | 'upgraded' | 'unchanged';

export function createViewerAdmin(context: ServiceContext) {
  const { store, templates } = context;

  /**
   * Creates or refreshes a viewer by Twitch user id. A rename updates the login; a login now
   * held by this user is taken from any stale row that still had it.
   */
  async function registerViewer(input: ViewerSignIn): Promise<Viewer> {
    const signIn = checkedSignIn(input);
    return store.transaction(async (tx) => (await tx.signInViewers([signIn]))[0]!);
  }

  /**
   * registerViewer for many viewers at once, in one write transaction (the chat's first-time
   * chatters: one savepoint and one place in a group commit for the lot, not one each). Each
   * viewer gets its own outcome: one that fails validation is refused alone; if the transaction
   * fails, every viewer in it fails with that error and none is stored.
   */
  async function registerViewers(inputs: readonly ViewerSignIn[]): Promise<Array<PromiseSettledResult<Viewer>>> {
    const checked = inputs.map((input): PromiseSettledResult<ViewerSignInRecord> => {
      try {
        return { status: 'fulfilled', value: checkedSignIn(input) };
      } catch (reason) {
        return { status: 'rejected', reason };
      }
    });
    const valid = checked.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
    let stored: Viewer[] = [];
    let failure: { reason: unknown } | null = null;
    try {
      if (valid.length > 0) {
        stored = await store.transaction((tx) => tx.signInViewers(valid));
      }
    } catch (reason) {
      failure = { reason };
    }
    let next = 0;
    return checked.map((outcome): PromiseSettledResult<Viewer> => {
      if (outcome.status === 'rejected') return outcome;
      if (failure !== null) return { status: 'rejected', reason: failure.reason };
      return { status: 'fulfilled', value: stored[next++]! };
    });
  }

  /** By path-style identifier: all digits -> user id first, then login; otherwise login, any case. */
  async function findViewer(identifier: string): Promise<Viewer | null> {
    return findViewerByIdentifier(store, typeof identifier === 'string' ? identifier : '');
  }

  async function getViewer(viewerId: number): Promise<Viewer | null> {
    return store.findViewerById(viewerId);
  }

  /** A real purchase on the channel. Turns an API grant of the same skin into a purchase. */
  async function recordPurchase(accountId: number, viewerId: number, skinId: number): Promise<PurchaseOutcome> {
    return store.transaction(async (tx) => {
      if (await tx.findViewerById(viewerId) === null) throw notFound(VIEWER_NOT_FOUND);
      const skin = await tx.findSkin(skinId);
      if (!isUsableSkin(skin, accountId)) throw notFound(SKIN_NOT_FOUND);
      if (!skin.isActive) throw validationError({ skin_id: [SKIN_INACTIVE] });
      if (skin.availability === 'exclusive') throw validationError({ skin_id: ['An exclusive skin is granted, never sold.'] });
      const held = await tx.findEntitlement(accountId, viewerId, skin.id);
      if (held === null) {
        await tx.insertEntitlement({ accountId, viewerId, skinId: skin.id, source: 'purchase' });
        return 'created';
      }
      if (held.source === 'purchase') return 'unchanged';
      await tx.setEntitlementSource(held.id, 'purchase');
      return 'upgraded';
    });
  }

  /**
   * The viewer's skin on the channel (null clears it). A viewer may pick an active skin of the
   * channel (own or global) that is free or that they hold. Returns whether anything changed.
   */
  async function pickSkin(accountId: number, viewerId: number, skinId: number | null): Promise<boolean> {
    return store.transaction(async (tx) => {
      if (await tx.findViewerById(viewerId) === null) throw notFound(VIEWER_NOT_FOUND);
      if (skinId !== null) {
        const skin = await tx.findSkin(skinId);
        if (!isUsableSkin(skin, accountId)) throw notFound(SKIN_NOT_FOUND);
        if (!skin.isActive) throw validationError({ skin_id: [SKIN_INACTIVE] });
        if (skin.availability !== 'free' && await tx.findEntitlement(accountId, viewerId, skin.id) === null) {
          throw new ServiceError(403, `The viewer does not hold the skin "${skin.name}" on this channel.`);
        }
      }
      if (await tx.findSkinPick(accountId, viewerId) === skinId) return false;
      await tx.setSkinPick(accountId, viewerId, skinId);
      const overlayIds = (await tx.listOverlays(accountId)).map((o) => o.id);
      await tx.bumpOverlayVersions(overlayIds);
      emitAfterCommit(context, tx, { type: 'viewer-skin-changed', accountId, viewerId, overlayIds });
      return true;
    });
  }

  /** Active skins the viewer may pick on the channel: free ones and those they hold, by id. */
  async function listPickableSkins(accountId: number, viewerId: number): Promise<SkinSummary[]> {
    return store.read(async (reader) => {
      const channel = [...await reader.listAccountSkins(accountId), ...await reader.listGlobalSkins()];
      const held = new Set((await reader.listEntitledSkins(accountId, viewerId)).map((s) => s.id));
      return channel
        .filter((skin) => skin.isActive && (skin.availability === 'free' || held.has(skin.id)))
        .sort((a, b) => a.id - b.id)
        .map((skin) => skinSummary(templates.byId(skin.templateId), skin));
    });
  }

  /**
   * The skin the viewer picked on the channel, while it is still theirs to use and active; null
   * for none. (Which skin a message renders with, roles included, the overlay works out:
   * src/overlay/chat-roles.ts.)
   */
  async function getPickedSkin(accountId: number, twitchUserId: string): Promise<SkinSummary | null> {
    return store.read(async (reader) => {
      const viewer = await reader.findViewerByTwitchUserId(twitchUserId);
      const picked = viewer === null ? null : await reader.findSkinPick(accountId, viewer.id);
      const skin = picked === null ? null : await reader.findSkin(picked);
      return isUsableSkin(skin, accountId) && skin.isActive ? skinSummary(templates.byId(skin.templateId), skin) : null;
    });
  }

  return { registerViewer, registerViewers, findViewer, getViewer, recordPurchase, pickSkin, listPickableSkins, getPickedSkin };
}

function checkedSignIn(input: ViewerSignIn): ViewerSignInRecord {
  return {
    twitchUserId: normalizeTwitchUserId(input.twitchUserId),
    twitchUsername: normalizeLogin(input.login, 'twitch_username'),
    displayName: input.displayName === undefined ? undefined : checkDisplayName(input.displayName),
  };
}

function checkDisplayName(displayName: unknown): string | null {
  if (displayName === null) return null;
  if (typeof displayName !== 'string' || displayName.length > 100) {
    throw validationError({ display_name: ['The display name must be a string of at most 100 characters, or null.'] });
  }
  return displayName;
}
