import { describe, expect, it } from 'vitest';
import { hasPoisonedKey, parseJsonBody } from '../../../src/service/http/json-body.ts';
import { ServiceError } from '../../../src/service/types.ts';

function refusal(text: string): ServiceError {
  try {
    parseJsonBody(text);
  } catch (error) {
    if (error instanceof ServiceError) return error;
    throw error;
  }
  throw new Error(`expected ${text.slice(0, 40)} to be refused`);
}

describe('parseJsonBody', () => {
  it('parses an object', () => {
    expect(parseJsonBody('{"values":{"bubble.width":5}}')).toEqual({ values: { 'bubble.width': 5 } });
  });

  it.each(['', '  ', '{', '{"a":}', 'nul', "{'a':1}"])('refuses %j as 422 on body', (text) => {
    const error = refusal(text);
    expect(error.status).toBe(422);
    expect(Object.keys(error.errors ?? {})).toEqual(['body']);
  });

  it.each([
    '{"__proto__":{"x":1}}',
    '{"values":{"__proto__":{"x":1}}}',
    '{"\\u005f_proto__":{"x":1}}',
    '{"a":[{"b":{"__proto__":null}}]}',
    '{"constructor":{"prototype":{"x":1}}}',
    '{"values":{"constructor":{"prototype":1}}}',
  ])('refuses the prototype-poisoning body %s', (text) => {
    const error = refusal(text);
    expect(error.status).toBe(422);
    expect(error.errors?.body?.[0]).toMatch(/__proto__/);
  });

  it('lets a harmless "constructor" key through (no prototype under it)', () => {
    expect(parseJsonBody('{"constructor":"x"}')).toEqual({ constructor: 'x' });
  });

  it('walks deep nesting without overflowing the stack', () => {
    const depth = 20_000;
    const deep = `${'['.repeat(depth)}{"__proto__":1}${']'.repeat(depth)}`;
    expect(refusal(deep).status).toBe(422);
    const nested = JSON.parse(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`);
    expect(hasPoisonedKey(nested)).toBe(false);
  });
});
