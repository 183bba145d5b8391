// The colour of the avatar's letter (shown without a picture) on the colour behind it: the
// avatar's own background colour or a skin's name colour (settings-css.ts), or the chatter's
// Twitch colour (the page, chat-view.ts). One rule for all, so a letter on gold is the same on a
// gold-name skin as for a chatter whose Twitch colour is gold. Browser-safe: no imports.

/** The letter on a colour dark enough for it, and without a colour (the grey fallback). */
export const AVATAR_LETTER_COLOR = '#ffffff';
/** The letter on a light colour (gold, spring green, white). */
export const DARK_AVATAR_LETTER_COLOR = '#1a1a1a';

/**
 * The avatar's letter on `background` (`#rgb`, `#rgba`, `#rrggbb`, `#rrggbbaa` or `transparent`;
 * alpha is not counted): white, unless white would stand out from it by less than 3:1 (WCAG's
 * least contrast for large text, which the bold letter is); then near-black.
 */
export function avatarLetterColorOn(background: string): string {
  if (!/^#(?:[0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})$/i.test(background)) return AVATAR_LETTER_COLOR;
  let hex = background.slice(1);
  if (hex.length <= 4) hex = [...hex].map((d) => d + d).join('');
  const linear = [0, 2, 4].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  const luminance = 0.2126 * linear[0]! + 0.7152 * linear[1]! + 0.0722 * linear[2]!;
  return 1.05 / (luminance + 0.05) < 3 ? DARK_AVATAR_LETTER_COLOR : AVATAR_LETTER_COLOR;
}
