// Templates: which elements (and so which catalog keys) a kind of overlay uses, and its own
// defaults on top of the catalog's. Each template is one YAML file in config/templates.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { ELEMENTS, SETTINGS, SETTINGS_BY_KEY } from './catalog.ts';
import type { SettingsValues, SettingValue } from './catalog.ts';
import { normalizeSettingValue } from './setting-value.ts';

export interface Template {
  id: number;
  slug: string;
  name: string;
  description: string;
  /** The template's setting keys, in catalog order. */
  keys: readonly string[];
  keySet: ReadonlySet<string>;
  /** Catalog defaults for its keys, with the template's own `defaults` (normalised) on top. */
  defaults: Readonly<SettingsValues>;
}

export const DEFAULT_TEMPLATES_DIR = path.resolve(import.meta.dirname, '../../../config/templates');

const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

const templateFileSchema = z.strictObject({
  id: z.number({ error: 'must be a positive integer' }).int({ error: 'must be a positive integer' })
    .positive({ error: 'must be a positive integer' }),
  slug: z.string({ error: 'must be a slug: lowercase letters, digits and single hyphens' })
    .regex(SLUG, { error: 'must be a slug: lowercase letters, digits and single hyphens' }),
  name: z.string({ error: 'must be a non-empty string' }).trim().min(1, { error: 'must be a non-empty string' }),
  description: z.string({ error: 'must be a string' }),
  elements: z.array(
    z.enum(ELEMENTS, { error: (issue) => `is ${JSON.stringify(issue.input)}, which is not an element; allowed: ${ELEMENTS.join(', ')}` }),
    { error: `must be a list of elements (${ELEMENTS.join(', ')})` },
  ).min(1, { error: 'must name at least one element' }),
  defaults: z.record(z.string(), z.unknown(), { error: 'must be a map of setting key to value ({} for none)' })
    .default({}),
}, { error: 'must be a mapping with id, slug, name, description, elements and defaults' });

type TemplateFile = z.infer<typeof templateFileSchema>;

/** Every `*.yaml` / `*.yml` template in `dir`, sorted by id. Throws one error naming every problem. */
export function loadTemplates(dir: string): Template[] {
  const files = readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).sort();
  const templates: Template[] = [];
  const problems: string[] = [];
  const idOwners = new Map<number, string>();
  const slugOwners = new Map<string, string>();
  for (const file of files) {
    const filePath = path.join(dir, file);
    const result = readTemplateFile(filePath);
    if (!result.ok) {
      problems.push(...result.problems);
      continue;
    }
    const template = result.template;
    const idOwner = idOwners.get(template.id);
    const slugOwner = slugOwners.get(template.slug);
    if (idOwner !== undefined) {
      problems.push(`${filePath}: id: ${template.id} is already used by ${idOwner}; every template needs its own id.`);
    }
    if (slugOwner !== undefined) {
      problems.push(`${filePath}: slug: "${template.slug}" is already used by ${slugOwner}; every template needs its own slug.`);
    }
    if (idOwner !== undefined || slugOwner !== undefined) continue;
    idOwners.set(template.id, filePath);
    slugOwners.set(template.slug, filePath);
    templates.push(template);
  }
  if (problems.length > 0) throw new Error(`Invalid templates in ${dir}:\n${problems.join('\n')}`);
  if (templates.length === 0) throw new Error(`No templates in ${dir}: add at least one *.yaml file.`);
  return templates.sort((a, b) => a.id - b.id);
}

type ReadResult = { ok: true; template: Template } | { ok: false; problems: string[] };

function readTemplateFile(filePath: string): ReadResult {
  let document: unknown;
  try {
    document = parseYaml(readFileSync(filePath, 'utf8'));
  } catch (error) {
    // The yaml package appends a code frame; its first line says what and where.
    const firstLine = (error as Error).message.split('\n')[0];
    return { ok: false, problems: [`${filePath}: not valid YAML: ${firstLine}`] };
  }
  const parsed = templateFileSchema.safeParse(document);
  if (!parsed.success) {
    return { ok: false, problems: parsed.error.issues.map((issue) => describeIssue(filePath, issue)) };
  }
  return buildTemplate(filePath, parsed.data);
}

function describeIssue(filePath: string, issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys') {
    const where = issue.path.length === 0 ? '' : ` ${yamlPath(issue.path)}`;
    return `${filePath}:${where} unknown field${issue.keys.length === 1 ? '' : 's'} ${issue.keys.join(', ')}; allowed: id, slug, name, description, elements, defaults.`;
  }
  return `${filePath}: ${issue.path.length === 0 ? '(document)' : yamlPath(issue.path)} ${issue.message}.`;
}

function buildTemplate(filePath: string, file: TemplateFile): ReadResult {
  const elements = new Set<string>(file.elements);
  const keys = SETTINGS.filter((s) => elements.has(s.element)).map((s) => s.key);
  const keySet = new Set(keys);
  const defaults: Record<string, SettingValue> = Object.create(null);
  for (const key of keys) defaults[key] = SETTINGS_BY_KEY.get(key)!.default;

  const problems: string[] = [];
  const duplicates = file.elements.filter((e, i) => file.elements.indexOf(e) !== i);
  if (duplicates.length > 0) problems.push(`${filePath}: elements lists ${[...new Set(duplicates)].join(', ')} more than once.`);
  for (const [key, raw] of Object.entries(file.defaults)) {
    const where = `${filePath}: ${yamlPath(['defaults', key])}`;
    const spec = SETTINGS_BY_KEY.get(key);
    if (spec === undefined) {
      problems.push(`${where} is not a known setting key; docs/settings.md lists them.`);
    } else if (!keySet.has(key)) {
      problems.push(`${where} belongs to the ${spec.element} element, which this template does not list in elements.`);
    } else {
      const result = normalizeSettingValue(spec, raw);
      if (result.ok) {
        defaults[key] = result.value;
      } else {
        // An unquoted #colour is a YAML comment, which leaves the value empty.
        const hint = raw === null && spec.type === 'color' ? ' (quote colours in YAML: "#ff0000")' : '';
        problems.push(`${where}: ${result.error}${hint}`);
      }
    }
  }
  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    template: Object.freeze({
      id: file.id,
      slug: file.slug,
      name: file.name,
      description: file.description,
      keys: Object.freeze(keys),
      keySet,
      // Catalog order, on an ordinary object so callers may spread it.
      defaults: Object.freeze(Object.fromEntries(keys.map((k) => [k, defaults[k]!]))),
    }),
  };
}

/** `defaults["message.font-size"]`, `elements[1]`: keys with dots are quoted. */
function yamlPath(segments: readonly PropertyKey[]): string {
  let out = '';
  for (const segment of segments) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_-]*$/.test(String(segment))) out += out === '' ? String(segment) : `.${String(segment)}`;
    else out += `[${JSON.stringify(String(segment))}]`;
  }
  return out;
}
