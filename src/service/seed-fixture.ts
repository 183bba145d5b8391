// The seed fixture format (docs/cli.md): accounts with overlays and skins, global skins,
// viewers, purchases, API grants and picks. Checked with zod for shape and cross-references,
// and every `values`/`overrides` against the settings rules of its template, before anything
// is written. Every problem names its path in the fixture.
import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { validateSettingsValues } from './settings/validate-values.ts';
import type { TemplateCatalog } from './template-catalog.ts';
import { AVAILABILITIES, ROLES } from './types.ts';

export class SeedFixtureError extends Error {
  readonly problems: string[];
  constructor(source: string, problems: string[]) {
    super(`Invalid seed fixture ${source}:\n${problems.map((p) => `  ${p}`).join('\n')}`);
    this.name = 'SeedFixtureError';
    this.problems = problems;
  }
}

const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const LOGIN = /^[A-Za-z0-9_]{1,25}$/;

const login = z.string({ error: 'must be a Twitch login (letters, digits, underscores)' })
  .regex(LOGIN, { error: 'must be a Twitch login: 1 to 25 letters, digits or underscores' })
  .transform((s) => s.toLowerCase());
const twitchUserId = z.string({ error: 'must be a string of digits (quote it in YAML: "1001")' })
  .regex(/^[0-9]{1,32}$/, { error: 'must be a string of 1 to 32 digits' });
const settingsMap = z.record(z.string(), z.unknown(), { error: 'must be a map of setting key to value' });
const text = (max: number) => z.string({ error: 'must be a string' }).trim().min(1, { error: 'must not be empty' })
  .max(max, { error: `must be at most ${max} characters` });

const overlaySchema = z.strictObject({
  name: text(100),
  template: z.string({ error: 'must be a template slug' }),
  default: z.boolean({ error: 'must be true or false' }).optional(),
  sync_source: text(100).optional(),
  values: settingsMap.optional(),
  overrides: settingsMap.optional(),
});

const skinSchema = z.strictObject({
  slug: z.string({ error: 'must be a slug' }).regex(SLUG, { error: 'must be a slug: lowercase letters, digits and single hyphens' })
    .max(64, { error: 'must be at most 64 characters' }),
  name: text(100),
  description: z.string({ error: 'must be a string' }).max(1000).default(''),
  template: z.string({ error: 'must be a template slug' }),
  availability: z.enum(AVAILABILITIES, { error: `must be one of: ${AVAILABILITIES.join(', ')}` }),
  active: z.boolean({ error: 'must be true or false' }).default(true),
  values: settingsMap.default({}),
});

const accountSkinSchema = skinSchema.extend({
  roles: z.array(z.enum(ROLES, { error: `must be one of: ${ROLES.join(', ')}` }), { error: 'must be a list of roles' }).default([]),
});

const accountSchema = z.strictObject({
  login,
  premium: z.boolean({ error: 'must be true or false' }).default(false),
  twitch_user_id: twitchUserId.optional(),
  overlays: z.array(overlaySchema, { error: 'must be a list of overlays' }).default([]),
  skins: z.array(accountSkinSchema, { error: 'must be a list of skins' }).default([]),
});

const viewerSchema = z.strictObject({
  twitch_user_id: twitchUserId,
  twitch_username: login,
  display_name: z.string({ error: 'must be a string' }).max(100).optional(),
});

/** A skin held by / picked by a viewer on an account's channel; `skin` is the account's slug, else a global one. */
const viewerSkinSchema = z.strictObject({ account: login, viewer: login, skin: z.string({ error: 'must be a skin slug' }) });

const fixtureSchema = z.strictObject({
  accounts: z.array(accountSchema, { error: 'must be a list of accounts' }).default([]),
  global_skins: z.array(skinSchema, { error: 'must be a list of skins' }).default([]),
  viewers: z.array(viewerSchema, { error: 'must be a list of viewers' }).default([]),
  purchases: z.array(viewerSkinSchema, { error: 'must be a list of { account, viewer, skin }' }).default([]),
  grants: z.array(viewerSkinSchema, { error: 'must be a list of { account, viewer, skin }' }).default([]),
  picks: z.array(viewerSkinSchema, { error: 'must be a list of { account, viewer, skin }' }).default([]),
}, { error: 'must be a mapping with accounts, global_skins, viewers, purchases, grants and picks' });

