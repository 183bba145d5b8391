// GET /local/chat/say: a page to chat into the local chat from a browser, beside the channel's
// default overlay, for whoever has no terminal at hand (the same lines as stdin or
// `chatskin chat say`). Served with POST /local/chat/say, to loopback clients only.
import { buildBrowserModuleGraph } from '../../overlay/browser-modules.ts';
import { pageStart } from '../../overlay/page.ts';
import { CHAT_MESSAGE_MAX_LENGTH } from '../../host/chat-transport.ts';
import { overlayPagePath } from '../../service/push/protocol.ts';

export const LOCAL_CHAT_PAGE_ENTRY = 'src/adapters/local-chat/page/local-chat-page-client.ts';
export const LOCAL_CHAT_PAGE_SCRIPT_PATH = '/local/chat/say.js';

/** Roles offered in the form: words the say route takes (local-chat-chatter.ts). */
const ROLE_CHOICES = ['viewer', 'subscriber', 'vip', 'moderator', 'broadcaster'] as const;

/**
 * Scripts only from this server; the overlay in a frame of this server; the page itself never
 * framed by another site, which could otherwise make a visitor type into this chat.
 */
export const LOCAL_CHAT_PAGE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "connect-src 'self'",
  "frame-src 'self'",
  "style-src 'unsafe-inline'",
  "img-src 'self' data:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** The page's script, type-stripped once. */
export function localChatPageScript(): string {
  const modules = buildBrowserModuleGraph(LOCAL_CHAT_PAGE_ENTRY);
  return modules.get(LOCAL_CHAT_PAGE_ENTRY)!.javascript;
}

/**
 * `channel` is a Twitch login and `overlayToken` an overlay token (letters, digits, `_`, `-`),
 * so neither needs escaping in the markup.
 */
export function localChatPageHtml(channel: string, sayPath: string, overlayToken: string | null): string {
  const overlay = overlayToken === null
    ? '<p>This channel has no default overlay to show here.</p>'
    : `<iframe title="The default overlay" src="${overlayPagePath(overlayToken)}"></iframe>`;
  return `${pageStart(`chatskin local chat: #${channel}`)}<style>
  body { font-family: system-ui, sans-serif; margin: 1rem; background: #1e1e24; color: #eee; }
  iframe { display: block; width: 100%; height: 60vh; border: 1px solid #444;
    background: repeating-conic-gradient(#333 0 25%, #2a2a2a 0 50%) 0 0 / 24px 24px; }
  form { display: flex; gap: .5rem; margin-top: .75rem; flex-wrap: wrap; align-items: center; }
  label.line { display: flex; gap: .5rem; align-items: center; flex: 1 1 20rem; }
  input[name=text] { flex: 1; }
  input, select, button { font: inherit; padding: .35rem .5rem; }
  #status[data-state=error] { color: #ff8a80; }
  #status[data-state=sent] { color: #b9f6ca; }
</style>
<script type="module" src="${LOCAL_CHAT_PAGE_SCRIPT_PATH}"></script>
</head>
<body data-status="loading">
<h1>Local chat of #${channel}</h1>
${overlay}
<form id="say" action="${sayPath}" method="post">
  <label>Chat as <input name="login" placeholder="login (default: you)" autocomplete="off"></label>
  <label>Role <select name="role">${ROLE_CHOICES.map((word) => `<option value="${word}">${word}</option>`).join('')}</select></label>
  <label class="line">Line <input name="text" placeholder="a chat line, e.g. !style bubble.width 300" data-max-length="${CHAT_MESSAGE_MAX_LENGTH}" required autofocus autocomplete="off"></label>
  <button type="submit">Send</button>
</form>
<p id="status" role="status"></p>
</body>
</html>
`;
}
