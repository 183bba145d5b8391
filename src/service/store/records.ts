// Rows as the store hands them out: plain objects, camelCase, JSON columns already parsed.
// The service turns these into the spec's response shapes; nothing here is an HTTP shape.
import type { SettingValue } from '../settings/catalog.ts';
import type { Account, Availability, EntitlementSource, Role, Viewer } from '../types.ts';

/** Stored setting values of an overlay or a skin: key -> normalised value. */
export type StoredValues = Record<string, SettingValue>;

export type AccountRecord = Account;

export interface ApiKeyRecord {
  id: number;
  accountId: number;
  /** The first characters of the token, for telling keys apart; never enough to use it. */
  prefix: string;
  /** SHA-256 of the whole token. */
  hash: Uint8Array;
  createdAt: string;
  revokedAt: string | null;
}

/** What authentication reads of an active key: its id (the rate limit's key) and its hash. */
export type ActiveApiKeyRecord = Pick<ApiKeyRecord, 'id' | 'hash'>;

export interface TemplateRecord {
  id: number;
  slug: string;
  name: string;
  description: string;
}

export interface OverlayRecord {
  id: number;
  accountId: number;
  name: string;
  templateId: number;
  isDefault: boolean;
  syncSourceId: number | null;
  /** Independent values, or the overrides on top of the sync source when it has one. */
  values: StoredValues;
  /** Unguessable; names the overlay in its browser-source URL and push socket. */
  token: string;
  /** Bumped by every change that alters what the overlay shows. */
  version: number;
}

/**
 * What a cached read of an overlay depends on, without its values: its version (bumped by every
 * change to its values or sync source, and when its sync source's values change), its name, and
 * its sync source's version. Cheap to read on every request.
 */
export interface OverlayVersionRecord {
  id: number;
  templateId: number;
  name: string;
  syncSourceId: number | null;
  version: number;
  /** The sync source's version; null without a sync source. */
  sourceVersion: number | null;
}

export interface SkinRecord {
  id: number;
  /** null for a global platform skin. */
  accountId: number | null;
  templateId: number;
  slug: string;
  name: string;
  description: string;
  availability: Availability;
  isActive: boolean;
  /** Only the keys whose value differs from the template default. */
  overrides: StoredValues;
  version: number;
}

export type ViewerRecord = Viewer;

export interface EntitlementRecord {
  id: number;
  accountId: number;
  viewerId: number;
  skinId: number;
  source: EntitlementSource;
  createdAt: string;
}

export interface SkinRoleRecord {
  accountId: number;
  role: Role;
  skinId: number;
}

export interface ViewerSkinPickRecord {
  accountId: number;
  viewerId: number;
  /** The viewer's Twitch user id, which the overlay keys picks by. */
  twitchUserId: string;
  skinId: number;
}

export interface RedemptionRecord {
  id: string;
  accountId: number;
  rewardId: string;
  /** The ledger state: `received`, `effect-done` or `status-sent`. */
  status: string;
  /** What the effect decided, once it ran; null before. */
  outcome: 'fulfill' | 'refund' | null;
  /** How often the effect was started (more than 1 after a crash during it). */
  attempts: number;
  /** The caller's texts kept with the outcome until the status is sent (a JSON object of label -> text), opaque; null when none. */
  replyTexts: string | null;
  /** Whom those texts are for, opaque to the service; null when none. */
  replyTarget: string | null;
  createdAt: string;
  updatedAt: string;
}

/** The ledger columns of a redemption to change (left out: unchanged). */
export interface RedemptionPatch {
  status?: string;
  outcome?: 'fulfill' | 'refund' | null;
  attempts?: number;
  replyTexts?: string | null;
  replyTarget?: string | null;
}

/** A channel-point reward the host created from its config, by the config's reward key. */
export interface ManagedRewardRecord {
  accountId: number;
  rewardKey: string;
  twitchRewardId: string;
  broadcasterId: string;
  /** `disabled` once the reward left the config (the host switched it off on Twitch). */
  state: 'active' | 'disabled';
}