export type SeedFixture = z.infer<typeof fixtureSchema>;
export type SeedAccount = SeedFixture['accounts'][number];
export type SeedOverlay = SeedAccount['overlays'][number];

/** `accounts[0].overlays[1].values["bubble.width"]` */
function pathOf(segments: readonly PropertyKey[]): string {
  let out = '';
  for (const segment of segments) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(String(segment))) out += out === '' ? String(segment) : `.${String(segment)}`;
    else out += `[${JSON.stringify(String(segment))}]`;
  }
  return out === '' ? '(fixture)' : out;
}

/** Parses YAML text (clear error on bad YAML). */
export function parseSeedYaml(text: string, source = 'fixture'): unknown {
  try {
    return parseYaml(text);
  } catch (error) {
    const yamlError = error as Error & { code?: unknown; linePos?: readonly { line: number }[] };
    // The YAML library's wording for it names its own API (parseAllDocuments()), not the file.
    if (yamlError.code === 'MULTIPLE_DOCS') {
      const at = yamlError.linePos?.[0] === undefined ? '' : ` at line ${yamlError.linePos[0].line}`;
      throw new SeedFixtureError(source, [`not valid YAML: a second document starts${at} (a "---" line after the first one's keys): a fixture is one document; remove that line`]);
    }
    // The YAML library's first line ends "at line 2, column 1:" before the excerpt it shows under it.
    throw new SeedFixtureError(source, [`not valid YAML: ${yamlError.message.split('\n')[0]!.replace(/:\s*$/, '')}`]);
  }
}

/** Largest fixture read: the documented one is a few KB; a wrong path (a video, /dev/zero) must not fill memory. */
export const MAX_SEED_FILE_BYTES = 16 * 1024 * 1024;

export function readSeedFile(file: string): unknown {
  let text: string;
  try {
    const stat = statSync(file);
    if (!stat.isFile()) throw new SeedFixtureError(file, ['is not a regular file (is it the right path?)']);
    if (stat.size > MAX_SEED_FILE_BYTES) {
      throw new SeedFixtureError(file, [`is larger than ${MAX_SEED_FILE_BYTES / 1024 / 1024} MiB, which no fixture needs (is it the right file?)`]);
    }
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if (error instanceof SeedFixtureError) throw error;
    // Node's "ENOENT: no such file or directory, stat 'x.yaml'" says neither in words nor where:
    // a relative path is from the folder the command runs in, the package's own under npm run.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new SeedFixtureError(file, [`does not exist (no file at ${resolve(file)})`]);
    throw new SeedFixtureError(file, [`cannot be read: ${(error as Error).message}`]);
  }
  return parseSeedYaml(text, file);
}

