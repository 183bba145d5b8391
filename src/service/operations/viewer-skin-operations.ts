// POST/DELETE /viewers/unlock-skin and GET /viewers/{identifier}/skins
// (DESIGN.md "Viewers and entitlements").
import { emitAfterCommit } from '../service-context.ts';
import type { ServiceContext } from '../service-context.ts';
import { isUsableSkin } from '../skin-settings.ts';
import type { StoreTransaction } from '../store/store.ts';
import type { FieldErrors, UnlockResult, ViewerSkinRef } from '../types.ts';
import { validationError } from '../types.ts';
import { notFound, readSkinIdField, readViewerIdentifierFields, requestBody, throwIfErrors } from '../request-fields.ts';
import type { ViewerIdentifiers } from '../request-fields.ts';
import { VIEWER_NOT_FOUND, findViewerByIdentifier, resolveViewer, viewerLogin } from '../viewer-lookup.ts';
import { SKIN_NOT_FOUND } from './skin-operations.ts';

export const SKIN_INACTIVE = 'The selected skin is not active.';
export const NO_API_GRANT = 'The viewer has no access to this skin granted through the API.';

function readGrantBody(body: unknown): { identifiers: ViewerIdentifiers; skinId: number } {
  const input = requestBody(body);
  const errors: FieldErrors = {};
  const identifiers = readViewerIdentifierFields(input, errors);
  const skinId = readSkinIdField(input, errors);
  throwIfErrors(errors);
  return { identifiers: identifiers!, skinId: skinId! };
}

/** Clears the viewer's pick of `skinId` on the channel when they may no longer use it. */
export async function dropPickIfLost(
  context: ServiceContext, tx: StoreTransaction, accountId: number, viewerId: number, skinId: number, stillUsable: boolean,
): Promise<void> {
  if (stillUsable || await tx.findSkinPick(accountId, viewerId) !== skinId) return;
  await tx.setSkinPick(accountId, viewerId, null);
  const overlayIds = (await tx.listOverlays(accountId)).map((o) => o.id);
  await tx.bumpOverlayVersions(overlayIds);
  emitAfterCommit(context, tx, { type: 'viewer-skin-changed', accountId, viewerId, overlayIds });
}

export function createViewerSkinOperations(context: ServiceContext) {
  const { store } = context;

  async function unlockSkin(accountId: number, body: unknown): Promise<UnlockResult> {
    const { identifiers, skinId } = readGrantBody(body);
    return store.transaction(async (tx) => {
      const viewer = await resolveViewer(tx, identifiers);
      const skin = await tx.findSkin(skinId);
      if (!isUsableSkin(skin, accountId)) throw notFound(SKIN_NOT_FOUND);
      if (!skin.isActive) throw validationError({ skin_id: [SKIN_INACTIVE] });
      // Already held on this channel, by grant or purchase: nothing new is made.
      const held = await tx.findEntitlement(accountId, viewer.id, skin.id);
      if (held === null) await tx.insertEntitlement({ accountId, viewerId: viewer.id, skinId: skin.id, source: 'api' });
      return { created: held === null, twitch_username: viewerLogin(viewer), skin: { id: skin.id, name: skin.name } };
    });
  }

  async function revokeSkin(accountId: number, body: unknown): Promise<void> {
    const { identifiers, skinId } = readGrantBody(body);
    await store.transaction(async (tx) => {
      const viewer = await resolveViewer(tx, identifiers);
      const skin = await tx.findSkin(skinId);
      if (!isUsableSkin(skin, accountId)) throw notFound(SKIN_NOT_FOUND);
      // Only grants made through the API; a purchase is never touched.
      const grant = await tx.findEntitlement(accountId, viewer.id, skin.id);
      if (grant === null || grant.source !== 'api') throw notFound(NO_API_GRANT);
      await tx.deleteEntitlement(grant.id);
      await dropPickIfLost(context, tx, accountId, viewer.id, skin.id, skin.availability === 'free');
    });
  }

  async function listViewerSkins(accountId: number, identifier: string): Promise<ViewerSkinRef[]> {
    return store.read(async (reader) => {
      const viewer = typeof identifier === 'string' ? await findViewerByIdentifier(reader, identifier) : null;
      if (viewer === null) throw notFound(VIEWER_NOT_FOUND);
      const skins = await reader.listEntitledSkins(accountId, viewer.id, 'api');
      return skins.map((skin) => ({ id: skin.id, name: skin.name, slug: skin.slug }));
    });
  }

  return { unlockSkin, revokeSkin, listViewerSkins };
}
