// Numbered schema migrations for the SQLite store, recorded in `schema_migrations`.
// Append new ones at the end with the next number; never edit one that has shipped.
import { StoreOpenError } from './store-open-error.ts';
import type { DatabaseSync } from 'node:sqlite';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

const NOW = `(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`;

// One trigger pair per table that points at a skin: the skin must be a global one or the
// channel's own, so no row can ever let a channel use another channel's skin.
function usableSkinTriggers(table: string): string {
  const check = `SELECT RAISE(ABORT, '${table}: the skin must be global or belong to the same account')
    WHERE NOT EXISTS (SELECT 1 FROM skins WHERE id = NEW.skin_id AND (account_id IS NULL OR account_id = NEW.account_id));`;
  return `
CREATE TRIGGER ${table}_usable_skin_insert BEFORE INSERT ON ${table} BEGIN ${check} END;
CREATE TRIGGER ${table}_usable_skin_update BEFORE UPDATE OF skin_id, account_id ON ${table} BEGIN ${check} END;`;
}

export const MIGRATIONS: readonly Migration[] = Object.freeze([
  {
    version: 1,
    name: 'initial schema',
    sql: `
CREATE TABLE accounts (
  id INTEGER PRIMARY KEY,
  login TEXT NOT NULL UNIQUE CHECK (length(login) BETWEEN 1 AND 25 AND login = lower(login)),
  premium INTEGER NOT NULL DEFAULT 0 CHECK (premium IN (0, 1)),
  twitch_user_id TEXT UNIQUE CHECK (twitch_user_id IS NULL OR (length(twitch_user_id) BETWEEN 1 AND 32 AND twitch_user_id NOT GLOB '*[^0-9]*')),
  created_at TEXT NOT NULL DEFAULT ${NOW},
  updated_at TEXT NOT NULL DEFAULT ${NOW}
) STRICT;

CREATE TABLE api_keys (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  prefix TEXT NOT NULL,
  hash BLOB NOT NULL UNIQUE CHECK (length(hash) = 32),
  created_at TEXT NOT NULL DEFAULT ${NOW},
  revoked_at TEXT
) STRICT;
-- At most one active key per account, enforced here as well as in the service.
CREATE UNIQUE INDEX api_keys_one_active_per_account ON api_keys(account_id) WHERE revoked_at IS NULL;

CREATE TABLE templates (
  id INTEGER PRIMARY KEY CHECK (id > 0),
  slug TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  synced_at TEXT NOT NULL DEFAULT ${NOW}
) STRICT;

CREATE TABLE overlays (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
  template_id INTEGER NOT NULL REFERENCES templates(id),
  is_default INTEGER NOT NULL DEFAULT 0 CHECK (is_default IN (0, 1)),
  sync_source_id INTEGER,
  values_json TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(values_json) AND json_type(values_json) = 'object'),
  token TEXT NOT NULL UNIQUE CHECK (length(token) >= 32),
  version INTEGER NOT NULL DEFAULT 1 CHECK (version >= 1),
  created_at TEXT NOT NULL DEFAULT ${NOW},
  updated_at TEXT NOT NULL DEFAULT ${NOW},
  UNIQUE (account_id, name),
  UNIQUE (id, account_id, template_id),
  -- The sync source is an overlay of the same account and template.
  FOREIGN KEY (sync_source_id, account_id, template_id) REFERENCES overlays(id, account_id, template_id)
) STRICT;
CREATE UNIQUE INDEX overlays_one_default_per_account ON overlays(account_id) WHERE is_default = 1;
CREATE INDEX overlays_sync_source ON overlays(sync_source_id) WHERE sync_source_id IS NOT NULL;

-- Sync is one level deep: a source has no source itself, and a source cannot become synced.
CREATE TRIGGER overlays_sync_one_level_insert BEFORE INSERT ON overlays WHEN NEW.sync_source_id IS NOT NULL
BEGIN
  SELECT RAISE(ABORT, 'overlays: a sync source must not have a sync source itself')
    WHERE EXISTS (SELECT 1 FROM overlays WHERE id = NEW.sync_source_id AND sync_source_id IS NOT NULL);
END;
CREATE TRIGGER overlays_sync_one_level_update BEFORE UPDATE OF sync_source_id ON overlays WHEN NEW.sync_source_id IS NOT NULL
BEGIN
  SELECT RAISE(ABORT, 'overlays: an overlay cannot be its own sync source') WHERE NEW.sync_source_id = NEW.id;
  SELECT RAISE(ABORT, 'overlays: a sync source must not have a sync source itself')
    WHERE EXISTS (SELECT 1 FROM overlays WHERE id = NEW.sync_source_id AND sync_source_id IS NOT NULL);
  SELECT RAISE(ABORT, 'overlays: an overlay that other overlays sync to cannot get a sync source')
    WHERE EXISTS (SELECT 1 FROM overlays WHERE sync_source_id = NEW.id);
END;

CREATE TABLE skins (
  id INTEGER PRIMARY KEY,
  account_id INTEGER REFERENCES accounts(id) ON DELETE CASCADE,
  template_id INTEGER NOT NULL REFERENCES templates(id),
  slug TEXT NOT NULL CHECK (length(slug) BETWEEN 1 AND 64),
  name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
  description TEXT NOT NULL DEFAULT '',
  availability TEXT NOT NULL CHECK (availability IN ('free', 'purchase', 'exclusive')),
  is_active INTEGER NOT NULL DEFAULT 1 CHECK (is_active IN (0, 1)),
  overrides_json TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(overrides_json) AND json_type(overrides_json) = 'object'),
  version INTEGER NOT NULL DEFAULT 1 CHECK (version >= 1),
  created_at TEXT NOT NULL DEFAULT ${NOW},
  updated_at TEXT NOT NULL DEFAULT ${NOW}
) STRICT;
CREATE UNIQUE INDEX skins_account_slug ON skins(account_id, slug) WHERE account_id IS NOT NULL;
CREATE UNIQUE INDEX skins_global_slug ON skins(slug) WHERE account_id IS NULL;

CREATE TABLE skin_roles (
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  role TEXT NOT NULL CHECK (role IN ('broadcaster', 'moderator', 'vip', 'subscriber')),
  skin_id INTEGER NOT NULL REFERENCES skins(id) ON DELETE CASCADE,
  PRIMARY KEY (account_id, role)
) STRICT;
CREATE INDEX skin_roles_skin ON skin_roles(skin_id);
${usableSkinTriggers('skin_roles')}

CREATE TABLE viewers (
  id INTEGER PRIMARY KEY,
  twitch_user_id TEXT NOT NULL UNIQUE CHECK (length(twitch_user_id) BETWEEN 1 AND 32 AND twitch_user_id NOT GLOB '*[^0-9]*'),
  -- NULL once another Twitch user took this viewer's old login (renames free logins up).
  twitch_username TEXT UNIQUE CHECK (twitch_username IS NULL OR (length(twitch_username) BETWEEN 1 AND 25 AND twitch_username = lower(twitch_username))),
  display_name TEXT,
  created_at TEXT NOT NULL DEFAULT ${NOW},
  updated_at TEXT NOT NULL DEFAULT ${NOW}
) STRICT;

CREATE TABLE entitlements (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  viewer_id INTEGER NOT NULL REFERENCES viewers(id) ON DELETE CASCADE,
  skin_id INTEGER NOT NULL REFERENCES skins(id) ON DELETE CASCADE,
  source TEXT NOT NULL CHECK (source IN ('api', 'purchase')),
  created_at TEXT NOT NULL DEFAULT ${NOW},
  updated_at TEXT NOT NULL DEFAULT ${NOW},
  UNIQUE (account_id, viewer_id, skin_id)
) STRICT;
CREATE INDEX entitlements_skin ON entitlements(skin_id);
${usableSkinTriggers('entitlements')}

CREATE TABLE viewer_skin_picks (
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  viewer_id INTEGER NOT NULL REFERENCES viewers(id) ON DELETE CASCADE,
  skin_id INTEGER NOT NULL REFERENCES skins(id) ON DELETE CASCADE,
  picked_at TEXT NOT NULL DEFAULT ${NOW},
  PRIMARY KEY (account_id, viewer_id)
) STRICT;
CREATE INDEX viewer_skin_picks_skin ON viewer_skin_picks(skin_id);
${usableSkinTriggers('viewer_skin_picks')}

-- Channel-point redemptions already handled, so each is handled once (a later issue uses it).
CREATE TABLE processed_redemptions (
  id TEXT PRIMARY KEY CHECK (length(id) > 0),
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  reward_id TEXT NOT NULL,
  status TEXT NOT NULL CHECK (length(status) > 0),
  created_at TEXT NOT NULL DEFAULT ${NOW},
  updated_at TEXT NOT NULL DEFAULT ${NOW}
) STRICT;
`,
  },
  {
    version: 2,
    name: 'redemption ledger and managed rewards',
    sql: `
-- The ledger of each channel-point redemption: received -> effect-done (with its outcome) ->
-- status-sent. attempts counts how often its effect was started (more than 1 after a crash).
ALTER TABLE processed_redemptions ADD COLUMN outcome TEXT CHECK (outcome IS NULL OR outcome IN ('fulfill', 'refund'));
ALTER TABLE processed_redemptions ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0);
CREATE INDEX processed_redemptions_account_status ON processed_redemptions(account_id, status);

-- Channel-point rewards the host created (with its own client id) from the config, by reward key,
-- so a changed config updates them and a removed one disables them.
CREATE TABLE managed_rewards (
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  reward_key TEXT NOT NULL CHECK (length(reward_key) BETWEEN 1 AND 100),
  twitch_reward_id TEXT NOT NULL UNIQUE CHECK (length(twitch_reward_id) > 0),
  broadcaster_id TEXT NOT NULL CHECK (length(broadcaster_id) > 0),
  state TEXT NOT NULL CHECK (state IN ('active', 'disabled')),
  created_at TEXT NOT NULL DEFAULT ${NOW},
  updated_at TEXT NOT NULL DEFAULT ${NOW},
  PRIMARY KEY (account_id, reward_key)
) STRICT;
`,
  },
  {
    version: 3,
    name: 'redemption ledger retention',
    sql: `
-- Settled redemptions (status-sent: Twitch has their final status, nothing is owed) are pruned
-- once their last change is older than twitch.redemptions.ledgerRetentionDays, oldest first.
-- This index finds them without reading the rows still owed.
CREATE INDEX processed_redemptions_settled ON processed_redemptions(account_id, updated_at) WHERE status = 'status-sent';
`,
  },
  {
    version: 4,
    name: 'redemption ledger reply texts',
    sql: `
-- Texts the caller attaches to a redemption with its effect's outcome, to use once the status is
-- sent, and whom they are for: opaque to the service (reply_texts a JSON object of label -> text,
-- reply_target any text). Both NULL when none were attached (and on every row from before), and
-- set back to NULL when the row becomes status-sent, so they are handed out at most once.
ALTER TABLE processed_redemptions ADD COLUMN reply_texts TEXT DEFAULT NULL CHECK (reply_texts IS NULL OR json_valid(reply_texts));
ALTER TABLE processed_redemptions ADD COLUMN reply_target TEXT DEFAULT NULL;
`,
  },
]);

