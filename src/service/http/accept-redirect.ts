// The Accept compatibility rule (DESIGN.md): a request whose Accept header does not put a JSON
// type first gets its error responses as 302 redirects, the way a browser-facing web app
// answers; 401 goes to /login, anything else back to the Referer or to /.

/** True when the most preferred media range of `accept` is a JSON type (`* /json` or `+json`). */
export function acceptsJsonFirst(accept: string | undefined): boolean {
  if (!accept) return false;
  let best: string | undefined;
  let bestQuality = -1;
  // Highest quality wins; among equals the first listed one (a stable order, as Symfony does).
  for (const part of accept.split(',')) {
    const [rawType = '', ...params] = part.split(';');
    const type = rawType.trim().toLowerCase();
    if (type === '') continue;
    let quality = 1;
    for (const param of params) {
      const [name, value] = param.split('=');
      if (name?.trim().toLowerCase() === 'q' && value !== undefined) {
        const q = Number(value.trim());
        quality = Number.isFinite(q) ? q : 0;
      }
    }
    if (quality > bestQuality) {
      best = type;
      bestQuality = quality;
    }
  }
  if (best === undefined || bestQuality <= 0) return false;
  return best.endsWith('/json') || best.endsWith('+json');
}

const SAFE_LOCATION = /^[\x21-\x7e]+$/;
/**
 * A web page: an http(s) address, or a path on this host (not `//host`, which names another host,
 * nor `/\\host`, which browsers read the same way).
 */
const WEB_PAGE = /^(?:https?:\/\/|\/(?![\/\\]))/i;

/** Where an error of `status` redirects to. */
export function redirectLocation(status: number, referer: string | undefined): string {
  if (status === 401) return '/login';
  // Only a plain header value naming a web page is echoed back; anything else falls back to the root.
  if (referer && referer.length <= 2048 && SAFE_LOCATION.test(referer) && WEB_PAGE.test(referer)) return referer;
  return '/';
}
