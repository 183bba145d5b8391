// fast-check generators of the raw IRC lines Twitch chat can send (or a hostile chatter, or a
// buggy Twitch day, can make it send), written as they go over the wire: tag values already
// escaped (or escaped wrongly: a lone trailing backslash, an unknown escape), so the test sees
// what tmi.js's own parser makes of them. A line never holds a CR, an LF or a NUL (no IRC line
// can), nor a raw space or ';' inside a tag value (it would be another tag, not a value).
import fc from 'fast-check';

/** Characters that draw nothing or turn the text's direction. */
export const INVISIBLES = ['\u200b', '\u200c', '\u200d', '\u2060', '\ufeff', '\u200e', '\u200f', '\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069', '\u061c', '\u034f', '\u00ad'];
const EMOJI = ['😀', '👍🏽', '👨‍👩‍👧‍👦', '🏳️‍🌈', '🇫🇷', '❤️', '🧑‍💻', 'é', 'ñ', '\u0301', '漢字', 'שלום', 'مرحبا', '𝕏', 'ㅋㅋ'];
const MARKUP = ['<b>bold</b>', '<img src=x onerror=alert(1)>', '</div><script>alert(1)</script>', '&amp;', '&lt;b&gt;', '"\'`', '<!--', ']]>', '${x}', '{{x}}', '<svg/onload=alert(1)>'];
/** C0 controls other than NUL, CR and LF (an IRC line cannot hold those), and DEL. */
const CONTROLS = ['\u0001', '\u0002', '\u0007', '\t', '\u000b', '\u000c', '\u001b', '\u001f', '\u007f', '\u0085'];
const WORDS = ['Kappa', 'PogChamp', 'hello', 'LUL', 'a', 'gg', '!skin', '!style', '@alice', 'http://x.y/z', ':', '::', '\\', '\\s', ' '];

/** One piece of chat text. */
const textPiece = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...WORDS) },
  { weight: 3, arbitrary: fc.constantFrom(' ', '  ', '\u00a0', '\u3000') },
  { weight: 2, arbitrary: fc.constantFrom(...EMOJI) },
  { weight: 1, arbitrary: fc.constantFrom(...INVISIBLES) },
  { weight: 1, arbitrary: fc.constantFrom(...MARKUP) },
  { weight: 1, arbitrary: fc.constantFrom(...CONTROLS) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 6 }).map(withoutLineBreaks) },
);

/** An IRC line cannot carry these (a NUL ends the line for many servers; CR and LF end it). */
function withoutLineBreaks(text: string): string {
  return text.replace(/[\r\n\0]/g, '');
}

/** Chat text as a chatter types it, 0 to some hundreds of characters, sometimes only spaces, sometimes far past 500. */
export const chatText: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.array(textPiece, { maxLength: 25 }).map((pieces) => pieces.join(' ')) },
  { weight: 1, arbitrary: fc.constantFrom('', ' ', '   ', '\t', '\u3000', '\u200b') },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom('a', '😀', 'Kappa ', '👨‍👩‍👧‍👦', '<b>'), fc.integer({ min: 100, max: 700 })).map(([piece, n]) => piece.repeat(n)) },
);

/** A PRIVMSG's trailing text: the chat text, sometimes as a /me line, sometimes a malformed one. */
export const privmsgText: fc.Arbitrary<string> = fc.oneof(
  { weight: 5, arbitrary: chatText },
  {
    weight: 2,
    arbitrary: fc.tuple(fc.constantFrom(
      (t: string) => `\u0001ACTION ${t}\u0001`,
      (t: string) => `\u0001ACTION ${t}`,
      (t: string) => `\u0001ACTION\u0001`,
      (t: string) => `\u0001ACTION \u0001`,
      (t: string) => `\u0001action ${t}\u0001`,
      (t: string) => `${t}\u0001ACTION ${t}\u0001`,
      (t: string) => `\u0001ACTION ${t}\u0001${t}\u0001`,
      (t: string) => `\u0001\u0001`,
      (t: string) => `\u0001VERSION\u0001`,
    ), chatText).map(([wrap, text]) => wrap(text)),
  },
);

