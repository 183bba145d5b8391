// The page's side of the push protocol (docs/push.md): connect, take the snapshot, apply
// frames in version order, ask for a fresh snapshot on a gap, and reconnect when the socket
// closes or falls silent (a browser cannot see WebSocket pings, so the server's heartbeat
// frames are what the silence timer listens for).
import type { ChatEvent, OverlayPageOptions, OverlayStyle, ServerFrame } from '../../service/push/protocol.ts';
import { CLOSE_CODES, splitFrames } from '../../service/push/protocol.ts';

export interface PushHandlers {
  /** A snapshot or an update: the whole style. `options` only comes with snapshots. */
  style(style: OverlayStyle, options: OverlayPageOptions | null): void;
  chat(event: ChatEvent): void;
  /** A new socket is about to be opened: what is on screen may have missed removals. */
  reconnecting(): void;
  /**
   * A socket closed without ever opening (the server refused the upgrade, or could not be reached:
   * a page cannot tell which), or the server closed it because the overlay is gone (4004). The
   * reconnect is scheduled already; the page may check whether its address still names an overlay.
   */
  openFailed(): void;
  /** A socket opened: the server let it in, which it does only for an address that names an overlay. */
  opened(): void;
  status(status: 'connecting' | 'live' | 'reconnecting', version: number | null): void;
}

const DEFAULT_HEARTBEAT_MS = 30_000;
/** Silence longer than this many heartbeat intervals counts as a dead connection. */
const SILENCE_FACTOR = 2.5;
const RETRY_MIN_MS = 500;
const RETRY_MAX_MS = 15_000;
/**
 * Chat events kept while a socket waits for its first snapshot; past this the oldest go. That is
 * safe: a removal only names lines older than itself, and those went first.
 */
const MAX_EARLY_CHAT = 1_000;

/** Sets the wait before the next reconnect (tests shorten it and note how long it was). */
export type RetryScheduler = (reconnect: () => void, delayMs: number) => ReturnType<typeof setTimeout>;

export class PushConnection {
  readonly #url: string;
  readonly #handlers: PushHandlers;
  #socket: WebSocket | null = null;
  #version: number | null = null;
  #heartbeatMs = DEFAULT_HEARTBEAT_MS;
  #silenceTimer: ReturnType<typeof setTimeout> | undefined;
  #retryMs = RETRY_MIN_MS;
  #awaitingSnapshot = false;
  /** Chat that came before this socket's first snapshot, in order: shown once it comes. */
  #earlyChat: ChatEvent[] = [];
  #everConnected = false;
  #stopped = false;
  #retryTimer: ReturnType<typeof setTimeout> | undefined;
  readonly #scheduleRetry: RetryScheduler;

  constructor(url: string, handlers: PushHandlers, scheduleRetry: RetryScheduler = (reconnect, delayMs) => setTimeout(reconnect, delayMs)) {
    this.#url = url;
    this.#handlers = handlers;
    this.#scheduleRetry = scheduleRetry;
  }

  start(): void {
    this.#open();
  }

  /** Closes the socket for good: no reconnect. */
  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#silenceTimer);
    clearTimeout(this.#retryTimer);
    const socket = this.#socket;
    this.#socket = null;
    socket?.close();
  }

  #open(): void {
    if (this.#everConnected) this.#handlers.reconnecting();
    this.#handlers.status(this.#everConnected ? 'reconnecting' : 'connecting', null);
    this.#version = null;
    this.#awaitingSnapshot = true;
    this.#earlyChat = [];
    const socket = new WebSocket(this.#url);
    this.#socket = socket;
    this.#armSilenceTimer();
    socket.addEventListener('message', (message) => {
      if (socket !== this.#socket) return;
      this.#armSilenceTimer();
      for (const text of splitFrames(String(message.data))) {
        let frame: ServerFrame;
        try {
          frame = JSON.parse(text) as ServerFrame;
        } catch {
          continue; // not ours to interpret; the version check catches anything lost
        }
        // A frame can close this connection (a gap asks for a resync, not a reconnect, but be safe).
        if (socket !== this.#socket) return;
        this.#receive(frame);
      }
    });
    let opened = false;
    socket.addEventListener('open', () => {
      opened = true;
      if (socket === this.#socket) this.#handlers.opened();
    });
    socket.addEventListener('close', (event) => {
      if (socket !== this.#socket) return;
      this.#scheduleReconnect();
      if (!opened || event.code === CLOSE_CODES.overlayGone) this.#handlers.openFailed();
    });
  }

  #receive(frame: ServerFrame): void {
    switch (frame.type) {
      case 'snapshot':
        this.#awaitingSnapshot = false;
        this.#everConnected = true;
        this.#retryMs = RETRY_MIN_MS;
        this.#heartbeatMs = frame.options.heartbeatMs > 0 ? frame.options.heartbeatMs : DEFAULT_HEARTBEAT_MS;
        this.#version = frame.version;
        this.#handlers.style(frame.style, frame.options);
        // Sent while the snapshot was read, so at or below its version; but a snapshot holds no
        // chat, so they are not covered by it (docs/push.md#snapshot).
        for (const event of this.#earlyChat.splice(0)) this.#handlers.chat(event);
        this.#handlers.status('live', this.#version);
        this.#armSilenceTimer();
        return;
      case 'heartbeat':
        if (this.#version !== null && frame.version > this.#version) this.#resync();
        return;
      case 'update':
      case 'chat':
        if (this.#version === null) {
          // Before the first snapshot, which covers an update but holds no chat: chat waits for it.
          if (frame.type === 'chat' && this.#earlyChat.push(frame.event) > MAX_EARLY_CHAT) this.#earlyChat.shift();
          return;
        }
        if (frame.version <= this.#version) return; // already covered
        if (frame.version > this.#version + 1) this.#resync();
        this.#version = frame.version;
        if (frame.type === 'update') this.#handlers.style(frame.style, null);
        else this.#handlers.chat(frame.event);
        this.#handlers.status('live', this.#version);
    }
  }

  /** A frame was missed: ask for a fresh snapshot on the same socket. */
  #resync(): void {
    if (this.#awaitingSnapshot || this.#socket?.readyState !== WebSocket.OPEN) return;
    this.#awaitingSnapshot = true;
    this.#socket.send(JSON.stringify({ type: 'resync' }));
  }

  #armSilenceTimer(): void {
    clearTimeout(this.#silenceTimer);
    this.#silenceTimer = setTimeout(() => {
      // Nothing heard for too long: the connection is dead even if the socket says open.
      const socket = this.#socket;
      this.#scheduleReconnect();
      socket?.close();
    }, this.#heartbeatMs * SILENCE_FACTOR);
  }

  #scheduleReconnect(): void {
    clearTimeout(this.#silenceTimer);
    this.#socket = null;
    if (this.#stopped) return;
    this.#handlers.status('reconnecting', null);
    // Jitter (a quarter either way) spreads the pages of a restarted server; never past the most.
    const delay = Math.min(this.#retryMs * (0.75 + Math.random() * 0.5), RETRY_MAX_MS);
    this.#retryMs = Math.min(this.#retryMs * 2, RETRY_MAX_MS);
    this.#retryTimer = this.#scheduleRetry(() => this.#open(), delay);
  }
}
