import { describe, expect, it } from 'vitest';
import { checkArgSpecs, parseArgs, usageLine } from '../../src/host/command-args.ts';
import type { ArgSpec } from '../../src/host/plugin-api.ts';

const setSpecs: ArgSpec[] = [{ name: 'key', type: 'string' }, { name: 'value', type: 'rest' }];

describe('parseArgs', () => {
  it('string takes one word and rest takes the remaining text', () => {
    expect(parseArgs(setSpecs, 'bubble.width  320 px wide')).toEqual({ ok: true, values: { key: 'bubble.width', value: '320 px wide' } });
  });

  it('integer accepts whole numbers with a sign, refuses others, and keeps to min/max', () => {
    const specs: ArgSpec[] = [{ name: 'n', type: 'integer', min: -5, max: 10 }];
    expect(parseArgs(specs, '7')).toEqual({ ok: true, values: { n: 7 } });
    expect(parseArgs(specs, '-5')).toEqual({ ok: true, values: { n: -5 } });
    expect(parseArgs(specs, '+3')).toEqual({ ok: true, values: { n: 3 } });
    for (const bad of ['1.5', 'ten', '11', '-6', '0x10', '1e3', '99999999999999999999']) {
      expect(parseArgs(specs, bad)).toEqual({ ok: false, reason: 'n must be a whole number from -5 to 10' });
    }
    expect(parseArgs([{ name: 'n', type: 'integer' }], 'x')).toEqual({ ok: false, reason: 'n must be a whole number' });
  });

  it('user takes a login with or without @, answered lowercase', () => {
    const specs: ArgSpec[] = [{ name: 'who', type: 'user' }];
    expect(parseArgs(specs, '@Alice_99')).toEqual({ ok: true, values: { who: 'alice_99' } });
    expect(parseArgs(specs, 'bob')).toEqual({ ok: true, values: { who: 'bob' } });
    expect(parseArgs(specs, 'not-a-login')).toEqual({ ok: false, reason: 'who must be a Twitch name' });
    expect(parseArgs(specs, 'a'.repeat(26))).toEqual({ ok: false, reason: 'who must be a Twitch name' });
  });

  it('a missing required argument is named', () => {
    expect(parseArgs(setSpecs, 'bubble.width')).toEqual({ ok: false, reason: 'value is missing' });
    expect(parseArgs(setSpecs, '')).toEqual({ ok: false, reason: 'key is missing' });
  });

  it('optional arguments may be left out and are undefined', () => {
    const specs: ArgSpec[] = [{ name: 'who', type: 'user' }, { name: 'n', type: 'integer', optional: true }, { name: 'note', type: 'rest', optional: true }];
    expect(parseArgs(specs, 'bob')).toEqual({ ok: true, values: { who: 'bob', n: undefined, note: undefined } });
    expect(parseArgs(specs, 'bob 3 well done')).toEqual({ ok: true, values: { who: 'bob', n: 3, note: 'well done' } });
  });

  it('words beyond the last argument are refused', () => {
    expect(parseArgs([{ name: 'a', type: 'string' }], 'one two')).toEqual({ ok: false, reason: 'too many words' });
    expect(parseArgs([], 'extra')).toEqual({ ok: false, reason: 'too many words' });
  });
});

describe('usageLine', () => {
  it('shows required as <name>, optional as [name], rest with ...', () => {
    expect(usageLine('!', 'set', setSpecs)).toBe('!set <key> <value...>');
    expect(usageLine('?', 'give', [{ name: 'who', type: 'user' }, { name: 'n', type: 'integer', optional: true }])).toBe('?give <who> [n]');
    expect(usageLine('!', 'ping', [])).toBe('!ping');
  });
});

describe('checkArgSpecs', () => {
  const refused: [string, ArgSpec[], RegExp][] = [
    ['rest not last', [{ name: 'a', type: 'rest' }, { name: 'b', type: 'string' }], /rest argument must be the last/],
    ['required after optional', [{ name: 'a', type: 'string', optional: true }, { name: 'b', type: 'string' }], /required argument cannot follow an optional one/],
    ['duplicate name', [{ name: 'a', type: 'string' }, { name: 'a', type: 'integer' }], /used twice/],
    ['unknown type', [{ name: 'a', type: 'float' as never }], /type must be string, integer, user or rest/],
    ['bad name', [{ name: '1a', type: 'string' }], /name must be/],
    ['bounds on a string', [{ name: 'a', type: 'string', min: 1 }], /integer arguments only/],
    ['min above max', [{ name: 'a', type: 'integer', min: 5, max: 1 }], /min is above max/],
  ];
  for (const [what, specs, message] of refused) {
    it(`refuses ${what}`, () => {
      expect(() => checkArgSpecs(specs)).toThrow(message);
    });
  }

  it('accepts a well-formed list', () => {
    expect(() => checkArgSpecs([{ name: 'who', type: 'user' }, { name: 'n', type: 'integer', optional: true, min: 1 }, { name: 'rest', type: 'rest', optional: true }])).not.toThrow();
  });
});
