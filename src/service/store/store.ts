// The storage contract of the overlay style service. Every method returns a Promise so that a
// PostgreSQL implementation can satisfy the same interface; the node:sqlite one answers at once.
//
// Reads may be called on the Store directly (each is one statement, so one consistent view).
// Writes exist only on a StoreTransaction: a service write is always one transaction, and its
// caller hears the answer only after the commit.
import type { EntitlementSource, Role } from '../types.ts';
import type {
  AccountRecord, ActiveApiKeyRecord, ApiKeyRecord, EntitlementRecord, ManagedRewardRecord, OverlayRecord, OverlayVersionRecord, RedemptionPatch, RedemptionRecord, SkinRecord,
  SkinRoleRecord, StoredValues, TemplateRecord, ViewerRecord, ViewerSkinPickRecord,
} from './records.ts';

export interface StoreReader {
  findAccountById(id: number): Promise<AccountRecord | null>;
  /** Exact match on the stored (lowercase) login. */
  findAccountByLogin(login: string): Promise<AccountRecord | null>;
  findAccountByTwitchUserId(twitchUserId: string): Promise<AccountRecord | null>;

  findActiveApiKey(accountId: number): Promise<ApiKeyRecord | null>;
  /** The active (not revoked) key with this SHA-256 and its account, read fresh every call. */
  findActiveApiKeyByHash(hash: Uint8Array): Promise<{ key: ActiveApiKeyRecord; account: AccountRecord } | null>;

  listTemplates(): Promise<TemplateRecord[]>;
  /** Template ids that some overlay or skin uses. */
  listTemplateIdsInUse(): Promise<number[]>;

  findOverlay(id: number): Promise<OverlayRecord | null>;
  findDefaultOverlay(accountId: number): Promise<OverlayRecord | null>;
  findOverlayByName(accountId: number, name: string): Promise<OverlayRecord | null>;
  findOverlayByToken(token: string): Promise<OverlayRecord | null>;
  /**
   * The account's overlay `overlayId` (its default overlay when null) and its sync source, in one
   * read. null when there is no such overlay on that account.
   */
  findOverlayWithSource(accountId: number, overlayId: number | null): Promise<{ overlay: OverlayRecord; source: OverlayRecord | null } | null>;
  /**
   * The version stamp of the account's overlay `overlayId` (its default overlay when null), in
   * one small read without the values: what a cached template view is checked against.
   */
  findOverlayVersion(accountId: number, overlayId: number | null): Promise<OverlayVersionRecord | null>;
  /** The account's overlays, by id. */
  listOverlays(accountId: number): Promise<OverlayRecord[]>;
  listOverlayIdsSyncedTo(sourceId: number): Promise<number[]>;
  /** Overlays of the skin's template on every channel where the skin is role-assigned or picked. */
  listOverlayIdsUsingSkin(skinId: number): Promise<number[]>;

  findSkin(id: number): Promise<SkinRecord | null>;
  /** A skin of the account by slug; accountId null looks among global skins. */
  findSkinBySlug(accountId: number | null, slug: string): Promise<SkinRecord | null>;
  /** The account's own skins (not global ones), by id; only one template's when given. */
  listAccountSkins(accountId: number, templateId?: number): Promise<SkinRecord[]>;
  listGlobalSkins(): Promise<SkinRecord[]>;
  /** Active skins of one template that the channel assigns to a role or a viewer picked, by id. */
  listSkinsInUse(accountId: number, templateId: number): Promise<SkinRecord[]>;
  listSkinRoles(accountId: number): Promise<SkinRoleRecord[]>;

  findViewerById(id: number): Promise<ViewerRecord | null>;
  findViewerByTwitchUserId(twitchUserId: string): Promise<ViewerRecord | null>;
  /** Exact match on the stored (lowercase) login. */
  findViewerByLogin(login: string): Promise<ViewerRecord | null>;

  findEntitlement(accountId: number, viewerId: number, skinId: number): Promise<EntitlementRecord | null>;
  /** Skins the viewer holds on the channel (of one source when given), by skin id. */
  listEntitledSkins(accountId: number, viewerId: number, source?: EntitlementSource): Promise<SkinRecord[]>;
  /** The skin id the viewer picked on the channel, or null. */
  findSkinPick(accountId: number, viewerId: number): Promise<number | null>;
  listSkinPicks(accountId: number): Promise<ViewerSkinPickRecord[]>;

  findRedemption(id: string): Promise<RedemptionRecord | null>;
  /** The account's redemptions in one ledger state, oldest first. */
  listRedemptionsByStatus(accountId: number, status: string): Promise<RedemptionRecord[]>;

  /** The account's managed rewards, by reward key. */
  listManagedRewards(accountId: number): Promise<ManagedRewardRecord[]>;
}

/** A viewer's sign-in, checked: the login lowercase, displayName undefined to keep the stored one. */
export interface ViewerSignInRecord {
  twitchUserId: string;
  twitchUsername: string;
  displayName: string | null | undefined;
}

