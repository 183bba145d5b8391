// POST /local/chat/say: a chat line for the local chat, as if typed in the terminal; what
// `chatskin chat say` and the page at GET /local/chat/say (local-chat-page.ts) call. Loopback
// only, by the same rule as POST /local/chat (a connection from this machine with no proxy
// headers); everyone else gets 403 before the body is read.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { CHAT_MESSAGE_MAX_LENGTH } from '../../host/chat-transport.ts';
import { mapError } from '../../service/http/error-handler.ts';
import { registerJsonBodyParsers } from '../../service/http/json-body.ts';
import { fieldErrorsOf } from '../../service/push/local-chat-input.ts';
import { isLocalRequest } from '../../service/push/local-chat-route.ts';
import { validationError } from '../../service/types.ts';
import { LOCAL_ROLE_WORDS, roleOfWord } from './local-chat-chatter.ts';
import { LOCAL_CHAT_PAGE_CSP, LOCAL_CHAT_PAGE_SCRIPT_PATH, localChatPageHtml, localChatPageScript } from './local-chat-page.ts';
import { LocalChatInputError } from './local-chat-transport.ts';
import type { LocalChatTransport } from './local-chat-transport.ts';

export const LOCAL_CHAT_SAY_PATH = '/local/chat/say';
const BODY_LIMIT_BYTES = 8 * 1024;
const ROLE_WORDS = Object.keys(LOCAL_ROLE_WORDS);

const sayBodySchema = z.strictObject({
  text: z.string({ error: 'must be the chat line, a string' })
    .min(1, { error: 'must not be empty' })
    .max(CHAT_MESSAGE_MAX_LENGTH, { error: `must be at most ${CHAT_MESSAGE_MAX_LENGTH} characters, as on Twitch` }),
  login: z.string({ error: 'must be a Twitch login' })
    .regex(/^[A-Za-z0-9_]{1,25}$/, { error: 'must be a Twitch login: 1 to 25 letters, digits or _' }).nullish(),
  role: z.string({ error: `must be one of ${ROLE_WORDS.join(', ')}` })
    .refine((word) => roleOfWord(word) !== null, { error: `must be one of ${ROLE_WORDS.join(', ')}` }).nullish(),
}, {
  error: (issue) => (issue.code === 'unrecognized_keys'
    ? `has unknown key${issue.keys.length === 1 ? '' : 's'} ${issue.keys.map((key) => `"${key}"`).join(', ')}; allowed keys: text, login, role`
    : 'must be a JSON object with text, and optionally login and role'),
});

export interface LocalChatSayRouteOptions {
  /** The token of the overlay the page shows beside its form (the channel's default); null for none. */
  overlayToken?: () => Promise<string | null>;
}

export function registerLocalChatSayRoute(app: FastifyInstance, transport: LocalChatTransport, options: LocalChatSayRouteOptions = {}): void {
  const script = localChatPageScript();
  app.register(async (local) => {
    registerJsonBodyParsers(local, BODY_LIMIT_BYTES);
    local.setErrorHandler((error, request, reply) => {
      const mapped = mapError(error, BODY_LIMIT_BYTES);
      if (mapped.unexpected) request.log.error({ err: error }, `unexpected error in POST ${LOCAL_CHAT_SAY_PATH}`);
      return reply.code(mapped.status).type('application/json; charset=utf-8').send(mapped.body);
    });
    local.addHook('onRequest', async (request, reply) => {
      if (!isLocalRequest(request)) {
        return reply.code(403).type('application/json; charset=utf-8')
          .send({ message: `${request.method} ${request.routeOptions.url ?? LOCAL_CHAT_SAY_PATH} only answers requests from this machine (a loopback address and host name, no proxy headers).` });
      }
    });
    local.get(LOCAL_CHAT_SAY_PATH, async (_request, reply) => {
      const token = (await options.overlayToken?.()) ?? null;
      return reply
        .header('Content-Security-Policy', LOCAL_CHAT_PAGE_CSP)
        .header('Cache-Control', 'no-store')
        // The overlay's token is in the frame's address: never send it on.
        .header('Referrer-Policy', 'no-referrer')
        .header('X-Content-Type-Options', 'nosniff')
        .type('text/html; charset=utf-8')
        .send(localChatPageHtml(transport.channel, LOCAL_CHAT_SAY_PATH, token));
    });
    local.get(LOCAL_CHAT_PAGE_SCRIPT_PATH, async (_request, reply) => reply
      .header('Cache-Control', 'no-cache')
      .header('X-Content-Type-Options', 'nosniff')
      .type('text/javascript; charset=utf-8')
      .send(script));
    local.post(LOCAL_CHAT_SAY_PATH, async (request, reply) => {
      const parsed = sayBodySchema.safeParse(request.body);
      if (!parsed.success) throw validationError(fieldErrorsOf(parsed.error));
      const { text, login, role } = parsed.data;
      let message;
      try {
        message = await transport.post({ text, login: login ?? null, role: role == null ? null : roleOfWord(role) });
      } catch (error) {
        if (!(error instanceof LocalChatInputError)) throw error;
        throw validationError({ [error.field]: [`The ${error.field} is refused: ${error.message}.`] });
      }
      // "viewer", the page's and --role's word: "as you (everyone)" read as a line sent to everyone.
      const said = message.role === 'everyone' ? 'viewer' : message.role;
      return reply.code(202).send({ message: `Sent to the local chat of #${transport.channel} as ${message.login} (${said}).`, data: message });
    });
  });
}
