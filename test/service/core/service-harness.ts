// A real service on a real SQLite file in a fresh temp dir, with the events it announced, and a
// way to read every table through a second connection (to prove what was, or was not, committed).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { StyleEvent } from '../../../src/service/events.ts';
import { applySeed } from '../../../src/service/seed.ts';
import type { SeedResult } from '../../../src/service/seed.ts';
import { DEFAULT_TEMPLATES_DIR, loadTemplates } from '../../../src/service/settings/templates.ts';
import { openSqliteStore } from '../../../src/service/store/sqlite-store.ts';
import type { SqliteStore, SqliteStoreOptions } from '../../../src/service/store/sqlite-store.ts';
import { createStyleService } from '../../../src/service/style-service.ts';
import type { StyleService } from '../../../src/service/style-service.ts';
import { ServiceError } from '../../../src/service/types.ts';

export const TEMPLATES = loadTemplates(DEFAULT_TEMPLATES_DIR);

export interface Harness {
  dir: string;
  dbPath: string;
  store: SqliteStore;
  service: StyleService;
  /** Every event announced so far, in order. */
  events: StyleEvent[];
  /** Every row of every table, read through a separate connection. */
  dump(): Record<string, unknown[]>;
  close(): Promise<void>;
}

export function tempDir(): string {
  return mkdtempSync(path.join(tmpdir(), 'chatskin-service-'));
}

export async function openHarness(options: Partial<SqliteStoreOptions> = {}): Promise<Harness> {
  const dir = tempDir();
  const dbPath = path.join(dir, 'chatskin.db');
  const store = openSqliteStore({ path: dbPath, ...options });
  const service = await createStyleService({ store, templates: TEMPLATES });
  const events: StyleEvent[] = [];
  service.events.subscribe((event) => events.push(event));
  return {
    dir, dbPath, store, service, events,
    dump: () => dumpDatabase(dbPath),
    async close() {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function dumpDatabase(dbPath: string): Record<string, unknown[]> {
  const db = new DatabaseSync(dbPath, { readOnly: true });
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all()
      .map((row) => String(row.name));
    return Object.fromEntries(tables.map((table) => [table, db.prepare(`SELECT * FROM "${table}" ORDER BY rowid`).all()]));
  } finally {
    db.close();
  }
}

/**
 * alice as WORLD_FIXTURE below and the HTTP tests' API_FIXTURE have her: a premium channel with a
 * default overlay, one synced to it and a ticker; a skin of each availability, one retired.
 */
export const ALICE_ACCOUNT = {
  login: 'alice',
  premium: true,
  overlays: [
    { name: 'Main', template: 'bubbles', default: true, values: { 'bubble.width': 420 } },
    { name: 'Second', template: 'bubbles', sync_source: 'Main', overrides: { 'avatar.size': 80 } },
    { name: 'Ticker', template: 'ticker', values: {} },
  ],
  skins: [
    {
      slug: 'neon', name: 'Neon', description: 'Bright', template: 'bubbles', availability: 'purchase', active: true,
      values: { 'bubble.background-color': '#ff00ff' }, roles: ['moderator'],
    },
    { slug: 'vault', name: 'Vault', template: 'bubbles', availability: 'exclusive', values: {} },
    { slug: 'retired', name: 'Retired', template: 'bubbles', availability: 'purchase', active: false, values: {} },
    { slug: 'tape', name: 'Tape', template: 'ticker', availability: 'free', values: { 'message.font-size': 20 } },
  ],
};

/** The fixture of the brief, plus a second channel, an exclusive skin and a spare viewer. */
export const WORLD_FIXTURE = {
  accounts: [
    ALICE_ACCOUNT,
    {
      login: 'bob',
      premium: true,
      skins: [{ slug: 'bobskin', name: 'Bob skin', template: 'bubbles', availability: 'purchase', values: {} }],
    },
  ],
  global_skins: [{ slug: 'classic', name: 'Classic', template: 'bubbles', availability: 'free', values: {} }],
  viewers: [
    { twitch_user_id: '1001', twitch_username: 'viewer_one' },
    { twitch_user_id: '1002', twitch_username: 'viewer_two', display_name: 'Viewer_Two' },
    { twitch_user_id: '1003', twitch_username: '4242' },
  ],
  purchases: [{ account: 'alice', viewer: 'viewer_one', skin: 'neon' }],
};

export async function openWorld(): Promise<Harness & { ids: SeedResult }> {
  const harness = await openHarness();
  const ids = await applySeed(harness.service, structuredClone(WORLD_FIXTURE));
  harness.events.length = 0;
  return { ...harness, ids };
}

/** The ServiceError a promise rejects with (fails the test when it resolves or throws something else). */
export async function refusal(promise: Promise<unknown>): Promise<ServiceError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ServiceError) return error;
    throw error;
  }
  throw new Error('expected the call to be refused, but it succeeded');
}
