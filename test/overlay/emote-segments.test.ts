import { describe, expect, it } from 'vitest';
import { emoteImageUrl, emoteSegments, parseEmotesTag } from '../../src/overlay/emote-segments.ts';

describe('parseEmotesTag', () => {
  it('reads ids and inclusive ranges, sorted by start', () => {
    expect(parseEmotesTag('25:0-4,12-16/1902:6-10')).toEqual([
      { id: '25', start: 0, end: 4 },
      { id: '1902', start: 6, end: 10 },
      { id: '25', start: 12, end: 16 },
    ]);
  });

  it('skips malformed entries instead of throwing', () => {
    expect(parseEmotesTag('')).toEqual([]);
    expect(parseEmotesTag('25:x-4,3-1,2-2/:0-1/bad id:0-1/emotesv2_ab12:5-6')).toEqual([
      { id: '25', start: 2, end: 2 },
      { id: 'emotesv2_ab12', start: 5, end: 6 },
    ]);
  });
});

describe('emoteSegments', () => {
  it('places emotes from the tag between text segments', () => {
    expect(emoteSegments('Kappa Keepo Kappa', '25:0-4,12-16/1902:6-10')).toEqual([
      { type: 'emote', id: '25', code: 'Kappa' },
      { type: 'text', text: ' ' },
      { type: 'emote', id: '1902', code: 'Keepo' },
      { type: 'text', text: ' ' },
      { type: 'emote', id: '25', code: 'Kappa' },
    ]);
  });

  it('counts code points, so an emoji before an emote does not shift it', () => {
    // '😀' is two UTF-16 units but one code point: Kappa starts at code point 2.
    expect(emoteSegments('😀 Kappa hi', '25:2-6')).toEqual([
      { type: 'text', text: '😀 ' },
      { type: 'emote', id: '25', code: 'Kappa' },
      { type: 'text', text: ' hi' },
    ]);
  });

  it('ignores ranges past the end of the text or overlapping an earlier emote', () => {
    expect(emoteSegments('Kappa', '25:0-4,3-6/1:2-3/2:10-12')).toEqual([{ type: 'emote', id: '25', code: 'Kappa' }]);
  });

  it('ignores a range that ends one past the last code point', () => {
    expect(emoteSegments('hi Kappa', '25:3-8')).toEqual([{ type: 'text', text: 'hi Kappa' }]);
    expect(emoteSegments('hi Kappa', '25:3-7')).toEqual([{ type: 'text', text: 'hi ' }, { type: 'emote', id: '25', code: 'Kappa' }]);
  });

  it('keeps markup as plain text segments', () => {
    expect(emoteSegments('<b>hi</b>', '')).toEqual([{ type: 'text', text: '<b>hi</b>' }]);
  });
});

describe('emoteImageUrl', () => {
  it('builds a v2 CDN address from a configurable base', () => {
    expect(emoteImageUrl('https://static-cdn.jtvnw.net/emoticons/v2/', '25')).toBe('https://static-cdn.jtvnw.net/emoticons/v2/25/default/dark/2.0');
    expect(emoteImageUrl('http://127.0.0.1:9/e', 'emotesv2_ab')).toBe('http://127.0.0.1:9/e/emotesv2_ab/default/dark/2.0');
  });
});
