// The overlay client plugins and scripts use: one interface over the spec's seven operations,
// implemented in-process (the bundled service, no HTTP) and over HTTP (a remote service).
// Both throw OverlayStyleError, so callers handle either alike.
//
// Three more operations serve the bot's own viewers (signing a chatter in, the skins a viewer may
// pick, picking one). The spec has no endpoint for them, so only the bundled service does them;
// the HTTP client refuses them with an OverlayStyleError of kind `unsupported`.
import type { SettingValue } from '../service/settings/catalog.ts';
import type {
  Availability, Scope, SkinUpdateResult, SkinView, TemplateSettingsView, TemplateUpdateResult, UnlockResult, ViewerSkinRef,
} from '../service/types.ts';

export type {
  Availability, Scope, SkinUpdateResult, SkinView, TemplateSettingsView, TemplateUpdateResult, UnlockResult, ViewerSkinRef,
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

/** A chatter as the bot sees them in chat or in a redemption. */
export interface ChatViewer {
  /** Twitch user id: 1 to 32 digits. */
  twitchUserId: string;
  /** Current login, any case (stored lowercase). */
  login: string;
  /** Left as stored when omitted. */
  displayName?: string | null;
}

/** A viewer by Twitch user id (a ChatViewer is one). */
export type ViewerById = Pick<ChatViewer, 'twitchUserId'>;

/** The viewer's record on the service after signing in. */
export interface RegisteredViewer {
  twitchUserId: string;
  /** null when another Twitch user has since taken this viewer's old login. */
  login: string | null;
  displayName: string | null;
}

/** A skin a viewer may pick on the channel: a free one, or one they hold (granted or bought). */
export interface PickableSkin {
  id: number;
  name: string;
  slug: string;
  description: string;
  availability: Availability;
  /** Slug of the template the skin styles (a channel may have overlays of several). */
  templateSlug: string;
  /** Whether it is the viewer's current pick. */
  picked: boolean;
}

export interface SkinPickResult {
  /** The skin now picked; null after picking none. */
  skin: ViewerSkinRef | null;
  /** false when it was already the viewer's pick. */
  changed: boolean;
}

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

  /**
   * Signs a chatter in: creates the viewer, or refreshes its login (a rename) and display name.
   * Bundled service only (no spec endpoint): a remote client throws kind `unsupported`.
   */
  registerViewer(viewer: ChatViewer): Promise<RegisteredViewer>;
  /**
   * The active skins the viewer may pick on the channel (free ones and those they hold), by id,
   * with their current pick marked. 404 for a viewer who has not signed in. Bundled service only.
   */
  listPickableSkins(viewer: ViewerById): Promise<PickableSkin[]>;
  /**
   * Sets the viewer's skin for their messages on the channel; null picks none. `skin` is an id, or
   * a slug (the channel's own skins first, then global ones; an all-digit text that is no slug is
   * taken as an id). 404 unknown viewer or skin, 403 a skin that is neither free nor held, 422 an
   * inactive skin. Bundled service only.
   */
  pickSkin(viewer: ViewerById, skin: number | string | null): Promise<SkinPickResult>;
}
