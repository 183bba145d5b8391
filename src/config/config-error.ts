// A config file that cannot be used: one error listing every problem, each with the dotted path
// inside the file (and its line when known) and what the key allows, so one edit fixes them all.
import type { z } from 'zod';
import { closestName } from '../host/closest-name.ts';

export interface ConfigIssue {
  /** Dotted path inside the file, e.g. `http.port`; `(top level)` for the whole document. */
  path: string;
  message: string;
  /** 1-based line of the key in the file, when it is there. */
  line?: number;
}

export class ConfigError extends Error {
  readonly file: string;
  readonly issues: readonly ConfigIssue[];
  constructor(file: string, issues: readonly ConfigIssue[], headline = 'Invalid config') {
    // Two checks of one key can word its problem alike (a number both fractional and too large).
    const unique = issues.filter((issue, index) => issues.findIndex((other) =>
      other.path === issue.path && other.line === issue.line && other.message === issue.message) === index);
    const lines = unique.slice(0, MAX_LISTED).map((issue) => `  - ${visible(issue.path)}${issue.line === undefined ? '' : ` (line ${issue.line})`}: ${visible(issue.message)}`);
    if (unique.length > MAX_LISTED) lines.push(`  - (and ${unique.length - MAX_LISTED} more; fix these, then the next run lists the rest)`);
    super(`${headline} in ${visible(file)}:\n${lines.join('\n')}`);
    this.name = 'ConfigError';
    this.file = file;
    this.issues = unique;
  }
}

/**
 * Problems listed in the message at most (`issues` holds them all): a list of 3000 bad entries, or
 * the wrong file, must not fill the terminal, hiding the first lines and the command that failed.
 */
export const MAX_LISTED = 10;

// C0/C1 controls, line breaks included: an unknown key or a ${...} quoted back from the file must
// not reach the terminal as an escape sequence (clearing it, retitling it), nor pass for another issue.
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

/** `text` with each control character written as a \u escape. */
function visible(text: string): string {
  return text.replace(CONTROLS, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

const PLAIN_KEY = /^[A-Za-z_$][\w$-]*$/;

/** `http.port`, `plugins.style.themes.neon["bubble.background-color"]`, `twitch.channels[0]`. */
export function formatConfigPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(top level)';
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else if (PLAIN_KEY.test(String(segment))) text += text === '' ? String(segment) : `.${String(segment)}`;
    else text += `[${JSON.stringify(String(segment))}]`;
  }
  return text;
}

/** Keys whose values are never echoed back in an error message. */
const SECRET_KEY = /token|secret|key|password|authorization/i;

function describeInput(input: unknown): string | undefined {
  if (input === null) return 'null';
  if (typeof input === 'string') return JSON.stringify(input.length > 60 ? `${input.slice(0, 57)}...` : input);
  if (typeof input === 'number' || typeof input === 'boolean') return String(input);
  if (Array.isArray(input)) return 'a list';
  if (typeof input === 'object') return 'a mapping';
  return undefined;
}

/**
 * One readable line per zod issue; `got ...` is added unless the key holds a secret, or
 * `unechoed` says the value at that path must not be repeated (it came from the environment).
 */
export function describeZodIssues(error: z.ZodError, unechoed: (path: readonly PropertyKey[]) => boolean = () => false): { path: PropertyKey[]; message: string }[] {
  return describeIssues(error.issues, [], unechoed);
}

