// Skins, for the CLI, the host and the seed: create (a channel's own or a global one), change
// details, assign to chat roles, list what a channel may use.
import { emitAfterCommit } from '../service-context.ts';
import type { ServiceContext } from '../service-context.ts';
import type { SettingsValues } from '../settings/catalog.ts';
import { dropDefaults } from '../settings/resolve-values.ts';
import type { Template } from '../settings/templates.ts';
import { validateSettingsValues } from '../settings/validate-values.ts';
import { isUsableSkin, skinSettings } from '../skin-settings.ts';
import type { SkinRecord } from '../store/records.ts';
import type { StoreTransaction } from '../store/store.ts';
import type { Availability, FieldErrors, Role } from '../types.ts';
import { AVAILABILITIES, ROLES, ServiceError, validationError } from '../types.ts';
import { notFound, throwIfErrors } from '../request-fields.ts';
import { sameValues } from '../values-patch.ts';
import { SKIN_NOT_FOUND } from './skin-operations.ts';

const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

export interface NewSkinInput {
  slug: string;
  name: string;
  description?: string;
  /** Template slug. */
  template: string;
  availability: Availability;
  isActive?: boolean;
  /** Values that differ from the template defaults are stored as the skin's overrides. */
  values?: Record<string, unknown>;
}

export interface SkinChanges {
  name?: string;
  description?: string;
  availability?: Availability;
  isActive?: boolean;
  /** Replaces the skin's values as a whole (defaults dropped). */
  values?: Record<string, unknown>;
}

export interface SkinSummary {
  id: number;
  /** null for a global platform skin. */
  accountId: number | null;
  template: { id: number; slug: string; name: string };
  slug: string;
  name: string;
  description: string;
  availability: Availability;
  isActive: boolean;
  /** Effective settings: template defaults with the overrides on top. */
  settings: SettingsValues;
  /** Only the keys the skin changes. */
  overrides: SettingsValues;
  version: number;
}

export function skinSummary(template: Template, skin: SkinRecord): SkinSummary {
  return {
    id: skin.id,
    accountId: skin.accountId,
    template: { id: template.id, slug: template.slug, name: template.name },
    slug: skin.slug,
    name: skin.name,
    description: skin.description,
    availability: skin.availability,
    isActive: skin.isActive,
    ...skinSettings(template, skin),
    version: skin.version,
  };
}

function checkText(errors: FieldErrors, field: string, value: unknown, max: number, allowEmpty: boolean): string | undefined {
  const text = typeof value === 'string' ? value.trim() : undefined;
  if (text === undefined || text.length > max || (!allowEmpty && text.length === 0)) {
    errors[field] = [`The skin ${field} must be ${allowEmpty ? 'at most' : '1 to'} ${max} characters.`];
    return undefined;
  }
  return text;
}

function checkAvailability(errors: FieldErrors, value: unknown): Availability | undefined {
  if (!(AVAILABILITIES as readonly unknown[]).includes(value)) {
    errors.availability = [`The skin availability must be one of: ${AVAILABILITIES.join(', ')}.`];
    return undefined;
  }
  return value as Availability;
}

function checkOverrides(errors: FieldErrors, template: Template, values: Record<string, unknown>): SettingsValues {
  const validated = validateSettingsValues(template, values, { allowNull: false });
  Object.assign(errors, validated.errors);
  return dropDefaults(template, validated.values as SettingsValues);
}

/** Overlays that show a change of `skin` are bumped and told, inside `tx`. */
async function pushSkinChange(context: ServiceContext, tx: StoreTransaction, skinId: number): Promise<void> {
  const overlayIds = await tx.listOverlayIdsUsingSkin(skinId);
  if (overlayIds.length === 0) return;
  await tx.bumpOverlayVersions(overlayIds);
  emitAfterCommit(context, tx, { type: 'skin-changed', skinId, overlayIds });
}

