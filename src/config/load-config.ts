// Reads the YAML config file: parse, substitute ${ENV} references, validate with the schema.
// Every problem becomes one line of a ConfigError naming the file, the path, the line and what
// the key allows; nothing half-valid is ever returned.
import { resolve } from 'node:path';
import { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument, visit } from 'yaml';
import type { Document } from 'yaml';
import { configSchema } from './config-schema.ts';
import type { Config } from './config-schema.ts';
import { ConfigError, configIssueWording, describeZodIssues, formatConfigPath } from './config-error.ts';
import type { ConfigIssue } from './config-error.ts';
import { readConfigText } from './config-text.ts';
import { substituteEnv } from './env-substitution.ts';

type Env = Readonly<Record<string, string | undefined>>;

/** A config file read and parsed, before ${ENV} substitution and validation. */
export interface ConfigSource {
  /** The file's absolute path. */
  file: string;
  /** The YAML's content as written ({} for an empty file). */
  raw: unknown;
  /** The file line of the value at `path` (of `key` inside it when given), else of its nearest parent. */
  lineAt(path: readonly PropertyKey[], key?: string): number | undefined;
}

/** Reads and parses the YAML; a missing, unreadable or malformed file is a ConfigError. */
export function readConfigSource(path: string): ConfigSource {
  const file = resolve(path);
  const source = readConfigText(file);

  const lineCounter = new LineCounter();
  // logLevel 'error': the YAML library would print its warnings on stderr, beside the one message.
  // merge: the `<<: *base` merge key most YAML users know (Docker Compose, CI files), though YAML
  // 1.2 dropped it from the core schema; themes that share most of their values use it.
  const document = parseDocument(source, { lineCounter, logLevel: 'error', merge: true });
  if (document.errors.length > 0) {
    const sourceLines = source.split(/\r?\n/);
    // The first syntax error only: the parser reads on past it as best it can, and what it reports
    // after it (a tab, an unclosed [ gives five or more) mostly follows from it, pointing elsewhere.
    throw new ConfigError(file, document.errors.slice(0, 1).map((error) => {
      const line = error.linePos?.[0].line;
      const hint = line !== undefined && /[{[][^\n]*\$\{|\$\{[^\n]*[}\]]/.test(sourceLines[line - 1] ?? '')
        ? ' (a ${NAME} reference inside { } or [ ] must be quoted: "${NAME}")'
        : '';
      // The YAML library's wording for it names its own API (parseAllDocuments()), not the file.
      const message = error.code === 'MULTIPLE_DOCS'
        ? 'a second document starts here (a "---" line after the first one\'s keys): a config is one document; remove that line'
        : error.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
      return { path: '(yaml)', message: `${message}${hint}`, ...(line === undefined ? {} : { line }) };
    }), 'Bad YAML');
  }
  const raw: unknown = toPlainValue(document, lineCounter, file) ?? {};
  return { file, raw, lineAt: (at, key) => lineOf(document, lineCounter, at, key) };
}

/**
 * The document as plain values. Aliases are resolved here, so an alias to an anchor written
 * after it, and aliases that expand exponentially ("billion laughs"), are refused here: the
 * YAML library throws a ReferenceError for each.
 */
function toPlainValue(document: Document, lineCounter: LineCounter, file: string): unknown {
  try {
    return document.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (error) {
    if (error instanceof Error && error.message.startsWith('Merge sources must be')) {
      const found = badMergeKey(document, lineCounter);
      const path = found && found.path.length > 0 ? formatConfigPath(found.path) : '(top level)';
      throw new ConfigError(file, [withLine({ path, message: 'its merge key (<<) must be given a mapping, an alias of one (<<: *name) or a list of those' }, found?.line)]);
    }
    if (!(error instanceof ReferenceError)) throw error;
    const unresolved = /^Unresolved alias.*: (.*)$/.exec(error.message)?.[1];
    if (unresolved === undefined) {
      throw new ConfigError(file, [{ path: '(yaml)', message: `its aliases (*name) expand to too many values (more than ${MAX_ALIAS_COUNT}); write the values out instead` }], 'Bad YAML');
    }
    let line: number | undefined;
    visit(document, { Alias: (_key, node) => {
      if (node.source !== unresolved || !node.range) return undefined;
      line = lineCounter.linePos(node.range[0]).line;
      return visit.BREAK;
    } });
    throw new ConfigError(file, [withLine({ path: '(yaml)', message: `the alias *${unresolved} has no anchor &${unresolved} before it` }, line)], 'Bad YAML');
  }
}

/** Where the first merge key (<<) whose value is not a mapping or an alias of one is. */
function badMergeKey(document: Document, lineCounter: LineCounter): { path: PropertyKey[]; line?: number } | undefined {
  const isMergeSource = (node: unknown) => isMap(node) || (isAlias(node) && isMap(node.resolve(document)));
  const walk = (node: unknown, path: PropertyKey[]): { path: PropertyKey[]; line?: number } | undefined => {
    if (isSeq(node)) {
      for (const [index, item] of node.items.entries()) {
        const found = walk(item, [...path, index]);
        if (found) return found;
      }
    }
    if (!isMap(node)) return undefined;
    for (const pair of node.items) {
      if (!isScalar(pair.key)) continue;
      // With `merge: true` the YAML library reads a `<<` key as a symbol.
      if (typeof pair.key.value === 'symbol') {
        const sources = isSeq(pair.value) ? pair.value.items : [pair.value];
        if (!sources.every(isMergeSource)) return withLine({ path }, pair.key.range ? lineCounter.linePos(pair.key.range[0]).line : undefined);
        continue;
      }
      const found = walk(pair.value, [...path, String(pair.key.value)]);
      if (found) return found;
    }
    return undefined;
  };
  return walk(document.contents, []);
}

/** Alias expansions allowed: a config reuses a value a few times, never exponentially. */
const MAX_ALIAS_COUNT = 100;

export function loadConfig(path: string, env: Env = process.env): Config {
  const { file, raw, lineAt } = readConfigSource(path);
  const substituted = substituteEnv(raw, env);
  const envIssues: ConfigIssue[] = [
    ...substituted.malformed.map(({ path, reference }) => withLine({
      path: formatConfigPath(path),
      message: `"\${${reference}}" is not an environment reference: write \${NAME} (letters, digits, _), or $\${...} for a literal`,
    }, lineAt(path))),
    ...substituted.unset.map(({ path, variable, empty }) => withLine({
      path: formatConfigPath(path),
      message: `environment variable ${variable} is ${empty ? 'set but empty' : 'not set'}; set it, or write the value in the file`,
    }, lineAt(path))),
  ];
  const fromEnv = new Set(substituted.fromEnv.map((path) => formatConfigPath(path)));
  const unechoed = (path: readonly PropertyKey[]) => fromEnv.has(formatConfigPath(path));
  if (envIssues.length === 0) {
    const envTexts = substituted.envTexts.map(({ path, text }) => ({ path: formatConfigPath(path), text }));
    return withSettingsFromEnvironment(parseWithIssues(substituted.value, file, lineAt, unechoed), fromEnv, envTexts);
  }
  // The rest of the file is checked too, so every problem is listed at once; what the schema says
  // of a value whose reference failed (now "") would only repeat the reference's problem.
  const failed = envIssues.map((issue) => issue.path);
  let schemaIssues: ConfigIssue[] = [];
  try {
    parseWithIssues(substituted.value, file, lineAt, unechoed);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    schemaIssues = error.issues.filter((issue) => !failed.some((path) => issue.path === path || isInside(issue.path, path)));
  }
  throw new ConfigError(file, [...schemaIssues, ...envIssues]);
}

/**
 * Tells each plugin which of its settings came from the environment, for its own schema's errors,
 * and what text the environment put there, for the logs to scrub.
 */
function withSettingsFromEnvironment(config: Config, fromEnv: ReadonlySet<string>, envTexts: readonly { path: string; text: string }[]): Config {
  if (fromEnv.size === 0) return config;
  const plugins = Object.fromEntries(Object.entries(config.plugins).map(([name, entry]) => {
    const prefix = formatConfigPath(['plugins', name]);
    const own = [...fromEnv].filter((path) => isInside(path, prefix));
    if (own.length === 0) return [name, entry];
    const texts = envTexts.filter(({ path }) => isInside(path, prefix)).map(({ text }) => text);
    return [name, { ...entry, settingsFromEnvironment: new Set(own), textsFromEnvironment: texts }];
  }));
  return { ...config, plugins };
}

/** Whether the formatted config path `path` is below `parent` (`http.port` in `http`, `channels[0]` in `channels`). */
function isInside(path: string, parent: string): boolean {
  return path.startsWith(`${parent}.`) || path.startsWith(`${parent}[`);
}

/** Validates an already-parsed config object (no file, no env substitution). */
export function parseConfig(value: unknown, file = '(inline config)'): Config {
  return parseWithIssues(value ?? {}, file, () => undefined);
}

function parseWithIssues(
  value: unknown,
  file: string,
  lineAt: (path: readonly PropertyKey[], key?: string) => number | undefined,
  unechoed?: (path: readonly PropertyKey[]) => boolean,
): Config {
  const parsed = configSchema.safeParse(value, { reportInput: true, error: configIssueWording });
  if (parsed.success) return parsed.data;
  const unknownKeys = new Map(parsed.error.issues.map((issue, index) =>
    [index, issue.code === 'unrecognized_keys' ? issue.keys[0] : undefined]));
  throw new ConfigError(file, describeZodIssues(parsed.error, unechoed).map((issue, index) =>
    withLine({ path: formatConfigPath(issue.path), message: issue.message }, lineAt(issue.path, unknownKeys.get(index)))));
}

function withLine<Issue extends object>(issue: Issue, line: number | undefined): Issue & { line?: number } {
  return line === undefined ? issue : { ...issue, line };
}

/** The line of the node at `path` (of `key` inside it when given), else of its nearest parent. */
function lineOf(document: Document, lineCounter: LineCounter, path: readonly PropertyKey[], key?: string): number | undefined {
  const segments = path.map((segment) => (typeof segment === 'symbol' ? String(segment) : segment));
  for (let length = segments.length; length >= 0; length--) {
    const node = length === 0 ? document.contents : document.getIn(segments.slice(0, length), true);
    if (node === undefined || node === null) continue;
    if (key !== undefined && length === segments.length && isMap(node)) {
      const pair = node.items.find((item) => isScalar(item.key) && String(item.key.value) === key);
      const range = pair && isScalar(pair.key) ? pair.key.range : undefined;
      if (range) return lineCounter.linePos(range[0]).line;
    }
    const range = (node as { range?: [number, number, number] | null }).range;
    if (range) return lineCounter.linePos(range[0]).line;
  }
  return undefined;
}
