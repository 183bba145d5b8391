// GET /skins and PUT /skins/{skin_id} (DESIGN.md "Skins").
import { emitAfterCommit } from '../service-context.ts';
import type { ServiceContext } from '../service-context.ts';
import { dropDefaults, resolveValues } from '../settings/resolve-values.ts';
import { validateSettingsValues } from '../settings/validate-values.ts';
import { skinView } from '../skin-settings.ts';
import type { FieldErrors, SkinUpdateResult, SkinView } from '../types.ts';
import { ServiceError, validationError } from '../types.ts';
import { notFound, positiveId, readValuesField, requestBody, throwIfErrors } from '../request-fields.ts';
import { applyValuesPatch, sameValues } from '../values-patch.ts';
import { NO_DEFAULT_OVERLAY, OVERLAY_NOT_FOUND } from './template-operations.ts';

export const SKIN_NOT_FOUND = 'Skin not found.';
export const GLOBAL_SKIN_READ_ONLY = 'This is a global platform skin: it can be granted to viewers but not edited.';

export function createSkinOperations(context: ServiceContext) {
  const { store, templates } = context;

  async function listSkins(accountId: number, presetId?: number): Promise<SkinView[]> {
    return store.read(async (reader) => {
      let overlay;
      if (presetId === undefined || presetId === null) {
        overlay = await reader.findDefaultOverlay(accountId);
        if (overlay === null) throw notFound(NO_DEFAULT_OVERLAY);
      } else {
        const id = positiveId(presetId);
        overlay = id === undefined ? null : await reader.findOverlay(id);
        // Another account's overlay answers like a missing one.
        if (overlay === null || overlay.accountId !== accountId) throw notFound(OVERLAY_NOT_FOUND);
      }
      const template = templates.byId(overlay.templateId);
      const skins = await reader.listAccountSkins(accountId, template.id);
      return skins.map((skin) => skinView(template, skin));
    });
  }

  async function updateSkin(accountId: number, skinId: number, body: unknown): Promise<SkinUpdateResult> {
    const input = requestBody(body);
    const errors: FieldErrors = {};
    const rawValues = readValuesField(input, errors);
    throwIfErrors(errors);
    const id = positiveId(skinId);
    if (id === undefined) throw notFound(SKIN_NOT_FOUND);

    return store.transaction(async (tx) => {
      const skin = await tx.findSkin(id);
      if (skin === null || (skin.accountId !== null && skin.accountId !== accountId)) throw notFound(SKIN_NOT_FOUND);
      if (skin.accountId === null) throw new ServiceError(403, GLOBAL_SKIN_READ_ONLY);
      const template = templates.byId(skin.templateId);
      const validated = validateSettingsValues(template, rawValues, { allowNull: true });
      if (Object.keys(validated.errors).length > 0) throw validationError(validated.errors);

      // A skin stores only overrides: a value equal to the template default is dropped.
      const overrides = dropDefaults(template, applyValuesPatch(skin.overrides, validated.values));
      if (!sameValues(overrides, skin.overrides)) {
        await tx.updateSkin(skin.id, { overrides });
        const overlayIds = await tx.listOverlayIdsUsingSkin(skin.id);
        if (overlayIds.length > 0) {
          await tx.bumpOverlayVersions(overlayIds);
          emitAfterCommit(context, tx, { type: 'skin-changed', skinId: skin.id, overlayIds });
        }
      }
      return { id: skin.id, name: skin.name, settings_values: resolveValues(template, overrides) };
    });
  }

  return { listSkins, updateSkin };
}
