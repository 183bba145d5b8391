// Which text of a chat line the commands read (src/host/command-line.ts): a reply's leading
// mention of the chatter it answers is skipped, invisible characters in and around it too.
import { describe, expect, it } from 'vitest';
import { commandTextOf } from '../../src/host/command-line.ts';
import { chatTags } from './irc-tags.ts';

const replyToAnn = chatTags('streamer', { 'reply-parent-display-name': 'Ann', 'reply-parent-user-login': 'ann' });

describe('the reply mention', () => {
  it('is skipped, so the reply carries the command', () => {
    expect(commandTextOf('@ann !roll', replyToAnn)).toBe('!roll');
    expect(commandTextOf('@Ann  !roll 6', replyToAnn)).toBe('!roll 6');
  });

  // Found by command-routing-properties.test.ts: "\u200B@ann !roll" in a reply to Ann ran nothing.
  it('is skipped with invisible characters before, inside or after it (docs: ignored wherever they are)', () => {
    expect(commandTextOf('\u200B@ann !roll', replyToAnn)).toBe('!roll');
    expect(commandTextOf('@a\u2060nn !roll', replyToAnn)).toBe('!roll');
    expect(commandTextOf('@ann\u{E0000} !roll', replyToAnn)).toBe('!roll');
    expect(commandTextOf('@ann \u034F!roll', replyToAnn)).toBe('!roll');
  });

  it('of anyone else, or of a longer name, is kept (no command)', () => {
    expect(commandTextOf('\u200B@bob !roll', replyToAnn)).toBe('\u200B@bob !roll');
    expect(commandTextOf('@ann\u200Bie !roll', replyToAnn)).toBe('@ann\u200Bie !roll');
    expect(commandTextOf('@ann !roll', chatTags('streamer'))).toBe('@ann !roll');
  });
});
