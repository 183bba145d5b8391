// Finding, importing and checking plugins. A plugin is a folder whose name is its key under
// `plugins:` in the config, holding `index.ts` (or index.js / index.mjs) whose default export is
// a definePlugin({ name, config, setup }) object. Each step fails with a message that names the
// plugin and says what to fix; the host logs it and goes on without that plugin.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { z } from 'zod';
import { configIssueWording, describeZodIssues, formatConfigPath, MAX_LISTED, unknownKeysMessage } from '../config/config-error.ts';
import type { PluginEntry } from '../config/config-schema.ts';
import type { PluginDefinition } from './plugin-api.ts';
import { closestName } from './closest-name.ts';
import { errorText } from './error-text.ts';

/** The built-in plugins shipped with chatskin. */
export const BUILT_IN_PLUGIN_DIR = fileURLToPath(new URL('../../plugins/', import.meta.url));

const ENTRY_FILES = ['index.ts', 'index.js', 'index.mjs'];

export class PluginLoadError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PluginLoadError';
  }
}

/**
 * The plugin's entry file; refuses a name found in no folder (naming the folders searched and,
 * for a misspelt name, the plugin it may have meant), or in more than one.
 */
export function findPluginEntry(name: string, dirs: readonly string[]): string {
  const found: string[] = [];
  for (const dir of dirs) {
    const folder = join(resolve(dir), name);
    if (!existsSync(folder) || !statSync(folder).isDirectory()) continue;
    const entry = ENTRY_FILES.map((file) => join(folder, file)).find((file) => existsSync(file));
    if (entry === undefined) throw new PluginLoadError(`folder ${folder} has no index.ts, index.js or index.mjs`);
    found.push(entry);
  }
  if (found.length === 0) throw new PluginLoadError(notFoundMessage(name, dirs));
  if (found.length > 1) {
    throw new PluginLoadError(`found in more than one folder (${found.join(', ')}); rename one`);
  }
  return found[0]!;
}

function notFoundMessage(name: string, dirs: readonly string[]): string {
  const searched = dirs.map((dir) => resolve(dir));
  const available = [...new Set(searched.flatMap(pluginFolders))].sort();
  const suggestion = closestName(name, available);
  const hint = suggestion !== undefined
    ? ` Did you mean "${suggestion}"?`
    : available.length > 0 ? ` Plugins there: ${available.join(', ')}.` : ' No plugins are there.';
  const folders = searched.map((dir) => (isFolder(dir) ? dir : `${dir} (does not exist)`)).join(', ');
  // Where it is switched on (plugins.NAME, in which file) is for the caller to say: it knows the file.
  return `no plugin folder named "${name}"; searched ${folders}.${hint}`
    + ' Fix the name under plugins:, or add the folder that holds it to pluginDirs.';
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The plugin folders (sub-folders holding an entry file) of one plugin directory. */
function pluginFolders(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((item) => item.isDirectory() && ENTRY_FILES.some((file) => existsSync(join(dir, item.name, file))))
      .map((item) => item.name);
  } catch {
    return [];
  }
}

function isSchema(value: unknown): value is z.ZodType {
  return typeof value === 'object' && value !== null && typeof (value as { safeParse?: unknown }).safeParse === 'function';
}

/**
 * Where a syntax error is, as `file:line:column`: Node gives it only in the stack (for TypeScript,
 * and for an import that is not exported), whose first lines are the file and line, the source
 * line or lines, then a caret under the column.
 */
function syntaxErrorPlace(error: unknown): string | undefined {
  if (!(error instanceof SyntaxError)) return undefined;
  const [place, ...frame] = String(error.stack).split('\n', 8);
  if (place === undefined || !/^\S.*:\d+$/.test(place) || place.startsWith('SyntaxError')) return undefined;
  const caret = frame.find((line) => /^\s*\^+\s*$/.test(line));
  return caret === undefined ? place : `${place}:${caret.indexOf('^') + 1}`;
}

/**
 * The other common slip: a file imported without its extension (`.../src/sdk`), which Node's
 * module loader does not add, though TypeScript's editors and vitest's resolver do.
 */
