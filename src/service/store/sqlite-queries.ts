// The store's queries on one node:sqlite connection, synchronously. SqliteStore wraps these
// in Promises, the transaction discipline and the lock; nothing else calls them directly.
import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';
import type { EntitlementSource, Role } from '../types.ts';
import type {
  AccountRecord, ActiveApiKeyRecord, ApiKeyRecord, EntitlementRecord, ManagedRewardRecord, OverlayRecord, OverlayVersionRecord, RedemptionPatch, RedemptionRecord, SkinRecord,
  SkinRoleRecord, StoredValues, TemplateRecord, ViewerRecord, ViewerSkinPickRecord,
} from './records.ts';
import type { NewOverlay, NewSkin, StoreWriter, Synchronous, ViewerSignInRecord } from './store.ts';

type Row = Record<string, unknown>;

const NOW = `strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`;

const ACCOUNT_COLUMNS = 'id, login, premium, twitch_user_id';
const OVERLAY_COLUMNS = 'id, account_id, name, template_id, is_default, sync_source_id, values_json, token, version';
const SKIN_COLUMNS = 'id, account_id, template_id, slug, name, description, availability, is_active, overrides_json, version';
const VIEWER_COLUMNS = 'id, twitch_user_id, twitch_username, display_name';

/** Names of the methods that write; a read-only view refuses them. */
export const WRITE_METHODS: ReadonlySet<string> = new Set([
  'insertAccount', 'updateAccount', 'insertApiKey', 'revokeApiKey', 'upsertTemplate', 'insertOverlay',
  'updateOverlay', 'bumpOverlayVersions', 'insertSkin', 'updateSkin', 'setSkinRole', 'insertViewer',
  'updateViewer', 'signInViewers', 'insertEntitlement', 'setEntitlementSource', 'deleteEntitlement', 'setSkinPick',
  'insertRedemption', 'setRedemptionStatus', 'updateRedemption', 'deleteSettledRedemptions', 'upsertManagedReward',
  'deleteManagedReward',
]);

export class SqliteQueries implements Synchronous<StoreWriter> {
  readonly #db: DatabaseSync;
  readonly #statements = new Map<string, StatementSync>();
  /** Statements whose rows come as arrays of column values (see #getValues). */
  readonly #valueStatements = new Map<string, StatementSync>();

  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  /** Prepared once per SQL text and reused. */
  #statement(sql: string): StatementSync {
    let statement = this.#statements.get(sql);
    if (statement === undefined) {
      statement = this.#db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  #get(sql: string, ...params: SQLInputValue[]): Row | undefined {
    return this.#statement(sql).get(...params) as Row | undefined;
  }

