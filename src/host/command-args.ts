// Typed command arguments: checking a command's argument list when it is registered, parsing a
// chat line's words against it, and the usage line a chatter is shown when they do not fit.
import { closestName } from './closest-name.ts';
import type { ArgSpec } from './plugin-api.ts';

const ARG_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,31}$/;
const INTEGER = /^[+-]?\d+$/;
const USER = /^@?([A-Za-z0-9_]{1,25})$/;
const ARG_TYPES = new Set(['string', 'integer', 'user', 'rest']);

/**
 * Throws a TypeError for a field `object` may not have. Plugins run without a type check, so a
 * misspelt field (`alias`, `optinal`) would otherwise be ignored without a word.
 */
export function checkFields(where: string, object: object, allowed: readonly string[]): void {
  for (const key of Object.keys(object)) {
    if (allowed.includes(key)) continue;
    const meant = closestName(key, allowed);
    const hint = meant === undefined ? `the fields are ${allowed.join(', ')}` : `did you mean "${meant}"?`;
    throw new TypeError(`${where}: unknown field "${key}" (${hint})`);
  }
}

const ARG_FIELDS = ['name', 'type', 'optional', 'min', 'max'];

/** Throws a TypeError naming the first problem of an argument list. */
export function checkArgSpecs(specs: readonly ArgSpec[]): void {
  const seen = new Set<string>();
  let optionalSeen = false;
  specs.forEach((spec, index) => {
    const where = `argument ${index + 1} (${String(spec?.name)})`;
    if (typeof spec !== 'object' || spec === null) throw new TypeError(`argument ${index + 1} must be an object {name, type}`);
    if (typeof spec.name !== 'string' || !ARG_NAME.test(spec.name)) {
      throw new TypeError(`${where}: name must be a letter then letters, digits, - or _`);
    }
    if (seen.has(spec.name)) throw new TypeError(`${where}: the name is used twice`);
    seen.add(spec.name);
    checkFields(where, spec, ARG_FIELDS);
    if (!ARG_TYPES.has(spec.type)) throw new TypeError(`${where}: type must be string, integer, user or rest`);
    if (spec.optional !== undefined && typeof spec.optional !== 'boolean') throw new TypeError(`${where}: optional must be true or false`);
    if (spec.type === 'rest' && index !== specs.length - 1) throw new TypeError(`${where}: a rest argument must be the last`);
    if (spec.optional === true) optionalSeen = true;
    else if (optionalSeen) throw new TypeError(`${where}: a required argument cannot follow an optional one`);
    if ((spec.min !== undefined || spec.max !== undefined) && spec.type !== 'integer') {
      throw new TypeError(`${where}: min and max apply to integer arguments only`);
    }
    for (const bound of [spec.min, spec.max]) {
      if (bound !== undefined && !Number.isSafeInteger(bound)) throw new TypeError(`${where}: min and max must be whole numbers`);
    }
    if (spec.min !== undefined && spec.max !== undefined && spec.min > spec.max) throw new TypeError(`${where}: min is above max`);
  });
}

/** `!give <user> <amount> [note...]` */
export function usageLine(prefix: string, name: string, specs: readonly ArgSpec[]): string {
  const words = specs.map((spec) => {
    const label = spec.type === 'rest' ? `${spec.name}...` : spec.name;
    return spec.optional === true ? `[${label}]` : `<${label}>`;
  });
  return [`${prefix}${name}`, ...words].join(' ');
}

function integerRule(spec: ArgSpec): string {
  if (spec.min !== undefined && spec.max !== undefined) return `${spec.name} must be a whole number from ${spec.min} to ${spec.max}`;
  if (spec.min !== undefined) return `${spec.name} must be a whole number of at least ${spec.min}`;
  if (spec.max !== undefined) return `${spec.name} must be a whole number of at most ${spec.max}`;
  return `${spec.name} must be a whole number`;
}

export type ParsedArgs =
  | { ok: true; values: Record<string, string | number | undefined> }
  | { ok: false; reason: string };

/** Parses the text after the command name (already trimmed). */
export function parseArgs(specs: readonly ArgSpec[], input: string): ParsedArgs {
  const values: Record<string, string | number | undefined> = {};
  let rest = input.trim();
  for (const spec of specs) {
    if (rest === '') {
      if (spec.optional === true) {
        values[spec.name] = undefined;
        continue;
      }
      return { ok: false, reason: `${spec.name} is missing` };
    }
    if (spec.type === 'rest') {
      values[spec.name] = rest;
      rest = '';
      continue;
    }
    const match = /^(\S+)\s*/.exec(rest)!;
    const word = match[1]!;
    rest = rest.slice(match[0].length);
    if (spec.type === 'string') {
      values[spec.name] = word;
    } else if (spec.type === 'integer') {
      const value = INTEGER.test(word) ? Number(word) : Number.NaN;
      if (!Number.isSafeInteger(value) || (spec.min !== undefined && value < spec.min) || (spec.max !== undefined && value > spec.max)) {
        return { ok: false, reason: integerRule(spec) };
      }
      values[spec.name] = value;
    } else {
      const login = USER.exec(word)?.[1];
      if (login === undefined) return { ok: false, reason: `${spec.name} must be a Twitch name` };
      values[spec.name] = login.toLowerCase();
    }
  }
  if (rest !== '') return { ok: false, reason: 'too many words' };
  return { ok: true, values };
}
