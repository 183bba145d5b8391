import { describe, expect, it } from 'vitest';
import { OwnLineEcho } from '../../../src/adapters/twitch-chat/own-line-echo.ts';

describe("pairing the bot's lines with Twitch's answers", () => {
  it('answers the oldest waiting line of that channel first', () => {
    const echo = new OwnLineEcho();
    echo.sent('a', 'first', 0);
    echo.sent('b', 'other channel', 0);
    echo.sent('a', 'second', 1);
    expect(echo.answered('a', 2)).toBe('first');
    expect(echo.answered('a', 2)).toBe('second');
    expect(echo.answered('a', 2)).toBeNull();
    expect(echo.answered('b', 2)).toBe('other channel');
  });

  it('lets unanswered lines expire, so a later answer is not paired with a stale line', () => {
    const echo = new OwnLineEcho(1_000);
    echo.sent('a', 'lost with the connection', 0);
    echo.sent('a', 'fresh', 1_500);
    expect(echo.answered('a', 2_000)).toBe('fresh');
    expect(echo.waiting('a')).toBe(0);
  });

  it('forgets everything when the connection goes', () => {
    const echo = new OwnLineEcho();
    echo.sent('a', 'x', 0);
    echo.clear();
    expect(echo.answered('a', 0)).toBeNull();
  });
});
