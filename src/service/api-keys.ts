// API keys (DESIGN.md "Authentication"): random, shown once, stored only as SHA-256 with a short
// visible prefix; one active key per account; every authentication reads the database, so a
// revoke or premium switch made by another process is seen on the very next request.
import { hash as digest, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Store, StoreReader } from './store/store.ts';
import { ServiceError } from './types.ts';
import type { Account } from './types.ts';

export const API_KEY_PREFIX = 'csk_';
const KEY_BYTES = 32;
/** `csk_` and 43 base64url characters (32 bytes). */
const TOKEN_SHAPE = /^csk_[A-Za-z0-9_-]{43}$/;
/** Characters of the token kept in plain text to tell keys apart: `csk_` and six more. */
const VISIBLE_PREFIX_LENGTH = API_KEY_PREFIX.length + 6;

export interface CreatedApiKey {
  /** The whole token. Shown this once; only its hash is stored. */
  token: string;
  prefix: string;
  createdAt: string;
}

export interface ApiKeyInfo {
  prefix: string;
  createdAt: string;
}

export interface ApiKeys {
  /** Makes the account's key; refuses (409) while it has an active one, 404 for an unknown login. */
  createKey(login: string): Promise<CreatedApiKey>;
  /** Revokes the account's active key; 404 when it has none. */
  revokeKey(login: string): Promise<ApiKeyInfo>;
  /** The active key's prefix and creation time, or null. */
  describeKey(login: string): Promise<ApiKeyInfo | null>;
  /** The key and its account (premium read fresh), or null for a missing, malformed, unknown or revoked key. */
  authenticate(token: string): Promise<ApiKeyCaller | null>;
}

/** Who an API key's request comes from: the account, and which of its keys (the rate limit counts per key). */
export interface ApiKeyCaller {
  account: Account;
  keyId: number;
}

export function hashApiKey(token: string): Uint8Array {
  // The one-shot digest: about half the cost of createHash().update().digest() per request.
  return digest('sha256', token, 'buffer');
}

export function createApiKeys(store: Store): ApiKeys {
  async function accountOf(reader: StoreReader, login: unknown) {
    const normalized = typeof login === 'string' ? login.trim().toLowerCase() : '';
    const account = normalized === '' ? null : await reader.findAccountByLogin(normalized);
    if (account === null) throw new ServiceError(404, `No account with the login "${String(login)}".`);
    return account;
  }

  return {
    async createKey(login) {
      return store.transaction(async (tx) => {
        const account = await accountOf(tx, login);
        const active = await tx.findActiveApiKey(account.id);
        if (active !== null) {
          throw new ServiceError(409,
            `${account.login} already has an active API key (${active.prefix}…, created ${active.createdAt}). `
            + 'Revoke it first; an account has one active key at a time.');
        }
        const token = API_KEY_PREFIX + randomBytes(KEY_BYTES).toString('base64url');
        const key = await tx.insertApiKey({ accountId: account.id, prefix: token.slice(0, VISIBLE_PREFIX_LENGTH), hash: hashApiKey(token) });
        return { token, prefix: key.prefix, createdAt: key.createdAt };
      });
    },

    async revokeKey(login) {
      return store.transaction(async (tx) => {
        const account = await accountOf(tx, login);
        const active = await tx.findActiveApiKey(account.id);
        if (active === null) throw new ServiceError(404, `${account.login} has no active API key to revoke.`);
        await tx.revokeApiKey(active.id);
        return { prefix: active.prefix, createdAt: active.createdAt };
      });
    },

    async describeKey(login) {
      const account = await accountOf(store, login);
      const active = await store.findActiveApiKey(account.id);
      return active === null ? null : { prefix: active.prefix, createdAt: active.createdAt };
    },

    async authenticate(token) {
      if (typeof token !== 'string' || !TOKEN_SHAPE.test(token)) return null;
      const hash = hashApiKey(token);
      const found = await store.findActiveApiKeyByHash(hash);
      if (found === null) return null;
      // The lookup is by hash already; compare anyway in constant time, as a guard on the index.
      const stored = Buffer.from(found.key.hash);
      if (stored.length !== hash.length || !timingSafeEqual(stored, hash)) return null;
      return { account: { ...found.account }, keyId: found.key.id };
    },
  };
}
