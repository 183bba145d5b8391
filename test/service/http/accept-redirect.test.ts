import { describe, expect, it } from 'vitest';
import { acceptsJsonFirst, redirectLocation } from '../../../src/service/http/accept-redirect.ts';

describe('acceptsJsonFirst', () => {
  it.each([
    ['application/json', true],
    ['application/json; charset=utf-8', true],
    ['Application/JSON', true],
    ['application/vnd.api+json', true],
    ['application/json, text/html', true],
    ['text/html;q=0.5, application/json', true],
    ['*/json', true],
  ])('%s puts JSON first', (accept, expected) => {
    expect(acceptsJsonFirst(accept)).toBe(expected);
  });

  it.each([
    [undefined],
    [''],
    ['*/*'],
    ['text/html'],
    ['text/html, application/json'],
    ['application/json;q=0.2, text/html'],
    ['application/json;q=0'],
    ['application/jsonp'],
  ])('%s does not', (accept) => {
    expect(acceptsJsonFirst(accept)).toBe(false);
  });
});

describe('redirectLocation', () => {
  it('sends 401 to /login whatever the referer', () => {
    expect(redirectLocation(401, 'https://tool.example/page')).toBe('/login');
  });
  it('sends other errors back to the referer', () => {
    expect(redirectLocation(422, 'https://tool.example/page?x=1')).toBe('https://tool.example/page?x=1');
  });
  it('falls back to / without a usable referer', () => {
    expect(redirectLocation(404, undefined)).toBe('/');
    expect(redirectLocation(404, 'has space')).toBe('/');
    expect(redirectLocation(404, `https://x/${'a'.repeat(3000)}`)).toBe('/');
  });

  it('goes back only to a web page (an http(s) address or a path), never to another scheme', () => {
    expect(redirectLocation(422, '/settings/overlay')).toBe('/settings/overlay');
    expect(redirectLocation(422, 'HTTP://tool.example/')).toBe('HTTP://tool.example/');
    for (const referer of ['javascript:alert(1)', 'data:text/html,hi', 'file:///etc/passwd', 'tool.example/page', '//tool.example/page', '/\\tool.example/page']) {
      expect(redirectLocation(422, referer)).toBe('/');
    }
  });
});