  /**
   * The first row as an array of its column values, in the SELECT's order: no object with a
   * property per column, a few tenths of a microsecond less per read. For the reads every API
   * request makes.
   */
  #getValues(sql: string, ...params: SQLInputValue[]): unknown[] | undefined {
    let statement = this.#valueStatements.get(sql);
    if (statement === undefined) {
      statement = this.#db.prepare(sql);
      statement.setReturnArrays(true);
      this.#valueStatements.set(sql, statement);
    }
    return statement.get(...params) as unknown[] | undefined;
  }

  #all(sql: string, ...params: SQLInputValue[]): Row[] {
    return this.#statement(sql).all(...params) as Row[];
  }

  #run(sql: string, ...params: SQLInputValue[]): { changes: number; lastInsertRowid: number } {
    const result = this.#statement(sql).run(...params);
    return { changes: Number(result.changes), lastInsertRowid: Number(result.lastInsertRowid) };
  }

  // Accounts

  findAccountById(id: number): AccountRecord | null {
    return mapOrNull(this.#get(`SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE id = ?`, id), toAccount);
  }

  findAccountByLogin(login: string): AccountRecord | null {
    return mapOrNull(this.#get(`SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE login = ?`, login), toAccount);
  }

  findAccountByTwitchUserId(twitchUserId: string): AccountRecord | null {
    return mapOrNull(this.#get(`SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE twitch_user_id = ?`, twitchUserId), toAccount);
  }

  insertAccount(account: { login: string; premium: boolean; twitchUserId: string | null }): AccountRecord {
    const row = this.#get(
      `INSERT INTO accounts (login, premium, twitch_user_id) VALUES (?, ?, ?) RETURNING ${ACCOUNT_COLUMNS}`,
      account.login, bit(account.premium), account.twitchUserId,
    );
    return toAccount(row!);
  }

  updateAccount(id: number, patch: { premium?: boolean; twitchUserId?: string | null }): void {
    if (patch.premium !== undefined) {
      this.#run(`UPDATE accounts SET premium = ?, updated_at = ${NOW} WHERE id = ?`, bit(patch.premium), id);
    }
    if (patch.twitchUserId !== undefined) {
      this.#run(`UPDATE accounts SET twitch_user_id = ?, updated_at = ${NOW} WHERE id = ?`, patch.twitchUserId, id);
    }
  }

  // API keys

  findActiveApiKey(accountId: number): ApiKeyRecord | null {
    return mapOrNull(this.#get(
      'SELECT id, account_id, prefix, hash, created_at, revoked_at FROM api_keys WHERE account_id = ? AND revoked_at IS NULL',
      accountId,
    ), toApiKey);
  }

  findActiveApiKeyByHash(hash: Uint8Array): { key: ActiveApiKeyRecord; account: AccountRecord } | null {
    // Only what authentication uses: it runs on every API request, and each column read costs.
    const row = this.#getValues(
      `SELECT k.id, k.hash, k.account_id, a.login, a.premium, a.twitch_user_id
         FROM api_keys k JOIN accounts a ON a.id = k.account_id
        WHERE k.hash = ? AND k.revoked_at IS NULL`,
      hash,
    );
    if (row === undefined) return null;
    const [id, keyHash, accountId, login, premium, twitchUserId] = row;
    return {
      key: { id: num(id), hash: keyHash as Uint8Array },
      account: { id: num(accountId), login: str(login), premium: premium === 1, twitchUserId: strOrNull(twitchUserId) },
    };
  }

  insertApiKey(key: { accountId: number; prefix: string; hash: Uint8Array }): ApiKeyRecord {
    const row = this.#get(
      'INSERT INTO api_keys (account_id, prefix, hash) VALUES (?, ?, ?) RETURNING id, account_id, prefix, hash, created_at, revoked_at',
      key.accountId, key.prefix, key.hash,
    );
    return toApiKey(row!);
  }

  revokeApiKey(id: number): void {
    this.#run(`UPDATE api_keys SET revoked_at = ${NOW} WHERE id = ? AND revoked_at IS NULL`, id);
  }

  // Templates

  listTemplates(): TemplateRecord[] {
    return this.#all('SELECT id, slug, name, description FROM templates ORDER BY id').map((row) => ({
      id: num(row.id), slug: str(row.slug), name: str(row.name), description: str(row.description),
    }));
  }

  listTemplateIdsInUse(): number[] {
    return this.#all('SELECT template_id FROM overlays UNION SELECT template_id FROM skins ORDER BY 1')
      .map((row) => num(row.template_id));
  }

  upsertTemplate(template: TemplateRecord): void {
    this.#run(
      `INSERT INTO templates (id, slug, name, description) VALUES (?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET slug = excluded.slug, name = excluded.name,
         description = excluded.description, synced_at = ${NOW}
       WHERE slug IS NOT excluded.slug OR name IS NOT excluded.name OR description IS NOT excluded.description`,
      template.id, template.slug, template.name, template.description,
    );
  }

  // Overlays

  findOverlay(id: number): OverlayRecord | null {
    return mapOrNull(this.#get(`SELECT ${OVERLAY_COLUMNS} FROM overlays WHERE id = ?`, id), toOverlay);
  }

  findDefaultOverlay(accountId: number): OverlayRecord | null {
    return mapOrNull(this.#get(`SELECT ${OVERLAY_COLUMNS} FROM overlays WHERE account_id = ? AND is_default = 1`, accountId), toOverlay);
  }

  findOverlayByName(accountId: number, name: string): OverlayRecord | null {
    return mapOrNull(this.#get(`SELECT ${OVERLAY_COLUMNS} FROM overlays WHERE account_id = ? AND name = ?`, accountId, name), toOverlay);
  }

  findOverlayByToken(token: string): OverlayRecord | null {
    return mapOrNull(this.#get(`SELECT ${OVERLAY_COLUMNS} FROM overlays WHERE token = ?`, token), toOverlay);
  }

  findOverlayWithSource(accountId: number, overlayId: number | null): { overlay: OverlayRecord; source: OverlayRecord | null } | null {
    // One statement, so the overlay and its source come from the same moment.
    const select = `SELECT o.id, o.account_id, o.name, o.template_id, o.is_default, o.sync_source_id, o.values_json, o.token, o.version,
                           s.id AS s_id, s.account_id AS s_account_id, s.name AS s_name, s.template_id AS s_template_id,
                           s.is_default AS s_is_default, s.sync_source_id AS s_sync_source_id, s.values_json AS s_values_json,
                           s.token AS s_token, s.version AS s_version
                      FROM overlays o LEFT JOIN overlays s ON s.id = o.sync_source_id`;
    const row = overlayId === null
      ? this.#get(`${select} WHERE o.account_id = ? AND o.is_default = 1`, accountId)
      : this.#get(`${select} WHERE o.account_id = ? AND o.id = ?`, accountId, overlayId);
    if (row === undefined) return null;
    const source = row.s_id === null ? null : toOverlay(unprefix(row, 's_'));
    return { overlay: toOverlay(row), source };
  }

  findOverlayVersion(accountId: number, overlayId: number | null): OverlayVersionRecord | null {
    const select = `SELECT o.id, o.template_id, o.name, o.sync_source_id, o.version, s.version AS source_version
                      FROM overlays o LEFT JOIN overlays s ON s.id = o.sync_source_id`;
    const row = overlayId === null
      ? this.#getValues(`${select} WHERE o.account_id = ? AND o.is_default = 1`, accountId)
      : this.#getValues(`${select} WHERE o.account_id = ? AND o.id = ?`, accountId, overlayId);
    if (row === undefined) return null;
    const [id, templateId, name, syncSourceId, version, sourceVersion] = row;
    return {
      id: num(id), templateId: num(templateId), name: str(name),
      syncSourceId: syncSourceId === null ? null : num(syncSourceId),
      version: num(version), sourceVersion: sourceVersion === null ? null : num(sourceVersion),
    };
  }

  listOverlays(accountId: number): OverlayRecord[] {
    return this.#all(`SELECT ${OVERLAY_COLUMNS} FROM overlays WHERE account_id = ? ORDER BY id`, accountId).map(toOverlay);
  }

  listOverlayIdsSyncedTo(sourceId: number): number[] {
    return this.#all('SELECT id FROM overlays WHERE sync_source_id = ? ORDER BY id', sourceId).map((row) => num(row.id));
  }

  listOverlayIdsUsingSkin(skinId: number): number[] {
    return this.#all(
      `SELECT o.id FROM overlays o JOIN skins s ON s.id = ? AND o.template_id = s.template_id
        WHERE o.account_id IN (SELECT account_id FROM skin_roles WHERE skin_id = s.id
                               UNION SELECT account_id FROM viewer_skin_picks WHERE skin_id = s.id)
        ORDER BY o.id`,
      skinId,
    ).map((row) => num(row.id));
  }

  insertOverlay(overlay: NewOverlay): OverlayRecord {
    const row = this.#get(
      `INSERT INTO overlays (account_id, name, template_id, is_default, sync_source_id, values_json, token)
       VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING ${OVERLAY_COLUMNS}`,
      overlay.accountId, overlay.name, overlay.templateId, bit(overlay.isDefault), overlay.syncSourceId,
      JSON.stringify(overlay.values), overlay.token,
    );
    return toOverlay(row!);
  }

  updateOverlay(id: number, patch: { name?: string; values?: StoredValues; syncSourceId?: number | null; isDefault?: boolean; token?: string }): void {
    if (patch.name !== undefined) this.#run(`UPDATE overlays SET name = ?, updated_at = ${NOW} WHERE id = ?`, patch.name, id);
    if (patch.values !== undefined) {
      this.#run(`UPDATE overlays SET values_json = ?, updated_at = ${NOW} WHERE id = ?`, JSON.stringify(patch.values), id);
    }
    if (patch.syncSourceId !== undefined) {
      this.#run(`UPDATE overlays SET sync_source_id = ?, updated_at = ${NOW} WHERE id = ?`, patch.syncSourceId, id);
    }
    if (patch.isDefault !== undefined) {
      this.#run(`UPDATE overlays SET is_default = ?, updated_at = ${NOW} WHERE id = ?`, bit(patch.isDefault), id);
    }
    if (patch.token !== undefined) this.#run(`UPDATE overlays SET token = ?, updated_at = ${NOW} WHERE id = ?`, patch.token, id);
  }

  bumpOverlayVersions(ids: readonly number[]): void {
    for (const id of new Set(ids)) this.#run('UPDATE overlays SET version = version + 1 WHERE id = ?', id);
  }

  // Skins

  findSkin(id: number): SkinRecord | null {
    return mapOrNull(this.#get(`SELECT ${SKIN_COLUMNS} FROM skins WHERE id = ?`, id), toSkin);
  }

  findSkinBySlug(accountId: number | null, slug: string): SkinRecord | null {
    const row = accountId === null
      ? this.#get(`SELECT ${SKIN_COLUMNS} FROM skins WHERE account_id IS NULL AND slug = ?`, slug)
      : this.#get(`SELECT ${SKIN_COLUMNS} FROM skins WHERE account_id = ? AND slug = ?`, accountId, slug);
    return mapOrNull(row, toSkin);
  }

  listAccountSkins(accountId: number, templateId?: number): SkinRecord[] {
    const rows = templateId === undefined
      ? this.#all(`SELECT ${SKIN_COLUMNS} FROM skins WHERE account_id = ? ORDER BY id`, accountId)
      : this.#all(`SELECT ${SKIN_COLUMNS} FROM skins WHERE account_id = ? AND template_id = ? ORDER BY id`, accountId, templateId);
    return rows.map(toSkin);
  }

  listGlobalSkins(): SkinRecord[] {
    return this.#all(`SELECT ${SKIN_COLUMNS} FROM skins WHERE account_id IS NULL ORDER BY id`).map(toSkin);
  }

  listSkinsInUse(accountId: number, templateId: number): SkinRecord[] {
    return this.#all(
      `SELECT ${SKIN_COLUMNS} FROM skins
        WHERE template_id = ? AND is_active = 1
          AND id IN (SELECT skin_id FROM skin_roles WHERE account_id = ?
                     UNION SELECT skin_id FROM viewer_skin_picks WHERE account_id = ?)
        ORDER BY id`,
      templateId, accountId, accountId,
    ).map(toSkin);
  }

  insertSkin(skin: NewSkin): SkinRecord {
    const row = this.#get(
      `INSERT INTO skins (account_id, template_id, slug, name, description, availability, is_active, overrides_json)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${SKIN_COLUMNS}`,
      skin.accountId, skin.templateId, skin.slug, skin.name, skin.description, skin.availability,
      bit(skin.isActive), JSON.stringify(skin.overrides),
    );
    return toSkin(row!);
  }

  updateSkin(id: number, patch: Partial<Pick<SkinRecord, 'name' | 'description' | 'availability' | 'isActive' | 'overrides'>>): void {
    this.#run(
      `UPDATE skins SET name = coalesce(?, name), description = coalesce(?, description),
         availability = coalesce(?, availability), is_active = coalesce(?, is_active),
         overrides_json = coalesce(?, overrides_json), version = version + 1, updated_at = ${NOW}
       WHERE id = ?`,
      patch.name ?? null, patch.description ?? null, patch.availability ?? null,
      patch.isActive === undefined ? null : bit(patch.isActive),
      patch.overrides === undefined ? null : JSON.stringify(patch.overrides), id,
    );
  }

  listSkinRoles(accountId: number): SkinRoleRecord[] {
    return this.#all('SELECT account_id, role, skin_id FROM skin_roles WHERE account_id = ? ORDER BY role', accountId)
      .map((row) => ({ accountId: num(row.account_id), role: str(row.role) as Role, skinId: num(row.skin_id) }));
  }

  setSkinRole(accountId: number, role: Role, skinId: number | null): void {
    if (skinId === null) {
      this.#run('DELETE FROM skin_roles WHERE account_id = ? AND role = ?', accountId, role);
      return;
    }
    this.#run(
      `INSERT INTO skin_roles (account_id, role, skin_id) VALUES (?, ?, ?)
       ON CONFLICT (account_id, role) DO UPDATE SET skin_id = excluded.skin_id`,
      accountId, role, skinId,
    );
  }

  // Viewers

  findViewerById(id: number): ViewerRecord | null {
    return mapOrNull(this.#get(`SELECT ${VIEWER_COLUMNS} FROM viewers WHERE id = ?`, id), toViewer);
  }

  findViewerByTwitchUserId(twitchUserId: string): ViewerRecord | null {
    return mapOrNull(this.#get(`SELECT ${VIEWER_COLUMNS} FROM viewers WHERE twitch_user_id = ?`, twitchUserId), toViewer);
  }

  findViewerByLogin(login: string): ViewerRecord | null {
    return mapOrNull(this.#get(`SELECT ${VIEWER_COLUMNS} FROM viewers WHERE twitch_username = ?`, login), toViewer);
  }

  insertViewer(viewer: { twitchUserId: string; twitchUsername: string | null; displayName: string | null }): ViewerRecord {
    const row = this.#get(
      `INSERT INTO viewers (twitch_user_id, twitch_username, display_name) VALUES (?, ?, ?) RETURNING ${VIEWER_COLUMNS}`,
      viewer.twitchUserId, viewer.twitchUsername, viewer.displayName,
    );
    return toViewer(row!);
  }

  updateViewer(id: number, patch: { twitchUsername?: string | null; displayName?: string | null }): void {
    if (patch.twitchUsername !== undefined) {
      this.#run(`UPDATE viewers SET twitch_username = ?, updated_at = ${NOW} WHERE id = ?`, patch.twitchUsername, id);
    }
    if (patch.displayName !== undefined) {
      this.#run(`UPDATE viewers SET display_name = ?, updated_at = ${NOW} WHERE id = ?`, patch.displayName, id);
    }
  }

  signInViewers(signIns: readonly ViewerSignInRecord[]): ViewerRecord[] {
    // The whole batch in one call, two or three statements a viewer, no RETURNING. One awaited
    // transaction-handle call each for find, maybe update, find, then insert or update cost
    // bench:chat's registration about 3 µs more CPU per first-time chatter; RETURNING made the
    // INSERT cost about twice as much (5.8 µs against 2.9), and the row inserted is known anyway.
    // A viewer found with its login unchanged (every returning chatter after a restart) costs
    // one read: no other row can hold that login.
    const takeLogin = this.#statement(
      `UPDATE viewers SET twitch_username = NULL, updated_at = ${NOW} WHERE twitch_username = ? AND twitch_user_id <> ?`,
    );
    const viewers: ViewerRecord[] = [];
    for (const { twitchUserId, twitchUsername, displayName } of signIns) {
      const existing = this.findViewerByTwitchUserId(twitchUserId);
      if (existing === null) {
        takeLogin.run(twitchUsername, twitchUserId);
        const { lastInsertRowid } = this.#statement('INSERT INTO viewers (twitch_user_id, twitch_username, display_name) VALUES (?, ?, ?)')
          .run(twitchUserId, twitchUsername, displayName ?? null);
        viewers.push({ id: Number(lastInsertRowid), twitchUserId, twitchUsername, displayName: displayName ?? null });
        continue;
      }
      const viewer = { ...existing, twitchUsername };
      if (displayName !== undefined) viewer.displayName = displayName;
      if (existing.twitchUsername !== twitchUsername) takeLogin.run(twitchUsername, twitchUserId);
      // updated_at moves only when something changed, as with updateViewer.
      if (existing.twitchUsername !== twitchUsername || existing.displayName !== viewer.displayName) {
        this.#run(
          `UPDATE viewers SET twitch_username = ?, display_name = ?, updated_at = ${NOW} WHERE id = ?`,
          twitchUsername, viewer.displayName, viewer.id,
        );
      }
      viewers.push(viewer);
    }
    return viewers;
  }

  // Entitlements and picks

  findEntitlement(accountId: number, viewerId: number, skinId: number): EntitlementRecord | null {
    return mapOrNull(this.#get(
      'SELECT id, account_id, viewer_id, skin_id, source, created_at FROM entitlements WHERE account_id = ? AND viewer_id = ? AND skin_id = ?',
      accountId, viewerId, skinId,
    ), toEntitlement);
  }

  listEntitledSkins(accountId: number, viewerId: number, source?: EntitlementSource): SkinRecord[] {
    const columns = SKIN_COLUMNS.split(', ').map((c) => `s.${c}`).join(', ');
    const rows = source === undefined
      ? this.#all(
        `SELECT ${columns} FROM entitlements e JOIN skins s ON s.id = e.skin_id
          WHERE e.account_id = ? AND e.viewer_id = ? ORDER BY s.id`,
        accountId, viewerId,
      )
      : this.#all(
        `SELECT ${columns} FROM entitlements e JOIN skins s ON s.id = e.skin_id
          WHERE e.account_id = ? AND e.viewer_id = ? AND e.source = ? ORDER BY s.id`,
        accountId, viewerId, source,
      );
    return rows.map(toSkin);
  }

  insertEntitlement(entitlement: { accountId: number; viewerId: number; skinId: number; source: EntitlementSource }): EntitlementRecord {
    const row = this.#get(
      `INSERT INTO entitlements (account_id, viewer_id, skin_id, source) VALUES (?, ?, ?, ?)
       RETURNING id, account_id, viewer_id, skin_id, source, created_at`,
      entitlement.accountId, entitlement.viewerId, entitlement.skinId, entitlement.source,
    );
    return toEntitlement(row!);
  }

  setEntitlementSource(id: number, source: EntitlementSource): void {
    this.#run(`UPDATE entitlements SET source = ?, updated_at = ${NOW} WHERE id = ?`, source, id);
  }

  deleteEntitlement(id: number): void {
    this.#run('DELETE FROM entitlements WHERE id = ?', id);
  }

  findSkinPick(accountId: number, viewerId: number): number | null {
    const row = this.#get('SELECT skin_id FROM viewer_skin_picks WHERE account_id = ? AND viewer_id = ?', accountId, viewerId);
    return row === undefined ? null : num(row.skin_id);
  }

  listSkinPicks(accountId: number): ViewerSkinPickRecord[] {
    return this.#all(
      `SELECT p.account_id, p.viewer_id, v.twitch_user_id, p.skin_id
         FROM viewer_skin_picks p JOIN viewers v ON v.id = p.viewer_id
        WHERE p.account_id = ? ORDER BY p.viewer_id`,
      accountId,
    ).map((row) => ({
      accountId: num(row.account_id), viewerId: num(row.viewer_id), twitchUserId: str(row.twitch_user_id), skinId: num(row.skin_id),
    }));
  }

  setSkinPick(accountId: number, viewerId: number, skinId: number | null): void {
    if (skinId === null) {
      this.#run('DELETE FROM viewer_skin_picks WHERE account_id = ? AND viewer_id = ?', accountId, viewerId);
      return;
    }
    this.#run(
      `INSERT INTO viewer_skin_picks (account_id, viewer_id, skin_id) VALUES (?, ?, ?)
       ON CONFLICT (account_id, viewer_id) DO UPDATE SET skin_id = excluded.skin_id, picked_at = ${NOW}`,
      accountId, viewerId, skinId,
    );
  }

  // Redemptions

  findRedemption(id: string): RedemptionRecord | null {
    return mapOrNull(this.#get(`SELECT ${REDEMPTION_COLUMNS} FROM processed_redemptions WHERE id = ?`, id), toRedemption);
  }

  listRedemptionsByStatus(accountId: number, status: string): RedemptionRecord[] {
    return this.#all(
      `SELECT ${REDEMPTION_COLUMNS} FROM processed_redemptions WHERE account_id = ? AND status = ? ORDER BY created_at, id`,
      accountId, status,
    ).map(toRedemption);
  }

  insertRedemption(redemption: { id: string; accountId: number; rewardId: string; status: string }): boolean {
    const { changes } = this.#run(
      'INSERT INTO processed_redemptions (id, account_id, reward_id, status) VALUES (?, ?, ?, ?) ON CONFLICT (id) DO NOTHING',
      redemption.id, redemption.accountId, redemption.rewardId, redemption.status,
    );
    return changes === 1;
  }

  setRedemptionStatus(id: string, status: string): void {
    this.#run(`UPDATE processed_redemptions SET status = ?, updated_at = ${NOW} WHERE id = ?`, status, id);
  }

  updateRedemption(id: string, patch: RedemptionPatch): void {
    const sets: string[] = [];
    const params: SQLInputValue[] = [];
    if (patch.status !== undefined) { sets.push('status = ?'); params.push(patch.status); }
    if (patch.outcome !== undefined) { sets.push('outcome = ?'); params.push(patch.outcome); }
    if (patch.attempts !== undefined) { sets.push('attempts = ?'); params.push(patch.attempts); }
    if (patch.replyTexts !== undefined) { sets.push('reply_texts = ?'); params.push(patch.replyTexts); }
    if (patch.replyTarget !== undefined) { sets.push('reply_target = ?'); params.push(patch.replyTarget); }
    if (sets.length === 0) return;
    this.#run(`UPDATE processed_redemptions SET ${sets.join(', ')}, updated_at = ${NOW} WHERE id = ?`, ...params, id);
  }

  deleteSettledRedemptions(settledBefore: string, limit: number): number {
    // Every account's, not only the channel the host serves now: a former channel's settled rows
    // (the streamer changed channel.login) are as final, and no host would prune them otherwise.
    // Only `status-sent` (a literal, so the partial index processed_redemptions_settled serves it);
    // updated_at is when the row last changed, which for status-sent is when it settled. The
    // accounts are walked by id (IN), so each is one search of that index, oldest first.
    return this.#run(
      `DELETE FROM processed_redemptions WHERE rowid IN (
         SELECT rowid FROM processed_redemptions
          WHERE account_id IN (SELECT id FROM accounts) AND status = 'status-sent' AND updated_at < ?
          ORDER BY account_id, updated_at LIMIT ?)`,
      settledBefore, limit,
    ).changes;
  }

  // Managed channel-point rewards

  listManagedRewards(accountId: number): ManagedRewardRecord[] {
    return this.#all(
      'SELECT account_id, reward_key, twitch_reward_id, broadcaster_id, state FROM managed_rewards WHERE account_id = ? ORDER BY reward_key',
      accountId,
    ).map((row) => ({
      accountId: num(row.account_id), rewardKey: str(row.reward_key), twitchRewardId: str(row.twitch_reward_id),
      broadcasterId: str(row.broadcaster_id), state: str(row.state) as ManagedRewardRecord['state'],
    }));
  }

  upsertManagedReward(reward: ManagedRewardRecord): void {
    this.#run(
      `INSERT INTO managed_rewards (account_id, reward_key, twitch_reward_id, broadcaster_id, state) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (account_id, reward_key) DO UPDATE SET twitch_reward_id = excluded.twitch_reward_id,
         broadcaster_id = excluded.broadcaster_id, state = excluded.state, updated_at = ${NOW}`,
      reward.accountId, reward.rewardKey, reward.twitchRewardId, reward.broadcasterId, reward.state,
    );
  }

  deleteManagedReward(accountId: number, rewardKey: string): void {
    this.#run('DELETE FROM managed_rewards WHERE account_id = ? AND reward_key = ?', accountId, rewardKey);
  }
}

