// POST /local/chat: inject a chat event for demos and tests without Twitch (docs/push.md).
// Answered only for connections from a loopback address that carry no proxy headers (a reverse
// proxy on the same machine would make every visitor look local), addressed to a loopback host
// name, and, from a browser, sent by a page of a loopback origin: a web page whose own name was
// made to point at 127.0.0.1 (DNS rebinding) connects from loopback too, but names its own host.
// Everyone else gets 403.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { mapError } from '../http/error-handler.ts';
import { registerJsonBodyParsers } from '../http/json-body.ts';
import { ServiceError, validationError } from '../types.ts';
import { fieldErrorsOf, localChatBodySchema, toChatEvent } from './local-chat-input.ts';
import type { ChatEvent } from './protocol.ts';

export const LOCAL_CHAT_PATH = '/local/chat';
const BODY_LIMIT_BYTES = 16 * 1024;
const PROXY_HEADERS = ['forwarded', 'x-forwarded-for', 'x-real-ip'];

export interface LocalChatRouteOptions {
  findOverlayByToken(token: string): Promise<{ id: number; accountId: number } | null | undefined> | { id: number; accountId: number } | null | undefined;
  pushChatEvent(accountId: number, event: ChatEvent): void;
}

export function isLoopbackAddress(address: string | undefined): boolean {
  if (address === undefined) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return address === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4);
}

/** `localhost`, a 127.x address or ::1 (bracketed or not), as in a Host header or a URL. */
export function isLoopbackHostName(hostname: string): boolean {
  const name = hostname.toLowerCase();
  return name === 'localhost' || isLoopbackAddress(name.replace(/^\[(.*)\]$/, '$1'));
}

/** The host name of a Host header value ("127.0.0.1:4477", "[::1]:4477", "localhost"). */
function hostNameOf(host: string): string {
  return host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.replace(/:\d*$/, '');
}

function isLoopbackOrigin(origin: string): boolean {
  try {
    return isLoopbackHostName(new URL(origin).hostname);
  } catch {
    return false;
  }
}

export function isLocalRequest(request: FastifyRequest): boolean {
  const { host, origin } = request.headers;
  return isLoopbackAddress(request.socket.remoteAddress)
    && !PROXY_HEADERS.some((h) => request.headers[h] !== undefined)
    && typeof host === 'string' && isLoopbackHostName(hostNameOf(host))
    && (origin === undefined || isLoopbackOrigin(origin));
}

export function registerLocalChatRoute(app: FastifyInstance, options: LocalChatRouteOptions): void {
  app.register(async (local) => {
    registerJsonBodyParsers(local, BODY_LIMIT_BYTES);
    local.setErrorHandler((error, request, reply) => {
      const mapped = mapError(error, BODY_LIMIT_BYTES);
      if (mapped.unexpected) request.log.error({ err: error }, 'unexpected error in POST /local/chat');
      return reply.code(mapped.status).type('application/json; charset=utf-8').send(mapped.body);
    });
    // Refused before the body is read.
    local.addHook('onRequest', async (request, reply) => {
      if (!isLocalRequest(request)) {
        return reply.code(403).type('application/json; charset=utf-8')
          .send({ message: 'POST /local/chat only answers requests from this machine (a loopback address and host name, no proxy headers).' });
      }
    });
    local.post(LOCAL_CHAT_PATH, async (request, reply) => {
      const parsed = localChatBodySchema.safeParse(request.body);
      if (!parsed.success) throw validationError(fieldErrorsOf(parsed.error));
      const overlay = await options.findOverlayByToken(parsed.data.token);
      if (overlay == null) throw new ServiceError(404, 'No overlay has this token.');
      const event = toChatEvent(parsed.data.event);
      options.pushChatEvent(overlay.accountId, event);
      return reply.code(202).send({ message: 'Chat event sent to the channel\'s overlays.', data: event });
    });
  });
}