function describeIssues(issues: readonly z.core.$ZodIssue[], prefix: readonly PropertyKey[], unechoed: (path: readonly PropertyKey[]) => boolean): { path: PropertyKey[]; message: string }[] {
  return issues.flatMap((issue) => {
    const path = [...prefix, ...issue.path];
    const last = path.at(-1);
    const missing = 'input' in issue && issue.input === undefined;
    if (missing && (issue.code === 'invalid_type' || issue.code === 'invalid_union')) {
      return [{ path, message: issue.code === 'invalid_type' && issue.expected === 'nonoptional' ? 'is missing' : `is missing; it ${issue.message}` }];
    }
    if (issue.code === 'invalid_key') {
      return [{ path, message: `is not an allowed key: ${issue.issues[0]?.message ?? issue.message}` }];
    }
    if (issue.code === 'invalid_element') {
      return [{ path, message: `has an entry that is not allowed: ${issue.issues[0]?.message ?? issue.message}` }];
    }
    if (issue.code === 'invalid_union' && issue.errors.length > 0 && issue.message === NO_FORM_MATCHES) {
      // Unless the schema words the union itself: the one form the value was written as (a
      // mapping, say), when only one, with its own problems; else each form's first problem.
      const near = issue.errors.filter((branch) => !branch.every(isWrongTypeHere));
      if (near.length === 1) return describeIssues(near[0]!, path, unechoed);
      if (near.length > 1) {
        const firsts = near.slice(0, 3).map((branch) => describeIssues(branch, [], (inner) => unechoed([...path, ...inner]))[0])
          .filter((first) => first !== undefined)
          .map((first) => (first.path.length === 0 ? first.message : `${formatConfigPath(first.path)}: ${first.message}`));
        return [{ path, message: `${issue.message} (${firsts.join('; or ')})` }];
      }
    }
    // A discriminated union is checked on the mapping, but the issue is its key's (`twitch.enabled`): what that key held.
    const discriminator = issue.code === 'invalid_union' && 'discriminator' in issue && typeof issue.discriminator === 'string'
      && typeof issue.input === 'object' && issue.input !== null && !Array.isArray(issue.input)
      ? issue.discriminator : undefined;
    const input = discriminator !== undefined
      ? describeInput((issue.input as Record<string, unknown>)[discriminator])
      : 'input' in issue ? describeInput(issue.input) : undefined;
    const secret = typeof last === 'string' && SECRET_KEY.test(last);
    const echo = input !== undefined && !secret && issue.code !== 'unrecognized_keys' && input !== 'a mapping';
    if (echo && unechoed(path)) {
      // docs/config.md: references are substituted as text, so a number or true/false key cannot take one.
      const notText = (issue.code === 'invalid_type' && issue.expected !== 'string')
        || (discriminator !== undefined && 'options' in issue && Array.isArray(issue.options) && !issue.options.some((option) => typeof option === 'string'));
      const asText = notText
        ? '; a ${NAME} reference gives text, so write this value in the file'
        : '';
      return [{ path, message: `${issue.message} (its value, from the environment, is not repeated here${asText})` }];
    }
    return [{ path, message: echo ? `${issue.message} (got ${input})` : issue.message }];
  });
}

/** A union's wording when the value is of the type of more than one of its forms; then describeZodIssues details them. */
const NO_FORM_MATCHES = 'does not match any of the allowed forms';

/** A union branch's issue saying the value is not of that branch at all (another type, another literal). */
function isWrongTypeHere(issue: z.core.$ZodIssue): boolean {
  return (issue.code === 'invalid_type' || issue.code === 'invalid_value') && issue.path.length === 0;
}

// What a kind of value is, in a YAML file's terms: [one value, several values].
const KINDS: Readonly<Record<string, readonly [string, string]>> = {
  string: ['text', 'text'],
  number: ['a number', 'numbers'],
  int: ['a whole number', 'whole numbers'],
  bigint: ['a whole number', 'whole numbers'],
  boolean: ['true or false', 'true/false'],
  null: ['null', 'null'],
  object: ['a mapping (indented "key: value" lines)', 'mappings'],
  map: ['a mapping (indented "key: value" lines)', 'mappings'],
  array: ['a list', 'lists'],
  tuple: ['a list', 'lists'],
  set: ['a list', 'lists'],
  date: ['a date', 'dates'],
};

/** The parts of a zod schema's definition read to name what it accepts. */
interface SchemaDef {
  type: string;
  innerType?: Schema;
  valueType?: Schema;
  options?: readonly Schema[];
  in?: Schema;
  out?: Schema;
  values?: readonly unknown[];
  entries?: Readonly<Record<string, unknown>>;
  format?: string;
  checks?: readonly { _zod: { def: { format?: string } } }[];
  shape?: Readonly<Record<string, unknown>>;
}
interface Schema {
  _zod: { def: SchemaDef };
}

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && '_zod' in value
    && typeof (value as { _zod?: { def?: { type?: unknown } } })._zod?.def?.type === 'string';
}