const REDEMPTION_COLUMNS = 'id, account_id, reward_id, status, outcome, attempts, reply_texts, reply_target, created_at, updated_at';

function toRedemption(row: Row): RedemptionRecord {
  return {
    id: str(row.id), accountId: num(row.account_id), rewardId: str(row.reward_id), status: str(row.status),
    outcome: strOrNull(row.outcome) as RedemptionRecord['outcome'], attempts: num(row.attempts),
    replyTexts: strOrNull(row.reply_texts), replyTarget: strOrNull(row.reply_target),
    createdAt: str(row.created_at), updatedAt: str(row.updated_at),
  };
}

function mapOrNull<T>(row: Row | undefined, map: (row: Row) => T): T | null {
  return row === undefined ? null : map(row);
}

function num(value: unknown): number {
  return value as number;
}

function str(value: unknown): string {
  return value as string;
}

function strOrNull(value: unknown): string | null {
  return value === null ? null : (value as string);
}

function bit(value: boolean): number {
  return value ? 1 : 0;
}

function unprefix(row: Row, prefix: string): Row {
  const out: Row = {};
  for (const [key, value] of Object.entries(row)) if (key.startsWith(prefix)) out[key.slice(prefix.length)] = value;
  return out;
}

function parseValues(json: unknown): StoredValues {
  // Written only by this class from validated values (the schema checks it is a JSON object).
  return JSON.parse(str(json)) as StoredValues;
}

