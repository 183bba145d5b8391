// The colour rule of the settings (DESIGN.md "Setting values"): `#rgb`, `#rgba`, `#rrggbb`,
// `#rrggbbaa` or `transparent`, any case. The normal form is lowercase, expanded to 6 or 8
// digits, and every fully transparent colour (alpha 00) is the word `transparent`. CSS colour
// names and rgb()/hsl() functions (in gradients, and names typed in chat) are read by
// color-string and stored in that normal form.
import colorString from 'color-string';

export const TRANSPARENT = 'transparent';

const HEX_COLOR = /^#([0-9a-f]{3}|[0-9a-f]{4}|[0-9a-f]{6}|[0-9a-f]{8})$/i;

/** The colour in its normal form, or undefined when `raw` is not a colour of the rule. */
export function normalizeColor(raw: string): string | undefined {
  if (raw.toLowerCase() === TRANSPARENT) return TRANSPARENT;
  const match = HEX_COLOR.exec(raw);
  if (!match) return undefined;
  let digits = match[1]!.toLowerCase();
  if (digits.length <= 4) digits = [...digits].map((d) => d + d).join('');
  if (digits.length === 8 && digits.endsWith('00')) return TRANSPARENT;
  return `#${digits}`;
}

/**
 * The normal form of an sRGB colour given as channels 0..255 and alpha 0..1 (out-of-range
 * values are clamped, as CSS does). Opaque colours get 6 digits, others 8.
 */
export function rgbaToColor(red: number, green: number, blue: number, alpha = 1): string {
  const a = Math.round(clamp(alpha, 0, 1) * 255);
  if (a === 0) return TRANSPARENT;
  const hex = [red, green, blue].map((c) => toHexByte(Math.round(clamp(c, 0, 255)))).join('');
  return a === 255 ? `#${hex}` : `#${hex}${toHexByte(a)}`;
}

/** CSS hsl(): hue in degrees (any value, wraps), saturation and lightness in percent. */
export function hslToRgb(hue: number, saturation: number, lightness: number): [number, number, number] {
  const h = ((hue % 360) + 360) % 360;
  const s = clamp(saturation, 0, 100) / 100;
  const l = clamp(lightness, 0, 100) / 100;
  // The CSS Color 4 reference algorithm.
  const channel = (n: number): number => {
    const k = (n + h / 30) % 12;
    const a = s * Math.min(l, 1 - l);
    return (l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1))) * 255;
  };
  return [channel(0), channel(8), channel(4)];
}

const COLOR_NAME = /^[a-z]+$/i;

/** A CSS colour name (CSS Color 4's list, any case) in the normal form, or undefined. */
export function namedColor(name: string): string | undefined {
  const rgba = COLOR_NAME.test(name) ? colorString.get.rgb(name) : null;
  return rgba ? rgbaToColor(rgba[0]!, rgba[1]!, rgba[2]!, rgba[3]) : undefined;
}

/**
 * A CSS rgb(), rgba(), hsl() or hsla() colour in the normal form, or undefined when it cannot be
 * read: commas or spaces, channels as numbers or percentages, a hue with or without `deg`,
 * an alpha as a number or a percentage (after a comma or `/`).
 */
export function colorFunction(text: string): string | undefined {
  const parsed = colorString.get(text);
  if (parsed === null) return undefined;
  const [first = 0, second = 0, third = 0, alpha = 1] = parsed.value;
  if (parsed.model === 'rgb') return rgbaToColor(first, second, third, alpha);
  if (parsed.model === 'hsl') return rgbaToColor(...hslToRgb(first, second, third), alpha);
  return undefined;
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}

function toHexByte(value: number): string {
  return value.toString(16).padStart(2, '0');
}
