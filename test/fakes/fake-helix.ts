/**
 * FakeHelix: the Twitch Helix API, the id.twitch.tv OAuth endpoints and (through an
 * attached FakeEventSub) the EventSub WebSocket, all on one 127.0.0.1 port, for tests
 * that drive the real @twurple/api ApiClient, @twurple/auth RefreshingAuthProvider and
 * @twurple/eventsub-ws EventSubWsListener.
 *
 * Pointing twurple at it: twurple 8 has no `mockServerPort` client option. Every
 * twurple package reads the env var TWURPLE_MOCK_API_PORT (on every request, and when
 * an EventSubWsListener is constructed) and then uses the twitch-cli mock layout:
 *   helix                      http://localhost:PORT/mock/<endpoint>
 *   helix eventsub/subscriptions  http://localhost:PORT/eventsub/subscriptions  (no /mock)
 *   id.twitch.tv/oauth2/<x>    http://localhost:PORT/auth/<x>   (token refresh, validate, revoke)
 *   EventSub WebSocket         ws://127.0.0.1:PORT/ws            (the listener's `url` option is then ignored)
 * FakeHelix serves exactly that (plus /helix/<endpoint> and /oauth2/<x> for other clients), so:
 *
 *   const helix = await FakeHelix.start();
 *   helix.registerClient('botclientid', 'botsecret');
 *   const broadcaster = helix.addUser({ login: 'somechannel' });
 *   const token = helix.issueUserToken({ clientId: 'botclientid', userId: broadcaster.id,
 *     scopes: ['channel:read:redemptions', 'channel:manage:redemptions'] });
 *   const restoreEnv = helix.applyTwurpleMockPort();     // sets process.env.TWURPLE_MOCK_API_PORT
 *   const authProvider = new RefreshingAuthProvider({ clientId: 'botclientid', clientSecret: 'botsecret' });
 *   authProvider.addUser(broadcaster.id, token);          // token is a twurple AccessToken
 *   const apiClient = new ApiClient({ authProvider });
 *   const listener = new EventSubWsListener({ apiClient });
 *   listener.onChannelRedemptionAdd(broadcaster.id, handler);
 *   listener.start();
 *   await helix.eventSub.waitForSubscription(REDEMPTION_ADD_TYPE);
 *   helix.fireRedemption({ rewardId, user: { login: 'fan' } });  // stored + notification
 *
 * Behaviour that follows Twitch:
 * - Helix needs `Authorization: Bearer <token>` and a matching `Client-Id`
 *   (401 otherwise), the endpoint's scopes (401 `Missing scope: ...`) and, for channel
 *   points, broadcaster_id = the token's user (401). Error bodies are
 *   `{ error, status, message }` with Content-Type exactly `application/json`
 *   (twurple only parses error JSON for that exact type). Every Helix response carries
 *   Ratelimit-Limit/-Remaining/-Reset: twurple's rate limiter stalls without them. A call that
 *   finds its bucket (`rateLimitPerMinute` per client id + user) empty gets 429 with
 *   Ratelimit-Remaining 0, as does an injected 429 (full again within a second), which twurple
 *   waits out and retries.
 * - Tokens expire (`tokenLifetimeSeconds`, or per token); an expired or revoked
 *   access token gets 401 everywhere, so twurple refreshes through /auth/token
 *   (grant_type=refresh_token) and retries. Refresh checks client id, secret and
 *   refresh token (400 `Invalid refresh token`). client_credentials gives app tokens.
 * - Custom rewards remember the client id that created them: PATCH/DELETE of the
 *   reward and GET/PATCH of its redemptions from another client id -> 403.
 *   Duplicate title -> 400. only_manageable_rewards=true filters by client id. Deleting a reward
 *   marks its UNFULFILLED redemptions FULFILLED (Helix Delete Custom Reward), points spent. A channel that
 *   is neither affiliate nor partner (broadcasterType '') has no channel points: every
 *   channel-points call -> 403 `The broadcaster must have partner or affiliate status.`
 * - Redemptions: GET needs reward_id and status (or id); sort OLDEST|NEWEST; `first`
 *   (<= 50, default 20) with an `after` cursor. PATCH only changes UNFULFILLED ones
 *   (404 when none match); every change is recorded in `redemptionChanges`.
 * - POST /eventsub/subscriptions (websocket transport, user token) -> 202 with
 *   { data, total, total_cost, max_total_cost }; 400 for an unknown/closed session,
 *   409 for a duplicate. GET lists, DELETE ?id= removes (204/404).
 *
 * API:
 *   FakeHelix.start(options?) -> Promise<FakeHelix>
 *   .port / .baseUrl / .eventSub (a FakeEventSub) / .applyTwurpleMockPort() -> restore()
 *   .registerClient(clientId, clientSecret)
 *   .addUser({ login, id?, displayName?, broadcasterType? }) -> HelixUser   (an affiliate unless broadcasterType says otherwise)
 *   .setBroadcasterType(userId, 'partner' | 'affiliate' | '')
 *   .issueUserToken({ clientId, userId, scopes, expiresInSeconds? }) -> IssuedToken (a twurple AccessToken)
 *   .expireAccessToken(accessToken) / .revokeRefreshToken(refreshToken) / .tokens
 *   .disconnectApp(userId, clientId)   (the user disconnected the app, or changed the password: its tokens
 *     stop working, refresh tokens too, and its EventSub subscriptions are revoked, authorization_revoked)
 *   .isLiveUserToken(accessToken, login)   (for FakeTwitchIrc's acceptToken: chat takes Twitch's own tokens)
 *   .createReward(broadcasterId, input, createdByClientId) -> RewardJson   ("another app" or null = made on the dashboard)
 *   .updateRewardAs(clientId, rewardId, body)   (another tool using that client id, e.g. should_redemptions_skip_request_queue)
 *   .deleteRewardAs(clientId, rewardId)   (another tool using that client id deletes the reward: as Helix DELETE)
 *   .addOfflineRedemption(input) -> RedemptionJson          (stored UNFULFILLED, no notification)
 *   .resolveOnDashboard(redemptionId, 'FULFILLED' | 'CANCELED')  (a moderator in the request queue: UNFULFILLED ones only)
 *   .fireRedemption(input) -> { redemption, deliveries }     (stored + EventSub notification)
 *   .rewards / .redemptions / .redemptionChanges / .calls
 *   .failNext({ status, method?, path?, times?, message? })  (5xx, 401, 429...; path like '/channel_points/custom_rewards')
 *   .holdNext({ method?, path? }) -> HeldAnswer   (the next matching call is answered as of its arrival, but only on release())
 *   .stallNext({ method?, path? }) -> Promise<HelixCall>   (the next matching call is never handled nor answered: it changes nothing)
 *   .waitForCall(predicate, opts?) / .waitForRedemptionStatus(id, status, opts?)
 *   .close()
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { FakeEventSub, subscriptionJson, type Delivery, type FakeEventSubOptions } from './fake-eventsub.ts';
import { stableNumericId } from './stable-id.ts';
import { Waiters, DEFAULT_WAIT_MS } from './waiters.ts';

export interface FakeHelixOptions {
  host?: string;
  port?: number;
  /** Use this EventSub fake (it may also have its own port); default: a new one served on /ws. */
  eventSub?: FakeEventSub;
  /** Options for the EventSub fake FakeHelix creates when `eventSub` is not given. */
  eventSubOptions?: FakeEventSubOptions;
  /** Lifetime of issued and refreshed access tokens. Default 14 400 s (about Twitch's). */
  tokenLifetimeSeconds?: number;
  /** Hand out a new refresh token on every refresh. Default false. */
  rotateRefreshTokens?: boolean;
  /** Ratelimit-Limit points per minute per client+user. Default 800. */
  rateLimitPerMinute?: number;
}

