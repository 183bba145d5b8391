// Overlays, for the CLI, the host, the overlay page and the seed: create, reconfigure, list,
// find by browser-source token.
import { randomBytes } from 'node:crypto';
import { emitAfterCommit } from '../service-context.ts';
import type { ServiceContext } from '../service-context.ts';
import { validateSettingsValues } from '../settings/validate-values.ts';
import type { Template } from '../settings/templates.ts';
import type { OverlayRecord, StoredValues } from '../store/records.ts';
import type { StoreReader, StoreTransaction } from '../store/store.ts';
import type { FieldErrors } from '../types.ts';
import { ServiceError, validationError } from '../types.ts';
import { notFound } from '../request-fields.ts';
import { sameValues } from '../values-patch.ts';
import { OVERLAY_NOT_FOUND } from './template-operations.ts';

export interface NewOverlayInput {
  name: string;
  /** Template slug. */
  template: string;
  isDefault?: boolean;
  /** Another overlay of the account, same template, with no sync source itself. */
  syncSourceId?: number | null;
  /** Independent values, or overrides when there is a sync source. */
  values?: Record<string, unknown>;
}

export interface OverlayChanges {
  /** Make it the account's default overlay (the previous default stops being one). */
  isDefault?: true;
  syncSourceId?: number | null;
  /** Replaces the stored values (or overrides) as a whole. */
  values?: Record<string, unknown>;
}

export interface OverlaySummary {
  id: number;
  accountId: number;
  name: string;
  template: { id: number; slug: string; name: string };
  /** Names the overlay in its browser-source URL (`/overlay/<token>`). */
  token: string;
  isDefault: boolean;
  syncSourceId: number | null;
  version: number;
}

export function overlaySummary(template: Template, overlay: OverlayRecord): OverlaySummary {
  return {
    id: overlay.id,
    accountId: overlay.accountId,
    name: overlay.name,
    template: { id: template.id, slug: template.slug, name: template.name },
    token: overlay.token,
    isDefault: overlay.isDefault,
    syncSourceId: overlay.syncSourceId,
    version: overlay.version,
  };
}

/** 24 random bytes, base64url: 32 characters nobody can guess. */
export function newOverlayToken(): string {
  return randomBytes(24).toString('base64url');
}

function checkName(name: unknown): string {
  const trimmed = typeof name === 'string' ? name.trim() : '';
  if (trimmed.length < 1 || trimmed.length > 100) {
    throw validationError({ name: ['The overlay name must be 1 to 100 characters.'] });
  }
  return trimmed;
}

function checkValues(template: Template, values: Record<string, unknown> | undefined): StoredValues {
  const validated = validateSettingsValues(template, values ?? {}, { allowNull: false });
  if (Object.keys(validated.errors).length > 0) throw validationError(validated.errors);
  return validated.values as StoredValues;
}

/** Why `sourceId` cannot be the sync source of `overlay` (of `accountId` on `template`), or null. */
async function syncSourceProblem(
  reader: StoreReader, accountId: number, templateId: number, overlayId: number | null, sourceId: number,
): Promise<string | null> {
  const source = await reader.findOverlay(sourceId);
  if (source === null || source.accountId !== accountId) return `The sync source overlay ${sourceId} does not exist on this account.`;
  if (source.id === overlayId) return 'An overlay cannot be its own sync source.';
  if (source.templateId !== templateId) return `The sync source overlay ${sourceId} uses another template.`;
  if (source.syncSourceId !== null) return `The sync source overlay ${sourceId} has a sync source itself; sync is one level deep.`;
  if (overlayId !== null && (await reader.listOverlayIdsSyncedTo(overlayId)).length > 0) {
    return `Overlay ${overlayId} is the sync source of other overlays, so it cannot get a sync source.`;
  }
  return null;
}

/** Creates an overlay inside `tx` after checking everything; shared with account creation. */
export async function insertOverlayChecked(
  context: ServiceContext, tx: StoreTransaction, accountId: number, input: NewOverlayInput,
): Promise<OverlayRecord> {
  const name = checkName(input.name);
  const template = context.templates.findBySlug(input.template);
  if (template === undefined) {
    throw validationError({ template: [`The template "${input.template}" does not exist; known: ${context.templates.all.map((t) => t.slug).join(', ')}.`] });
  }
  const values = checkValues(template, input.values);
  const syncSourceId = input.syncSourceId ?? null;
  if (syncSourceId !== null) {
    const problem = await syncSourceProblem(tx, accountId, template.id, null, syncSourceId);
    if (problem !== null) throw validationError({ sync_source: [problem] });
  }
  if (await tx.findOverlayByName(accountId, name) !== null) {
    throw new ServiceError(409, `The account already has an overlay named "${name}".`);
  }
  const isDefault = input.isDefault ?? false;
  if (isDefault) {
    const previous = await tx.findDefaultOverlay(accountId);
    if (previous !== null) await tx.updateOverlay(previous.id, { isDefault: false });
  }
  return tx.insertOverlay({ accountId, name, templateId: template.id, isDefault, syncSourceId, values, token: newOverlayToken() });
}