/** Wire form of a tag value: escapes per IRCv3, with now and then a malformed one. */
function wireValue(pieces: fc.Arbitrary<string>, maxLength = 12): fc.Arbitrary<string> {
  return fc.array(fc.oneof(
    { weight: 8, arbitrary: pieces.map(escapeValue) },
    { weight: 1, arbitrary: fc.constantFrom('\\s', '\\:', '\\\\', '\\n', '\\r', '\\x', '\\') },
  ), { maxLength }).map((parts) => parts.join(''));
}

function escapeValue(value: string): string {
  return withoutLineBreaks(value).replace(/[\\; ]/g, (ch) => (ch === '\\' ? '\\\\' : ch === ';' ? '\\:' : '\\s'));
}

/** The `emotes` tag: well-formed ranges in or out of the text, overlapping, reversed, garbage, thousands. */
const emoteRange = fc.oneof(
  { weight: 6, arbitrary: fc.tuple(fc.nat(30), fc.nat(8)).map(([start, length]) => `${start}-${start + length}`) },
  { weight: 2, arbitrary: fc.tuple(fc.nat(800), fc.nat(800)).map(([start, end]) => `${start}-${end}`) },
  { weight: 1, arbitrary: fc.constantFrom('', '-', '5', '5-', '-5', '3-1', 'a-b', '1-2-3', '00-01', '9999999-9999999', '1.5-2', '٣-٤', '0x1-0x2', ' 1-2', '1e1-2e1') },
);
const emoteId = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('25', '1902', '88', 'emotesv2_0123456789abcdef', '300354391') },
  { weight: 1, arbitrary: fc.constantFrom('', '../x', 'a b', '<img>', '25?x=1', '%2F', 'ï', '_-') },
);
const emoteEntry = fc.tuple(emoteId, fc.array(emoteRange, { minLength: 1, maxLength: 6 }), fc.boolean())
  .map(([id, ranges, colon]) => (colon ? `${id}:${ranges.join(',')}` : `${id}${ranges.join(',')}`));
export const emotesTag: fc.Arbitrary<string> = fc.oneof(
  { weight: 2, arbitrary: fc.constant('') },
  { weight: 6, arbitrary: fc.array(emoteEntry, { minLength: 1, maxLength: 5 }).map((entries) => entries.join('/')) },
  { weight: 1, arbitrary: fc.string({ unit: fc.constantFrom('0', '1', '2', '9', ':', '-', ',', '/', 'a') as fc.Arbitrary<string>, maxLength: 40 }) },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.integer({ min: 1000, max: 4000 }), fc.nat(3)).map(([count, step]) =>
      `25:${Array.from({ length: count }, (_, i) => `${i * step}-${i * step + step}`).join(',')}`),
  },
).map(escapeValue);

/** `badges` / `badge-info`: known and unknown sets, empty or malformed entries, escaped values. */
const badgeSet = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom('moderator', 'subscriber', 'vip', 'broadcaster', 'bits', 'founder', 'partner', 'turbo', 'premium', 'sub-gifter', 'glhf-pledge', 'no_audio', 'twitch-recap-2024') },
  { weight: 2, arbitrary: fc.constantFrom('', 'x', 'unknown-set-42', '<b>', 'a b', 'a;b', 'a\\b', 'ü', '😀', '__proto__', 'constructor', 'toString', 'hasOwnProperty') },
);
const badgeVersion = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom('1', '0', '12', '3000', '100000') },
  { weight: 2, arbitrary: fc.constantFrom('', '-1', 'abc', '1/2', 'a b', 'x;y', '\\', '<i>') },
);
const badgeEntry = fc.oneof(
  { weight: 6, arbitrary: fc.tuple(badgeSet, badgeVersion).map(([set, version]) => `${set}/${version}`) },
  { weight: 1, arbitrary: fc.tuple(badgeSet, fc.constantFrom('', '/', '//', '/1/2')).map(([set, tail]) => `${set}${tail}`) },
);
export const badgesTag: fc.Arbitrary<string> = fc.array(badgeEntry, { maxLength: 6 })
  .map((entries) => escapeValue(entries.join(',')))
  .chain((value) => fc.oneof({ weight: 5, arbitrary: fc.constant(value) }, { weight: 1, arbitrary: wireValue(fc.constantFrom('moderator/1', ',', '/', 'a')) }));

