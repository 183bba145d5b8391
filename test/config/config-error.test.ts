// The wording of schema problems, shared by config files and plugin settings: every zod issue
// code comes out in the file's own terms, never as zod's developer wording.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { configIssueWording, describeZodIssues, formatConfigPath } from '../../src/config/config-error.ts';
import { parseConfig } from '../../src/config/index.ts';

/** `path: message` lines, exactly as the config loader and the plugin loader word them. */
function problems(schema: z.ZodType, input: unknown): string[] {
  const parsed = schema.safeParse(input, { reportInput: true, error: configIssueWording });
  if (parsed.success) throw new Error(`expected ${JSON.stringify(input)} to be refused`);
  return describeZodIssues(parsed.error).map(({ path, message }) => `${formatConfigPath(path)}: ${message}`);
}

// zod's own wording ("Invalid input: expected record, received number", "Too big: expected
// string to have <=3 characters") and its type names, which mean nothing in a YAML file.
const ZOD_WORDING = /invalid (input|string|number|key|element|discriminator)|expected|received|too (big|small)|<=|>=|\b(record|object|tuple|bigint|int|nonoptional|nan|never|undefined|void|union|map|set|iso|string|boolean)\b/i;

const themeValue = z.union([z.string(), z.number(), z.boolean(), z.null()]);

/** [what, schema, bad input, the expected line(s)]; each schema words nothing itself. */
const CASES: [string, z.ZodType, unknown, string[]][] = [
  ['a record given a number', z.object({ themes: z.record(z.string(), z.record(z.string(), themeValue)) }), { themes: { neon: 5 } },
    ['themes.neon: must be a mapping of names to text, numbers, true/false or null (got 5)']],
  ['a record of records given a list', z.object({ themes: z.record(z.string(), z.record(z.string(), z.number())) }), { themes: [1] },
    ['themes: must be a mapping of names to mappings (got a list)']],
  ['a missing record', z.object({ limits: z.record(z.string(), z.number().int()) }), {},
    ['limits: is missing; it must be a mapping of names to whole numbers']],
  ['an object given text', z.object({ bubble: z.object({ width: z.number() }) }), { bubble: 'wide' },
    ['bubble: must be a mapping (indented "key: value" lines) (got "wide")']],
  ['a list given a number', z.object({ names: z.array(z.string()) }), { names: 3 }, ['names: must be a list (got 3)']],
  ['a tuple given a number', z.object({ pair: z.tuple([z.number(), z.number()]) }), { pair: 3 }, ['pair: must be a list (got 3)']],
  ['a whole number given 1.5', z.object({ n: z.int() }), { n: 1.5 }, ['n: must be a whole number (got 1.5)']],
  ['a bigint given text', z.object({ n: z.bigint() }), { n: 'x' }, ['n: must be a whole number (got "x")']],
  ['a boolean given text', z.object({ on: z.boolean() }), { on: 'yes' }, ['on: must be true or false (got "yes")']],
  ['a date given text', z.object({ at: z.date() }), { at: 'soon' }, ['at: must be a date (got "soon")']],
  ['a nonoptional left out', z.object({ n: z.number().optional().nonoptional() }), {}, ['n: is missing']],
  ['a never given a value', z.object({ legacy: z.never().optional() }), { legacy: 1 }, ['legacy: must be left out (got 1)']],
  ['a union of scalars', z.object({ v: z.union([z.string(), z.number()]) }), { v: true }, ['v: must be text or a number (got true)']],
  ['a union of literals', z.object({ mode: z.union([z.literal('fast'), z.literal('slow')]) }), { mode: 'medium' },
    ['mode: must be "fast" or "slow" (got "medium")']],
  ['a union, the text form too short', z.object({ v: z.union([z.string().min(3), z.number()]) }), { v: 'ab' },
    ['v: must be at least 3 characters long (got "ab")']],
  ['a union, one form written', z.object({ v: z.union([z.number(), z.object({ size: z.number() })]) }), { v: { size: 'big' } },
    ['v.size: must be a number (got "big")']],
  ['a union, several forms written', z.object({ v: z.union([z.object({ x: z.number() }), z.object({ y: z.string() })]) }), { v: { x: 'a' } },
    ['v: does not match any of the allowed forms (x: must be a number (got "a"); or y: is missing; it must be text)']],
  ['a discriminated union', z.object({ s: z.discriminatedUnion('mode', [z.object({ mode: z.literal('a') }), z.object({ mode: z.literal('b') })]) }),
    { s: { mode: 'c' } }, ['s.mode: must be one of "a", "b" (got "c")']],
  ['an enum', z.object({ level: z.enum(['info', 'warn']) }), { level: 'loud' }, ['level: must be one of "info", "warn" (got "loud")']],
  ['a literal', z.object({ version: z.literal(2) }), { version: 1 }, ['version: must be 2 (got 1)']],
  ['a number too small', z.object({ n: z.number().min(3) }), { n: 1 }, ['n: must be at least 3 (got 1)']],
  ['a positive number', z.object({ n: z.number().positive() }), { n: 0 }, ['n: must be above 0 (got 0)']],
  ['a number too big', z.object({ n: z.number().lt(10) }), { n: 10 }, ['n: must be below 10 (got 10)']],
  ['text too short', z.object({ s: z.string().min(3) }), { s: 'ab' }, ['s: must be at least 3 characters long (got "ab")']],
  ['empty text', z.object({ s: z.string().min(1) }), { s: '' }, ['s: must not be empty (got "")']],
  ['text too long', z.object({ s: z.string().max(3) }), { s: 'abcd' }, ['s: must be at most 3 characters long (got "abcd")']],
  ['text of a fixed length', z.object({ s: z.string().length(2) }), { s: 'abc' }, ['s: must be exactly 2 characters long (got "abc")']],
  ['a list too short', z.object({ l: z.array(z.number()).min(2) }), { l: [1] }, ['l: must list at least 2 items (got a list)']],
  ['a list too long', z.object({ l: z.array(z.number()).max(1) }), { l: [1, 2] }, ['l: must list at most 1 item (got a list)']],
  ['a pattern', z.object({ id: z.string().regex(/^[a-z]+$/) }), { id: 'A1' }, ['id: must match the pattern /^[a-z]+$/ (got "A1")']],
  ['an email', z.object({ to: z.email() }), { to: 'nobody' }, ['to: must be an email address (got "nobody")']],
  ['a URL', z.object({ u: z.url() }), { u: 'nowhere' }, ['u: must be a URL such as https://example.com (got "nowhere")']],
  ['a date-time', z.object({ at: z.iso.datetime() }), { at: 'noon' }, ['at: must be a date and time such as 2025-01-31T18:00:00Z (got "noon")']],
  ['an IPv4 address', z.object({ ip: z.ipv4() }), { ip: 'home' }, ['ip: must be an IPv4 address such as 192.168.1.10 (got "home")']],
  ['a prefix', z.object({ s: z.string().startsWith('#') }), { s: 'x' }, ['s: must start with "#" (got "x")']],
  ['lowercase', z.object({ s: z.string().lowercase() }), { s: 'X' }, ['s: must be in lowercase (got "X")']],
  ['a multiple', z.object({ n: z.number().multipleOf(5) }), { n: 3 }, ['n: must be a multiple of 5 (got 3)']],
  ['a refinement without a message', z.object({ n: z.number().refine((n) => n % 2 === 0) }), { n: 3 }, ['n: is not an allowed value (got 3)']],
  ['a record key', z.object({ m: z.record(z.string().regex(/^x/), z.number()) }), { m: { y: 1 } },
    ['m.y: is not an allowed key: must match the pattern /^x/']],
  ['an unknown key', z.strictObject({ a: z.number() }), { a: 1, b: 2 }, ['(top level): unknown key "b"; allowed keys: a']],
  ['a misspelt key of a plugin\'s strictObject', z.object({ shop: z.strictObject({ maxSides: z.number(), defaultSides: z.number() }) }),
    { shop: { maxSides: 1, defaultSides: 1, maxSide: 2 } }, ['shop: unknown key "maxSide" (did you mean "maxSides"?); allowed keys: maxSides, defaultSides']],
];