function extensionHint(text: string): string {
  const found = /Cannot find module '([^']+)' imported from (\S+)/.exec(text);
  if (found === null) return '';
  const [, specifier, importer] = found as unknown as [string, string, string];
  if (!/^(\.{1,2}\/|\/|file:)/.test(specifier)) return '';
  const importerPath = importer.startsWith('file:') ? fileURLToPath(importer) : importer;
  const target = specifier.startsWith('file:') ? fileURLToPath(specifier) : resolve(importerPath, '..', specifier);
  const suffix = ['.ts', '.js', '.mjs', '/index.ts'].find((candidate) => existsSync(`${target}${candidate}`));
  return suffix === undefined ? '' : `; Node needs the whole file name in an import: '${specifier}${suffix}'`;
}

/** Imports the entry and checks its default export. */
export async function importPlugin(name: string, entry: string): Promise<PluginDefinition> {
  let module: { default?: unknown };
  try {
    module = await import(pathToFileURL(entry).href) as { default?: unknown };
  } catch (error) {
    const place = syntaxErrorPlace(error);
    // The commonest TypeScript slip: a type imported as a value, which type stripping leaves in.
    const missing = /does not provide an export named '([^']+)'/.exec(errorText(error))?.[1];
    const hint = missing === undefined ? extensionHint(errorText(error)) : `; if ${missing} is a type, import it with \`import type { ${missing} }\``;
    throw new PluginLoadError(`${entry} could not be loaded: ${errorText(error)}${place === undefined ? '' : ` (at ${place})`}${hint}`, { cause: error });
  }
  const definition = module.default as Partial<PluginDefinition> | undefined;
  if (typeof definition !== 'object' || definition === null || typeof definition.setup !== 'function') {
    throw new PluginLoadError(`${entry} must export default definePlugin({ name, config, setup })`);
  }
  if (definition.name !== name) {
    throw new PluginLoadError(`${entry} declares name ${JSON.stringify(definition.name)}; it must equal its folder name "${name}"`);
  }
  if (definition.config !== undefined && !isSchema(definition.config)) {
    throw new PluginLoadError(`${entry}: config must be a zod schema (z from the SDK)`);
  }
  return definition as PluginDefinition;
}

/**
 * configIssueWording, but an unknown key among the settings themselves names `enabled` too: the
 * entry's key the host reads, which the plugin's schema never sees (`enabld` is its typo).
 */
function pluginIssueWording(issue: z.core.$ZodRawIssue): string | undefined {
  if (issue.code !== 'unrecognized_keys' || (issue.path ?? []).length > 0) return configIssueWording(issue);
  const shape = (issue.inst as { _zod?: { def?: { shape?: Readonly<Record<string, unknown>> } } } | undefined)?._zod?.def?.shape;
  return unknownKeysMessage(issue.keys, ['enabled', ...Object.keys(shape ?? {})]);
}

/** The plugin's settings parsed by its schema; errors name each key as `plugins.<name>.<key>`. */
export function parsePluginSettings(name: string, definition: PluginDefinition, entry: Pick<PluginEntry, 'settings' | 'settingsFromEnvironment'>): unknown {
  const { settings, settingsFromEnvironment } = entry;
  const schema = definition.config;
  if (schema === undefined) {
    const keys = Object.keys(settings);
    if (keys.length > 0) throw new PluginLoadError(`takes no settings, but the config gives ${keys.map((key) => `plugins.${name}.${key}`).join(', ')}`);
    return {};
  }
  const parsed = schema.safeParse(settings, { reportInput: true, error: pluginIssueWording });
  if (parsed.success) return parsed.data;
  const unechoed = (path: readonly PropertyKey[]) => settingsFromEnvironment?.has(formatConfigPath(['plugins', name, ...path])) === true;
  const problems = describeZodIssues(parsed.error, unechoed).map(({ path, message }) =>
    `${formatConfigPath(['plugins', name, ...path])}: ${message}`);
  // As many as a config error lists: a mapping of a thousand bad themes is not a line of 100 KB.
  const more = problems.length > MAX_LISTED ? `; (and ${problems.length - MAX_LISTED} more)` : '';
  throw new PluginLoadError(`invalid settings: ${problems.slice(0, MAX_LISTED).join('; ')}${more}`);
}
