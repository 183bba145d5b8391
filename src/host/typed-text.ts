// What a chatter typed, for matching and for saying back. A name may come quoted ("night owl")
// or with doubled spaces; and text said back must not carry direction or invisible characters,
// or a chatter could make the bot's line read as something else (U+202E reverses what follows).

/** Tag characters (U+E0000..U+E007F): chat clients append U+E0000 to a repeated line. */
export const TAG_CHARACTERS = /[\u{E0000}-\u{E007F}]/gu;

/** Bidirectional controls and zero-width characters: never said back. */
const HIDDEN = /[\u061C\u200B-\u200F\u202A-\u202E\u2060-\u2069\uFEFF]/g;

/** A typed name as it is meant: surrounding quotes off, spaces collapsed, hidden characters gone. */
export function typedName(text: string): string {
  const plain = text.replace(HIDDEN, '').replace(/\s+/g, ' ').trim();
  const quoted = /^(["'“”‘’])(.*)(["'“”‘’])$/u.exec(plain);
  return (quoted === null ? plain : quoted[2]!).trim();
}

/** Typed text to say back in a reply: hidden characters gone, at most `most` characters, in quotes. */
export function quotedTyped(text: string, most = 40): string {
  return `"${[...typedName(text)].slice(0, most).join('')}"`;
}

/** A value to say back that may be long (a gradient): at most `most` characters, the cut marked. */
export function shortened(text: string, most = 120): string {
  const chars = [...text.replace(HIDDEN, '')];
  return chars.length <= most ? chars.join('') : `${chars.slice(0, most - 1).join('')}… (${chars.length} characters)`;
}
