import { describe, expect, it } from 'vitest';
import { errorText } from '../../src/host/error-text.ts';

describe('errorText', () => {
  it("is an Error's message, or the thrown value itself, saying when that was not an Error at all", () => {
    expect(errorText(new TypeError('bad input'))).toBe('bad input');
    expect(errorText('a string')).toBe('a string');
    expect(errorText(42)).toBe('42');
    expect(errorText(undefined)).toBe('undefined was thrown (not an Error)');
    expect(errorText(null)).toBe('null was thrown (not an Error)');
  });
});
