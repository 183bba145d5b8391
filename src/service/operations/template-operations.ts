// GET /template and PUT /template (DESIGN.md "Overlays (presets) and the template read").
import { emitAfterCommit } from '../service-context.ts';
import type { ServiceContext } from '../service-context.ts';
import { templateSettingsView } from '../overlay-settings.ts';
import { validateSettingsValues } from '../settings/validate-values.ts';
import type { OverlayRecord } from '../store/records.ts';
import type { FieldErrors, Scope, TemplateSettingsView, TemplateUpdateResult } from '../types.ts';
import { validationError } from '../types.ts';
import {
  notFound, positiveId, readPresetIdField, readScopeField, readValuesField, requestBody, throwIfErrors,
} from '../request-fields.ts';
import { TemplateViewCache } from '../template-view-cache.ts';
import type { CachedTemplateView } from '../template-view-cache.ts';
import { applyValuesPatch, sameValues } from '../values-patch.ts';

export const OVERLAY_NOT_FOUND = 'Overlay not found.';
export const NO_DEFAULT_OVERLAY = 'The account has no default overlay.';

/** The overlay id to look up: null for the default one; 404 for an id no overlay can have. */
function lookupId(presetId: unknown): number | null {
  if (presetId === undefined || presetId === null) return null;
  const id = positiveId(presetId);
  if (id === undefined) throw notFound(OVERLAY_NOT_FOUND);
  return id;
}

/** The scope error of a PUT on this overlay, naming the scope to use; null when it fits. */
export function scopeMismatch(scope: Scope, overlay: OverlayRecord): string | null {
  if (overlay.syncSourceId === null && scope !== 'independent') {
    return `The scope ${scope} needs an overlay with a sync source, and overlay ${overlay.id} has none. Use the scope independent.`;
  }
  if (overlay.syncSourceId !== null && scope === 'independent') {
    return `Overlay ${overlay.id} is synced to overlay ${overlay.syncSourceId}, so the scope independent does not apply. `
      + 'Use the scope override (this overlay\'s own overrides) or source (the sync source\'s values).';
  }
  return null;
}

export function createTemplateOperations(context: ServiceContext, options: { viewCacheEntries?: number } = {}) {
  const { store, templates } = context;
  const views = new TemplateViewCache(options.viewCacheEntries);

  /**
   * The overlay's view, from the cache when its stored version stamp (read now, on every call)
   * still matches the one the cached view was built from; otherwise built and cached.
   */
  async function cachedView(accountId: number, presetId: number | undefined): Promise<CachedTemplateView> {
    const id = lookupId(presetId);
    const missing = () => notFound(id === null ? NO_DEFAULT_OVERLAY : OVERLAY_NOT_FOUND);
    // Inside a write transaction the rows may yet be rolled back (and their version or id be
    // used again by other rows): such a view is built fresh and never cached.
    const cacheable = !store.inTransaction();
    const stamp = await store.findOverlayVersion(accountId, id);
    if (stamp === null) throw missing();
    const cached = cacheable ? views.get(stamp) : undefined;
    if (cached !== undefined) return cached;
    // A separate read, so it may see a newer version than `stamp`: the view is cached under the
    // stamp of the rows it was built from, never under the older one.
    const found = await store.findOverlayWithSource(accountId, id);
    if (found === null) throw missing();
    const { overlay, source } = found;
    const built = { id: overlay.id, templateId: overlay.templateId, name: overlay.name, syncSourceId: overlay.syncSourceId,
      version: overlay.version, sourceVersion: source === null ? null : source.version };
    const view = templateSettingsView(templates.byId(overlay.templateId), overlay, source);
    return cacheable ? views.set(built, view) : views.uncached(built, view);
  }

  /** The view is shared and deeply frozen (copy it to change it). */
  async function getTemplate(accountId: number, presetId?: number): Promise<TemplateSettingsView> {
    return (await cachedView(accountId, presetId)).view;
  }

  async function getTemplateEncoded<T>(
    accountId: number, presetId: number | undefined, encode: (view: TemplateSettingsView) => T,
  ): Promise<T> {
    return (await cachedView(accountId, presetId)).encoded(encode);
  }

  async function updateTemplate(accountId: number, body: unknown): Promise<TemplateUpdateResult> {
    const input = requestBody(body);
    const errors: FieldErrors = {};
    const scope = readScopeField(input, errors);
    const rawValues = readValuesField(input, errors);
    const presetId = readPresetIdField(input, errors);
    throwIfErrors(errors);

    return store.transaction(async (tx) => {
      const id = lookupId(presetId);
      const found = await tx.findOverlayWithSource(accountId, id);
      if (found === null) throw notFound(id === null ? NO_DEFAULT_OVERLAY : OVERLAY_NOT_FOUND);
      const { overlay, source } = found;
      const template = templates.byId(overlay.templateId);

      const refusals: FieldErrors = {};
      const mismatch = scopeMismatch(scope!, overlay);
      if (mismatch !== null) refusals.scope = [mismatch];
      const validated = validateSettingsValues(template, rawValues, { allowNull: true });
      Object.assign(refusals, validated.errors);
      if (Object.keys(refusals).length > 0) throw validationError(refusals);

      // `source` writes the sync source; the other two write this overlay.
      const target = scope === 'source' ? source! : overlay;
      const values = applyValuesPatch(target.values, validated.values);
      if (!sameValues(values, target.values)) {
        await tx.updateOverlay(target.id, { values });
        // Overrides touch only this overlay; a source's values reach every overlay synced to it.
        const changed = scope === 'override' ? [overlay.id] : [target.id, ...await tx.listOverlayIdsSyncedTo(target.id)];
        await tx.bumpOverlayVersions(changed);
        emitAfterCommit(context, tx, { type: 'overlay-changed', overlayIds: changed });
      }

      const view = scope === 'source'
        ? templateSettingsView(template, overlay, { ...source!, values })
        : templateSettingsView(template, { ...overlay, values }, source);
      return {
        settings_values: view.settings_values,
        source_values: view.source_values,
        override_values: view.override_values,
        scope: scope!,
        preset_id: overlay.id,
      };
    });
  }

  return { getTemplate, getTemplateEncoded, updateTemplate };
}
