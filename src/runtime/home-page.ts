// GET /: what a person who opens the host's bare address finds (a newcomer pasting the printed
// address without its path): that chatskin runs here, and where its parts are. Never an
// overlay's address: its token is that overlay's only key, and / answers whoever reaches the
// port. The local chat page is named only to a request from this machine, the only one it serves.
import type { FastifyInstance } from 'fastify';
import { LOCAL_CHAT_SAY_PATH } from '../adapters/index.ts';
import { pageStart } from '../overlay/page.ts';
import { isLocalRequest } from '../service/push/local-chat-route.ts';

const HOME_PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export interface HomePageOptions {
  /** The API's path prefix (api.prefix). */
  apiPrefix: string;
  /** Whether the local chat (and its page) is on. */
  localChat: boolean;
}

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

export function registerHomePage(app: FastifyInstance, options: HomePageOptions): void {
  const api = escapeHtml(options.apiPrefix);
  app.get('/', async (request, reply) => {
    const localChat = options.localChat && isLocalRequest(request)
      ? `<li>Chat as anyone, in this browser: <a href="${LOCAL_CHAT_SAY_PATH}">the local chat</a> (docs/chat.md).</li>\n`
      : '';
    return reply
      .header('Content-Security-Policy', HOME_PAGE_CSP)
      // What it lists depends on who asks.
      .header('Cache-Control', 'no-store')
      .header('X-Content-Type-Options', 'nosniff')
      .type('text/html; charset=utf-8')
      .send(`${pageStart('chatskin')}<style>body { font-family: system-ui, sans-serif; margin: 2rem; line-height: 1.5; }</style>
</head>
<body>
<h1>chatskin is running</h1>
<ul>
<li>The overlay: its browser-source address was printed when chatskin started, and
<code>npx chatskin overlays list</code> prints it again (docs/overlay.md).</li>
${localChat}<li>The HTTP API for other tools: <code>${api}</code>, with an API key (docs/api.md).</li>
<li>Health: <a href="/healthz">/healthz</a>.</li>
</ul>
</body>
</html>
`);
  });
}
