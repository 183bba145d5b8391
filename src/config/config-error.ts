// A config file that cannot be used: one error listing every problem, each with the dotted path
// inside the file (and its line when known) and what the key allows, so one edit fixes them all.
import type { z } from 'zod';

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
    const lines = issues.map((issue) => `  - ${issue.path}${issue.line === undefined ? '' : ` (line ${issue.line})`}: ${issue.message}`);
    super(`${headline} in ${file}:\n${lines.join('\n')}`);
    this.name = 'ConfigError';
    this.file = file;
    this.issues = issues;
  }
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

/** One readable line per zod issue; `got ...` is added unless the key holds a secret. */
export function describeZodIssues(error: z.ZodError): { path: PropertyKey[]; message: string }[] {
  return error.issues.map((issue) => {
    const path = [...issue.path];
    const last = path.at(-1);
    if (issue.code === 'invalid_type' && 'input' in issue && issue.input === undefined) {
      return { path, message: `is missing; it ${issue.message}` };
    }
    if (issue.code === 'invalid_key') {
      return { path, message: `is not an allowed key: ${issue.issues[0]?.message ?? issue.message}` };
    }
    const input = 'input' in issue ? describeInput(issue.input) : undefined;
    const secret = typeof last === 'string' && SECRET_KEY.test(last);
    const echo = input !== undefined && !secret && issue.code !== 'unrecognized_keys' && input !== 'a mapping';
    return { path, message: echo ? `${issue.message} (got ${input})` : issue.message };
  });
}

/**
 * Per-parse wording for issues the schema does not word itself: what the key allows, in the
 * terms of a YAML file.
 */
export function configIssueWording(issue: z.core.$ZodRawIssue): string | undefined {
  if (issue.code === 'invalid_type') {
    switch (issue.expected) {
      case 'object': return 'must be a mapping (indented "key: value" lines)';
      case 'array': return 'must be a list';
      case 'string': return 'must be text';
      case 'boolean': return 'must be true or false';
      case 'number': return 'must be a number';
      case 'int': return 'must be a whole number';
      case 'null': return 'must be null';
      default: return `must be ${issue.expected}`;
    }
  }
  if (issue.code === 'invalid_value') {
    return `must be one of ${issue.values.map((value) => JSON.stringify(value)).join(', ')}`;
  }
  if (issue.code === 'too_small' && issue.origin === 'number') {
    return `must be ${issue.inclusive === false ? 'above' : 'at least'} ${String(issue.minimum)}`;
  }
  if (issue.code === 'too_big' && issue.origin === 'number') {
    return `must be ${issue.inclusive === false ? 'below' : 'at most'} ${String(issue.maximum)}`;
  }
  if (issue.code === 'unrecognized_keys') return `unknown key${issue.keys.length === 1 ? '' : 's'} ${issue.keys.map((key) => `"${key}"`).join(', ')}`;
  if (issue.code === 'too_small' && issue.origin === 'array') return `must list at least ${String(issue.minimum)}`;
  if (issue.code === 'too_small' && issue.origin === 'string') return 'must not be empty';
  return undefined;
}
