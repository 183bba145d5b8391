// `chatskin seed`: makes the store match a fixture, idempotently and atomically. Missing things
// are created, existing ones (found by login, overlay name, skin slug, Twitch user id) are
// brought in line only where they differ, so a second run writes nothing and keeps every id.
// The whole fixture is one transaction: a refused fixture changes nothing.
import { parseSeedFixture } from './seed-fixture.ts';
import type { SeedAccount, SeedFixture, SeedOverlay } from './seed-fixture.ts';
import type { StyleService } from './style-service.ts';
import { ServiceError } from './types.ts';

export interface SeedResult {
  /** login -> the account's id, its overlays (name -> id; all of them) and the fixture's skins (slug -> id). */
  accounts: Record<string, { id: number; overlays: Record<string, number>; skins: Record<string, number> }>;
  /** slug -> id */
  global_skins: Record<string, number>;
  /** login -> id */
  viewers: Record<string, number>;
}

/** Thrown when the store refuses part of a fixture; names the fixture path. */
export class SeedApplyError extends Error {
  constructor(path: string, cause: unknown) {
    const detail = cause instanceof ServiceError && cause.errors !== undefined
      ? Object.entries(cause.errors).map(([field, messages]) => `${field}: ${messages.join(' ')}`).join('; ')
      : (cause as Error).message;
    super(`Seed failed at ${path}: ${detail}`, { cause });
    this.name = 'SeedApplyError';
  }
}

async function at<T>(path: string, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (error instanceof SeedApplyError) throw error;
    throw new SeedApplyError(path, error);
  }
}

/** Applies `fixture` (parsed YAML, or an already checked SeedFixture) and returns the ids. */
export async function applySeed(service: StyleService, fixture: unknown, source = 'fixture'): Promise<SeedResult> {
  const checked = parseSeedFixture(fixture, service.templates, source);
  return service.runInTransaction(() => applyChecked(service, checked));
}

async function applyChecked(service: StyleService, fixture: SeedFixture): Promise<SeedResult> {
  const result: SeedResult = { accounts: {}, global_skins: {}, viewers: {} };
  const accountIds = new Map<string, number>();
  const skinIds = new Map<string, number>(); // `${login}/${slug}` and `/${slug}` for global skins

  for (const [a, account] of fixture.accounts.entries()) {
    const id = await seedAccount(service, account, `accounts[${a}]`, skinIds);
    accountIds.set(account.login, id);
    const overlays = await service.listOverlays(id);
    result.accounts[account.login] = {
      id,
      overlays: Object.fromEntries(overlays.map((o) => [o.name, o.id])),
      skins: Object.fromEntries(account.skins.map((s) => [s.slug, skinIds.get(`${account.login}/${s.slug}`)!])),
    };
  }

  for (const [s, skin] of fixture.global_skins.entries()) {
    const path = `global_skins[${s}]`;
    const input = {
      slug: skin.slug, name: skin.name, description: skin.description, template: skin.template,
      availability: skin.availability, isActive: skin.active, values: skin.values,
    };
    const id = await at(path, async () => {
      const existing = await service.findSkinBySlug(null, skin.slug);
      if (existing === null) return (await service.createSkin(null, input)).id;
      if (existing.template.slug !== skin.template) throw new Error(`the global skin "${skin.slug}" exists on the ${existing.template.slug} template; seed cannot change a skin's template`);
      return (await service.updateSkinDetails(existing.id, input)).id;
    });
    skinIds.set(`/${skin.slug}`, id);
    result.global_skins[skin.slug] = id;
  }

  const viewerIds = new Map<string, number>();
  for (const [v, viewer] of fixture.viewers.entries()) {
    const registered = await at(`viewers[${v}]`, () => service.registerViewer({
      twitchUserId: viewer.twitch_user_id, login: viewer.twitch_username, displayName: viewer.display_name,
    }));
    viewerIds.set(viewer.twitch_username, registered.id);
    result.viewers[viewer.twitch_username] = registered.id;
  }

  const resolve = (entry: { account: string; viewer: string; skin: string }) => ({
    accountId: accountIds.get(entry.account)!,
    viewerId: viewerIds.get(entry.viewer)!,
    skinId: skinIds.get(`${entry.account}/${entry.skin}`) ?? skinIds.get(`/${entry.skin}`)!,
  });
  for (const [i, entry] of fixture.purchases.entries()) {
    const { accountId, viewerId, skinId } = resolve(entry);
    await at(`purchases[${i}]`, () => service.recordPurchase(accountId, viewerId, skinId));
  }
  for (const [i, entry] of fixture.grants.entries()) {
    const { accountId, viewerId, skinId } = resolve(entry);
    const viewer = fixture.viewers.find((v) => v.twitch_username === entry.viewer)!;
    await at(`grants[${i}]`, () => service.unlockSkin(accountId, { twitch_user_id: viewer.twitch_user_id, skin_id: skinId }));
  }
  for (const [i, entry] of fixture.picks.entries()) {
    const { accountId, viewerId, skinId } = resolve(entry);
    await at(`picks[${i}]`, () => service.pickSkin(accountId, viewerId, skinId));
  }
  return result;
}