/** The fixture checked and normalised; throws SeedFixtureError listing every problem. */
export function parseSeedFixture(input: unknown, templates: TemplateCatalog, source = 'fixture'): SeedFixture {
  const parsed = fixtureSchema.safeParse(input ?? {});
  if (!parsed.success) {
    throw new SeedFixtureError(source, parsed.error.issues.map((issue) => {
      if (issue.code === 'unrecognized_keys') return `${pathOf(issue.path)}: unknown field${issue.keys.length === 1 ? '' : 's'} ${issue.keys.join(', ')}`;
      return `${pathOf(issue.path)} ${issue.message}`;
    }));
  }
  const fixture = parsed.data;
  const problems: string[] = [];
  const problem = (path: readonly PropertyKey[], message: string) => problems.push(`${pathOf(path)} ${message}`);

  const checkValues = (path: PropertyKey[], templateSlug: string, values: Record<string, unknown> | undefined) => {
    const template = templates.findBySlug(templateSlug);
    if (template === undefined) {
      problem([...path.slice(0, -1), 'template'], `is "${templateSlug}", which is not a template; known: ${templates.all.map((t) => t.slug).join(', ')}`);
      return;
    }
    const { values: normalised, errors } = validateSettingsValues(template, values ?? {}, { allowNull: false });
    for (const [field, messages] of Object.entries(errors)) {
      const key = field.startsWith('values.') ? field.slice('values.'.length) : undefined;
      problem(key === undefined ? path : [...path, key], messages.join(' '));
    }
    if (values !== undefined) Object.assign(values, normalised);
  };

  const accountSkinSlugs = new Map<string, Set<string>>();
  const seenLogins = new Set<string>();
  fixture.accounts.forEach((account, a) => {
    if (seenLogins.has(account.login)) problem(['accounts', a, 'login'], `"${account.login}" is listed twice`);
    seenLogins.add(account.login);
    const byName = new Map<string, SeedOverlay>();
    let defaults = 0;
    account.overlays.forEach((overlay, o) => {
      const at: PropertyKey[] = ['accounts', a, 'overlays', o];
      if (byName.has(overlay.name)) problem([...at, 'name'], `"${overlay.name}" is used by another overlay of ${account.login}`);
      byName.set(overlay.name, overlay);
      if (overlay.default) defaults += 1;
      if (overlay.sync_source === undefined) {
        if (overlay.overrides !== undefined) problem([...at, 'overrides'], 'needs a sync_source; an overlay without one takes values');
        checkValues([...at, 'values'], overlay.template, overlay.values);
      } else {
        if (overlay.values !== undefined) problem([...at, 'values'], 'cannot be used with a sync_source; put the differences under overrides');
        checkValues([...at, 'overrides'], overlay.template, overlay.overrides);
      }
    });
    if (defaults > 1) problem(['accounts', a, 'overlays'], 'mark at most one overlay default: true');
    account.overlays.forEach((overlay, o) => {
      if (overlay.sync_source === undefined) return;
      const at = ['accounts', a, 'overlays', o, 'sync_source'];
      const source = byName.get(overlay.sync_source);
      if (source === undefined) problem(at, `names "${overlay.sync_source}", which is not an overlay of ${account.login} in this fixture`);
      else if (source === overlay) problem(at, 'cannot name the overlay itself');
      else if (source.sync_source !== undefined) problem(at, `names "${source.name}", which has a sync_source itself; sync is one level deep`);
      else if (source.template !== overlay.template) problem(at, `names "${source.name}", which uses another template`);
    });
    const slugs = new Set<string>();
    const roleOwners = new Map<string, string>();
    account.skins.forEach((skin, s) => {
      const at: PropertyKey[] = ['accounts', a, 'skins', s];
      if (slugs.has(skin.slug)) problem([...at, 'slug'], `"${skin.slug}" is used by another skin of ${account.login}`);
      slugs.add(skin.slug);
      checkValues([...at, 'values'], skin.template, skin.values);
      for (const role of skin.roles) {
        const owner = roleOwners.get(role);
        if (owner !== undefined) problem([...at, 'roles'], `gives ${role} to "${skin.slug}", but "${owner}" has it already`);
        roleOwners.set(role, skin.slug);
      }
    });
    accountSkinSlugs.set(account.login, slugs);
  });

  const globalSlugs = new Set<string>();
  fixture.global_skins.forEach((skin, s) => {
    if (globalSlugs.has(skin.slug)) problem(['global_skins', s, 'slug'], `"${skin.slug}" is used by another global skin`);
    globalSlugs.add(skin.slug);
    checkValues(['global_skins', s, 'values'], skin.template, skin.values);
  });

  const viewerLogins = new Set<string>();
  const viewerIds = new Set<string>();
  fixture.viewers.forEach((viewer, v) => {
    if (viewerIds.has(viewer.twitch_user_id)) problem(['viewers', v, 'twitch_user_id'], `"${viewer.twitch_user_id}" is listed twice`);
    if (viewerLogins.has(viewer.twitch_username)) problem(['viewers', v, 'twitch_username'], `"${viewer.twitch_username}" is listed twice`);
    viewerIds.add(viewer.twitch_user_id);
    viewerLogins.add(viewer.twitch_username);
  });

  for (const list of ['purchases', 'grants', 'picks'] as const) {
    fixture[list].forEach((entry, i) => {
      const slugs = accountSkinSlugs.get(entry.account);
      if (slugs === undefined) problem([list, i, 'account'], `names "${entry.account}", which is not an account in this fixture`);
      if (!viewerLogins.has(entry.viewer)) problem([list, i, 'viewer'], `names "${entry.viewer}", which is not a viewer in this fixture`);
      if (slugs !== undefined && !slugs.has(entry.skin) && !globalSlugs.has(entry.skin)) {
        problem([list, i, 'skin'], `names "${entry.skin}", which is neither a skin of ${entry.account} nor a global skin in this fixture`);
      }
    });
  }

  if (problems.length > 0) throw new SeedFixtureError(source, problems);
  return fixture;
}
