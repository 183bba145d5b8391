import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { splitMessage, toChatLine } from '../../src/host/split-message.ts';

describe('toChatLine', () => {
  it('turns line breaks and tabs into spaces, drops control characters, trims', () => {
    expect(toChatLine('  one\r\ntwo\nthree\tfour\u0007\u0000 ')).toBe('one two three four');
  });
});

describe('splitMessage', () => {
  it('leaves a message within the limit alone', () => {
    expect(splitMessage('hello world', 500)).toEqual(['hello world']);
    expect(splitMessage('x'.repeat(500), 500)).toEqual(['x'.repeat(500)]);
  });

  it('splits on the last space that fits', () => {
    expect(splitMessage('aaa bbb ccc ddd', 8)).toEqual(['aaa bbb', 'ccc ddd']);
    expect(splitMessage('aaaa bbbb', 4)).toEqual(['aaaa', 'bbbb']);
  });

  it('cuts a word longer than a message', () => {
    expect(splitMessage('abcdefghij', 4)).toEqual(['abcd', 'efgh', 'ij']);
  });

  it('cuts a long word rather than at a space that would leave less than half a message', () => {
    // A mention and one long word: the mention does not go out alone, spending a message.
    const word = 'x'.repeat(600);
    expect(splitMessage(`@You ${word}`, 500)).toEqual([`@You ${'x'.repeat(495)}`, 'x'.repeat(105)]);
    expect(splitMessage('ab cdefghijkl', 8)).toEqual(['ab cdefg', 'hijkl']);
    // A space past half a message is still where it cuts.
    expect(splitMessage('abcde fghijkl', 8)).toEqual(['abcde', 'fghijkl']);
  });

  it('a cut long word keeps emoji whole', () => {
    expect(splitMessage('@A 😀😀😀😀', 8)).toEqual(['@A 😀😀', '😀😀']);
  });

  it('never cuts a surrogate pair', () => {
    const text = `abc${'😀'.repeat(3)}`;
    const parts = splitMessage(text, 4);
    expect(parts.join('')).toBe(text);
    for (const part of parts) expect(part).not.toMatch(/[\uD800-\uDBFF]$|^[\uDC00-\uDFFF]/);
  });

  it('never cuts a grapheme cluster (a family emoji, a flag)', () => {
    const family = '👨‍👩‍👧';
    const parts = splitMessage(`${family}${family}`, family.length + 1);
    expect(parts).toEqual([family, family]);
  });

  it('a 501-character reply becomes two messages of at most 500', () => {
    const words = Array.from({ length: 101 }, (_, index) => `w${String(index).padStart(3, '0')}`).join(' ');
    expect(words.length).toBeGreaterThan(500);
    const parts = splitMessage(words, 500);
    expect(parts).toHaveLength(2);
    expect(parts.every((part) => part.length <= 500)).toBe(true);
    expect(parts.join(' ')).toBe(words);
  });

  it('property: parts fit, are trimmed and non-empty, keep every non-space character in order, and never split a surrogate pair', () => {
    fc.assert(fc.property(
      fc.string({ unit: fc.constantFrom('a', 'b', ' ', '😀', 'é', '\u0301', '👍🏽'), maxLength: 300 }),
      fc.integer({ min: 8, max: 40 }),
      (text, max) => {
        const parts = splitMessage(text, max);
        for (const part of parts) {
          expect(part.length).toBeLessThanOrEqual(max);
          expect(part).toBe(part.trim());
          expect(part).not.toBe('');
          expect(part).not.toMatch(/[\uD800-\uDBFF]$/);
          expect(part).not.toMatch(/^[\uDC00-\uDFFF]/);
        }
        expect(parts.join('').replace(/ /g, '')).toBe(text.replace(/ /g, ''));
      },
    ));
  });
});