function overlayValues(overlay: SeedOverlay): Record<string, unknown> {
  return (overlay.sync_source === undefined ? overlay.values : overlay.overrides) ?? {};
}

async function seedAccount(service: StyleService, account: SeedAccount, path: string, skinIds: Map<string, number>): Promise<number> {
  // Independent overlays first: synced ones name them as their source.
  const ordered = account.overlays
    .map((overlay, index) => ({ overlay, index }))
    .sort((x, y) => Number(x.overlay.sync_source !== undefined) - Number(y.overlay.sync_source !== undefined));
  const marked = account.overlays.find((o) => o.default === true);
  // A new account is created together with its default overlay (every account has one).
  const firstDefault = marked?.sync_source === undefined && marked !== undefined
    ? marked
    : account.overlays.find((o) => o.sync_source === undefined);

  const accountId = await at(path, async () => {
    let existing = await service.findAccount(account.login);
    existing ??= await service.ensureAccount(account.login, {
      premium: account.premium,
      ...(firstDefault === undefined ? {} : {
        defaultOverlay: { name: firstDefault.name, template: firstDefault.template, values: firstDefault.values ?? {} },
      }),
    });
    if (existing.premium !== account.premium) await service.setPremium(account.login, account.premium);
    if (account.twitch_user_id !== undefined && existing.twitchUserId !== account.twitch_user_id) {
      await service.setChannelTwitchId(account.login, account.twitch_user_id);
    }
    return existing.id;
  });

  const overlayIds = new Map<string, number>();
  for (const { overlay, index } of ordered) {
    const overlayPath = `${path}.overlays[${index}]`;
    const id = await at(overlayPath, async () => {
      const syncSourceId = overlay.sync_source === undefined ? null : overlayIds.get(overlay.sync_source)!;
      const existing = await service.findOverlayByName(accountId, overlay.name);
      if (existing === null) {
        return (await service.createOverlay(accountId, {
          name: overlay.name, template: overlay.template, syncSourceId, values: overlayValues(overlay),
        })).id;
      }
      if (existing.template.slug !== overlay.template) {
        throw new Error(`the overlay "${overlay.name}" exists on the ${existing.template.slug} template; seed cannot change an overlay's template`);
      }
      return (await service.updateOverlay(accountId, existing.id, { syncSourceId, values: overlayValues(overlay) })).id;
    });
    overlayIds.set(overlay.name, id);
  }
  if (marked !== undefined) {
    await at(`${path}.overlays`, () => service.updateOverlay(accountId, overlayIds.get(marked.name)!, { isDefault: true }));
  }

  for (const [s, skin] of account.skins.entries()) {
    const skinPath = `${path}.skins[${s}]`;
    const input = {
      slug: skin.slug, name: skin.name, description: skin.description, template: skin.template,
      availability: skin.availability, isActive: skin.active, values: skin.values,
    };
    const id = await at(skinPath, async () => {
      const existing = await service.findSkinBySlug(accountId, skin.slug);
      if (existing === null) return (await service.createSkin(accountId, input)).id;
      if (existing.template.slug !== skin.template) throw new Error(`the skin "${skin.slug}" exists on the ${existing.template.slug} template; seed cannot change a skin's template`);
      return (await service.updateSkinDetails(existing.id, input)).id;
    });
    skinIds.set(`${account.login}/${skin.slug}`, id);
    for (const role of skin.roles) await at(`${skinPath}.roles`, () => service.assignSkinRole(accountId, role, id));
  }
  return accountId;
}