/**
 * Values tmi.js (1.8) turns into true and false whatever the tag: a text tag holding one of them
 * must still be read as that text.
 */
export const ONE_OR_ZERO = fc.constantFrom('1', '0');

/** `display-name`: the login's case, a localized name, spaces, escapes, direction and zero-width characters, "1" or "0". */
export const displayNameTag: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 8,
    arbitrary: wireValue(fc.oneof(
      { weight: 5, arbitrary: fc.constantFrom('Alice', 'alice', 'ALICE_99', 'Bob', '小明', 'Ünal', 'שרה', 'أحمد', 'x') },
      { weight: 2, arbitrary: fc.constantFrom(...INVISIBLES) },
      { weight: 1, arbitrary: fc.constantFrom(' ', '\u00a0', '<b>Mod</b>', '&amp;', '😀', '\u0301', 'a'.repeat(120)) },
    ), 6),
  },
  { weight: 1, arbitrary: ONE_OR_ZERO },
);

export const colorTag: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('', '#1E90FF', '#ff0000', '#000000') },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 0xffffff }).map((n) => `#${n.toString(16).padStart(6, '0').toUpperCase()}`) },
  { weight: 2, arbitrary: fc.constantFrom('red', '#12345', '#1234567', '#GGGGGG', '1E90FF', 'rgb(1,2,3)', 'url(x)', '#fff', 'expression(alert(1))', '#1E90FF\\s', '\\:') },
);

export const userIdTag: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 6, arbitrary: fc.bigInt({ min: 1n, max: 10n ** 12n }).map(String) },
  { weight: 1, arbitrary: ONE_OR_ZERO },
  { weight: 2, arbitrary: fc.constantFrom(undefined, '', 'abc', '-5', '1e5', '12.5', ' 42', '٤٢', '9'.repeat(40), '00012') },
);

export const tmiSentTsTag: fc.Arbitrary<string | undefined> = fc.oneof(
  fc.constant(String(1_700_000_000_000)),
  fc.constantFrom(undefined, '', 'abc', '-1', '1e400', '99999999999999999999', '0', 'NaN'),
);

export const messageIdTag: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 6, arbitrary: fc.uuid() },
  { weight: 1, arbitrary: ONE_OR_ZERO },
  { weight: 1, arbitrary: fc.constantFrom(undefined, '', 'x', '<b>', '\\s') },
);

/** The chatter's login as the line's prefix names it (`nick!nick@nick.tmi.twitch.tv`). */
export const loginPrefix: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.stringMatching(/^[a-z0-9_]{1,25}$/) },
  { weight: 1, arbitrary: fc.constantFrom('Alice', 'ALICE', 'a-b', 'a.b', 'é', 'x'.repeat(30), '0', '1', '_', 'jtv') },
);

export interface PrivmsgLine {
  /** The tags in wire form (escaped); undefined: the tag is left out. */
  tags: Record<string, string | undefined>;
  login: string;
  channel: string;
  text: string;
}

/** A user's PRIVMSG to `channel`, with Twitch's tags fuzzed. */
export function privmsgLine(channel: string): fc.Arbitrary<PrivmsgLine> {
  return fc.record({
    tags: fc.record({
      'badge-info': fc.oneof(fc.constant(undefined), badgesTag),
      badges: fc.oneof(fc.constant(undefined), badgesTag),
      color: colorTag,
      'display-name': fc.oneof(fc.constant(undefined), displayNameTag),
      emotes: emotesTag,
      'first-msg': fc.constantFrom('0', '1', ''),
      id: messageIdTag,
      mod: fc.constantFrom('0', '1', 'x'),
      'room-id': fc.constantFrom('40286300', '', 'x', '1', '0'),
      subscriber: fc.constantFrom('0', '1'),
      'tmi-sent-ts': tmiSentTsTag,
      'user-id': userIdTag,
      'user-type': fc.constantFrom('', 'mod', 'staff'),
    }),
    login: loginPrefix,
    channel: fc.constant(channel),
    text: privmsgText,
  });
}