describe('config and plugin-settings problems', () => {
  it.each(CASES)('%s: in the file\'s terms', (_what, schema, input, expected) => {
    expect(problems(schema, input)).toEqual(expected);
  });

  it('no zod wording or zod type name leaks, whatever the issue code', () => {
    const lines = CASES.flatMap(([, schema, input]) => problems(schema, input));
    const leaks = lines.filter((line) => ZOD_WORDING.test(line.replace(/ \(got .*\)$/, '')));
    expect(leaks).toEqual([]);
  });

  it("twitch.enabled that is not a boolean says what it was", () => {
    expect(() => parseConfig({ channel: { login: 'alice' }, twitch: { enabled: 'yes' } }))
      .toThrow(/twitch\.enabled: must be true or false \(got "yes"\)/);
  });

  it('a missing key of the real schema reads as one sentence (service.baseUrl in remote mode)', () => {
    expect(() => parseConfig({ channel: { login: 'alice' }, service: { mode: 'remote', apiKey: 'cs_key' } }))
      .toThrow(/service\.baseUrl: is missing; it must be an http\(s\) URL such as https:\/\/example\.com\/api\/v1/);
  });

  it('the schema\'s own wording still wins', () => {
    expect(problems(z.object({ n: z.number({ error: 'must be the number of lines' }) }), { n: 'x' }))
      .toEqual(['n: must be the number of lines (got "x")']);
    // A union worded by its schema keeps that wording, even when the value is of one form's type.
    const target = z.union([z.string(), z.strictObject({ id: z.number().int() })], { error: 'must be a slug or { id: <whole number> }' });
    expect(problems(z.object({ t: target }), { t: { id: 2.5 } })).toEqual(['t: must be a slug or { id: <whole number> }']);
  });
});