export type BroadcasterType = 'partner' | 'affiliate' | '';

export interface HelixUser {
  id: string;
  login: string;
  displayName: string;
  /** '' (neither partner nor affiliate): the channel has no channel points, and Helix refuses them (403). */
  broadcasterType: BroadcasterType;
}

/** Shaped as twurple's AccessToken, so it can go straight into `authProvider.addUser(userId, token)`. */
export interface IssuedToken {
  accessToken: string;
  refreshToken: string | null;
  scope: string[];
  expiresIn: number | null;
  obtainmentTimestamp: number;
}

export interface TokenRecord {
  accessToken: string;
  refreshToken: string | null;
  clientId: string;
  /** null for app access tokens. */
  userId: string | null;
  scopes: string[];
  expiresAt: number;
  revoked: boolean;
}

export interface RewardJson {
  broadcaster_id: string;
  broadcaster_login: string;
  broadcaster_name: string;
  id: string;
  title: string;
  prompt: string;
  cost: number;
  image: null;
  default_image: { url_1x: string; url_2x: string; url_4x: string };
  background_color: string;
  is_enabled: boolean;
  is_user_input_required: boolean;
  max_per_stream_setting: { is_enabled: boolean; max_per_stream: number };
  max_per_user_per_stream_setting: { is_enabled: boolean; max_per_user_per_stream: number };
  global_cooldown_setting: { is_enabled: boolean; global_cooldown_seconds: number };
  is_paused: boolean;
  is_in_stock: boolean;
  should_redemptions_skip_request_queue: boolean;
  redemptions_redeemed_current_stream: number | null;
  cooldown_expires_at: string | null;
}

export interface RewardRecord {
  json: RewardJson;
  /** Client id that created it; null = created on the Twitch dashboard (no app may manage it). */
  clientId: string | null;
  deleted: boolean;
}

export type RedemptionStatus = 'UNFULFILLED' | 'FULFILLED' | 'CANCELED';

export interface RedemptionJson {
  broadcaster_id: string;
  broadcaster_login: string;
  broadcaster_name: string;
  id: string;
  user_id: string;
  user_login: string;
  user_name: string;
  user_input: string;
  status: RedemptionStatus;
  redeemed_at: string;
  reward: { id: string; title: string; prompt: string; cost: number };
}

export interface RedemptionChange {
  redemptionId: string;
  rewardId: string;
  from: RedemptionStatus;
  to: RedemptionStatus;
  /** null: a moderator on the Twitch dashboard (resolveOnDashboard), or Twitch itself (a deleted reward's redemptions). */
  clientId: string | null;
  at: number;
}

export interface RewardInput {
  title: string;
  cost: number;
  prompt?: string;
  isEnabled?: boolean;
  isUserInputRequired?: boolean;
  autoFulfill?: boolean;
  backgroundColor?: string;
}

export interface RedemptionInput {
  rewardId: string;
  user: { login: string; id?: string; displayName?: string };
  userInput?: string;
  /** Default now. */
  redeemedAt?: Date;
  /** Default a random UUID. */
  id?: string;
}

export interface HelixCall {
  method: string;
  /** Without /mock, /helix or host, e.g. '/channel_points/custom_rewards' or '/auth/token'. */
  path: string;
  query: Record<string, string[]>;
  body: unknown;
  clientId: string | null;
  accessToken: string | null;
  /** The token's user, when the token was valid. */
  userId: string | null;
  status: number;
  at: number;
}

/** A call held by holdNext: its answer was made when it came (as things were then), and is sent on release(). */
export interface HeldAnswer {
  /** Resolves once a matching call has come and its answer is held. */
  readonly arrived: Promise<HelixCall>;
  /** Sends the answer (if none has come yet, the hold is dropped). */
  release(): void;
}

interface HoldRule {
  method?: string;
  path?: string;
  hold(send: () => void, call: HelixCall): void;
}

/** Whether a call is one a failNext or holdNext rule is for (no method or path: any). */
function callMatches(rule: { method?: string; path?: string }, method: string, path: string): boolean {
  return (rule.method === undefined || rule.method.toUpperCase() === method) && (rule.path === undefined || rule.path === path);
}

export interface FailureRule {
  status: number;
  method?: string;
  path?: string;
  /** How many matching calls fail. Default 1. */
  times?: number;
  message?: string;
}

class HttpError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

const READ_REDEMPTIONS = ['channel:read:redemptions', 'channel:manage:redemptions'];
const MANAGE_REDEMPTIONS = ['channel:manage:redemptions'];
const MAX_REWARDS_PER_CHANNEL = 50;

function newToken(): string {
  return randomBytes(15).toString('base64url').toLowerCase().replace(/[-_]/g, 'x');
}

function first(query: Record<string, string[]>, key: string): string | undefined {
  return query[key]?.[0];
}

export class FakeHelix {
  readonly eventSub: FakeEventSub;
  readonly calls: HelixCall[] = [];
  readonly redemptionChanges: RedemptionChange[] = [];

