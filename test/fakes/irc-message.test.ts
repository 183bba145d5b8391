import { describe, expect, it } from 'vitest';
import { escapeTagValue, formatIrcLine, parseIrcLine, unescapeTagValue } from './irc-message.ts';

describe('IRC lines', () => {
  it('parses tags, prefix, command and a trailing param', () => {
    expect(parseIrcLine('@badges=moderator/1;display-name=A\\sB :nick!nick@nick.tmi.twitch.tv PRIVMSG #chan :hi :) there')).toEqual({
      tags: { badges: 'moderator/1', 'display-name': 'A B' },
      prefix: 'nick!nick@nick.tmi.twitch.tv',
      command: 'PRIVMSG',
      params: ['#chan', 'hi :) there'],
    });
  });

  it('parses bare commands, middle params, valueless tags and lowercase commands', () => {
    expect(parseIrcLine('PING')).toEqual({ tags: {}, prefix: null, command: 'PING', params: [] });
    expect(parseIrcLine('@flag;x= cap REQ :a b')).toEqual({ tags: { flag: '', x: '' }, prefix: null, command: 'CAP', params: ['REQ', 'a b'] });
    expect(parseIrcLine('JOIN #a,#b\r\n')?.params).toEqual(['#a,#b']);
  });

  it('returns null for blank and malformed lines', () => {
    expect(parseIrcLine('')).toBeNull();
    expect(parseIrcLine('@tagsonly')).toBeNull();
    expect(parseIrcLine(':prefixonly')).toBeNull();
  });

  it('escapes and unescapes every IRCv3 tag character', () => {
    const raw = 'a; b\\c\r\nd';
    expect(escapeTagValue(raw)).toBe('a\\:\\sb\\\\c\\r\\nd');
    expect(unescapeTagValue(escapeTagValue(raw))).toBe(raw);
    expect(unescapeTagValue('trailing\\')).toBe('trailing');
    expect(unescapeTagValue('\\x')).toBe('x');
  });

  it('formats the last param as trailing and can leave tags out', () => {
    const message = { tags: { 'system-msg': 'a; b' }, prefix: 'tmi.twitch.tv', command: 'USERNOTICE', params: ['#chan', 'hello'] };
    expect(formatIrcLine(message)).toBe('@system-msg=a\\:\\sb :tmi.twitch.tv USERNOTICE #chan :hello');
    expect(formatIrcLine(message, false)).toBe(':tmi.twitch.tv USERNOTICE #chan :hello');
    expect(parseIrcLine(formatIrcLine(message))).toEqual(message);
  });
});