function joinOr(items: readonly string[]): string {
  const unique = [...new Set(items)];
  return unique.length <= 1 ? (unique[0] ?? '') : `${unique.slice(0, -1).join(', ')} or ${unique.at(-1)!}`;
}

/** "a mapping of names to numbers", "text or a number"; undefined when it cannot be said plainly. */
function kindOf(schema: Schema, plural: boolean, depth = 0): string | undefined {
  if (depth > 4) return undefined;
  const def = schema._zod.def;
  const inner = (next: Schema | undefined, asPlural = plural) => (next === undefined ? undefined : kindOf(next, asPlural, depth + 1));
  switch (def.type) {
    case 'optional': case 'default': case 'prefault': case 'readonly': case 'catch': case 'nonoptional':
      return inner(def.innerType);
    case 'nullable': {
      const kind = inner(def.innerType);
      return kind === undefined ? undefined : joinOr([kind, 'null']);
    }
    case 'pipe':
      return inner(def.in !== undefined && def.in._zod.def.type !== 'transform' ? def.in : def.out);
    case 'record': {
      if (plural) return 'mappings';
      return `a mapping of names to ${inner(def.valueType, true) ?? 'values'}`;
    }
    case 'union': {
      const kinds = (def.options ?? []).map((option) => inner(option));
      return kinds.length > 0 && kinds.every((kind) => kind !== undefined) ? joinOr(kinds as string[]) : undefined;
    }
    case 'literal':
      return def.values === undefined ? undefined : joinOr(def.values.map((value) => JSON.stringify(value)));
    case 'enum':
      return def.entries === undefined ? undefined : joinOr(Object.values(def.entries).map((value) => JSON.stringify(value)));
    case 'number': {
      // z.int() is a number schema with an integer format; z.number().int() has a check with one.
      const whole = [def.format, ...(def.checks ?? []).map((check) => check._zod.def.format)].some((format) => format?.includes('int'));
      return KINDS[whole ? 'int' : 'number']?.[plural ? 1 : 0];
    }
    default:
      return KINDS[def.type]?.[plural ? 1 : 0];
  }
}

function plural(count: number | bigint, one: string, many: string): string {
  return `${String(count)} ${Number(count) === 1 ? one : many}`;
}

// invalid_format: what a string of that format is.
const FORMATS: Readonly<Record<string, string>> = {
  email: 'an email address',
  url: 'a URL such as https://example.com',
  uuid: 'a UUID',
  guid: 'a UUID',
  datetime: 'a date and time such as 2025-01-31T18:00:00Z',
  date: 'a date such as 2025-01-31',
  time: 'a time such as 18:00:00',
  duration: 'an ISO 8601 duration such as PT5M',
  ipv4: 'an IPv4 address such as 192.168.1.10',
  ipv6: 'an IPv6 address',
  cidrv4: 'an IPv4 address range such as 10.0.0.0/8',
  cidrv6: 'an IPv6 address range',
  base64: 'base64 text',
  base64url: 'base64url text',
  json_string: 'JSON text',
  e164: 'a phone number such as +14155552671',
  jwt: 'a JSON Web Token',
  emoji: 'an emoji',
};

/**
 * `unknown key "hots" (did you mean "host"?); allowed keys: host, port`: a typo of one allowed key
 * is named, since the list alone leaves it to find. Without `allowed`, the keys alone.
 */
export function unknownKeysMessage(keys: readonly string[], allowed?: readonly string[]): string {
  const named = `unknown key${keys.length === 1 ? '' : 's'} ${keys.map((key) => `"${key}"`).join(', ')}`;
  if (allowed === undefined || allowed.length === 0) return named;
  const meant = keys.length === 1 ? closestName(keys[0]!, allowed) : undefined;
  return `${named}${meant === undefined ? '' : ` (did you mean "${meant}"?)`}; allowed keys: ${allowed.join(', ')}`;
}

/**
 * Per-parse wording for issues the schema does not word itself: what the key allows, in the
 * terms of a YAML file. Every issue code gets a wording, so zod's own (developer) messages,
 * like "expected record, received number", never reach a config error.
 */