export const LATEST_SCHEMA_VERSION = MIGRATIONS.at(-1)!.version;

/** Thrown when the database was written by a newer chatskin than this one. */
export class SchemaTooNewError extends StoreOpenError {
  override name = 'SchemaTooNewError';
  readonly found: number;
  readonly supported: number;
  constructor(location: string, found: number, supported: number) {
    super(
      location,
      `has schema version ${found}, but this chatskin only knows versions up to ${supported}. `
      + 'It was written by a newer chatskin: upgrade chatskin, or point it at another database file.',
    );
    this.found = found;
    this.supported = supported;
  }
}

/**
 * Brings the schema up to date: each pending migration in its own transaction, recorded in
 * `schema_migrations`. Re-running is a no-op; several processes starting at once are safe
 * because the version is re-read under the write lock. `beforeUpgrade` runs only when some
 * migration is pending, before the first is applied; what it throws leaves the database as it was.
 */
export function migrate(
  db: DatabaseSync, location: string, migrations: readonly Migration[] = MIGRATIONS,
  { beforeUpgrade }: { beforeUpgrade?: (found: number, latest: number) => void } = {},
): { applied: number[] } {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at TEXT NOT NULL DEFAULT ${NOW}
  ) STRICT`);
  const supported = migrations.at(-1)?.version ?? 0;
  const currentVersion = (): number => {
    const row = db.prepare('SELECT max(version) AS version FROM schema_migrations').get();
    return typeof row?.version === 'number' ? row.version : 0;
  };
  const found = currentVersion();
  if (found > supported) throw new SchemaTooNewError(location, found, supported);
  // May refuse (throw) before anything is applied: an admin command under a running older host.
  if (found < supported) beforeUpgrade?.(found, supported);

  const applied: number[] = [];
  for (const migration of migrations) {
    if (migration.version <= found) continue;
    db.exec('BEGIN IMMEDIATE');
    try {
      if (currentVersion() >= migration.version) {
        db.exec('COMMIT');
        continue;
      }
      db.exec(migration.sql);
      db.prepare('INSERT INTO schema_migrations (version, name) VALUES (?, ?)').run(migration.version, migration.name);
      db.exec('COMMIT');
      applied.push(migration.version);
    } catch (error) {
      if (db.isTransaction) db.exec('ROLLBACK');
      throw new Error(`Migration ${migration.version} (${migration.name}) of ${location} failed: ${(error as Error).message}`, { cause: error });
    }
  }
  return { applied };
}
