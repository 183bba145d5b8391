// Everything the live overlay shows, read in one consistent view: the overlay's effective
// settings and version, and the skins its channel uses (by role and by viewer pick).
import type { ServiceContext } from '../service-context.ts';
import type { SettingsValues } from '../settings/catalog.ts';
import { skinSettings } from '../skin-settings.ts';
import { templateSettingsView } from '../overlay-settings.ts';
import type { Role } from '../types.ts';

export interface SnapshotSkin {
  id: number;
  name: string;
  slug: string;
  /** Template defaults with the skin's overrides on top. */
  settings: SettingsValues;
  /** Only the keys the skin changes. */
  overrides: SettingsValues;
}

export interface OverlaySnapshot {
  overlay: { id: number; accountId: number; name: string; token: string };
  /** Bumped by every change that alters what the overlay shows; a client seeing a gap re-reads. */
  version: number;
  template: { id: number; slug: string; name: string };
  /** Effective settings (GET /template `settings_values`). */
  settings: SettingsValues;
  /** Active skins of the overlay's template assigned to a role or picked by a viewer on the channel. */
  skins: SnapshotSkin[];
  /** Role -> skin id, for roles whose skin is among `skins`. */
  roleSkins: Partial<Record<Role, number>>;
  /** Twitch user id -> picked skin id, for picks among `skins`. */
  viewerSkins: Record<string, number>;
}

export function createOverlaySnapshots(context: ServiceContext) {
  const { store, templates } = context;

  /** The overlay's snapshot, or null when no overlay has that id. */
  async function getOverlaySnapshot(overlayId: number): Promise<OverlaySnapshot | null> {
    return store.read(async (reader) => {
      const overlay = await reader.findOverlay(overlayId);
      if (overlay === null) return null;
      const source = overlay.syncSourceId === null ? null : await reader.findOverlay(overlay.syncSourceId);
      const template = templates.byId(overlay.templateId);
      const skins = await reader.listSkinsInUse(overlay.accountId, template.id);
      const shown = new Set(skins.map((s) => s.id));
      const roleSkins: Partial<Record<Role, number>> = {};
      for (const { role, skinId } of await reader.listSkinRoles(overlay.accountId)) if (shown.has(skinId)) roleSkins[role] = skinId;
      const viewerSkins: Record<string, number> = {};
      for (const pick of await reader.listSkinPicks(overlay.accountId)) if (shown.has(pick.skinId)) viewerSkins[pick.twitchUserId] = pick.skinId;
      return {
        overlay: { id: overlay.id, accountId: overlay.accountId, name: overlay.name, token: overlay.token },
        version: overlay.version,
        template: { id: template.id, slug: template.slug, name: template.name },
        settings: templateSettingsView(template, overlay, source).settings_values,
        skins: skins.map((skin) => ({ id: skin.id, name: skin.name, slug: skin.slug, ...skinSettings(template, skin) })),
        roleSkins,
        viewerSkins,
      };
    });
  }

  return { getOverlaySnapshot };
}
