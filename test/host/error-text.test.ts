import { describe, expect, it } from 'vitest';
import { errorText } from '../../src/host/error-text.ts';
import { REDACTED } from '../../src/host/logger.ts';

describe('errorText', () => {
  it("is an Error's message, or the thrown value itself, saying when that was not an Error at all", () => {
    expect(errorText(new TypeError('bad input'))).toBe('bad input');
    expect(errorText('a string')).toBe('a string');
    expect(errorText(42)).toBe('42');
    expect(errorText(undefined)).toBe('undefined was thrown (not an Error)');
    expect(errorText(null)).toBe('null was thrown (not an Error)');
  });

  it('shows a thrown object by its fields, even one String() cannot convert (no prototype, a throwing toString) or a circular one', () => {
    const circular: Record<string, unknown> = { why: 'circular' };
    circular['self'] = circular;
    const bare = Object.assign(Object.create(null) as object, { why: 'no prototype' });
    expect(errorText(circular)).toBe("<ref *1> { why: 'circular', self: [Circular *1] } was thrown (not an Error)");
    expect(errorText(bare)).toBe("[Object: null prototype] { why: 'no prototype' } was thrown (not an Error)");
    expect(errorText({ toString() { throw new Error('no'); } })).toBe('{ toString: [Function: toString] } was thrown (not an Error)');
    const long = errorText({ list: Array.from({ length: 1000 }, (_, i) => `item ${i}`) });
    expect(long).not.toContain('\n');
    expect(long.length).toBeLessThanOrEqual(200 + ' was thrown (not an Error)'.length);
  });

  it('shows no value of a secret-named field of a thrown object (a plugin throwing what holds its settings or a token it got)', () => {
    const thrown = {
      reason: 'upstream refused',
      settings: { apiToken: 'sv-token-1', password: "it's-sv-2", 'x-api-key': 'sv-key-3', tokenFile: './bot.json' },
      accessToken: `sv-4-${'x'.repeat(300)}`,
      headers: new Map([['authorization', 'Bearer sv-5']]),
    };
    const text = errorText(thrown);
    for (let index = 1; index <= 5; index++) expect(text).not.toContain(`sv-${index}`);
    expect(text).toContain(`apiToken: '${REDACTED}'`);
    // Where a token is kept is no secret.
    expect(text).toContain("tokenFile: './bot.json'");
  });

  it('cuts a long description where a word ends, never through a token whose whole a scrubber would know', () => {
    const secret = 'KnownSecretValue0123456789abcdefghij';
    for (let pad = 120; pad <= 200; pad++) {
      const text = errorText({ note: 'n'.repeat(pad), url: `https://hooks.example/x?k=${secret}` });
      expect(text.length).toBeLessThanOrEqual(200 + ' was thrown (not an Error)'.length);
      // Either the whole secret (scrubbed downstream as a known secret) or none of it.
      if (!text.includes(secret)) expect(text).not.toMatch(/KnownSecr/);
    }
    const long = errorText({ url: `https://hooks.example/x?k=${secret}${'y'.repeat(150)}` });
    expect(long).not.toMatch(/KnownSecr/);
  });
});
