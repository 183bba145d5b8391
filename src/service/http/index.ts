// The HTTP layer's public surface.
export { apiServerOptions, buildApiApp, createFrameworkErrorHandler, redactingLogger, registerApi } from './app.ts';
export { closeServer } from './close-server.ts';
export { limitConnectionsPerAddress, trustedProxyMatcher } from './connections-per-address.ts';
export { registerHealthz } from './routes/healthz.ts';
export { DEFAULT_BLOCKED_AGENTS } from './options.ts';
export type { ApiAppOptions, ApiOptions, Authenticate, Clock, RateLimitOptions } from './options.ts';
