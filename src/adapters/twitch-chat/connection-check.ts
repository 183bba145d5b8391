// Notices a chat connection that died without closing: a network that went away under it (a
// route, a NAT entry, a Wi-Fi hand-over), where neither side ever sees a FIN or a RST. tmi.js
// PINGs once a minute and closes a connection that does not answer, but its close waits for the
// server's half of the WebSocket close handshake, which never comes over a dead network: its
// socket stays CLOSING, tmi.js never reports the connection lost, and the chat stays deaf and mute
// until the operating system gives the TCP connection up (a quarter of an hour on Linux), or for
// good where it never does. So the transport checks on its own: every `intervalMs` it PINGs, and a
// connection that has not answered within `timeoutMs` is given up on, as a hung login is.

export class ConnectionCheck {
  readonly #intervalMs: number;
  readonly #timeoutMs: number;
  #interval: NodeJS.Timeout | null = null;
  #deadline: NodeJS.Timeout | null = null;

  constructor(intervalMs: number, timeoutMs: number) {
    this.#intervalMs = intervalMs;
    this.#timeoutMs = timeoutMs;
  }

  /** Checks the connection just logged in: `ping` sends a PING, `dead` is called once if a PING goes unanswered. */
  start(ping: () => void, dead: () => void): void {
    this.stop();
    this.#interval = setInterval(() => {
      if (this.#deadline !== null) return;
      this.#deadline = setTimeout(() => {
        this.stop();
        dead();
      }, this.#timeoutMs);
      ping();
    }, this.#intervalMs);
  }

  /** The server answered (PONG): the PING waiting for it is answered. */
  answered(): void {
    if (this.#deadline !== null) clearTimeout(this.#deadline);
    this.#deadline = null;
  }

  /** The connection is gone (or stopping): no more checks. */
  stop(): void {
    if (this.#interval !== null) clearInterval(this.#interval);
    this.answered();
    this.#interval = null;
  }
}
