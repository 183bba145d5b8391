// The overlay client plugins and scripts use: one interface over the spec's seven operations,
// implemented in-process (the bundled service, no HTTP) and over HTTP (a remote service).
// Both throw OverlayStyleError, so callers handle either alike.
import type { SettingValue } from '../service/settings/catalog.ts';
import type {
  Scope, SkinUpdateResult, SkinView, TemplateSettingsView, TemplateUpdateResult, UnlockResult, ViewerSkinRef,
} from '../service/types.ts';

export type {
  Scope, SkinUpdateResult, SkinView, TemplateSettingsView, TemplateUpdateResult, UnlockResult, ViewerSkinRef,
} from '../service/types.ts';
export type { SettingValue, SettingsValues } from '../service/settings/catalog.ts';

/** Setting key -> value to write; `null` removes the key from the written scope (back to inherited). */
export type SettingsPatch = Record<string, SettingValue | null>;

/** Body of PUT /template. */
export interface UpdateTemplateRequest {
  scope: Scope;
  values: SettingsPatch;
  /** The overlay; the account's default overlay when omitted. */
  preset_id?: number;
}

/** A viewer by login, by Twitch user id, or both (then they must name the same viewer). */
export type ViewerIdentifier =
  | { twitch_username: string; twitch_user_id?: string }
  | { twitch_user_id: string; twitch_username?: string };

/** Body of POST and DELETE /viewers/unlock-skin. */
export type SkinGrantRequest = ViewerIdentifier & { skin_id: number };

export interface OverlayStyleClient {
  /** GET /template: the overlay's effective, source and override values. */
  getTemplate(presetId?: number): Promise<TemplateSettingsView>;
  /** PUT /template: merges `values` into `scope` of the overlay and pushes it live. */
  updateTemplate(request: UpdateTemplateRequest): Promise<TemplateUpdateResult>;
  /** GET /skins: the account's own skins for the overlay's template. */
  listSkins(presetId?: number): Promise<SkinView[]>;
  /** PUT /skins/{skinId}: merges `values` into the skin's stored overrides. */
  updateSkin(skinId: number, values: SettingsPatch): Promise<SkinUpdateResult>;
  /**
   * POST /viewers/unlock-skin: grants the skin. `created` is true when this call made the grant
   * (201), false when the viewer already held the skin (200).
   */
  unlockSkin(request: SkinGrantRequest): Promise<UnlockResult>;
  /** DELETE /viewers/unlock-skin: withdraws an API grant (404 when there is none). */
  revokeSkin(request: SkinGrantRequest): Promise<void>;
  /** GET /viewers/{identifier}/skins: the skins granted to a viewer (login or user id) through the API. */
  listViewerSkins(identifier: string): Promise<ViewerSkinRef[]>;
}
