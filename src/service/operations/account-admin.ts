// Accounts, for the CLI, the host and the seed: create on first use (always with a default
// overlay), premium on/off, the channel's Twitch user id.
import type { ServiceContext } from '../service-context.ts';
import type { AccountRecord } from '../store/records.ts';
import type { StoreTransaction } from '../store/store.ts';
import type { Account } from '../types.ts';
import { ServiceError, validationError } from '../types.ts';
import { insertOverlayChecked } from './overlay-admin.ts';
import type { NewOverlayInput } from './overlay-admin.ts';

/** Twitch logins: letters, digits and underscores, at most 25; stored lowercase. */
const LOGIN = /^[a-z0-9_]{1,25}$/;
export const DEFAULT_OVERLAY_NAME = 'Main';

export function normalizeLogin(login: unknown, field = 'login'): string {
  const normalized = typeof login === 'string' ? login.trim().toLowerCase() : '';
  if (!LOGIN.test(normalized)) {
    throw validationError({ [field]: [`The ${field} must be 1 to 25 letters, digits or underscores, got ${JSON.stringify(login)}.`] });
  }
  return normalized;
}

export function normalizeTwitchUserId(id: unknown, field = 'twitch_user_id'): string {
  if (typeof id !== 'string' || !/^[0-9]{1,32}$/.test(id)) {
    throw validationError({ [field]: [`The ${field} must be a string of 1 to 32 digits, got ${JSON.stringify(id)}.`] });
  }
  return id;
}

export interface EnsureAccountOptions {
  /** Premium of a newly created account (an existing one keeps its own). Default false. */
  premium?: boolean;
  /** The default overlay a newly created account gets. Default: "Main" on the fallback template. */
  defaultOverlay?: Omit<NewOverlayInput, 'isDefault' | 'syncSourceId'>;
}

export function createAccountAdmin(context: ServiceContext) {
  const { store, templates } = context;

  async function accountByLogin(tx: Pick<StoreTransaction, 'findAccountByLogin'>, login: unknown): Promise<AccountRecord> {
    const normalized = normalizeLogin(login);
    const account = await tx.findAccountByLogin(normalized);
    if (account === null) throw new ServiceError(404, `No account with the login "${normalized}".`);
    return account;
  }

  /** The account with this login, created (with its default overlay, in one transaction) if new. */
  async function ensureAccount(login: string, options: EnsureAccountOptions = {}): Promise<Account> {
    const normalized = normalizeLogin(login);
    return store.transaction(async (tx) => {
      const existing = await tx.findAccountByLogin(normalized);
      if (existing !== null) return existing;
      const account = await tx.insertAccount({ login: normalized, premium: options.premium ?? false, twitchUserId: null });
      await insertOverlayChecked(context, tx, account.id, {
        name: options.defaultOverlay?.name ?? DEFAULT_OVERLAY_NAME,
        template: options.defaultOverlay?.template ?? templates.fallback.slug,
        values: options.defaultOverlay?.values ?? {},
        isDefault: true,
        syncSourceId: null,
      });
      return account;
    });
  }

  async function findAccount(login: string): Promise<Account | null> {
    return store.findAccountByLogin(normalizeLogin(login));
  }

  async function getAccount(accountId: number): Promise<Account | null> {
    return store.findAccountById(accountId);
  }

  async function setPremium(login: string, on: boolean): Promise<Account> {
    if (typeof on !== 'boolean') throw validationError({ premium: ['The premium switch must be true or false.'] });
    return store.transaction(async (tx) => {
      const account = await accountByLogin(tx, login);
      if (account.premium !== on) await tx.updateAccount(account.id, { premium: on });
      return { ...account, premium: on };
    });
  }

  /** Records the channel's Twitch user id (null forgets it); 409 when another account has it. */
  async function setChannelTwitchId(login: string, twitchUserId: string | null): Promise<Account> {
    const id = twitchUserId === null ? null : normalizeTwitchUserId(twitchUserId);
    return store.transaction(async (tx) => {
      const account = await accountByLogin(tx, login);
      if (id !== null) {
        const holder = await tx.findAccountByTwitchUserId(id);
        if (holder !== null && holder.id !== account.id) {
          throw new ServiceError(409, `The Twitch user id ${id} already belongs to the account ${holder.login}.`);
        }
      }
      if (account.twitchUserId !== id) await tx.updateAccount(account.id, { twitchUserId: id });
      return { ...account, twitchUserId: id };
    });
  }

  return { ensureAccount, findAccount, getAccount, setPremium, setChannelTwitchId };
}
