// The API as a Fastify app: `buildApiApp` makes a server with the API and /healthz;
// `registerApi` puts the API (under its prefix, fully encapsulated) onto an existing server, so
// the overlay page and the push WebSocket can share one listening port.
//
// Order on every API request (DESIGN.md section 2): edge filter -> unknown route 404 / wrong
// method 405 -> authentication 401 (or 429 per address) -> premium 403 -> rate limit 429 ->
// body (413 / 422) -> route -> service.
import type { Server } from 'node:http';
import Fastify from 'fastify';
import type { FastifyBaseLogger, FastifyError, FastifyHttpOptions, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createAuthenticationHook } from './authentication.ts';
import { createClientErrorHandler } from './client-errors.ts';
import { createEdgeFilterHook } from './edge-filter.ts';
import { createApiErrorHandler } from './error-handler.ts';
import { createErrorResponder, MESSAGES } from './error-response.ts';
import { FixedWindowLimiter } from './fixed-window-limiter.ts';
import { registerJsonBodyParsers } from './json-body.ts';
import type { ApiAppOptions, ApiOptions, ResolvedApiOptions } from './options.ts';
import { DEFAULT_PREFIX, MAX_PATH_PARAM_LENGTH, resolveApiOptions } from './options.ts';
import { createPremiumHook } from './premium.ts';
import { createRateLimitHook } from './rate-limit.ts';
import { registerHealthz } from './routes/healthz.ts';
import { closeConnectionsWithUnreadBodies } from './unread-bodies.ts';
import { refuseRequestsWhileClosing } from './closing-refusal.ts';
import { registerSkinRoutes } from './routes/skins.ts';
import { registerTemplateRoutes } from './routes/template.ts';
import { registerViewerRoutes } from './routes/viewers.ts';
import { collectRoutes, registerMethodNotAllowed, registerNotFound } from './unknown-routes.ts';

const WINDOW_MS = 60_000;

async function apiPlugin(api: FastifyInstance, options: ResolvedApiOptions): Promise<void> {
  const responder = createErrorResponder(options.redirectErrors);
  const requestLimiter = new FixedWindowLimiter({ limit: options.perMinute, windowMs: WINDOW_MS, now: options.now });
  const failedAuthLimiter = new FixedWindowLimiter({
    limit: options.failedAuthPerMinute, windowMs: WINDOW_MS, now: options.now, maxKeys: options.maxTrackedAddresses,
  });

  api.decorateRequest('account', null);
  api.decorateRequest('rateLimitKey', null);
  api.setErrorHandler(createApiErrorHandler(responder, options.bodyLimitBytes));
  registerJsonBodyParsers(api, options.bodyLimitBytes);
  api.addHook('onRequest', createEdgeFilterHook(options.blockedAgents));
  registerNotFound(api, responder);

  const routes = collectRoutes(api);
  await api.register(async (authenticated) => {
    authenticated.addHook('onRequest', createAuthenticationHook({
      authenticate: options.authenticate, failedAuthLimiter, responder, now: options.now,
    }));
    authenticated.addHook('onRequest', createPremiumHook(requestLimiter, responder));
    authenticated.addHook('onRequest', createRateLimitHook(requestLimiter, responder, options.now));
    registerTemplateRoutes(authenticated, options.operations);
    registerSkinRoutes(authenticated, options.operations);
    registerViewerRoutes(authenticated, options.operations);
  });
  registerMethodNotAllowed(api, routes, responder);
}

/**
 * Registers the API under `options.prefix` (default /api/v1) onto `app`, the server's root
 * instance: the server-wide rule for answers sent before their body arrived comes with it.
 */
export function registerApi(app: FastifyInstance, options: ApiOptions): void {
  const resolved = resolveApiOptions(options);
  closeConnectionsWithUnreadBodies(app);
  refuseRequestsWhileClosing(app, inApiPrefix(resolved.prefix), resolved.redirectErrors);
  app.register(apiPlugin, { ...resolved, prefix: resolved.prefix });
}

/** Whether a request URL is under the API prefix (where the Accept redirect rule applies). */
function inApiPrefix(apiPrefix: string): (url: string) => boolean {
  return (url) => apiPrefix === '' || url === apiPrefix || url.startsWith(`${apiPrefix}/`) || url.startsWith(`${apiPrefix}?`);
}

/**
 * Errors the router raises before any route or hook runs (a malformed %-escape, an overlong
 * path parameter): no such resource can exist, so 404 in the API's envelope, never a bare 400.
 * The Accept redirect is the API's rule: the server's other paths (the overlay, the local chat)
 * get the 404 as it is.
 */
export function createFrameworkErrorHandler(redirectErrors = true, apiPrefix = DEFAULT_PREFIX) {
  const api = createErrorResponder(redirectErrors);
  const other = createErrorResponder(false);
  const inApi = inApiPrefix(apiPrefix);
  return function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
    const responder = inApi(request.url) ? api : other;
    if (error.code === 'FST_ERR_BAD_URL' || error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
      return responder.send(request, reply, 404, { message: MESSAGES.notFound });
    }
    request.log.error({ err: error }, 'router error');
    return responder.send(request, reply, 500, { message: MESSAGES.serverError });
  };
}

/** A child of `logger` that never writes an Authorization header. */
export function redactingLogger(logger: FastifyBaseLogger): FastifyBaseLogger {
  return logger.child({}, {
    redact: {
      paths: ['req.headers.authorization', 'request.headers.authorization', 'headers.authorization', 'authorization'],
      censor: '[redacted]',
    },
  });
}

/** How long a client may take to send one whole request (headers and body). */
export const REQUEST_TIMEOUT_MS = 30_000;

/** Server options the API expects from the Fastify instance it is registered on. */
export function apiServerOptions(
  options: Pick<ApiAppOptions, 'logger' | 'trustProxy' | 'redirectErrors' | 'prefix' | 'requestTimeoutMs'>,
): FastifyHttpOptions<Server> {
  const logger = options.logger ?? false;
  const requestTimeoutMs = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  return {
    ...(logger === false ? { logger: false } : { loggerInstance: redactingLogger(logger) }),
    // Fastify wants a mutable list.
    trustProxy: typeof options.trustProxy === 'object' ? [...options.trustProxy] : options.trustProxy ?? false,
    // A request must arrive whole within this: a client trickling its body (or never sending it)
    // would otherwise hold its connection, and a graceful stop, forever (Fastify's default is none).
    requestTimeout: requestTimeoutMs,
    // Node checks those deadlines every connectionsCheckingInterval (30 s by default, which let a
    // trickled request live past 70 s), and headers must be in before the whole request is.
    http: { headersTimeout: requestTimeoutMs, connectionsCheckingInterval: Math.min(5_000, Math.ceil(requestTimeoutMs / 4)) },
    routerOptions: { maxParamLength: MAX_PATH_PARAM_LENGTH },
    // A request arriving while the server closes gets the API's 503 (closing-refusal.ts).
    return503OnClosing: false,
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    frameworkErrors: createFrameworkErrorHandler(options.redirectErrors ?? true, options.prefix ?? DEFAULT_PREFIX),
    clientErrorHandler: createClientErrorHandler(requestTimeoutMs),
  };
}

/** A Fastify server with the API under its prefix and GET /healthz; call `listen` to serve. */
export function buildApiApp(options: ApiAppOptions): FastifyInstance {
  const app = Fastify(apiServerOptions(options));
  registerHealthz(app);
  registerApi(app, options);
  return app;
}
