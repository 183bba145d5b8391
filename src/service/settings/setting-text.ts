// A setting's value from text a person typed (a chat command, a prompt): chat has only words, the
// API wants typed JSON. The text is turned into the JSON type the catalog entry takes, and is
// otherwise left as it is, so the validation and its messages stay the service's alone.
import { SETTINGS_BY_KEY } from './catalog.ts';
import type { SettingSpec, SettingValue } from './catalog.ts';
import { namedColor } from './color.ts';
import { normalizeSettingValue } from './setting-value.ts';
import type { SettingValueResult } from './setting-value.ts';

const INTEGER_TEXT = /^([+-]?\d{1,15})(?:px|ms)?$/i;
const TRUE_WORDS = new Set(['true', 'on', 'yes', '1']);
const FALSE_WORDS = new Set(['false', 'off', 'no', '0']);
/** Words that mean "no gradient" (the catalog's empty string). */
const NO_GRADIENT_WORDS = new Set(['', 'none', 'off']);

/**
 * `"Open Sans"` or `'a b'` -> the text inside; anything else as it is. Typographic quotes count
 * too (`“Open Sans”`): phone keyboards' smart punctuation types them for ".
 */
function unquote(text: string): string {
  const quoted = /^(?:"([\s\S]*)"|'([\s\S]*)'|[“”„]([\s\S]*)[“”]|[‘’‚]([\s\S]*)[‘’])$/u.exec(text);
  return quoted ? (quoted[1] ?? quoted[2] ?? quoted[3] ?? quoted[4])! : text;
}

/**
 * The typed value for `spec` from `text`:
 * - integer: `12`, `-3`, `+7`, `12px`, `750ms` -> the number;
 * - toggle: `true/on/yes/1` and `false/off/no/0` (any case) -> the boolean;
 * - color: a CSS colour name (`red`, `rebeccapurple`) -> its hex form; `#hex` and `transparent` as typed;
 * - select: lowercased (the options are lowercase);
 * - gradient: `none`, `off` or `""` -> `""` (no gradient);
 * - string (font family): the text, quotes removed.
 * Text that does not fit the type is returned as the string, for the service to refuse in its words.
 */
export function settingValueFromText(spec: SettingSpec, text: string): SettingValue {
  const value = unquote(text.trim()).trim();
  switch (spec.type) {
    case 'integer': {
      const match = INTEGER_TEXT.exec(value);
      return match ? Number(match[1]) : value;
    }
    case 'toggle': {
      const word = value.toLowerCase();
      if (TRUE_WORDS.has(word)) return true;
      if (FALSE_WORDS.has(word)) return false;
      return value;
    }
    case 'color':
      return namedColor(value) ?? value;
    case 'select':
      return value.toLowerCase();
    case 'gradient':
      return NO_GRADIENT_WORDS.has(value.toLowerCase()) ? '' : value;
    case 'string':
      return value;
  }
}

/** By key; a key outside the catalog gets the text back unchanged (the service names the key in its refusal). */
export function settingValueFromKeyText(key: string, text: string): SettingValue {
  const spec = SETTINGS_BY_KEY.get(key);
  return spec === undefined ? text.trim() : settingValueFromText(spec, text);
}

/** Checks one value against the catalog entry of `key`, as the service would, and gives its stored form. */
export function checkSettingValue(key: string, value: unknown): SettingValueResult {
  const spec = SETTINGS_BY_KEY.get(key);
  if (spec === undefined) return { ok: false, error: `The ${key.slice(0, 80)} is not a known setting.` };
  return normalizeSettingValue(spec, value);
}