function toAccount(row: Row): AccountRecord {
  return { id: num(row.id), login: str(row.login), premium: row.premium === 1, twitchUserId: strOrNull(row.twitch_user_id) };
}

function toApiKey(row: Row): ApiKeyRecord {
  return {
    id: num(row.id), accountId: num(row.account_id), prefix: str(row.prefix), hash: row.hash as Uint8Array,
    createdAt: str(row.created_at), revokedAt: strOrNull(row.revoked_at),
  };
}

function toOverlay(row: Row): OverlayRecord {
  return {
    id: num(row.id), accountId: num(row.account_id), name: str(row.name), templateId: num(row.template_id),
    isDefault: row.is_default === 1, syncSourceId: row.sync_source_id === null ? null : num(row.sync_source_id),
    values: parseValues(row.values_json), token: str(row.token), version: num(row.version),
  };
}

function toSkin(row: Row): SkinRecord {
  return {
    id: num(row.id), accountId: row.account_id === null ? null : num(row.account_id), templateId: num(row.template_id),
    slug: str(row.slug), name: str(row.name), description: str(row.description),
    availability: str(row.availability) as SkinRecord['availability'], isActive: row.is_active === 1,
    overrides: parseValues(row.overrides_json), version: num(row.version),
  };
}

function toViewer(row: Row): ViewerRecord {
  return {
    id: num(row.id), twitchUserId: str(row.twitch_user_id), twitchUsername: strOrNull(row.twitch_username),
    displayName: strOrNull(row.display_name),
  };
}

function toEntitlement(row: Row): EntitlementRecord {
  return {
    id: num(row.id), accountId: num(row.account_id), viewerId: num(row.viewer_id), skinId: num(row.skin_id),
    source: str(row.source) as EntitlementSource, createdAt: str(row.created_at),
  };
}