  readonly #server: Server;
  readonly #options: FakeHelixOptions;
  readonly #ownsEventSub: boolean;
  readonly #clients = new Map<string, string>();
  readonly #users = new Map<string, HelixUser>();
  readonly #tokens = new Map<string, TokenRecord>();
  readonly #rewards: RewardRecord[] = [];
  readonly #redemptions: RedemptionJson[] = [];
  readonly #failures: Array<Required<Pick<FailureRule, 'status' | 'times'>> & FailureRule> = [];
  readonly #holds: HoldRule[] = [];
  readonly #stalls: Array<{ method?: string; path?: string; arrived(call: HelixCall): void }> = [];
  readonly #buckets = new Map<string, { remaining: number; resetAt: number }>();
  readonly #waiters = new Waiters();
  #closed = false;

  private constructor(server: Server, eventSub: FakeEventSub, ownsEventSub: boolean, options: FakeHelixOptions) {
    this.#server = server;
    this.eventSub = eventSub;
    this.#ownsEventSub = ownsEventSub;
    this.#options = options;
  }

  static async start(options: FakeHelixOptions = {}): Promise<FakeHelix> {
    const eventSub = options.eventSub ?? FakeEventSub.create(options.eventSubOptions);
    const server = createServer();
    const helix = new FakeHelix(server, eventSub, options.eventSub === undefined, options);
    server.on('request', (req, res) => void helix.#handle(req, res));
    server.on('upgrade', (req, socket, head) => eventSub.handleUpgrade(req, socket, head));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve);
    });
    return helix;
  }

  get port(): number {
    const address = this.#server.address();
    if (address === null || typeof address === 'string') throw new Error('fake Helix: not listening');
    return address.port;
  }

  /** http://127.0.0.1:PORT (Helix under /helix or /mock, OAuth under /auth or /oauth2). */
  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Points every twurple package in this process here; call the returned function to undo. */
  applyTwurpleMockPort(): () => void {
    const previous = process.env['TWURPLE_MOCK_API_PORT'];
    process.env['TWURPLE_MOCK_API_PORT'] = String(this.port);
    return () => {
      if (previous === undefined) delete process.env['TWURPLE_MOCK_API_PORT'];
      else process.env['TWURPLE_MOCK_API_PORT'] = previous;
    };
  }

  // ---- set-up ----------------------------------------------------------

  registerClient(clientId: string, clientSecret: string): void {
    this.#clients.set(clientId, clientSecret);
  }

  /** A Twitch user; an affiliate unless `broadcasterType` says otherwise. */
  addUser(input: { login: string; id?: string; displayName?: string; broadcasterType?: BroadcasterType }): HelixUser {
    const login = input.login.toLowerCase();
    const user: HelixUser = {
      id: input.id ?? stableNumericId(login), login, displayName: input.displayName ?? input.login, broadcasterType: input.broadcasterType ?? 'affiliate',
    };
    this.#users.set(user.id, user);
    return user;
  }

  /** The channel becomes (or stops being) an affiliate or partner: '' has no channel points. */
  setBroadcasterType(userId: string, broadcasterType: BroadcasterType): void {
    this.#user(userId).broadcasterType = broadcasterType;
  }

  issueUserToken(input: { clientId: string; userId: string; scopes: string[]; expiresInSeconds?: number }): IssuedToken {
    if (!this.#clients.has(input.clientId)) throw new Error(`fake Helix: client ${input.clientId} is not registered (registerClient first)`);
    if (!this.#users.has(input.userId)) throw new Error(`fake Helix: user ${input.userId} is not known (addUser first)`);
    const record = this.#storeToken(input.clientId, input.userId, input.scopes, newToken(), input.expiresInSeconds);
    return {
      accessToken: record.accessToken,
      refreshToken: record.refreshToken,
      scope: [...record.scopes],
      expiresIn: Math.round((record.expiresAt - Date.now()) / 1000),
      obtainmentTimestamp: Date.now(),
    };
  }

  /** The fake now treats the access token as expired (the client still believes it valid). */
  expireAccessToken(accessToken: string): void {
    const record = this.#tokens.get(accessToken);
    if (!record) throw new Error('fake Helix: unknown access token');
    record.expiresAt = Date.now() - 1;
  }

  /** Refreshing with this refresh token now fails with 400. */
  revokeRefreshToken(refreshToken: string): void {
    for (const record of this.#tokens.values()) {
      if (record.refreshToken === refreshToken) record.refreshToken = null;
    }
  }

  /**
   * The user disconnected the app on twitch.tv (Settings, Connections) or changed the password:
   * every token the app holds for the user stops working (Helix and /validate answer 401, chat
   * refuses the login), its refresh tokens too (400 `Invalid refresh token`), and Twitch revokes
   * the user's EventSub subscriptions for the app with `authorization_revoked`.
   */
  disconnectApp(userId: string, clientId: string): void {
    for (const record of this.#tokens.values()) {
      if (record.userId !== userId || record.clientId !== clientId) continue;
      record.revoked = true;
      record.refreshToken = null;
    }
    for (const subscription of this.eventSub.activeSubscriptions({ clientId, status: 'enabled' })) {
      if (subscription.userId === userId) this.eventSub.revoke(subscription.id, 'authorization_revoked');
    }
  }

  /** Whether `accessToken` is a user token of `login` that has not expired or been revoked. */
  isLiveUserToken(accessToken: string, login: string): boolean {
    const record = this.#liveToken(accessToken);
    return record !== undefined && record.userId !== null && this.#users.get(record.userId)?.login === login.toLowerCase();
  }

  get tokens(): TokenRecord[] {
    return [...this.#tokens.values()];
  }

  get rewards(): RewardRecord[] {
    return [...this.#rewards];
  }

  get redemptions(): RedemptionJson[] {
    return [...this.#redemptions];
  }

  /** A reward as if `createdByClientId` had created it (null: made on the Twitch dashboard). */
  createReward(broadcasterId: string, input: RewardInput, createdByClientId: string | null): RewardJson {
    const broadcaster = this.#user(broadcasterId);
    const json: RewardJson = {
      broadcaster_id: broadcaster.id,
      broadcaster_login: broadcaster.login,
      broadcaster_name: broadcaster.displayName,
      id: randomUUID(),
      title: input.title,
      prompt: input.prompt ?? '',
      cost: input.cost,
      image: null,
      default_image: {
        url_1x: 'https://static-cdn.jtvnw.net/custom-reward-images/default-1.png',
        url_2x: 'https://static-cdn.jtvnw.net/custom-reward-images/default-2.png',
        url_4x: 'https://static-cdn.jtvnw.net/custom-reward-images/default-4.png',
      },
      background_color: input.backgroundColor ?? '#9147FF',
      is_enabled: input.isEnabled ?? true,
      is_user_input_required: input.isUserInputRequired ?? false,
      max_per_stream_setting: { is_enabled: false, max_per_stream: 0 },
      max_per_user_per_stream_setting: { is_enabled: false, max_per_user_per_stream: 0 },
      global_cooldown_setting: { is_enabled: false, global_cooldown_seconds: 0 },
      is_paused: false,
      is_in_stock: true,
      should_redemptions_skip_request_queue: input.autoFulfill ?? false,
      redemptions_redeemed_current_stream: null,
      cooldown_expires_at: null,
    };
    this.#rewards.push({ json, clientId: createdByClientId, deleted: false });
    return json;
  }

  /**
   * Another tool using `clientId` changes the reward (a Helix PATCH body, in Twitch's field names).
   * As on Twitch, only the client id that created it may: the dashboard cannot change an app's reward.
   */
  updateRewardAs(clientId: string, rewardId: string, body: Record<string, unknown>): RewardJson {
    const reward = this.#appReward(clientId, rewardId);
    this.#applyRewardFields(reward.json, body);
    return reward.json;
  }

  /**
   * Another tool using `clientId` deletes the reward (Helix Delete Custom Reward: only the client id
   * that created it may). From then on every call naming it answers 404 `Custom Reward not found`.
   * Its UNFULFILLED redemptions become FULFILLED, as on Twitch (see #deleteReward).
   */
  deleteRewardAs(clientId: string, rewardId: string): void {
    this.#deleteReward(this.#appReward(clientId, rewardId));
  }

  /**
   * Helix Delete Custom Reward: "If the reward's redemption status is UNFULFILLED at the time the
   * reward is deleted, its redemption status is marked as FULFILLED" (by Twitch: clientId null in
   * redemptionChanges). The viewers' points stay spent.
   */
  #deleteReward(reward: RewardRecord): void {
    reward.deleted = true;
    for (const redemption of this.#redemptions) {
      if (redemption.reward.id !== reward.json.id || redemption.status !== 'UNFULFILLED') continue;
      this.redemptionChanges.push({ redemptionId: redemption.id, rewardId: reward.json.id, from: 'UNFULFILLED', to: 'FULFILLED', clientId: null, at: Date.now() });
      redemption.status = 'FULFILLED';
    }
    this.#waiters.check();
  }

  #appReward(clientId: string, rewardId: string): RewardRecord {
    const reward = this.#rewards.find((r) => !r.deleted && r.json.id === rewardId);
    if (!reward) throw new Error(`fake Helix: no reward ${rewardId}`);
    if (reward.clientId !== clientId) throw new Error(`fake Helix: reward ${rewardId} was not made by ${clientId} (Twitch answers 403)`);
    return reward;
  }

  /** A redemption made while the bot was offline: stored UNFULFILLED, no notification. */
  addOfflineRedemption(input: RedemptionInput): RedemptionJson {
    const redemption = this.#buildRedemption(input);
    this.#redemptions.push(redemption);
    return redemption;
  }

  /**
   * A moderator resolves the redemption in the dashboard's request queue (which, like Helix, only
   * holds UNFULFILLED ones): recorded in redemptionChanges with clientId null.
   */
  resolveOnDashboard(redemptionId: string, status: 'FULFILLED' | 'CANCELED'): void {
    const redemption = this.#redemptions.find((r) => r.id === redemptionId);
    if (!redemption) throw new Error(`fake Helix: no redemption ${redemptionId}`);
    if (redemption.status !== 'UNFULFILLED') throw new Error(`fake Helix: redemption ${redemptionId} is ${redemption.status}, not in the request queue`);
    this.redemptionChanges.push({ redemptionId, rewardId: redemption.reward.id, from: redemption.status, to: status, clientId: null, at: Date.now() });
    redemption.status = status;
    this.#waiters.check();
  }

  /** A live redemption: stored and sent to every matching EventSub subscription. */
  fireRedemption(input: RedemptionInput): { redemption: RedemptionJson; deliveries: Delivery[] } {
    const redemption = this.addOfflineRedemption(input);
    const deliveries = this.eventSub.sendRedemptionAdd({
      id: redemption.id,
      broadcaster_user_id: redemption.broadcaster_id,
      broadcaster_user_login: redemption.broadcaster_login,
      broadcaster_user_name: redemption.broadcaster_name,
      user_id: redemption.user_id,
      user_login: redemption.user_login,
      user_name: redemption.user_name,
      user_input: redemption.user_input,
      status: redemption.status === 'UNFULFILLED' ? 'unfulfilled' : redemption.status === 'FULFILLED' ? 'fulfilled' : 'canceled',
      reward: { ...redemption.reward },
      redeemed_at: redemption.redeemed_at,
    });
    return { redemption, deliveries };
  }

  /**
   * The next call matching method/path is answered as things are when it comes, but the answer
   * is only sent on release(): a slow network, a request still under way while other things happen.
   */
  holdNext(rule: { method?: string; path?: string }): HeldAnswer {
    let send: (() => void) | null = null;
    let arrived!: (call: HelixCall) => void;
    const held: HoldRule = {
      ...rule,
      hold: (sendAnswer, call) => {
        send = sendAnswer;
        arrived(call);
      },
    };
    this.#holds.push(held);
    return {
      arrived: new Promise<HelixCall>((resolve) => (arrived = resolve)),
      release: () => {
        const index = this.#holds.indexOf(held);
        if (index !== -1) this.#holds.splice(index, 1);
        send?.();
      },
    };
  }

  /**
   * The next call matching method/path is recorded (status 0) and then neither handled nor
   * answered: it changes nothing on Twitch, and its connection stays open until the client ends
   * it (a process killed while its request was on the way). Resolves once it has come.
   */
  stallNext(rule: { method?: string; path?: string }): Promise<HelixCall> {
    return new Promise((resolve) => this.#stalls.push({ ...rule, arrived: resolve }));
  }

  /** The next `times` calls matching method/path answer with `status` (Twitch-style error body). */
  failNext(rule: FailureRule): void {
    this.#failures.push({ ...rule, times: rule.times ?? 1 });
  }

  waitForCall(predicate: (call: HelixCall) => boolean, options: { since?: number; timeoutMs?: number } = {}): Promise<HelixCall> {
    let cursor = options.since ?? 0;
    return this.#waiters.waitFor(
      () => {
        for (; cursor < this.calls.length; cursor++) {
          const call = this.calls[cursor] as HelixCall;
          if (predicate(call)) return call;
        }
        return undefined;
      },
      'a matching Helix call',
      options.timeoutMs ?? DEFAULT_WAIT_MS,
    );
  }

  waitForRedemptionStatus(redemptionId: string, status: RedemptionStatus, options: { timeoutMs?: number } = {}): Promise<RedemptionJson> {
    return this.#waiters.waitFor(
      () => this.#redemptions.find((r) => r.id === redemptionId && r.status === status),
      `redemption ${redemptionId} to become ${status}`,
      options.timeoutMs ?? DEFAULT_WAIT_MS,
    );
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#waiters.cancelAll('Helix server closed');
    if (this.#ownsEventSub) await this.eventSub.close();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  // ---- request handling ------------------------------------------------

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const method = (req.method ?? 'GET').toUpperCase();
    const path = this.#normalizePath(url.pathname);
    const query: Record<string, string[]> = {};
    for (const [key, value] of url.searchParams) (query[key] ??= []).push(value);
    const rawBody = await new Promise<string>((resolve) => {
      let text = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => (text += chunk));
      req.on('end', () => resolve(text));
    });
    const call: HelixCall = {
      method,
      path,
      query,
      body: undefined,
      clientId: (req.headers['client-id'] as string | undefined) ?? null,
      accessToken: null,
      userId: null,
      status: 0,
      at: Date.now(),
    };
    const auth = req.headers.authorization ?? '';
    const match = /^(?:Bearer|OAuth)\s+(\S+)$/i.exec(auth);
    call.accessToken = match?.[1] ?? null;
    this.calls.push(call);
    const stall = this.#stalls.findIndex((rule) => callMatches(rule, method, path));
    if (stall !== -1) {
      this.#stalls.splice(stall, 1)[0]!.arrived(call);
      this.#waiters.check();
      return;
    }

    let status = 200;
    let body: unknown = undefined;
    const headers: Record<string, string> = {};
    try {
      call.body = this.#parseBody(rawBody, req.headers['content-type']);
      const failure = this.#takeFailure(method, path);
      if (failure) {
        // Twitch's 429 says the bucket is empty and when it is full again (twurple waits for that, then retries).
        if (failure.status === 429 && !path.startsWith('/auth/')) Object.assign(headers, this.#rateLimitExceeded(1_000));
        throw new HttpError(failure.status, failure.message ?? STATUS_TEXT[failure.status] ?? 'Injected failure');
      }
      if (path.startsWith('/auth/')) {
        [status, body] = this.#handleAuth(method, path.slice('/auth'.length), query, call);
      } else {
        const token = this.#authenticate(call);
        const limit = this.#rateLimit(token);
        Object.assign(headers, limit.headers);
        if (limit.exceeded) throw new HttpError(429, 'Too Many Requests');
        [status, body] = this.#handleHelix(method, path, query, call, token);
      }
    } catch (error) {
      // Anything but an HttpError is a bug in the fake or its set-up: answer 500 with the reason instead of crashing.
      status = error instanceof HttpError ? error.status : 500;
      const message = error instanceof HttpError ? error.message : `fake Helix: ${error instanceof Error ? error.message : String(error)}`;
      body = { error: STATUS_TEXT[status] ?? 'Error', status, message };
      if (!path.startsWith('/auth/') && headers['Ratelimit-Limit'] === undefined) {
        Object.assign(headers, this.#rateLimit(null).headers);
      }
    }
    call.status = status;
    // Serialized now: a held answer says what was true when the call came.
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const send = (): void => {
      if (payload === undefined) res.writeHead(status, headers).end();
      else res.writeHead(status, { ...headers, 'Content-Type': 'application/json' }).end(payload);
    };
    const index = this.#holds.findIndex((rule) => callMatches(rule, method, path));
    if (index === -1) send();
    else this.#holds.splice(index, 1)[0]!.hold(send, call);
    this.#waiters.check();
  }

  #normalizePath(pathname: string): string {
    let path = pathname.replace(/\/+$/, '') || '/';
    if (path.startsWith('/mock/')) path = path.slice('/mock'.length);
    else if (path.startsWith('/helix/')) path = path.slice('/helix'.length);
    else if (path.startsWith('/oauth2/')) path = '/auth' + path.slice('/oauth2'.length);
    return path;
  }

  #parseBody(raw: string, contentType: string | undefined): unknown {
    if (!raw) return undefined;
    if (contentType?.includes('application/x-www-form-urlencoded')) return Object.fromEntries(new URLSearchParams(raw));
    try {
      return JSON.parse(raw) as unknown;
    } catch {
      throw new HttpError(400, 'Malformed request body');
    }
  }

  #takeFailure(method: string, path: string): FailureRule | undefined {
    const index = this.#failures.findIndex((rule) => callMatches(rule, method, path));
    if (index === -1) return undefined;
    const rule = this.#failures[index] as FailureRule & { times: number };
    rule.times--;
    if (rule.times <= 0) this.#failures.splice(index, 1);
    return rule;
  }

  /**
   * Takes a point from the caller's bucket (client id + user). A call that finds it empty is not
   * served: Twitch answers 429, Ratelimit-Remaining 0, until Ratelimit-Reset.
   */
  #rateLimit(token: TokenRecord | null): { headers: Record<string, string>; exceeded: boolean } {
    const limit = this.#options.rateLimitPerMinute ?? 800;
    const key = token ? `${token.clientId}:${token.userId ?? 'app'}` : 'anonymous';
    const now = Date.now();
    let bucket = this.#buckets.get(key);
    if (!bucket || bucket.resetAt <= now) {
      bucket = { remaining: limit, resetAt: now + 60_000 };
      this.#buckets.set(key, bucket);
    }
    const exceeded = bucket.remaining === 0;
    bucket.remaining = Math.max(0, bucket.remaining - 1);
    return {
      headers: {
        'Ratelimit-Limit': String(limit),
        'Ratelimit-Remaining': String(bucket.remaining),
        'Ratelimit-Reset': String(Math.ceil(bucket.resetAt / 1000)),
      },
      exceeded,
    };
  }

  /** The headers of an injected 429: the bucket empty, full again in about `inMs`. */
  #rateLimitExceeded(inMs: number): Record<string, string> {
    const limit = this.#options.rateLimitPerMinute ?? 800;
    return {
      'Ratelimit-Limit': String(limit),
      'Ratelimit-Remaining': '0',
      'Ratelimit-Reset': String(Math.ceil((Date.now() + inMs) / 1000)),
    };
  }

  #liveToken(accessToken: string | null): TokenRecord | undefined {
    if (accessToken === null) return undefined;
    const record = this.#tokens.get(accessToken);
    if (!record || record.revoked || record.expiresAt <= Date.now()) return undefined;
    return record;
  }

  #authenticate(call: HelixCall): TokenRecord {
    if (call.accessToken === null) throw new HttpError(401, 'OAuth token is missing');
    const token = this.#liveToken(call.accessToken);
    if (!token) throw new HttpError(401, 'Invalid OAuth token');
    if (call.clientId === null) throw new HttpError(401, 'Client ID is missing');
    if (token.clientId !== call.clientId) throw new HttpError(401, 'Client ID and OAuth token do not match');
    call.userId = token.userId;
    return token;
  }

  #requireUserScopes(token: TokenRecord, anyOf: string[]): string {
    if (token.userId === null) throw new HttpError(401, 'Missing User OAUTH Token');
    if (!anyOf.some((scope) => token.scopes.includes(scope))) throw new HttpError(401, `Missing scope: ${anyOf.join(' or ')}`);
    return token.userId;
  }

  #requireBroadcaster(query: Record<string, string[]>, userId: string): HelixUser {
    const broadcasterId = first(query, 'broadcaster_id');
    if (!broadcasterId) throw new HttpError(400, 'Missing required parameter "broadcaster_id"');
    if (broadcasterId !== userId) {
      throw new HttpError(401, "The ID in broadcaster_id must match the user ID found in the request's OAuth token.");
    }
    const broadcaster = this.#user(broadcasterId);
    // Channel points exist only on affiliate and partner channels.
    if (broadcaster.broadcasterType === '') throw new HttpError(403, 'The broadcaster must have partner or affiliate status.');
    return broadcaster;
  }

  #user(id: string): HelixUser {
    const user = this.#users.get(id);
    if (!user) throw new Error(`fake Helix: user ${id} is not known (addUser first)`);
    return user;
  }

  #storeToken(clientId: string, userId: string | null, scopes: string[], refreshToken: string | null, lifetime?: number): TokenRecord {
    const seconds = lifetime ?? this.#options.tokenLifetimeSeconds ?? 14_400;
    const record: TokenRecord = {
      accessToken: newToken(),
      refreshToken,
      clientId,
      userId,
      scopes: [...scopes],
      expiresAt: Date.now() + seconds * 1000,
      revoked: false,
    };
    this.#tokens.set(record.accessToken, record);
    return record;
  }

  // ---- id.twitch.tv ----------------------------------------------------

  #handleAuth(method: string, path: string, query: Record<string, string[]>, call: HelixCall): [number, unknown] {
    const form = { ...Object.fromEntries(Object.entries(query).map(([k, v]) => [k, v[0] ?? ''])), ...(call.body as Record<string, string> | undefined) };
    if (path === '/validate' && method === 'GET') {
      const token = this.#liveToken(call.accessToken);
      if (!token) throw new HttpError(401, 'invalid access token');
      call.userId = token.userId;
      const expiresIn = Math.max(0, Math.floor((token.expiresAt - Date.now()) / 1000));
      if (token.userId === null) return [200, { client_id: token.clientId, scopes: token.scopes, expires_in: expiresIn }];
      const user = this.#user(token.userId);
      return [200, { client_id: token.clientId, login: user.login, scopes: token.scopes, user_id: user.id, expires_in: expiresIn }];
    }
    if (path === '/token' && method === 'POST') {
      const clientId = form['client_id'] ?? '';
      const secret = this.#clients.get(clientId);
      if (secret === undefined) throw new HttpError(400, 'invalid client');
      if (secret !== form['client_secret']) throw new HttpError(403, 'invalid client secret');
      if (form['grant_type'] === 'refresh_token') {
        const previous = [...this.#tokens.values()].find((t) => t.refreshToken !== null && t.refreshToken === form['refresh_token'] && t.clientId === clientId);
        if (!previous) throw new HttpError(400, 'Invalid refresh token');
        const refreshToken = this.#options.rotateRefreshTokens ? newToken() : previous.refreshToken;
        if (this.#options.rotateRefreshTokens) previous.refreshToken = null;
        const record = this.#storeToken(clientId, previous.userId, previous.scopes, refreshToken);
        call.userId = record.userId;
        return [200, {
          access_token: record.accessToken,
          refresh_token: record.refreshToken,
          expires_in: Math.round((record.expiresAt - Date.now()) / 1000),
          scope: record.scopes,
          token_type: 'bearer',
        }];
      }
      if (form['grant_type'] === 'client_credentials') {
        const record = this.#storeToken(clientId, null, [], null);
        return [200, { access_token: record.accessToken, expires_in: Math.round((record.expiresAt - Date.now()) / 1000), token_type: 'bearer' }];
      }
      throw new HttpError(400, 'Invalid grant type');
    }
    if (path === '/revoke' && method === 'POST') {
      const record = this.#tokens.get(form['token'] ?? '');
      if (!record || record.clientId !== form['client_id']) throw new HttpError(400, 'Invalid token');
      record.revoked = true;
      return [200, undefined];
    }
    throw new HttpError(404, `No route for ${method} /oauth2${path}`);
  }

  // ---- Helix -----------------------------------------------------------

  #handleHelix(method: string, path: string, query: Record<string, string[]>, call: HelixCall, token: TokenRecord): [number, unknown] {
    switch (`${method} ${path}`) {
      case 'GET /users':
        return this.#getUsers(query, token);
      case 'GET /eventsub/subscriptions':
        return this.#listSubscriptions(query, token);
      case 'POST /eventsub/subscriptions':
        return this.#createSubscription(call.body, token);
      case 'DELETE /eventsub/subscriptions': {
        const id = first(query, 'id');
        if (!id) throw new HttpError(400, 'Missing required parameter "id"');
        const record = this.eventSub.activeSubscriptions({ clientId: token.clientId }).find((s) => s.id === id);
        if (!record) throw new HttpError(404, 'subscription not found');
        this.eventSub.deleteSubscription(id);
        return [204, undefined];
      }
      case 'GET /channel_points/custom_rewards':
        return this.#getRewards(query, token);
      case 'POST /channel_points/custom_rewards':
        return this.#createRewardCall(query, call.body, token);
      case 'PATCH /channel_points/custom_rewards':
        return this.#updateReward(query, call.body, token);
      case 'DELETE /channel_points/custom_rewards': {
        this.#deleteReward(this.#manageableReward(query, token, MANAGE_REDEMPTIONS, first(query, 'id')));
        return [204, undefined];
      }
      case 'GET /channel_points/custom_rewards/redemptions':
        return this.#getRedemptions(query, token);
      case 'PATCH /channel_points/custom_rewards/redemptions':
        return this.#updateRedemptions(query, call.body, token);
      default:
        throw new HttpError(404, `No route for ${method} ${path}`);
    }
  }

  #userJson(user: HelixUser): Record<string, unknown> {
    return {
      id: user.id,
      login: user.login,
      display_name: user.displayName,
      type: '',
      broadcaster_type: user.broadcasterType,
      description: '',
      profile_image_url: '',
      offline_image_url: '',
      view_count: 0,
      created_at: '2020-01-01T00:00:00Z',
    };
  }

  #getUsers(query: Record<string, string[]>, token: TokenRecord): [number, unknown] {
    const ids = query['id'] ?? [];
    const logins = (query['login'] ?? []).map((l) => l.toLowerCase());
    if (ids.length + logins.length > 100) throw new HttpError(400, 'The combined number of id and login parameters must not exceed 100');
    if (ids.length === 0 && logins.length === 0) {
      if (token.userId === null) throw new HttpError(400, 'Must provide an ID, Login or OAuth Token');
      return [200, { data: [this.#userJson(this.#user(token.userId))] }];
    }
    const users = [...this.#users.values()].filter((u) => ids.includes(u.id) || logins.includes(u.login));
    return [200, { data: users.map((u) => this.#userJson(u)) }];
  }

  #listSubscriptions(query: Record<string, string[]>, token: TokenRecord): [number, unknown] {
    const status = first(query, 'status');
    const type = first(query, 'type');
    const userId = first(query, 'user_id');
    const id = first(query, 'subscription_id');
    const records = this.eventSub
      .activeSubscriptions({ clientId: token.clientId })
      .filter(
        (s) =>
          (status === undefined || s.status === status) &&
          (type === undefined || s.type === type) &&
          (id === undefined || s.id === id) &&
          (userId === undefined || Object.values(s.condition).includes(userId)) &&
          // WebSocket subscriptions are only visible with a token of the user that made them.
          (token.userId === null || s.userId === token.userId),
      );
    return [200, { data: records.map(subscriptionJson), total: records.length, total_cost: 0, max_total_cost: 10_000, pagination: {} }];
  }

  #createSubscription(body: unknown, token: TokenRecord): [number, unknown] {
    const request = body as
      | { type?: string; version?: string; condition?: Record<string, string>; transport?: { method?: string; session_id?: string } }
      | undefined;
    if (!request?.type || !request.version || !request.condition || !request.transport) {
      throw new HttpError(400, 'type, version, condition and transport are required');
    }
    if (request.transport.method !== 'websocket') throw new HttpError(400, 'this fake supports the websocket transport only');
    if (token.userId === null) throw new HttpError(400, 'websocket transport requires a user access token');
    if (!request.transport.session_id) throw new HttpError(400, 'transport.session_id is required');
    if (request.type === 'channel.channel_points_custom_reward_redemption.add' && request.version === '1') {
      this.#requireUserScopes(token, READ_REDEMPTIONS);
      if (request.condition['broadcaster_user_id'] !== token.userId) {
        throw new HttpError(403, 'subscription missing proper authorization');
      }
    }
    const result = this.eventSub.createSubscription({
      type: request.type,
      version: request.version,
      condition: request.condition,
      sessionId: request.transport.session_id,
      clientId: token.clientId,
      userId: token.userId,
    });
    if (!result.ok) throw new HttpError(result.status, result.message);
    const count = this.eventSub.activeSubscriptions({ clientId: token.clientId }).length;
    return [202, { data: [subscriptionJson(result.subscription)], total: count, total_cost: 0, max_total_cost: 10_000 }];
  }

  #getRewards(query: Record<string, string[]>, token: TokenRecord): [number, unknown] {
    const userId = this.#requireUserScopes(token, READ_REDEMPTIONS);
    const broadcaster = this.#requireBroadcaster(query, userId);
    const ids = query['id'] ?? [];
    const onlyManageable = first(query, 'only_manageable_rewards') === 'true';
    const rewards = this.#rewards.filter(
      (r) =>
        !r.deleted &&
        r.json.broadcaster_id === broadcaster.id &&
        (ids.length === 0 || ids.includes(r.json.id)) &&
        (!onlyManageable || r.clientId === token.clientId),
    );
    if (ids.length > 0 && rewards.length === 0) throw new HttpError(404, 'Custom Reward not found');
    return [200, { data: rewards.map((r) => r.json) }];
  }

  #createRewardCall(query: Record<string, string[]>, body: unknown, token: TokenRecord): [number, unknown] {
    const userId = this.#requireUserScopes(token, MANAGE_REDEMPTIONS);
    const broadcaster = this.#requireBroadcaster(query, userId);
    const input = (body ?? {}) as Record<string, unknown>;
    const title = input['title'];
    const cost = input['cost'];
    if (typeof title !== 'string' || title.length === 0 || title.length > 45) throw new HttpError(400, 'The parameter "title" was malformed');
    if (typeof cost !== 'number' || !Number.isInteger(cost) || cost < 1) throw new HttpError(400, 'The parameter "cost" was malformed');
    const live = this.#rewards.filter((r) => !r.deleted && r.json.broadcaster_id === broadcaster.id);
    if (live.some((r) => r.json.title.toLowerCase() === title.toLowerCase())) throw new HttpError(400, 'CREATE_CUSTOM_REWARD_DUPLICATE_REWARD');
    if (live.length >= MAX_REWARDS_PER_CHANNEL) throw new HttpError(400, 'CREATE_CUSTOM_REWARD_TOO_MANY_REWARDS');
    const json = this.createReward(broadcaster.id, { title, cost }, token.clientId);
    this.#applyRewardFields(json, input);
    return [200, { data: [json] }];
  }

  #updateReward(query: Record<string, string[]>, body: unknown, token: TokenRecord): [number, unknown] {
    const reward = this.#manageableReward(query, token, MANAGE_REDEMPTIONS, first(query, 'id'));
    const input = (body ?? {}) as Record<string, unknown>;
    if ('cost' in input && (typeof input['cost'] !== 'number' || input['cost'] < 1)) throw new HttpError(400, 'The parameter "cost" was malformed');
    this.#applyRewardFields(reward.json, input);
    return [200, { data: [reward.json] }];
  }

  #applyRewardFields(json: RewardJson, input: Record<string, unknown>): void {
    const str = (key: string): string | undefined => (typeof input[key] === 'string' ? (input[key] as string) : undefined);
    const num = (key: string): number | undefined => (typeof input[key] === 'number' ? (input[key] as number) : undefined);
    const bool = (key: string): boolean | undefined => (typeof input[key] === 'boolean' ? (input[key] as boolean) : undefined);
    json.title = str('title') ?? json.title;
    json.prompt = str('prompt') ?? json.prompt;
    json.cost = num('cost') ?? json.cost;
    json.background_color = str('background_color') ?? json.background_color;
    json.is_enabled = bool('is_enabled') ?? json.is_enabled;
    json.is_user_input_required = bool('is_user_input_required') ?? json.is_user_input_required;
    json.is_paused = bool('is_paused') ?? json.is_paused;
    json.should_redemptions_skip_request_queue = bool('should_redemptions_skip_request_queue') ?? json.should_redemptions_skip_request_queue;
    json.max_per_stream_setting = {
      is_enabled: bool('is_max_per_stream_enabled') ?? json.max_per_stream_setting.is_enabled,
      max_per_stream: num('max_per_stream') ?? json.max_per_stream_setting.max_per_stream,
    };
    json.max_per_user_per_stream_setting = {
      is_enabled: bool('is_max_per_user_per_stream_enabled') ?? json.max_per_user_per_stream_setting.is_enabled,
      max_per_user_per_stream: num('max_per_user_per_stream') ?? json.max_per_user_per_stream_setting.max_per_user_per_stream,
    };
    json.global_cooldown_setting = {
      is_enabled: bool('is_global_cooldown_enabled') ?? json.global_cooldown_setting.is_enabled,
      global_cooldown_seconds: num('global_cooldown_seconds') ?? json.global_cooldown_setting.global_cooldown_seconds,
    };
  }

  /** The reward named by `rewardId`, if it exists and this token's client created it. */
  #manageableReward(query: Record<string, string[]>, token: TokenRecord, scopes: string[], rewardId: string | undefined): RewardRecord {
    const userId = this.#requireUserScopes(token, scopes);
    const broadcaster = this.#requireBroadcaster(query, userId);
    if (!rewardId) throw new HttpError(400, 'Missing required parameter "id"');
    const reward = this.#rewards.find((r) => !r.deleted && r.json.id === rewardId && r.json.broadcaster_id === broadcaster.id);
    if (!reward) throw new HttpError(404, 'Custom Reward not found');
    if (reward.clientId !== token.clientId) {
      throw new HttpError(403, 'The client-id specified in the header does not match the client-id used to create the custom reward.');
    }
    return reward;
  }

  #getRedemptions(query: Record<string, string[]>, token: TokenRecord): [number, unknown] {
    const rewardId = first(query, 'reward_id');
    if (!rewardId) throw new HttpError(400, 'Missing required parameter "reward_id"');
    const reward = this.#manageableReward(query, token, READ_REDEMPTIONS, rewardId);
    const ids = query['id'] ?? [];
    const status = first(query, 'status');
    if (ids.length === 0 && status === undefined) throw new HttpError(400, 'The status query parameter is required if you don\'t specify the id query parameter.');
    if (status !== undefined && !['UNFULFILLED', 'FULFILLED', 'CANCELED'].includes(status)) throw new HttpError(400, 'The parameter "status" was malformed');
    if (ids.length > 50) throw new HttpError(400, 'You may specify a maximum of 50 id parameters');
    const sort = first(query, 'sort') ?? 'OLDEST';
    if (sort !== 'OLDEST' && sort !== 'NEWEST') throw new HttpError(400, 'The parameter "sort" was malformed');
    const pageSize = Number(first(query, 'first') ?? '20');
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 50) throw new HttpError(400, 'The parameter "first" was malformed');
    let matching = this.#redemptions.filter(
      (r) => r.reward.id === reward.json.id && (ids.length === 0 || ids.includes(r.id)) && (status === undefined || r.status === status),
    );
    matching = [...matching].sort((a, b) => a.redeemed_at.localeCompare(b.redeemed_at));
    if (sort === 'NEWEST') matching.reverse();
    const after = first(query, 'after');
    let offset = 0;
    if (after !== undefined && after !== '') {
      offset = Number(Buffer.from(after, 'base64url').toString('utf8').replace(/^offset:/, ''));
      if (!Number.isInteger(offset) || offset < 0) throw new HttpError(400, 'The parameter "after" was malformed');
    }
    const page = matching.slice(offset, offset + pageSize);
    const next = offset + page.length;
    const pagination = next < matching.length ? { cursor: Buffer.from(`offset:${next}`).toString('base64url') } : {};
    return [200, { data: page, pagination }];
  }

  #updateRedemptions(query: Record<string, string[]>, body: unknown, token: TokenRecord): [number, unknown] {
    const rewardId = first(query, 'reward_id');
    if (!rewardId) throw new HttpError(400, 'Missing required parameter "reward_id"');
    const ids = query['id'] ?? [];
    if (ids.length === 0 || ids.length > 50) throw new HttpError(400, 'Between 1 and 50 id parameters are required');
    const status = (body as { status?: unknown } | undefined)?.status;
    if (status !== 'FULFILLED' && status !== 'CANCELED') throw new HttpError(400, 'The parameter "status" was malformed');
    const reward = this.#manageableReward(query, token, MANAGE_REDEMPTIONS, rewardId);
    const targets = this.#redemptions.filter((r) => ids.includes(r.id) && r.reward.id === reward.json.id && r.status === 'UNFULFILLED');
    if (targets.length === 0) throw new HttpError(404, 'No unfulfilled redemptions found with the specified IDs');
    for (const redemption of targets) {
      this.redemptionChanges.push({ redemptionId: redemption.id, rewardId: reward.json.id, from: redemption.status, to: status, clientId: token.clientId, at: Date.now() });
      redemption.status = status;
    }
    return [200, { data: targets }];
  }

  #buildRedemption(input: RedemptionInput): RedemptionJson {
    const reward = this.#rewards.find((r) => r.json.id === input.rewardId && !r.deleted);
    if (!reward) throw new Error(`fake Helix: no reward ${input.rewardId} (create it first)`);
    const login = input.user.login.toLowerCase();
    return {
      broadcaster_id: reward.json.broadcaster_id,
      broadcaster_login: reward.json.broadcaster_login,
      broadcaster_name: reward.json.broadcaster_name,
      id: input.id ?? randomUUID(),
      user_id: input.user.id ?? stableNumericId(login),
      user_login: login,
      user_name: input.user.displayName ?? input.user.login,
      user_input: input.userInput ?? '',
      status: reward.json.should_redemptions_skip_request_queue ? 'FULFILLED' : 'UNFULFILLED',
      redeemed_at: (input.redeemedAt ?? new Date()).toISOString(),
      reward: { id: reward.json.id, title: reward.json.title, prompt: reward.json.prompt, cost: reward.json.cost },
    };
  }
}
