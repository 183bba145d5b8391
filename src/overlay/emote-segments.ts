// Twitch emotes placed into message text from the IRC `emotes` tag
// (`25:0-4,12-16/1902:6-10`: emote id, then inclusive start-end ranges). Twitch counts the
// positions in Unicode code points, not UTF-16 units, so an emoji before an emote does not
// shift it. Pure, shared by the page and the tests.

export type MessageSegment =
  | { type: 'text'; text: string }
  | { type: 'emote'; id: string; code: string };

export interface EmoteRange {
  id: string;
  /** First code point, inclusive. */
  start: number;
  /** Last code point, inclusive. */
  end: number;
}

const EMOTE_ID = /^[A-Za-z0-9_-]{1,100}$/;
const RANGE = /^(\d{1,6})-(\d{1,6})$/;

/**
 * The ranges of an `emotes` tag, sorted by start. Malformed entries are skipped, never thrown
 * over: chat text comes from anyone.
 */
export function parseEmotesTag(tag: string): EmoteRange[] {
  const ranges: EmoteRange[] = [];
  if (tag === '') return ranges;
  for (const entry of tag.split('/')) {
    const colon = entry.indexOf(':');
    if (colon <= 0) continue;
    const id = entry.slice(0, colon);
    if (!EMOTE_ID.test(id)) continue;
    for (const part of entry.slice(colon + 1).split(',')) {
      const match = RANGE.exec(part);
      if (match === null) continue;
      const start = Number(match[1]);
      const end = Number(match[2]);
      if (end >= start) ranges.push({ id, start, end });
    }
  }
  return ranges.sort((a, b) => a.start - b.start);
}

/**
 * The text split into text and emote segments. Ranges outside the text or overlapping an
 * earlier one are ignored; the emote's code (its alt text) is the text it replaces.
 */
export function emoteSegments(text: string, emotesTag: string): MessageSegment[] {
  const codePoints = Array.from(text);
  const segments: MessageSegment[] = [];
  let cursor = 0;
  const pushText = (until: number): void => {
    if (until > cursor) segments.push({ type: 'text', text: codePoints.slice(cursor, until).join('') });
  };
  for (const range of parseEmotesTag(emotesTag)) {
    if (range.start < cursor || range.end >= codePoints.length) continue;
    pushText(range.start);
    segments.push({ type: 'emote', id: range.id, code: codePoints.slice(range.start, range.end + 1).join('') });
    cursor = range.end + 1;
  }
  pushText(codePoints.length);
  return segments;
}

/** Image URL of an emote on the CDN: `<base>/<id>/default/dark/2.0` (Twitch's v2 layout). */
export function emoteImageUrl(baseUrl: string, id: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/${encodeURIComponent(id)}/default/dark/2.0`;
}
