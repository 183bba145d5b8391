// HTTP routes of the overlay page: GET /overlay/<token> (the page, or a 404 page for an unknown
// token, which reloads itself once the token names an overlay; any other address under /overlay/
// gets the 404 page too, without that) and GET /overlay-assets/* (animate.css, overlay.css and
// the type-stripped modules of both pages). Everything is read and
// stripped once, when the routes are registered.
//
// The page names the build of its code (a hash of those files) in a meta tag, and the server in
// the page's X-Chatskin-Build header: an open page (OBS keeps a browser source open for days)
// that reconnects to a chatskin whose page code changed reloads itself instead of running its
// old code against the new server.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { NOT_FOUND_ENTRY, OVERLAY_ENTRY, buildBrowserModuleGraph } from './browser-modules.ts';
import { ASSET_PREFIX, OVERLAY_PAGE_CSP, overlayPageHtml, unknownOverlayHtml } from './page.ts';

export interface OverlayRoutesOptions {
  /** The overlay a page token names, or null/undefined for an unknown token. */
  findOverlayByToken(token: string): unknown;
  /** What identifies the page's code, asked at each page request; default a hash of its files (tests change it). */
  pageBuild?: () => string;
}

/** The header an open page reads, when it reconnects, to tell whether the server's page code changed. */
export const PAGE_BUILD_HEADER = 'X-Chatskin-Build';

/** A hash of the page's files, in a fixed order: the same code gives the same build. */
export function pageBuildOf(assets: ReadonlyMap<string, Asset>): string {
  const hash = createHash('sha256');
  for (const name of [...assets.keys()].sort()) hash.update(name).update('\0').update(assets.get(name)!.body).update('\0');
  return hash.digest('hex').slice(0, 16);
}

interface Asset {
  body: string;
  contentType: string;
}

const TOKEN = /^[A-Za-z0-9_-]{1,200}$/;
/** `<token>/`: the page's address with a trailing slash. */
const TRAILING_SLASH = /^([A-Za-z0-9_-]{1,200})\/$/;

export function loadOverlayAssets(): ReadonlyMap<string, Asset> {
  const require = createRequire(import.meta.url);
  const assets = new Map<string, Asset>();
  const css = 'text/css; charset=utf-8';
  assets.set('animate.css', { body: readFileSync(require.resolve('animate.css/animate.css'), 'utf8'), contentType: css });
  assets.set('overlay.css', { body: readFileSync(path.join(import.meta.dirname, 'assets/overlay.css'), 'utf8'), contentType: css });
  for (const entry of [OVERLAY_ENTRY, NOT_FOUND_ENTRY]) {
    for (const module of buildBrowserModuleGraph(entry).values()) {
      assets.set(module.path, { body: module.javascript, contentType: 'text/javascript; charset=utf-8' });
    }
  }
  return assets;
}

export function registerOverlayRoutes(app: FastifyInstance, options: OverlayRoutesOptions): void {
  const assets = loadOverlayAssets();
  const build = pageBuildOf(assets);
  const pageBuild = options.pageBuild ?? (() => build);
  const unknown = unknownOverlayHtml({ recheck: false });
  // A token-shaped address may name an overlay later (a database restored): its page checks.
  const unknownToken = unknownOverlayHtml({ recheck: true });

  app.get<{ Params: { token: string } }>('/overlay/:token', async (request, reply) => {
    const { token } = request.params;
    const tokenShaped = TOKEN.test(token);
    const overlay = tokenShaped ? await options.findOverlayByToken(token) : null;
    pageHeaders(reply);
    if (overlay == null) return reply.code(404).type('text/html; charset=utf-8').send(tokenShaped ? unknownToken : unknown);
    const current = pageBuild();
    return reply.header(PAGE_BUILD_HEADER, current).type('text/html; charset=utf-8').send(overlayPageHtml(current));
  });

  // Anything else under /overlay/ is what a streamer pasted wrong: the not-found page, never the
  // server's default 404, whose JSON repeats the address, token and all, on stream. A page address
  // pasted with a trailing slash is sent on to the page (relative, so behind a path prefix too).
  app.get<{ Params: { '*': string } }>('/overlay/*', async (request, reply) => {
    const slashed = TRAILING_SLASH.exec(request.params['*']);
    pageHeaders(reply);
    if (slashed !== null) {
      const query = request.url.indexOf('?');
      return reply.redirect(`../${slashed[1]}${query === -1 ? '' : request.url.slice(query)}`, 302);
    }
    return reply.code(404).type('text/html; charset=utf-8').send(unknown);
  });

  app.get<{ Params: { '*': string } }>(`${ASSET_PREFIX}/*`, async (request, reply) => {
    const asset = assets.get(request.params['*']);
    reply.header('X-Content-Type-Options', 'nosniff').header('Cache-Control', 'no-cache');
    if (asset === undefined) return reply.code(404).type('text/plain; charset=utf-8').send('Not found.');
    return reply.type(asset.contentType).send(asset.body);
  });
}

function pageHeaders(reply: FastifyReply): void {
  reply
    .header('Content-Security-Policy', OVERLAY_PAGE_CSP)
    .header('Cache-Control', 'no-store')
    // The token is in the page's address: never send it on to emote, avatar or font hosts.
    .header('Referrer-Policy', 'no-referrer')
    .header('X-Content-Type-Options', 'nosniff');
}