export function createSkinAdmin(context: ServiceContext) {
  const { store, templates } = context;

  /** A skin of the account (accountId null: a global platform skin). 409 when the slug is taken. */
  async function createSkin(accountId: number | null, input: NewSkinInput): Promise<SkinSummary> {
    const errors: FieldErrors = {};
    const slug = typeof input.slug === 'string' && SLUG.test(input.slug) && input.slug.length <= 64 ? input.slug : undefined;
    if (slug === undefined) errors.slug = ['The skin slug must be lowercase letters and digits in words joined by single hyphens, at most 64 characters.'];
    const name = checkText(errors, 'name', input.name, 100, false);
    const description = checkText(errors, 'description', input.description ?? '', 1000, true);
    const availability = checkAvailability(errors, input.availability);
    const template = templates.findBySlug(input.template);
    if (template === undefined) errors.template = [`The template "${input.template}" does not exist.`];
    const isActive = input.isActive ?? true;
    if (typeof isActive !== 'boolean') errors.is_active = ['The skin is_active must be true or false.'];
    const overrides = template === undefined ? {} : checkOverrides(errors, template, input.values ?? {});
    throwIfErrors(errors);

    return store.transaction(async (tx) => {
      if (accountId !== null && await tx.findAccountById(accountId) === null) throw notFound('Account not found.');
      if (await tx.findSkinBySlug(accountId, slug!) !== null) {
        throw new ServiceError(409, `A ${accountId === null ? 'global skin' : 'skin of this account'} with the slug "${slug}" already exists.`);
      }
      const skin = await tx.insertSkin({
        accountId, templateId: template!.id, slug: slug!, name: name!, description: description!,
        availability: availability!, isActive, overrides,
      });
      return skinSummary(template!, skin);
    });
  }

  /** Changes any skin (an admin operation: no owner check); pushes when it is in use. */
  async function updateSkinDetails(skinId: number, changes: SkinChanges): Promise<SkinSummary> {
    return store.transaction(async (tx) => {
      const skin = await tx.findSkin(skinId);
      if (skin === null) throw notFound(SKIN_NOT_FOUND);
      const template = templates.byId(skin.templateId);
      const errors: FieldErrors = {};
      const next = { ...skin };
      if (changes.name !== undefined) next.name = checkText(errors, 'name', changes.name, 100, false) ?? skin.name;
      if (changes.description !== undefined) next.description = checkText(errors, 'description', changes.description, 1000, true) ?? skin.description;
      if (changes.availability !== undefined) next.availability = checkAvailability(errors, changes.availability) ?? skin.availability;
      if (changes.isActive !== undefined) {
        if (typeof changes.isActive !== 'boolean') errors.is_active = ['The skin is_active must be true or false.'];
        else next.isActive = changes.isActive;
      }
      if (changes.values !== undefined) next.overrides = checkOverrides(errors, template, changes.values);
      throwIfErrors(errors);

      const changed = next.name !== skin.name || next.description !== skin.description
        || next.availability !== skin.availability || next.isActive !== skin.isActive
        || !sameValues(next.overrides, skin.overrides);
      if (!changed) return skinSummary(template, skin);
      await tx.updateSkin(skin.id, {
        name: next.name, description: next.description, availability: next.availability,
        isActive: next.isActive, overrides: next.overrides,
      });
      await pushSkinChange(context, tx, skin.id);
      return skinSummary(template, { ...next, version: skin.version + 1 });
    });
  }

  /** Sets (or with null, clears) the channel's skin for a chat role; the skin must be its own or global. */
  async function assignSkinRole(accountId: number, role: Role, skinId: number | null): Promise<void> {
    if (!(ROLES as readonly unknown[]).includes(role)) throw validationError({ role: [`The role must be one of: ${ROLES.join(', ')}.`] });
    await store.transaction(async (tx) => {
      if (await tx.findAccountById(accountId) === null) throw notFound('Account not found.');
      if (skinId !== null && !isUsableSkin(await tx.findSkin(skinId), accountId)) throw notFound(SKIN_NOT_FOUND);
      const current = (await tx.listSkinRoles(accountId)).find((r) => r.role === role)?.skinId ?? null;
      if (current === skinId) return;
      await tx.setSkinRole(accountId, role, skinId);
      const overlayIds = (await tx.listOverlays(accountId)).map((o) => o.id);
      await tx.bumpOverlayVersions(overlayIds);
      emitAfterCommit(context, tx, { type: 'skin-changed', skinId: (skinId ?? current)!, overlayIds });
    });
  }

  /** Role -> skin id of the channel. */
  async function listSkinRoles(accountId: number): Promise<Partial<Record<Role, number>>> {
    const roles = await store.listSkinRoles(accountId);
    return Object.fromEntries(roles.map((r) => [r.role, r.skinId]));
  }

  /** The channel's own skins, then the global ones. */
  async function listChannelSkins(accountId: number): Promise<SkinSummary[]> {
    return store.read(async (reader) => {
      const skins = [...await reader.listAccountSkins(accountId), ...await reader.listGlobalSkins()];
      return skins.map((skin) => skinSummary(templates.byId(skin.templateId), skin));
    });
  }

  /** A skin by slug: the account's own (accountId) or a global one (null). */
  async function findSkinBySlug(accountId: number | null, slug: string): Promise<SkinSummary | null> {
    const skin = await store.findSkinBySlug(accountId, slug);
    return skin === null ? null : skinSummary(templates.byId(skin.templateId), skin);
  }

  async function getSkin(skinId: number): Promise<SkinSummary | null> {
    const skin = await store.findSkin(skinId);
    return skin === null ? null : skinSummary(templates.byId(skin.templateId), skin);
  }

  return { createSkin, updateSkinDetails, assignSkinRole, listSkinRoles, listChannelSkins, findSkinBySlug, getSkin };
}
