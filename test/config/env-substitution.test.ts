import { describe, expect, it } from 'vitest';
import { substituteEnv } from '../../src/config/env-substitution.ts';

describe('substituteEnv', () => {
  it('replaces whole and embedded references in string values at any depth', () => {
    const result = substituteEnv(
      { a: '${ONE}', b: { c: ['x', 'https://${HOST}:${PORT}/api'] }, n: 5, t: true, z: null },
      { ONE: '1', HOST: 'example.com', PORT: '8443' },
    );
    expect(result.value).toEqual({ a: '1', b: { c: ['x', 'https://example.com:8443/api'] }, n: 5, t: true, z: null });
    expect(result.unset).toEqual([]);
  });

  it('reports each unset or empty variable with its path', () => {
    const result = substituteEnv({ a: { b: ['${MISSING}'] }, c: '${EMPTY}' }, { EMPTY: '' });
    expect(result.unset).toEqual([
      { path: ['a', 'b', 0], variable: 'MISSING', empty: false },
      { path: ['c'], variable: 'EMPTY', empty: true },
    ]);
  });

  it('$${NAME} is a literal ${NAME}', () => {
    expect(substituteEnv({ a: 'cost: $${PRICE}' }, {}).value).toEqual({ a: 'cost: ${PRICE}' });
  });

  it('a substituted value is not substituted again', () => {
    expect(substituteEnv({ a: '${A}' }, { A: '${B}', B: 'no' }).value).toEqual({ a: '${B}' });
  });

  it('leaves a mapping with enabled: false untouched, unset variables and all', () => {
    const input = { twitch: { enabled: false, clientSecret: '${NOPE}' }, x: '${YES}' };
    const result = substituteEnv(input, { YES: 'y' });
    expect(result.value).toEqual({ twitch: { enabled: false, clientSecret: '${NOPE}' }, x: 'y' });
    expect(result.unset).toEqual([]);
  });

  it('reports a malformed reference instead of guessing', () => {
    const result = substituteEnv({ a: '${not valid}' }, {});
    expect(result.malformed).toEqual([{ path: ['a'], reference: 'not valid' }]);
  });

  it('keeps a __proto__ key as a plain key (no prototype change)', () => {
    const input = JSON.parse('{"__proto__": {"polluted": "${X}"}}') as unknown;
    const result = substituteEnv(input, { X: 'yes' }).value as Record<string, unknown>;
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
    expect(Object.hasOwn(result, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('does not read inherited properties of the env object as variables', () => {
    expect(substituteEnv({ a: '${toString}' }, {}).unset).toEqual([{ path: ['a'], variable: 'toString', empty: false }]);
  });
});
