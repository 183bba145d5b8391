// What the server says of this page's own address now (HEAD, never from a cache): whether it
// still names an overlay (main.ts when its socket cannot open, not-found-recheck.ts), and which
// build of the page code it serves (main.ts after a reconnect).
export function askOwnAddress(): Promise<Response> {
  return fetch(location.href, { method: 'HEAD', cache: 'no-store' });
}
