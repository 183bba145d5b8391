// What a chatter typed, for matching and for saying back. A name may come quoted ("night owl")
// or with doubled spaces; and text said back must not carry direction or invisible characters,
// or a chatter could make the bot's line read as something else (U+202E reverses what follows).

/**
 * Invisible characters: a command's words never need them, and text said back must not carry
 * them (U+202E would make what follows read backwards). Chat clients add one to a repeated line
 * so that Twitch takes it: Chatterino and 7TV " \u034F" since August 2025, when Twitch began
 * dropping the tag character " \u{E0000}" they added before; pasted text brings zero-width ones.
 * Unicode's default-ignorable characters (the Hangul fillers, which show as blanks, too), less
 * what emoji need: the variation selectors, and the zero-width joiner that makes one emoji of
 * several (a skin may be named "\u{1F469}\u200D\u{1F4BB} Coder").
 */
export const INVISIBLE = /[\u00AD\u034F\u061C\u115F\u1160\u17B4\u17B5\u180B-\u180F\u200B\u200C\u200E\u200F\u202A-\u202E\u2060-\u206F\u3164\uFEFF\uFFA0\u{1BCA0}-\u{1BCA3}\u{1D173}-\u{1D17A}\u{E0000}-\u{E007F}]/gu;

/**
 * Whether a typed name names `name` (a skin's, say): without regard to case, spaces or invisible
 * characters, and without the zero-width joiner, which Twitch chat strips from what chatters type
 * (so "\u{1F469}\u200D\u{1F4BB} Coder" arrives as "\u{1F469}\u{1F4BB} Coder"). Also whatever
 * Unicode form either is written in (NFKC): "Café" with its accent as a separate mark (e and
 * U+0301, as text pasted from a macOS file name has it) or in the full-width letters a CJK
 * keyboard types ("Ｎｅｏｎ") reads the same on screen, so it names the same skin. And without the
 * text/emoji presentation selectors (U+FE0E, U+FE0F): "\u2764 Love" from a desktop keyboard names
 * "\u2764\uFE0F Love" from a phone's emoji picker, and the other way round.
 */
export function sameName(typed: string, name: string): boolean {
  return nameKey(typed) === nameKey(name);
}

function nameKey(text: string): string {
  return text.normalize('NFKC').replace(INVISIBLE, '').replace(/[\u200D\uFE0E\uFE0F]/g, '').replace(/\s+/g, ' ').trim().toLowerCase();
}

/** A typed name as it is meant: surrounding quotes off, spaces collapsed, hidden characters gone. */
export function typedName(text: string): string {
  const plain = text.replace(INVISIBLE, '').replace(/\s+/g, ' ').trim();
  const quoted = /^(["'“”‘’])(.*)(["'“”‘’])$/u.exec(plain);
  return (quoted === null ? plain : quoted[2]!).trim();
}

/** Typed text to say back in a reply: hidden characters gone, at most `most` characters, in quotes. */
export function quotedTyped(text: string, most = 40): string {
  return `"${[...typedName(text)].slice(0, most).join('')}"`;
}

/** A value to say back that may be long (a gradient): at most `most` characters, the cut marked. */
export function shortened(text: string, most = 120): string {
  const chars = [...text.replace(INVISIBLE, '')];
  return chars.length <= most ? chars.join('') : `${chars.slice(0, most - 1).join('')}… (${chars.length} characters)`;
}