/** An overlay row to insert: the store assigns its id and starts its version. */
export type NewOverlay = Omit<OverlayRecord, 'id' | 'version'>;

/** A skin row to insert: the store assigns its id and starts its version. */
export type NewSkin = Omit<SkinRecord, 'id' | 'version'>;

export interface StoreWriter extends StoreReader {
  insertAccount(account: { login: string; premium: boolean; twitchUserId: string | null }): Promise<AccountRecord>;
  updateAccount(id: number, patch: { premium?: boolean; twitchUserId?: string | null }): Promise<void>;

  insertApiKey(key: { accountId: number; prefix: string; hash: Uint8Array }): Promise<ApiKeyRecord>;
  revokeApiKey(id: number): Promise<void>;

  /** Inserts or updates a template row by id. */
  upsertTemplate(template: TemplateRecord): Promise<void>;

  insertOverlay(overlay: NewOverlay): Promise<OverlayRecord>;
  /** Changes columns; does not bump the version (bumpOverlayVersions does, once per write). */
  updateOverlay(id: number, patch: { name?: string; values?: StoredValues; syncSourceId?: number | null; isDefault?: boolean; token?: string }): Promise<void>;
  bumpOverlayVersions(ids: readonly number[]): Promise<void>;

  insertSkin(skin: NewSkin): Promise<SkinRecord>;
  /** Changes columns and bumps the skin's version. */
  updateSkin(id: number, patch: Partial<Pick<SkinRecord, 'name' | 'description' | 'availability' | 'isActive' | 'overrides'>>): Promise<void>;
  /** Assigns the role's skin on the channel; null removes the assignment. */
  setSkinRole(accountId: number, role: Role, skinId: number | null): Promise<void>;

  insertViewer(viewer: { twitchUserId: string; twitchUsername: string | null; displayName: string | null }): Promise<ViewerRecord>;
  updateViewer(id: number, patch: { twitchUsername?: string | null; displayName?: string | null }): Promise<void>;
  /**
   * Signs viewers in, in order, by Twitch user id: a new one is inserted (display name null when
   * undefined); an existing one gets the login and, when defined, the display name, its
   * updated_at moving only if either changed. A login held by another Twitch user's row is taken
   * from it first (set NULL there). Answers each viewer as now stored; a failing statement throws
   * (rolling back with the transaction).
   */
  signInViewers(signIns: readonly ViewerSignInRecord[]): Promise<ViewerRecord[]>;

  insertEntitlement(entitlement: { accountId: number; viewerId: number; skinId: number; source: EntitlementSource }): Promise<EntitlementRecord>;
  setEntitlementSource(id: number, source: EntitlementSource): Promise<void>;
  deleteEntitlement(id: number): Promise<void>;
  /** Sets the viewer's pick on the channel; null clears it. */
  setSkinPick(accountId: number, viewerId: number, skinId: number | null): Promise<void>;

  /** Remembers a redemption; false when its id was already there (handle each one once). */
  insertRedemption(redemption: { id: string; accountId: number; rewardId: string; status: string }): Promise<boolean>;
  setRedemptionStatus(id: string, status: string): Promise<void>;
  /** Changes the ledger columns of a redemption. */
  updateRedemption(id: string, patch: RedemptionPatch): Promise<void>;
  /**
   * Deletes up to `limit` `status-sent` redemptions, of any account, whose last change is before
   * `settledBefore` (an ISO 8601 UTC timestamp), each account's oldest first; answers how many.
   * Rows in any other state are never touched.
   */
  deleteSettledRedemptions(settledBefore: string, limit: number): Promise<number>;

  /** Inserts or replaces the managed reward of (account, reward key). */
  upsertManagedReward(reward: ManagedRewardRecord): Promise<void>;
  deleteManagedReward(accountId: number, rewardKey: string): Promise<void>;
}

export interface StoreTransaction extends StoreWriter {
  /** Runs after the outermost transaction commits; dropped if it (or this savepoint) rolls back. */
  afterCommit(callback: () => void): void;
}

export interface Store extends StoreReader {
  /**
   * Runs `fn` in one write transaction: committed when it resolves, rolled back when it throws.
   * Called again inside `fn` (also indirectly, through the service), it joins as a savepoint.
   */
  transaction<T>(fn: (tx: StoreTransaction) => Promise<T>): Promise<T>;
  /** Runs `fn` against one consistent view of the data (several reads, no writes). */
  read<T>(fn: (reader: StoreReader) => Promise<T>): Promise<T>;
  /**
   * True inside `fn` of a `transaction` not yet committed: what is read there may still be
   * rolled back, so it must not be cached as the committed state.
   */
  inTransaction(): boolean;
  close(): Promise<void>;
}

/** A store method's synchronous twin: what an implementation on a synchronous driver writes. */
export type Synchronous<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => Promise<infer R> ? (...args: A) => R : T[K];
};