export function createOverlayAdmin(context: ServiceContext) {
  const { store, templates } = context;

  async function createOverlay(accountId: number, input: NewOverlayInput): Promise<OverlaySummary> {
    return store.transaction(async (tx) => {
      if (await tx.findAccountById(accountId) === null) throw notFound('Account not found.');
      const overlay = await insertOverlayChecked(context, tx, accountId, input);
      return overlaySummary(templates.byId(overlay.templateId), overlay);
    });
  }

  /** Changes an overlay of the account; pushes when what it shows changed. */
  async function updateOverlay(accountId: number, overlayId: number, changes: OverlayChanges): Promise<OverlaySummary> {
    return store.transaction(async (tx) => {
      const overlay = await tx.findOverlay(overlayId);
      if (overlay === null || overlay.accountId !== accountId) throw notFound(OVERLAY_NOT_FOUND);
      const template = templates.byId(overlay.templateId);
      const errors: FieldErrors = {};
      let values = overlay.values;
      if (changes.values !== undefined) values = checkValues(template, changes.values);
      let syncSourceId = overlay.syncSourceId;
      if (changes.syncSourceId !== undefined && changes.syncSourceId !== overlay.syncSourceId) {
        syncSourceId = changes.syncSourceId;
        const problem = syncSourceId === null ? null : await syncSourceProblem(tx, accountId, template.id, overlay.id, syncSourceId);
        if (problem !== null) errors.sync_source = [problem];
      }
      if (Object.keys(errors).length > 0) throw validationError(errors);

      if (changes.isDefault === true && !overlay.isDefault) {
        const previous = await tx.findDefaultOverlay(accountId);
        if (previous !== null) await tx.updateOverlay(previous.id, { isDefault: false });
        await tx.updateOverlay(overlay.id, { isDefault: true });
      }
      const valuesChanged = !sameValues(values, overlay.values);
      const sourceChanged = syncSourceId !== overlay.syncSourceId;
      if (valuesChanged || sourceChanged) {
        await tx.updateOverlay(overlay.id, { values, syncSourceId });
        const changed = [overlay.id, ...await tx.listOverlayIdsSyncedTo(overlay.id)];
        await tx.bumpOverlayVersions(changed);
        emitAfterCommit(context, tx, { type: 'overlay-changed', overlayIds: changed });
      }
      const updated = await tx.findOverlay(overlay.id);
      return overlaySummary(template, updated!);
    });
  }

  /**
   * A new browser-source token for an overlay of the account: its old URL (leaked on stream, say)
   * stops working. Pages open on it are closed 4004 by the gateway's next token recheck (push.md).
   */
  async function renewOverlayToken(accountId: number, overlayId: number): Promise<OverlaySummary> {
    return store.transaction(async (tx) => {
      const overlay = await tx.findOverlay(overlayId);
      if (overlay === null || overlay.accountId !== accountId) throw notFound(OVERLAY_NOT_FOUND);
      await tx.updateOverlay(overlay.id, { token: newOverlayToken() });
      const updated = await tx.findOverlay(overlay.id);
      return overlaySummary(templates.byId(overlay.templateId), updated!);
    });
  }

  async function listOverlays(accountId: number): Promise<OverlaySummary[]> {
    const overlays = await store.listOverlays(accountId);
    return overlays.map((overlay) => overlaySummary(templates.byId(overlay.templateId), overlay));
  }

  async function findOverlayByName(accountId: number, name: string): Promise<OverlaySummary | null> {
    const overlay = await store.findOverlayByName(accountId, name);
    return overlay === null ? null : overlaySummary(templates.byId(overlay.templateId), overlay);
  }

  /** The overlay a browser-source token names, or null (also for anything that is not a token). */
  async function findOverlayByToken(token: string): Promise<OverlaySummary | null> {
    if (typeof token !== 'string' || token.length < 32 || token.length > 128) return null;
    const overlay = await store.findOverlayByToken(token);
    return overlay === null ? null : overlaySummary(templates.byId(overlay.templateId), overlay);
  }

  return { createOverlay, updateOverlay, renewOverlayToken, listOverlays, findOverlayByName, findOverlayByToken };
}
