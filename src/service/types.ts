// The overlay style service's contract: the shapes the spec's endpoints answer with and the
// operations behind them. The HTTP layer, the in-process client and the CLI all call these;
// the service knows nothing of Twitch, plugins or the host.
import type { SettingsValues } from './settings/catalog.ts';

export type Scope = 'source' | 'override' | 'independent';
export const SCOPES: readonly Scope[] = ['source', 'override', 'independent'];

export type Availability = 'free' | 'purchase' | 'exclusive';
export const AVAILABILITIES: readonly Availability[] = ['free', 'purchase', 'exclusive'];

export type Role = 'broadcaster' | 'moderator' | 'vip' | 'subscriber';
export const ROLES: readonly Role[] = ['broadcaster', 'moderator', 'vip', 'subscriber'];

export type EntitlementSource = 'api' | 'purchase';

export interface Account {
  id: number;
  login: string;
  premium: boolean;
  /** The channel's Twitch user id when known (set by the host or seed). */
  twitchUserId: string | null;
}

/** Response `data` of GET /template. */
export interface TemplateSettingsView {
  template_id: number;
  template_name: string;
  template_slug: string;
  settings_values: SettingsValues;
  /** The very settings_values object for an overlay without a sync source. */
  source_values: SettingsValues;
  override_values: SettingsValues;
  overridden_keys: string[];
  sync_source_preset_id: number | null;
  preset_id: number;
  preset_name: string;
}

/** Response `data` of PUT /template. */
export interface TemplateUpdateResult {
  settings_values: SettingsValues;
  /** The very settings_values object for an overlay without a sync source (change neither: copy). */
  source_values: SettingsValues;
  override_values: SettingsValues;
  scope: Scope;
  preset_id: number;
}

/** One element of GET /skins `data`. */
export interface SkinView {
  id: number;
  name: string;
  slug: string;
  description: string;
  availability: Availability;
  settings_values: SettingsValues;
  is_active: boolean;
}

/** Response `data` of PUT /skins/{id}. */
export interface SkinUpdateResult {
  id: number;
  name: string;
  settings_values: SettingsValues;
}

export interface UnlockResult {
  /** true: a new API grant was made (201); false: the viewer already held the skin (200). */
  created: boolean;
  twitch_username: string;
  skin: { id: number; name: string };
  /**
   * HTTP client only, with `created: false`: the answer is to a repeat of the request, sent after
   * an attempt whose answer was lost (a timeout, a dropped connection, a 502 or 504 from something
   * in between) and which the service may have carried out. The grant the viewer holds may then
   * be this call's own.
   */
  afterLostAnswer?: true;
}

export interface ViewerSkinRef {
  id: number;
  name: string;
  slug: string;
}

export interface Viewer {
  id: number;
  twitchUserId: string;
  /** Lowercase login; null once another Twitch user took this viewer's old login (a rename). */
  twitchUsername: string | null;
  displayName: string | null;
}

/**
 * Field errors of a 422, keyed like the spec's `errors` object
 * (`values`, `scope`, `values.bubble.width`, `body`, ...).
 */
export type FieldErrors = Record<string, string[]>;

/** A refusal the service answers with; `status` is the HTTP status it maps to. */
export class ServiceError extends Error {
  readonly status: number;
  readonly errors: FieldErrors | undefined;
  constructor(status: number, message: string, errors?: FieldErrors) {
    super(message);
    this.name = 'ServiceError';
    this.status = status;
    this.errors = errors;
  }
}

/** 422 with the spec's message rule: the first error, plus "(and N more errors)". */
export function validationError(errors: FieldErrors): ServiceError {
  const all = Object.values(errors).flat();
  const first = all[0] ?? 'The given data was invalid.';
  const more = all.length - 1;
  const message = more > 0 ? `${first} (and ${more} more error${more === 1 ? '' : 's'})` : first;
  return new ServiceError(422, message, errors);
}

/**
 * The seven operations of the spec, for one calling account. Request bodies come in as
 * `unknown` and are validated here, so every caller (HTTP, in-process client) gets the same 422s.
 */
export interface StyleOperations {
  getTemplate(accountId: number, presetId?: number): Promise<TemplateSettingsView>;
  /**
   * getTemplate's view passed through `encode`, which runs once per overlay version: the result
   * is kept with the cached view while the same `encode` function asks again. For HTTP, the
   * answer's bytes, so an unchanged overlay is read without serialising it again.
   */
  getTemplateEncoded<T>(accountId: number, presetId: number | undefined, encode: (view: TemplateSettingsView) => T): Promise<T>;
  updateTemplate(accountId: number, body: unknown): Promise<TemplateUpdateResult>;
  listSkins(accountId: number, presetId?: number): Promise<SkinView[]>;
  updateSkin(accountId: number, skinId: number, body: unknown): Promise<SkinUpdateResult>;
  unlockSkin(accountId: number, body: unknown): Promise<UnlockResult>;
  revokeSkin(accountId: number, body: unknown): Promise<void>;
  listViewerSkins(accountId: number, identifier: string): Promise<ViewerSkinRef[]>;
}