export function configIssueWording(issue: z.core.$ZodRawIssue): string | undefined {
  switch (issue.code) {
    case 'invalid_type': {
      if (issue.expected === 'nonoptional') return 'must be given';
      if (issue.expected === 'undefined' || issue.expected === 'void' || issue.expected === 'never') return 'must be left out';
      const kind = (issue.expected === 'record' && isSchema(issue.inst) ? kindOf(issue.inst, false) : undefined)
        ?? KINDS[issue.expected]?.[0];
      return kind === undefined ? 'is not a kind of value allowed here' : `must be ${kind}`;
    }
    case 'invalid_value':
      return issue.values.length === 1
        ? `must be ${JSON.stringify(issue.values[0])}`
        : `must be one of ${issue.values.map((value) => JSON.stringify(value)).join(', ')}`;
    case 'too_small': {
      const { minimum, inclusive, exact } = issue;
      switch (issue.origin) {
        case 'number': case 'int': case 'bigint':
          return `must be ${inclusive === false ? 'above' : 'at least'} ${String(minimum)}`;
        case 'string':
          if (exact) return `must be exactly ${plural(minimum, 'character', 'characters')} long`;
          return Number(minimum) <= 1 ? 'must not be empty' : `must be at least ${plural(minimum, 'character', 'characters')} long`;
        case 'array': case 'set':
          return `must list ${exact ? 'exactly' : 'at least'} ${plural(minimum, 'item', 'items')}`;
        case 'date':
          return `must be ${inclusive === false ? 'after' : 'on or after'} ${new Date(Number(minimum)).toISOString()}`;
        default:
          return `must be at least ${String(minimum)}`;
      }
    }
    case 'too_big': {
      const { maximum, inclusive, exact } = issue;
      switch (issue.origin) {
        case 'number': case 'int': case 'bigint':
          return `must be ${inclusive === false ? 'below' : 'at most'} ${String(maximum)}`;
        case 'string':
          return `must be ${exact ? 'exactly' : 'at most'} ${plural(maximum, 'character', 'characters')} long`;
        case 'array': case 'set':
          return `must list ${exact ? 'exactly' : 'at most'} ${plural(maximum, 'item', 'items')}`;
        case 'date':
          return `must be ${inclusive === false ? 'before' : 'on or before'} ${new Date(Number(maximum)).toISOString()}`;
        default:
          return `must be at most ${String(maximum)}`;
      }
    }
    case 'invalid_format': {
      const detail = issue as { prefix?: string; suffix?: string; includes?: string; pattern?: string };
      switch (issue.format) {
        case 'regex': return `must match the pattern ${detail.pattern ?? ''}`.trimEnd();
        case 'starts_with': return `must start with ${JSON.stringify(detail.prefix)}`;
        case 'ends_with': return `must end with ${JSON.stringify(detail.suffix)}`;
        case 'includes': return `must contain ${JSON.stringify(detail.includes)}`;
        case 'lowercase': return 'must be in lowercase';
        case 'uppercase': return 'must be in uppercase';
        default: {
          const format = FORMATS[issue.format];
          return format === undefined ? `must be a valid ${issue.format.replace(/_/g, ' ')}` : `must be ${format}`;
        }
      }
    }
    case 'not_multiple_of':
      return `must be a multiple of ${String(issue.divisor)}`;
    case 'unrecognized_keys':
      // A plugin's z.strictObject gets the config's own wording: the key meant, the keys allowed.
      return unknownKeysMessage(issue.keys, isSchema(issue.inst) && issue.inst._zod.def.shape !== undefined ? Object.keys(issue.inst._zod.def.shape) : undefined);
    case 'invalid_union': {
      if ('discriminator' in issue && typeof issue.discriminator === 'string' && Array.isArray(issue.options)) {
        return `must be one of ${issue.options.map((option) => JSON.stringify(option)).join(', ')}`;
      }
      if (issue.inclusive === false) return 'matches more than one of the allowed forms; it must match exactly one';
      const kind = issue.errors.every((branch) => branch.every(isWrongTypeHere)) && isSchema(issue.inst)
        ? kindOf(issue.inst, false)
        : undefined;
      return kind === undefined ? NO_FORM_MATCHES : `must be ${kind}`;
    }
    case 'invalid_key':
      return 'is not an allowed key';
    case 'invalid_element':
      return 'has an entry that is not allowed';
    case 'custom':
      return 'is not an allowed value';
    default:
      return 'is not allowed here';
  }
}
