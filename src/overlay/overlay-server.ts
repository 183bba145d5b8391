// Everything the browser source needs on one Fastify server: the page and its assets, the push
// WebSocket, and (unless disabled) the loopback-only POST /local/chat.
import type { FastifyInstance } from 'fastify';
import { attachPushGateway } from '../service/push/attach-gateway.ts';
import { registerLocalChatRoute } from '../service/push/local-chat-route.ts';
import { createPushGateway } from '../service/push/push-gateway.ts';
import type { PushGateway, PushGatewayOptions } from '../service/push/push-gateway.ts';
import type { PushSource } from '../service/push/push-source.ts';
import { registerOverlayRoutes } from './overlay-routes.ts';

export interface OverlayServerOptions extends PushGatewayOptions {
  /** Serve POST /local/chat to loopback clients. Default true. */
  localChat?: boolean;
  /** What identifies the page's code (OverlayRoutesOptions.pageBuild); default a hash of it. */
  pageBuild?: () => string;
}

/** Registers the overlay page, assets, push socket and local chat; returns the gateway (for `pushChatEvent`). */
export function registerOverlayServer(app: FastifyInstance, source: PushSource, options: OverlayServerOptions = {}): PushGateway {
  const gateway = createPushGateway(source, { logger: app.log, ...options });
  const findOverlayByToken = (token: string) => source.findOverlayByToken(token);
  registerOverlayRoutes(app, { findOverlayByToken, pageBuild: options.pageBuild });
  attachPushGateway(app, gateway);
  if (options.localChat ?? true) {
    registerLocalChatRoute(app, { findOverlayByToken, pushChatEvent: (accountId, event) => gateway.pushChatEvent(accountId, event) });
  }
  return gateway;
}