/** The line as Twitch would write it (without CRLF). */
export function formatPrivmsg({ tags, login, channel, text }: PrivmsgLine): string {
  const tagText = Object.entries(tags).filter((entry): entry is [string, string] => entry[1] !== undefined).map(([key, value]) => `${key}=${value}`).join(';');
  return `${tagText === '' ? '' : `@${tagText} `}:${login}!${login}@${login}.tmi.twitch.tv PRIVMSG #${channel} :${text}`;
}

/**
 * Moderation and other lines as a buggy Twitch day may send them: CLEARCHAT and CLEARMSG with
 * their target ids or params missing, lines without a text, commands without a channel.
 */
export function oddLine(channel: string): fc.Arbitrary<string> {
  const msgId = fc.oneof(fc.uuid(), ONE_OR_ZERO, fc.constantFrom('', 'x', '\\s'));
  const userId = fc.oneof(fc.bigInt({ min: 1n, max: 10n ** 10n }).map(String), ONE_OR_ZERO, fc.constantFrom('', 'abc'));
  return fc.oneof(
    msgId.map((id) => `@login=alice;target-msg-id=${id};tmi-sent-ts=1 :tmi.twitch.tv CLEARMSG #${channel} :gone`),
    fc.constant(`@login=alice;tmi-sent-ts=1 :tmi.twitch.tv CLEARMSG #${channel} :gone`),
    fc.constant(`@login=alice :tmi.twitch.tv CLEARMSG #${channel}`),
    fc.constant(`:tmi.twitch.tv CLEARMSG #${channel}`),
    fc.constant(':tmi.twitch.tv CLEARMSG'),
    userId.map((id) => `@ban-duration=600;target-user-id=${id} :tmi.twitch.tv CLEARCHAT #${channel} :alice`),
    userId.map((id) => `@target-user-id=${id} :tmi.twitch.tv CLEARCHAT #${channel} :alice`),
    fc.constant(`@ban-duration=600 :tmi.twitch.tv CLEARCHAT #${channel} :alice`),
    fc.constant(`@ban-duration=abc;target-user-id= :tmi.twitch.tv CLEARCHAT #${channel} :alice`),
    fc.constant(`:tmi.twitch.tv CLEARCHAT #${channel}`),
    fc.constant(':tmi.twitch.tv CLEARCHAT'),
    fc.constant(`@id=x;user-id=5 :alice!alice@alice.tmi.twitch.tv PRIVMSG #${channel}`),
    fc.constant(`@bits=100;id=x;user-id=5 :alice!alice@alice.tmi.twitch.tv PRIVMSG #${channel}`),
    fc.constant(':alice!alice@alice.tmi.twitch.tv PRIVMSG'),
    fc.constant(`:jtv!jtv@jtv.tmi.twitch.tv PRIVMSG #${channel}`),
    fc.constant(`@msg-id=slow_on :tmi.twitch.tv NOTICE #${channel}`),
    fc.constant(`:tmi.twitch.tv NOTICE #${channel}`),
    fc.constant(':tmi.twitch.tv NOTICE'),
    fc.constant(`@msg-id=sub :tmi.twitch.tv USERNOTICE #${channel}`),
    fc.constant(`:tmi.twitch.tv USERSTATE`),
    fc.constant(`@slow=abc :tmi.twitch.tv ROOMSTATE #${channel}`),
    fc.constant(`@slow= :tmi.twitch.tv ROOMSTATE`),
    fc.constant(`@ :tmi.twitch.tv PRIVMSG #${channel} :x`),
    fc.constant(`@a=b`),
    fc.constant(`:tmi.twitch.tv`),
  );
}
