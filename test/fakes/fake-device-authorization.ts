// id.twitch.tv's device code grant flow, for tests of `chatskin twitch auth` (and `--bot`):
// FakeHelix serves the other OAuth endpoints but not this flow, so this small server does,
// issuing FakeHelix's own tokens (which FakeHelix then accepts and refreshes). Under /oauth2 like Twitch:
//   POST /oauth2/device   client_id, scopes  -> device_code, user_code, verification_uri, interval, expires_in
//   POST /oauth2/token    grant_type=urn:ietf:params:oauth:grant-type:device_code, device_code, client_id
//                         -> 400 {status, message: authorization_pending | slow_down | access_denied | invalid device code}
//   GET  /oauth2/validate -> FakeHelix's answer
// `approve(userCode, login)` is the person entering the code on twitch.tv/activate.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { FakeHelix } from './fake-helix.ts';

interface PendingCode {
  clientId: string;
  scopes: string[];
  userCode: string;
  approvedAs: string | null;
  denied: boolean;
  polls: number;
}

export interface FakeDeviceOptions {
  /** Seconds between polls the fake asks for. Default 5 (Twitch's). */
  interval?: number;
  expiresIn?: number;
  /** Answer the first poll with slow_down. */
  slowDownOnce?: boolean;
}

export class FakeDeviceAuthorization {
  readonly requests: Array<{ path: string; form: Record<string, string> }> = [];
  readonly #server: Server;
  readonly #helix: FakeHelix;
  readonly #options: FakeDeviceOptions;
  readonly #codes = new Map<string, PendingCode>();
  #slowedDown = false;

  private constructor(server: Server, helix: FakeHelix, options: FakeDeviceOptions) {
    this.#server = server;
    this.#helix = helix;
    this.#options = options;
  }

  static async start(helix: FakeHelix, options: FakeDeviceOptions = {}): Promise<FakeDeviceAuthorization> {
    const server = createServer();
    const fake = new FakeDeviceAuthorization(server, helix, options);
    server.on('request', (req, res) => void fake.#handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  get oauthUrl(): string {
    const address = this.#server.address();
    if (address === null || typeof address === 'string') throw new Error('not listening');
    return `http://127.0.0.1:${address.port}/oauth2`;
  }

  /** The person signed in as `login` entered the code and approved. */
  approve(userCode: string, login: string): void {
    this.#code(userCode).approvedAs = login;
  }

  deny(userCode: string): void {
    this.#code(userCode).denied = true;
  }

  #code(userCode: string): PendingCode {
    const found = [...this.#codes.values()].find((code) => code.userCode === userCode);
    if (!found) throw new Error(`no device code with user code ${userCode}`);
    return found;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    let raw = '';
    for await (const chunk of req) raw += String(chunk);
    const form = Object.fromEntries(new URLSearchParams(raw));
    this.requests.push({ path: url.pathname, form });
    const answer = (status: number, body: unknown): void => {
      res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
    };
    if (req.method === 'GET' && url.pathname === '/oauth2/validate') {
      const upstream = await fetch(`${this.#helix.baseUrl}/oauth2/validate`, { headers: { Authorization: req.headers.authorization ?? '' } });
      answer(upstream.status, await upstream.json());
      return;
    }
    if (req.method === 'POST' && url.pathname === '/oauth2/device') {
      const deviceCode = randomBytes(16).toString('hex');
      const userCode = randomBytes(4).toString('hex').toUpperCase();
      this.#codes.set(deviceCode, {
        clientId: form['client_id'] ?? '', scopes: (form['scopes'] ?? '').split(' ').filter(Boolean), userCode, approvedAs: null, denied: false, polls: 0,
      });
      answer(200, {
        device_code: deviceCode, user_code: userCode, expires_in: this.#options.expiresIn ?? 1800, interval: this.#options.interval ?? 5,
        verification_uri: `https://www.twitch.tv/activate?device-code=${userCode}`,
      });
      return;
    }
    if (req.method === 'POST' && url.pathname === '/oauth2/token' && form['grant_type'] === 'urn:ietf:params:oauth:grant-type:device_code') {
      const code = this.#codes.get(form['device_code'] ?? '');
      if (!code || code.clientId !== form['client_id']) return answer(400, { status: 400, message: 'invalid device code' });
      code.polls++;
      if (this.#options.slowDownOnce && !this.#slowedDown) {
        this.#slowedDown = true;
        return answer(400, { status: 400, message: 'slow_down' });
      }
      if (code.denied) return answer(400, { status: 400, message: 'access_denied' });
      if (code.approvedAs === null) return answer(400, { status: 400, message: 'authorization_pending' });
      const user = this.#helix.addUser({ login: code.approvedAs });
      const token = this.#helix.issueUserToken({ clientId: code.clientId, userId: user.id, scopes: code.scopes });
      this.#codes.delete(form['device_code']!);
      return answer(200, {
        access_token: token.accessToken, refresh_token: token.refreshToken, expires_in: token.expiresIn, scope: token.scope, token_type: 'bearer',
      });
    }
    answer(404, { status: 404, message: `no route ${req.method} ${url.pathname}` });
  }
}
