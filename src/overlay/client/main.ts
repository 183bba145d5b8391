// Entry of the overlay page (served type-stripped, no build step): connects to the overlay's
// push socket and keeps the chat view and style sheet in step with what it receives.
import { CLASSES } from '../dom-classes.ts';
import { ChatView } from './chat-view.ts';
import { askOwnAddress } from './own-address.ts';
import { PushConnection } from './push-connection.ts';
import { StyleApplier } from './style-applier.ts';
import type { OverlayPageOptions } from '../../service/push/protocol.ts';

const container = document.querySelector<HTMLElement>(`.${CLASSES.chat}`)!;
const sheet = document.querySelector<HTMLStyleElement>('#cs-settings')!;
const notice = document.querySelector<HTMLElement>(`.${CLASSES.notice}`)!;
const view = new ChatView(container);
const styles = new StyleApplier(sheet);
let options: OverlayPageOptions | null = null;
/** The connection's last status, and whether the server said the page's address names no overlay. */
let connectionStatus = 'loading';
let overlayMissing = false;
/** Sockets let in so far: an address check asked before the latest one is out of date. */
let socketsOpened = 0;

function showStatus(): void {
  // For people debugging a browser source, and for the page's end-to-end tests.
  document.body.dataset.status = overlayMissing ? 'not-found' : connectionStatus;
  notice.hidden = !overlayMissing;
}

/**
 * A socket that cannot open looks the same to the page whether the server is down or no longer
 * knows the token (a database replaced underneath): the page's own address tells them apart. An
 * unknown address shows "Overlay not found" instead of an empty overlay that retries forever; the
 * page keeps retrying, and goes live again by itself if the overlay comes back.
 */
function checkOverlayStillKnown(): void {
  const asked = socketsOpened;
  askOwnAddress().then((response) => {
    // Answered after a socket got in: the overlay is known.
    if (connectionStatus === 'live' || socketsOpened !== asked) return;
    overlayMissing = response.status === 404;
    showStatus();
  }, () => { /* the server cannot be reached: still 'reconnecting' */ });
}

/** The build of this page's code, as the server named it when the page loaded. */
const loadedBuild = document.querySelector<HTMLMetaElement>('meta[name="chatskin-build"]')?.content ?? null;

/**
 * Back after a lost connection: chatskin may have been restarted with other page code. OBS keeps a
 * browser source open for days, so the page reloads itself rather than run its old code against
 * the new server (its address is the same; the chat starts empty after a reconnect anyway).
 */
function reloadIfPageChanged(): void {
  askOwnAddress().then((response) => {
    const build = response.headers.get('x-chatskin-build');
    if (response.ok && build !== null && loadedBuild !== null && build !== loadedBuild) location.reload();
  }, () => { /* the server cannot be reached: the socket's retries go on */ });
}

const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
// The socket is the page's own address plus /ws (docs/push.md), whatever path a reverse proxy
// serves chatskin under.
const socketPath = `${location.pathname}/ws`;
const connection = new PushConnection(`${scheme}//${location.host}${socketPath}`, {
  style(style, snapshotOptions) {
    options = snapshotOptions ?? options;
    view.holdRunningEntrances();
    if (options !== null) styles.apply(style, options);
    view.setStyle(style, options);
  },
  chat(event) {
    switch (event.type) {
      case 'message': view.add(event); break;
      case 'message-deleted': view.deleteMessage(event.messageId); break;
      case 'user-cleared': view.clearUser(event.userId); break;
      case 'chat-cleared': view.clear(); break;
    }
  },
  reconnecting() {
    // Removals sent while the socket was down are lost, so nothing on screen can be vouched for.
    view.clear();
  },
  openFailed: checkOverlayStillKnown,
  opened() {
    // Let in: the address names an overlay again, though its snapshot has yet to come (and may
    // not, if the socket closes first): no "Overlay not found" on stream meanwhile.
    socketsOpened++;
    overlayMissing = false;
    showStatus();
  },
  status(status, version) {
    if (status === 'live' && connectionStatus === 'reconnecting') reloadIfPageChanged();
    connectionStatus = status;
    if (status === 'live') overlayMissing = false;
    showStatus();
    if (version !== null) document.body.dataset.version = String(version);
  },
});
connection.start();
