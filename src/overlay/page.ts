// The overlay page's HTML and the page for an unknown overlay address. The page is the same
// for every overlay: the client script reads its token from the address.
import { NOT_FOUND_ENTRY, OVERLAY_ENTRY } from './browser-modules.ts';
import { CLASSES } from './dom-classes.ts';

/** URL prefix of the page's static files and modules. */
export const ASSET_PREFIX = '/overlay-assets';
/**
 * The same prefix as the overlay page (`/overlay/<token>`) links it: relative, so the page also
 * loads behind a reverse proxy that serves chatskin under a path (overlay.publicUrl with a path).
 */
const PAGE_ASSET_PREFIX = `..${ASSET_PREFIX}`;

/**
 * The start of a page this server serves, up to its title: no referrer (the overlay's token is in
 * its address), and an empty icon of its own, so the browser asks for no /favicon.ico. `title` is
 * markup: escape what it holds.
 */
export function pageStart(title: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>${title}</title>
`;
}

/**
 * What both the page for an unknown address and an open overlay page whose address stopped naming
 * an overlay (its socket refused with 404, docs/overlay.md) say.
 */
const NOT_FOUND_MARKUP = `<h1>Overlay not found</h1>
<p>This overlay address is not known. Copy the current address with <code>chatskin overlays list LOGIN</code> and paste it into the browser source.</p>`;

/**
 * How that notice looks, on both pages: OBS draws a browser source over the scene with a
 * transparent background, so the notice brings its own, legible over any scene whatever the
 * settings say. Inline: the page for an unknown address is served at any depth under /overlay/,
 * where no relative link to the assets would hold.
 */
const NOTICE_STYLE = `<style>
.${CLASSES.notice} {
  position: fixed;
  top: 0;
  left: 0;
  right: 0;
  margin: 8px;
  padding: 8px 12px;
  border-radius: 6px;
  background: rgba(0, 0, 0, 0.8);
  color: #ffffff;
  font: 14px/1.4 sans-serif;
}
.${CLASSES.notice}[hidden] { display: none; }
.${CLASSES.notice} h1 { margin: 0 0 4px; font-size: 18px; }
.${CLASSES.notice} p { margin: 0; }
</style>
`;

/** `build`: what identifies the page's code (overlay-routes.ts), letters and digits. */
export function overlayPageHtml(build: string): string {
  return `${pageStart('chatskin overlay')}<meta name="chatskin-build" content="${build.replace(/[^A-Za-z0-9._-]/g, '')}">
<link rel="stylesheet" href="${PAGE_ASSET_PREFIX}/animate.css">
<link rel="stylesheet" href="${PAGE_ASSET_PREFIX}/overlay.css">
${NOTICE_STYLE}<style id="cs-settings"></style>
<script type="module" src="${PAGE_ASSET_PREFIX}/${OVERLAY_ENTRY}"></script>
</head>
<body data-status="loading">
<div class="${CLASSES.chat}"></div>
<div class="${CLASSES.notice}" role="alert" hidden>
${NOT_FOUND_MARKUP}
</div>
</body>
</html>
`;
}

/**
 * `recheck`: the page checks its own address now and then and reloads once it names an overlay
 * (client/not-found-recheck.ts). Only for `/overlay/<token>`, where its relative link to the
 * script holds and the address could name an overlay later; the script is a file of this server
 * (the CSP runs no inline script).
 */
export function unknownOverlayHtml(options: { recheck: boolean }): string {
  const script = options.recheck ? `<script type="module" src="${PAGE_ASSET_PREFIX}/${NOT_FOUND_ENTRY}"></script>\n` : '';
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Overlay not found</title>
${NOTICE_STYLE}${script}</head>
<body>
<div class="${CLASSES.notice}" role="alert">
${NOT_FOUND_MARKUP}
</div>
</body>
</html>
`;
}

/**
 * Content-Security-Policy of the page: scripts only from this server, so even markup that got
 * into the page could not run; images (emotes, avatars, badges) and fonts from anywhere, since
 * their bases are configurable.
 */
export const OVERLAY_PAGE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "connect-src 'self'",
  'img-src * data:',
  "style-src 'self' 'unsafe-inline' *",
  'font-src * data:',
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors *",
].join('; ');
