// Typed names as meant, and typed text said back without characters that would change how the
// bot's line reads.
import { describe, expect, it } from 'vitest';
import { quotedTyped, sameName, shortened, typedName } from '../../src/host/typed-text.ts';

describe('typedName', () => {
  it('takes surrounding quotes off (straight or curly) and collapses spaces', () => {
    expect(typedName('"Night   Owl"')).toBe('Night Owl');
    expect(typedName('“Neon”')).toBe('Neon');
    expect(typedName("  'vip gold' ")).toBe('vip gold');
    expect(typedName('Bob"s skin')).toBe('Bob"s skin');
  });

  it('drops direction controls and zero-width characters', () => {
    expect(typedName('\u202Eevil\u200B name\u2066')).toBe('evil name');
  });

  it("drops the character chat clients add to a repeated line, and keeps an emoji's variation selector", () => {
    expect(typedName('night owl \u034F')).toBe('night owl');
    expect(typedName('night owl \u{E0000}')).toBe('night owl');
    expect(typedName('\u2764\uFE0F')).toBe('\u2764\uFE0F');
    expect(typedName('\u{1F469}\u200D\u{1F4BB} Coder')).toBe('\u{1F469}\u200D\u{1F4BB} Coder');
  });
});

describe('quotedTyped', () => {
  it('quotes, cleaned and cut to `most` characters (whole emoji)', () => {
    expect(quotedTyped('\u202Ebackwards')).toBe('"backwards"');
    expect(quotedTyped('x'.repeat(100))).toBe(`"${'x'.repeat(40)}"`);
    expect(quotedTyped('😀'.repeat(5), 3)).toBe('"😀😀😀"');
  });
});

describe('shortened', () => {
  it('leaves a short value, cuts a long one and says how long it was', () => {
    expect(shortened('#ff0000')).toBe('#ff0000');
    const long = 'a'.repeat(300);
    expect(shortened(long)).toBe(`${'a'.repeat(119)}… (300 characters)`);
  });
});

describe('sameName', () => {
  it('matches without regard to case, spaces, invisible characters or the zero-width joiner Twitch strips', () => {
    expect(sameName('night  OWL \u034F', 'Night Owl')).toBe(true);
    expect(sameName('\u{1F469}\u{1F4BB} coder', '\u{1F469}\u200D\u{1F4BB} Coder')).toBe(true);
    expect(sameName('\u{1F469}\u200D\u{1F4BB} Coder', '\u{1F469}\u200D\u{1F4BB} Coder')).toBe(true);
    expect(sameName('night owls', 'Night Owl')).toBe(false);
    expect(sameName('\u{1F469} coder', '\u{1F469}\u200D\u{1F4BB} Coder')).toBe(false);
  });
});
