import { describe, expect, it } from 'vitest';
import { parseLocalChatLine } from '../../../src/adapters/local-chat/local-chat-line.ts';
import { resolveLocalChatter } from '../../../src/adapters/local-chat/local-chat-chatter.ts';

describe('local chat line syntax', () => {
  it.each([
    ['hello chat', { text: 'hello chat', login: null, role: null }],
    ['/mod !style bubble.width 300', { text: '!style bubble.width 300', login: null, role: 'moderator' }],
    ['/moderator hi', { text: 'hi', login: null, role: 'moderator' }],
    ['/VIP hi', { text: 'hi', login: null, role: 'vip' }],
    ['/sub hi', { text: 'hi', login: null, role: 'subscriber' }],
    ['/broadcaster !skin neon', { text: '!skin neon', login: null, role: 'broadcaster' }],
    ['/streamer hi', { text: 'hi', login: null, role: 'broadcaster' }],
    ['/viewer hi', { text: 'hi', login: null, role: 'everyone' }],
    ['/as Alice hello', { text: 'hello', login: 'alice', role: null }],
    ['/as alice /vip hi', { text: 'hi', login: 'alice', role: 'vip' }],
    ['/mod /as bob   hi  there ', { text: 'hi  there', login: 'bob', role: 'moderator' }],
    ['//slash at the start', { text: '/slash at the start', login: null, role: null }],
    ['/mod //shrug', { text: '/shrug', login: null, role: 'moderator' }],
    ['  tabs\tand\r\nbreaks  ', { text: 'tabs and breaks', login: null, role: null }],
    ['/me waves', { text: 'waves', login: null, role: null, action: true }],
    ['/as alice /vip /ME !skin neon', { text: '!skin neon', login: 'alice', role: 'vip', action: true }],
    ['/me /mod hi', { text: '/mod hi', login: null, role: null, action: true }],
  ])('%j', (line, expected) => {
    expect(parseLocalChatLine(line)).toEqual({ kind: 'message', ...expected });
  });

  it.each([
    ['/redeem unlock-neon', { rewardKey: 'unlock-neon', input: '', login: null, role: null }],
    ['/as alice /REDEEM song:request  Never Gonna ', { rewardKey: 'song:request', input: 'Never Gonna', login: 'alice', role: null }],
  ])('%j is a redemption', (line, expected) => {
    expect(parseLocalChatLine(line)).toEqual({ kind: 'redeem', ...expected });
  });

  it('asks for nothing on an empty line and shows the syntax for /help', () => {
    expect(parseLocalChatLine('   ')).toEqual({ kind: 'empty' });
    expect(parseLocalChatLine('/help')).toEqual({ kind: 'help' });
    expect(parseLocalChatLine('/?')).toEqual({ kind: 'help' });
  });

  it.each([
    ['/as', '/as needs a login'],
    ['/as /mod hi', '/as needs a login'],
    ['/as bad-login! hi', 'a login is 1 to 25 letters'],
    ['/as a /as b hi', 'one /as per line'],
    ['/mod /vip hi', 'one role prefix per line'],
    ['/ban troll', 'unknown prefix /ban'],
    ['/mod', 'nothing to say after the prefixes'],
    ['/me ', 'nothing to say after /me'],
    ['/redeem', '/redeem needs a reward key'],
    ['/redeem -bad', 'a reward key is 1 to 100 letters'],
  ])('refuses %j with a message that says why', (line, message) => {
    const parsed = parseLocalChatLine(line);
    expect(parsed.kind).toBe('error');
    expect(parsed.kind === 'error' ? parsed.message : '').toContain(message);
  });

  it('an unknown prefix is told every prefix there is, /redeem included', () => {
    const parsed = parseLocalChatLine('/redeme unlock-neon');
    expect(parsed.kind === 'error' ? parsed.message : '').toMatch(/^unknown prefix \/redeme: use .*\/redeem KEY/);
  });

  it('refuses a line over 500 characters, as Twitch would', () => {
    expect(parseLocalChatLine(`/mod ${'y'.repeat(500)}`)).toMatchObject({ kind: 'message' });
    expect(parseLocalChatLine('y'.repeat(501))).toEqual({ kind: 'error', message: 'a chat line is at most 500 characters; this one has 501' });
  });
});

describe('who speaks a local line', () => {
  const resolve = (login: string | null, role: Parameters<typeof resolveLocalChatter>[0]['role']) =>
    resolveLocalChatter({ login, role }, 'streamer', 'you');

  it('is the local user as a viewer by default, with the role asked for', () => {
    expect(resolve(null, null)).toEqual({ ok: true, chatter: { login: 'you', role: 'everyone' } });
    expect(resolve(null, 'moderator')).toEqual({ ok: true, chatter: { login: 'you', role: 'moderator' } });
    expect(resolve('Alice', 'vip')).toEqual({ ok: true, chatter: { login: 'alice', role: 'vip' } });
  });

  it("makes the broadcaster always the channel's login, and the channel's login always the broadcaster", () => {
    expect(resolve(null, 'broadcaster')).toEqual({ ok: true, chatter: { login: 'streamer', role: 'broadcaster' } });
    expect(resolve('streamer', null)).toEqual({ ok: true, chatter: { login: 'streamer', role: 'broadcaster' } });
    expect(resolve('alice', 'broadcaster')).toEqual({ ok: false, field: 'login', message: 'the broadcaster of #streamer is streamer, not alice' });
    expect(resolve('streamer', 'moderator')).toMatchObject({ ok: false, field: 'role' });
    expect(resolve('no spaces please', null)).toMatchObject({ ok: false, field: 'login' });
  });
});
