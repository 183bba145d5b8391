/**
 * FakeTwitchIrc: Twitch chat (IRCv3 over WebSocket) on 127.0.0.1, for tests and
 * benchmarks that drive the real tmi.js client.
 *
 * Start and point tmi.js at it:
 *
 *   const irc = await FakeTwitchIrc.start({ userBadges: (login, ch) => ({ moderator: '1' }) });
 *   const client = new tmi.Client({
 *     connection: { server: '127.0.0.1', port: irc.port, secure: false, reconnectInterval: 50, reconnectDecay: 1 },
 *     identity: { username: 'chatskinbot', password: 'oauth:goodtoken' },
 *     channels: ['somechannel'],
 *     options: { skipUpdatingEmotesets: true }, // else tmi.js fetches api.twitch.tv/kraken on every USERSTATE
 *   });
 *   // (irc.tmiConnection gives { server, port, secure: false })
 *   await client.connect();
 *   await irc.waitForJoin('somechannel');
 *
 * tmi.js builds `ws://<server>:<port>/` (wss and port 443 only when `secure`), asks
 * for the `irc` subprotocol and uses Node's global WebSocket, not `ws`.
 *
 * Protocol covered (as Twitch sends it):
 * - CAP REQ -> `CAP * ACK` (twitch.tv/tags, /commands, /membership; anything else NAK).
 *   Tags are only written to connections that asked for twitch.tv/tags; USERSTATE,
 *   ROOMSTATE, CLEARCHAT, CLEARMSG, USERNOTICE, GLOBALUSERSTATE, RECONNECT and
 *   NOTICE-with-tags only to those that asked for twitch.tv/commands; other users'
 *   JOIN/PART only with twitch.tv/membership.
 * - PASS oauth:<token> / NICK <login>: `NOTICE * :Improperly formatted auth` without
 *   the oauth: prefix; `NOTICE * :Login authentication failed` for a refused token
 *   (then the server closes the socket); justinfanNNN logs in anonymously.
 * - Welcome 001-004, 375, 372, 376, then GLOBALUSERSTATE.
 * - JOIN #a[,#b]: JOIN echo, 353, 366, USERSTATE (badges from `userBadges`), ROOMSTATE.
 *   PART echo. A channel in `suspendedChannels` (one that does not exist or is suspended) gets
 *   `NOTICE` `msg_channel_suspended` instead, and is not joined.
 * - PING from the client: bare `PING` -> `PONG :tmi.twitch.tv` (the unprefixed form
 *   tmi.js 1.8 needs to see its latency pong), `PING :x` -> `:tmi.twitch.tv PONG tmi.twitch.tv :x`.
 *   Server PING (`PING :tmi.twitch.tv`) via `pingClients()` or `pingIntervalMs`.
 * - Server PART (`partChannel`): Twitch taking a client out of a channel.
 * - `silent`: accepts WebSocket connections and records their lines but answers none, as a
 *   hung server would (no 001, no GLOBALUSERSTATE, no PONG). Switchable at any time.
 * - `loseNetwork()`: a network that went away under the open connections: no line and no
 *   WebSocket frame passes either way (a client's close handshake is never answered either), and
 *   they never close.
 * - id.twitch.tv's token check on the same port (HTTP `GET /oauth2/validate`, `.oauthUrl`), so a
 *   host given a fixed bot token checks it here: 401 for a token in `rejectTokens`, otherwise 200
 *   with chat:read and chat:edit and no login (any login's). Tests of who a token belongs to, or
 *   of tokens that expire, use FakeHelix's /validate instead.
 * - No PONG from a client to the server's PING is required (Twitch closes such a connection).
 * - PRIVMSG from a client: recorded with the time received (`privmsgs`); not echoed
 *   to the sender (Twitch answers with USERSTATE for that channel); relayed with
 *   tags to the other connections in the channel.
 * - Slow mode (`setSlowMode`): a partial `ROOMSTATE` with `slow=N` to the channel, and a
 *   PRIVMSG from a chatter who is neither broadcaster nor moderator within N s of their
 *   last delivered one there gets `NOTICE` `msg_slowmode` instead (recorded with
 *   `refused: 'msg_slowmode'`). The JOIN burst's ROOMSTATE carries the channel's slow mode.
 * - Unknown commands -> `421 <login> <CMD> :Unknown command`.
 * - Injection: user PRIVMSG with full tags (a /me, a reply with its reply-parent-* tags, bits,
 *   a reward), CLEARMSG, CLEARCHAT (timeout, ban, clear all), USERNOTICE, NOTICE, RECONNECT,
 *   raw lines, abrupt drop of every socket.
 * - Commands (fake-chat-commands.ts): a PRIVMSG whose text starts with "/" or "." and a letter
 *   is a command, as on Twitch: `/me text` (or `.me`) is delivered as an action line, any other
 *   gets `NOTICE` `unrecognized_cmd` (Twitch runs no other command over IRC since February
 *   2023) and is not delivered (recorded with `refused: 'unrecognized_cmd'`).
 * - Duplicates (fake-duplicates.ts): a PRIVMSG from a chatter who is neither broadcaster nor
 *   moderator, identical to their last delivered one there within 30 s, gets `NOTICE`
 *   `msg_duplicate` instead (recorded with `refused: 'msg_duplicate'`). Tag characters
 *   (U+E0000..U+E007F) are dropped from what is delivered and compared, as Twitch has done since
 *   August 2025; surrounding spaces do not count.
 * - Rate limits (fake-rate-limits.ts), with `rateLimits: true`: 20 PRIVMSGs per 30 s from a login
 *   to channels where it is neither broadcaster nor moderator, 100 per 30 s in all, and one per
 *   second per such channel; a line past them gets `NOTICE` `msg_ratelimit` instead (recorded
 *   with `refused: 'msg_ratelimit'`). Judged at the line's arrival, `privmsgs[i].at`: stamped by
 *   the `now` option's clock (Date.now by default; a test on a manual clock passes its own), plus
 *   the `privmsgDelay` the test gives a line (held up on the way), never before the connection's
 *   previous PRIVMSG (one stream keeps its order). Off by default: tests of the adapter alone
 *   send lines as fast as they like, and a host whose clock is not the fake's cannot be judged.
 *
 * API:
 *   FakeTwitchIrc.start(options?)                     -> Promise<FakeTwitchIrc>
 *   .port / .url / .tmiConnection / .oauthUrl (the /validate base)
 *   .connectionCount (open now) / .totalConnections (accepted ever) / .connections
 *   .sent: ClientLine[]        every line any client sent, parsed, with `at`
 *   .privmsgs: ClientPrivmsg[]  PRIVMSGs clients sent (the bot's chat output)
 *   .joins: JoinRecord[]        every channel join, in order
 *   .waitForLogin(login?, opts?) / .waitForJoin(channel, opts?) / .waitForPrivmsg(pred?, opts?)
 *     opts.since: an index into the matching history (`irc.joins.length`,
 *     `irc.privmsgs.length`) so only later events count; opts.timeoutMs (default 10 s).
 *   .sendPrivmsg(channel, user, text, options?)  -> InjectedPrivmsg { id, tags, line }
 *   .sendSharedPrivmsg(source, partners, user, text, options?)  -> InjectedPrivmsg[] (a Shared
 *     Chat message: in `source` and a copy in each partner channel, with the source-* tags)
 *   .deleteMessage(channel, { login, targetMsgId, text })
 *   .timeoutUser(channel, user, seconds) / .banUser(channel, user) / .clearChat(channel)
 *   .sendUserNotice(channel, user, { msgId, systemMsg, params?, text? })
 *   .sendNotice(channel | '*', msgId, text)
 *   .sendReconnect() / .pingClients() / .dropAllConnections() / .sendRaw(line, channel?)
 *   .loseNetwork()  the network to every open connection goes away: no byte passes, nothing closes
 *   .partChannel(channel, login?)  the server parts clients (of `login`, if given) from a channel
 *   .setSlowMode(channel, seconds, { announce? })  slow mode on (0: off); announce: false
 *     enforces it without the ROOMSTATE, as if the client had missed it
 *   .silent = true | false          stop / start answering clients' lines
 *   .refuseConnections = true | false   close every new connection at once (.connectionAttempts: when each was opened)
 *   .bannedIn (Set of channels)     the clients' PRIVMSGs there get NOTICE msg_banned
 *   .answersLost = true | false     deliver clients' PRIVMSGs but send their senders no USERSTATE
 *   .privmsgDelay = (message) => ms | null   hold clients' PRIVMSGs up on the way (their `at`)
 *   .floodPrivmsg(channel, count, build?, options?) -> Promise<FloodResult>
 *   .userIdOf(login) / .roomIdOf(channel)
 *   .close()
 * Channels may be given with or without '#'; records always carry '#name'.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';
import { chatCommandOf, commandRefusal } from './fake-chat-commands.ts';
import { DUPLICATE_NOTICE, FakeDuplicates, deliveredText } from './fake-duplicates.ts';
import { FakeRateLimits, RATE_LIMIT_NOTICE } from './fake-rate-limits.ts';
import { FakeSlowMode, slowModeNotice } from './fake-slow-mode.ts';
import { formatIrcLine, parseIrcLine, type IrcMessage, type IrcTags } from './irc-message.ts';
import { stableNumericId } from './stable-id.ts';
import { Waiters, DEFAULT_WAIT_MS } from './waiters.ts';

export type Badges = Record<string, string>;

export interface FakeTwitchIrcOptions {
  host?: string;
  port?: number;
  /** Tokens (without `oauth:`) refused with `Login authentication failed`. */
  rejectTokens?: string[];
  /** Decides per login; when given it replaces `rejectTokens`. */
  acceptToken?: (token: string, login: string) => boolean;
  /** The logged-in client's badges in a channel (USERSTATE). Default: broadcaster/1 in its own channel, none elsewhere. */
  userBadges?: (login: string, channel: string) => Badges;
  /** room-id per channel name (no '#'); default a stable number from the name. */
  roomIds?: Record<string, string>;
  /** user-id per login; default a stable number from the login. */
  userIds?: Record<string, string>;
  /** emote-sets tag in GLOBALUSERSTATE/USERSTATE. Default '0'. */
  emoteSets?: string;
  /** Server PING every this many ms; 0 (default) never. */
  pingIntervalMs?: number;
  /** Start silent (see `silent`). Default false. */
  silent?: boolean;
  /** The fake's clock (ms) for `at` stamps, slow mode and the rate limits. Default Date.now. */
  now?: () => number;
  /** Enforce Twitch's chat rate limits on clients' PRIVMSGs (fake-rate-limits.ts). Default false. */
  rateLimits?: boolean;
}

/** A chat user as a test describes it; turned into Twitch's tags. */
export interface ChatUser {
  login: string;
  /** Default: the login. */
  displayName?: string;
  /** Default: a stable number from the login. */
  userId?: string;
  /** '#RRGGBB' or '' (no color chosen). Default ''. */
  color?: string;
  broadcaster?: boolean;
  mod?: boolean;
  vip?: boolean;
  /** true = subscribed (1 month), or the number of months. */
  subscriber?: boolean | number;
  turbo?: boolean;
  /** Extra badges, e.g. { 'bits': '100' }; appended after role badges. */
  badges?: Badges;
  badgeInfo?: Badges;
}

export interface PrivmsgOptions {
  /** Message id tag; default a random UUID. */
  id?: string;
  /** Emote id -> [start, end] ranges, in code points (inclusive), as Twitch counts them. */
  emotes?: Record<string, Array<[number, number]>>;
  /** Emote code -> id; every whitespace-separated occurrence in the text is tagged. */
  emoteCodes?: Record<string, string>;
  firstMsg?: boolean;
  returningChatter?: boolean;
  bits?: number;
  customRewardId?: string;
  /** Sent as `\x01ACTION text\x01` (a /me message). */
  action?: boolean;
  /**
   * A reply (Twitch's reply threads): the reply-parent-* tags name the message answered, the
   * reply-thread-parent-* ones the thread's first message (`thread`, default that same one). The
   * text is the test's: clients put "@<name> " first, and the server sends it as they sent it.
   */
  replyTo?: ReplyParent & { thread?: ReplyParent };
  /** Default Date.now(). */
  tmiSentTs?: number;
  /** Added last; overrides any computed tag. */
  extraTags?: IrcTags;
}

/** A message a reply answers. */
export interface ReplyParent {
  id: string;
  user: ChatUser;
  text: string;
}

export interface InjectedPrivmsg {
  id: string;
  tags: IrcTags;
  line: string;
}

export interface ClientLine {
  connectionId: number;
  /** null before NICK. */
  login: string | null;
  raw: string;
  message: IrcMessage;
  /** Date.now() when the server read the line. */
  at: number;
}

export interface ClientPrivmsg {
  connectionId: number;
  login: string | null;
  /** '#name' */
  channel: string;
  text: string;
  /** Whether that connection had joined the channel (Twitch drops it otherwise). */
  joined: boolean;
  /** The msg-id of the NOTICE answered instead of delivering it (`msg_slowmode`, `msg_ratelimit`, `unrecognized_cmd`); null when delivered. */
  refused: string | null;
  tags: IrcTags;
  /** When it arrived: the fake's clock when the server read it, plus the `privmsgDelay` it was given. */
  at: number;
}

export interface JoinRecord {
  connectionId: number;
  login: string;
  channel: string;
  at: number;
}

export interface ConnectionInfo {
  id: number;
  login: string | null;
  loggedIn: boolean;
  caps: string[];
  channels: string[];
  /** Its network went away (`loseNetwork()`). */
  lost: boolean;
}

export interface WaitOptions {
  since?: number;
  timeoutMs?: number;
}

export interface FloodBuild {
  user: ChatUser;
  text: string;
  options?: PrivmsgOptions;
}

export interface FloodOptions {
  /** IRC lines per WebSocket frame (Twitch also packs several). Default 200. */
  linesPerFrame?: number;
  /** Wait for the socket to drain when more than this many bytes are queued. Default 1 MiB. */
  highWaterBytes?: number;
}

export interface FloodResult {
  messages: number;
  frames: number;
  bytes: number;
}

const SUPPORTED_CAPS = new Set(['twitch.tv/tags', 'twitch.tv/commands', 'twitch.tv/membership']);
const COMMANDS_CAP_ONLY = new Set(['USERSTATE', 'ROOMSTATE', 'CLEARCHAT', 'CLEARMSG', 'USERNOTICE', 'GLOBALUSERSTATE', 'RECONNECT', 'HOSTTARGET']);
const JUSTINFAN = /^justinfan\d+$/;
const CHANNEL_SUSPENDED_NOTICE = 'This channel does not exist or has been suspended.';
const SERVER = 'tmi.twitch.tv';

interface Connection {
  id: number;
  /** When its last PRIVMSG arrived (`at`): a later one cannot arrive before it. */
  lastPrivmsgAt: number;
  ws: WebSocket;
  caps: Set<string>;
  pass: string | null;
  login: string | null;
  loggedIn: boolean;
  channels: Set<string>;
  /** The network to it went away (loseNetwork): nothing is written to it and nothing it sends is read. */
  lost: boolean;
}

export function normalizeChannel(channel: string): string {
  const name = channel.trim().toLowerCase();
  return name.startsWith('#') ? name : '#' + name;
}

function userPrefix(login: string): string {
  return `${login}!${login}@${login}.tmi.twitch.tv`;
}

function formatBadges(badges: Badges): string {
  return Object.entries(badges)
    .map(([name, version]) => `${name}/${version}`)
    .join(',');
}

function formatEmotes(emotes: Record<string, Array<[number, number]>>): string {
  return Object.entries(emotes)
    .filter(([, ranges]) => ranges.length > 0)
    .map(([id, ranges]) => `${id}:${ranges.map(([a, b]) => `${a}-${b}`).join(',')}`)
    .join('/');
}

/** Finds each whitespace-separated occurrence of an emote code, in code points. */
export function emoteRangesFor(text: string, codes: Record<string, string>): Record<string, Array<[number, number]>> {
  const result: Record<string, Array<[number, number]>> = {};
  const chars = Array.from(text);
  let start = 0;
  while (start < chars.length) {
    while (start < chars.length && chars[start] === ' ') start++;
    let end = start;
    while (end < chars.length && chars[end] !== ' ') end++;
    if (end > start) {
      const word = chars.slice(start, end).join('');
      const id = codes[word];
      if (id !== undefined) (result[id] ??= []).push([start, end - 1]);
    }
    start = end;
  }
  return result;
}

export class FakeTwitchIrc {
  readonly sent: ClientLine[] = [];
  readonly privmsgs: ClientPrivmsg[] = [];
  readonly joins: JoinRecord[] = [];
  /** While true, clients' lines are recorded in `sent` but not answered or acted on. */
  silent: boolean;
  /**
   * Channels (lowercase, no '#') that do not exist or are suspended: a JOIN of one is answered
   * with NOTICE msg_channel_suspended ("This channel does not exist or has been suspended.") and
   * joins nothing, as on Twitch. Changeable at any time.
   */
  readonly suspendedChannels = new Set<string>();
  /**
   * Channels (lowercase, no '#') whose JOIN gets no answer at all, as Twitch does with a join past
   * its join rate limit: nothing joined, nothing said. Recorded in `sent` like any line. Changeable at any time.
   */
  readonly unansweredJoins = new Set<string>();
  /**
   * While true, a client's PRIVMSG is delivered (relayed, counted for the duplicate rule) but its
   * sender gets no USERSTATE for it: the connection died between Twitch taking the line and its
   * answer reaching the client.
   */
  answersLost = false;
  /**
   * How long a client's PRIVMSG was held up on the way (ms, from the fake's clock when the server
   * read it): its `at`, which slow mode, duplicates and the rate limits judge, is that much later,
   * and never before the same connection's previous PRIVMSG. null (default): none is.
   * Changeable at any time.
   */
  privmsgDelay: ((message: { login: string | null; channel: string; text: string }) => number) | null = null;
  /**
   * While true, every new WebSocket connection is closed at once, before a line is read (a
   * server refusing connections for a while). Changeable at any time.
   */
  refuseConnections = false;
  /** When each WebSocket connection was opened (the fake's clock), refused ones too. */
  readonly connectionAttempts: number[] = [];
  /**
   * Channels (lowercase, no '#') where the logged-in clients are banned: each PRIVMSG they send
   * there gets `NOTICE` `msg_banned` and is not delivered (recorded with `refused: 'msg_banned'`).
   * Changeable at any time.
   */
  readonly bannedIn = new Set<string>();

  readonly #server: WebSocketServer;
  readonly #http: Server;
  readonly #options: FakeTwitchIrcOptions;
  readonly #connections = new Map<number, Connection>();
  readonly #waiters = new Waiters();
  readonly #slowMode = new FakeSlowMode();
  readonly #duplicates = new FakeDuplicates();
  readonly #rateLimits = new FakeRateLimits();
  readonly #now: () => number;
  #nextConnectionId = 1;
  #pingTimer: NodeJS.Timeout | undefined;
  #closed = false;

  private constructor(http: Server, server: WebSocketServer, options: FakeTwitchIrcOptions) {
    this.#http = http;
    this.#server = server;
    http.on('request', (req: IncomingMessage, res: ServerResponse) => this.#answerHttp(req, res));
    this.#options = options;
    this.silent = options.silent ?? false;
    this.#now = options.now ?? Date.now;
    server.on('connection', (ws) => this.#accept(ws));
    if (options.pingIntervalMs) {
      this.#pingTimer = setInterval(() => this.pingClients(), options.pingIntervalMs);
    }
  }

  static async start(options: FakeTwitchIrcOptions = {}): Promise<FakeTwitchIrc> {
    const http = createServer();
    const server = new WebSocketServer({ server: http });
    await new Promise<void>((resolve, reject) => {
      http.once('error', reject);
      http.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve);
    });
    return new FakeTwitchIrc(http, server, options);
  }

  get port(): number {
    const address = this.#http.address();
    if (address === null || typeof address === 'string') throw new Error('fake Twitch IRC: not listening');
    return address.port;
  }

  get url(): string {
    return `ws://127.0.0.1:${this.port}/`;
  }

  /** id.twitch.tv's OAuth base for the check of a fixed bot token (twitch.oauth.url). */
  get oauthUrl(): string {
    return `http://127.0.0.1:${this.port}/oauth2`;
  }

  /** Ready-made `connection` fields for tmi.js. */
  get tmiConnection(): { server: string; port: number; secure: false } {
    return { server: '127.0.0.1', port: this.port, secure: false };
  }

  get connectionCount(): number {
    return this.#connections.size;
  }

  get totalConnections(): number {
    return this.#nextConnectionId - 1;
  }

  get connections(): ConnectionInfo[] {
    return [...this.#connections.values()].map((c) => ({
      id: c.id,
      login: c.login,
      loggedIn: c.loggedIn,
      caps: [...c.caps],
      channels: [...c.channels],
      lost: c.lost,
    }));
  }

  userIdOf(login: string): string {
    const name = login.toLowerCase();
    return this.#options.userIds?.[name] ?? stableNumericId(name);
  }

  roomIdOf(channel: string): string {
    const name = normalizeChannel(channel).slice(1);
    return this.#options.roomIds?.[name] ?? stableNumericId(name);
  }

  // ---- waiting ---------------------------------------------------------

  /** Resolves with the first open, logged-in connection (of `login`, if given). */
  waitForLogin(login?: string, options: { timeoutMs?: number } = {}): Promise<ConnectionInfo> {
    const wanted = login?.toLowerCase();
    return this.#waiters.waitFor(
      () => this.connections.find((c) => c.loggedIn && (wanted === undefined || c.login === wanted)),
      `a login${wanted ? ` as ${wanted}` : ''}`,
      options.timeoutMs ?? DEFAULT_WAIT_MS,
    );
  }

  /** Resolves with the first join of `channel` at index >= `since` in `joins`, by `login` if given. */
  waitForJoin(channel: string, options: WaitOptions & { login?: string } = {}): Promise<JoinRecord> {
    const name = normalizeChannel(channel);
    const wanted = options.login?.toLowerCase();
    let cursor = options.since ?? 0;
    return this.#waiters.waitFor(
      () => {
        for (; cursor < this.joins.length; cursor++) {
          const join = this.joins[cursor] as JoinRecord;
          if (join.channel === name && (wanted === undefined || join.login === wanted)) return join;
        }
        return undefined;
      },
      `a JOIN of ${name}`,
      options.timeoutMs ?? DEFAULT_WAIT_MS,
    );
  }

  /** Resolves with the first client PRIVMSG at index >= `since` in `privmsgs` that matches. */
  waitForPrivmsg(predicate: (message: ClientPrivmsg) => boolean = () => true, options: WaitOptions = {}): Promise<ClientPrivmsg> {
    let cursor = options.since ?? 0;
    return this.#waiters.waitFor(
      () => {
        for (; cursor < this.privmsgs.length; cursor++) {
          const message = this.privmsgs[cursor] as ClientPrivmsg;
          if (predicate(message)) return message;
        }
        return undefined;
      },
      'a PRIVMSG from a client',
      options.timeoutMs ?? DEFAULT_WAIT_MS,
    );
  }

  /** Resolves once at least `count` connections are open. */
  waitForConnectionCount(count: number, options: { timeoutMs?: number } = {}): Promise<number> {
    return this.#waiters.waitFor(
      () => (this.#connections.size >= count ? this.#connections.size : undefined),
      `${count} open connection(s)`,
      options.timeoutMs ?? DEFAULT_WAIT_MS,
    );
  }

  // ---- injection -------------------------------------------------------

  /** Builds the tags Twitch puts on a user's PRIVMSG. */
  privmsgTags(channel: string, user: ChatUser, text: string, options: PrivmsgOptions = {}): IrcTags {
    const badges: Badges = {};
    const badgeInfo: Badges = { ...user.badgeInfo };
    const months = user.subscriber === true ? 1 : typeof user.subscriber === 'number' ? user.subscriber : 0;
    if (user.broadcaster) badges['broadcaster'] = '1';
    if (user.mod) badges['moderator'] = '1';
    if (user.vip) badges['vip'] = '1';
    if (months > 0) {
      badges['subscriber'] = String(months >= 12 ? 12 : months >= 6 ? 6 : months >= 3 ? 3 : 0);
      badgeInfo['subscriber'] = String(months);
    }
    Object.assign(badges, user.badges);
    const emotes = options.emotes ?? (options.emoteCodes ? emoteRangesFor(text, options.emoteCodes) : {});
    const tags: IrcTags = {
      'badge-info': formatBadges(badgeInfo),
      badges: formatBadges(badges),
      color: user.color ?? '',
      'display-name': user.displayName ?? user.login,
      emotes: formatEmotes(emotes),
      'first-msg': options.firstMsg ? '1' : '0',
      flags: '',
      id: options.id ?? randomUUID(),
      mod: user.mod ? '1' : '0',
      'returning-chatter': options.returningChatter ? '1' : '0',
      'room-id': this.roomIdOf(channel),
      subscriber: months > 0 ? '1' : '0',
      'tmi-sent-ts': String(options.tmiSentTs ?? Date.now()),
      turbo: user.turbo ? '1' : '0',
      'user-id': user.userId ?? this.userIdOf(user.login),
      'user-type': user.mod ? 'mod' : '',
    };
    if (user.vip) tags['vip'] = '1';
    if (options.bits !== undefined) tags['bits'] = String(options.bits);
    if (options.customRewardId !== undefined) tags['custom-reward-id'] = options.customRewardId;
    if (options.replyTo !== undefined) Object.assign(tags, this.#replyTags(options.replyTo));
    return { ...tags, ...options.extraTags };
  }

  #replyTags(parent: ReplyParent & { thread?: ReplyParent }): IrcTags {
    const thread = parent.thread ?? parent;
    return {
      'reply-parent-display-name': parent.user.displayName ?? parent.user.login,
      'reply-parent-msg-body': parent.text,
      'reply-parent-msg-id': parent.id,
      'reply-parent-user-id': parent.user.userId ?? this.userIdOf(parent.user.login),
      'reply-parent-user-login': parent.user.login.toLowerCase(),
      'reply-thread-parent-msg-id': thread.id,
      'reply-thread-parent-user-login': thread.user.login.toLowerCase(),
    };
  }

  /** A user's chat message, delivered to every connection in the channel. */
  sendPrivmsg(channel: string, user: ChatUser, text: string, options: PrivmsgOptions = {}): InjectedPrivmsg {
    const name = normalizeChannel(channel);
    const tags = this.privmsgTags(name, user, text, options);
    const body = options.action ? `\u0001ACTION ${text}\u0001` : text;
    const message: IrcMessage = { tags, prefix: userPrefix(user.login.toLowerCase()), command: 'PRIVMSG', params: [name, body] };
    this.#toChannel(name, message);
    return { id: tags['id'] as string, tags, line: formatIrcLine(message) };
  }

  /**
   * A chatter's message in a Shared Chat session (Twitch, since 2024): delivered in `source`,
   * where it was sent, and a copy in each of `partners`. Every copy carries the source-* tags:
   * the source channel's room id (`source-room-id`), the message's id there (`source-id`) and the
   * chatter's badges there (`source-badges`, `source-badge-info`). A partner's copy has its own
   * `id` and `room-id`, and `badges` (with mod, vip, subscriber) of the chatter in that channel:
   * `options.in[partner]`, by default a plain viewer there. (As Twitch sends them: a moderator of
   * the source only has `source-badges=moderator/1` and `mod=0` in a partner's copy.)
   */
  sendSharedPrivmsg(
    source: string,
    partners: string[],
    user: ChatUser,
    text: string,
    options: PrivmsgOptions & { in?: Record<string, ChatUser> } = {},
  ): InjectedPrivmsg[] {
    const sourceName = normalizeChannel(source);
    const sourceTags = this.privmsgTags(sourceName, user, text, options);
    const shared: IrcTags = {
      'source-badge-info': sourceTags['badge-info'] ?? '',
      'source-badges': sourceTags['badges'] ?? '',
      'source-id': sourceTags['id'] as string,
      'source-room-id': this.roomIdOf(sourceName),
    };
    const copies: Array<[string, IrcTags]> = [[sourceName, { ...sourceTags, ...shared }]];
    for (const partner of partners) {
      const name = normalizeChannel(partner);
      const there = options.in?.[name.slice(1)] ?? { login: user.login, displayName: user.displayName, userId: user.userId, color: user.color };
      copies.push([name, { ...this.privmsgTags(name, there, text, { ...options, id: undefined }), ...shared }]);
    }
    const body = options.action ? `\u0001ACTION ${text}\u0001` : text;
    return copies.map(([name, tags]) => {
      const message: IrcMessage = { tags, prefix: userPrefix(user.login.toLowerCase()), command: 'PRIVMSG', params: [name, body] };
      this.#toChannel(name, message);
      return { id: tags['id'] as string, tags, line: formatIrcLine(message) };
    });
  }

  /** A moderator deleted one message (CLEARMSG). */
  deleteMessage(channel: string, target: { login: string; targetMsgId: string; text: string }): void {
    const name = normalizeChannel(channel);
    this.#toChannel(name, {
      tags: { login: target.login.toLowerCase(), 'room-id': '', 'target-msg-id': target.targetMsgId, 'tmi-sent-ts': String(Date.now()) },
      prefix: SERVER,
      command: 'CLEARMSG',
      params: [name, target.text],
    });
  }

  /** A user was timed out (CLEARCHAT with ban-duration). */
  timeoutUser(channel: string, user: { login: string; userId?: string }, seconds: number): void {
    this.#clearChatUser(channel, user, seconds);
  }

  /** A user was banned (CLEARCHAT without ban-duration). */
  banUser(channel: string, user: { login: string; userId?: string }): void {
    this.#clearChatUser(channel, user, undefined);
  }

  /** The whole chat was cleared (CLEARCHAT without a user). */
  clearChat(channel: string): void {
    const name = normalizeChannel(channel);
    this.#toChannel(name, {
      tags: { 'room-id': this.roomIdOf(name), 'tmi-sent-ts': String(Date.now()) },
      prefix: SERVER,
      command: 'CLEARCHAT',
      params: [name],
    });
  }

  /** USERNOTICE (sub, resub, raid, announcement...). `params` become msg-param-* tags. */
  sendUserNotice(
    channel: string,
    user: ChatUser,
    notice: { msgId: string; systemMsg: string; params?: Record<string, string>; text?: string },
  ): InjectedPrivmsg {
    const name = normalizeChannel(channel);
    const base = this.privmsgTags(name, user, notice.text ?? '');
    delete base['first-msg'];
    delete base['returning-chatter'];
    const tags: IrcTags = { ...base, login: user.login.toLowerCase(), 'msg-id': notice.msgId, 'system-msg': notice.systemMsg };
    for (const [key, value] of Object.entries(notice.params ?? {})) tags[`msg-param-${key}`] = value;
    const params = notice.text === undefined ? [name] : [name, notice.text];
    const message: IrcMessage = { tags, prefix: SERVER, command: 'USERNOTICE', params };
    this.#toChannel(name, message);
    return { id: tags['id'] as string, tags, line: formatIrcLine(message) };
  }

  /** NOTICE with a msg-id, to a channel or to everyone ('*'). */
  sendNotice(channel: string, msgId: string, text: string): void {
    const target = channel === '*' ? '*' : normalizeChannel(channel);
    const message: IrcMessage = { tags: { 'msg-id': msgId }, prefix: SERVER, command: 'NOTICE', params: [target, text] };
    if (target === '*') this.#toAll(message);
    else this.#toChannel(target, message);
  }

  /** Twitch asks every client to reconnect (tmi.js disconnects and connects again). */
  sendReconnect(): void {
    this.#toAll({ tags: {}, prefix: SERVER, command: 'RECONNECT', params: [] });
  }

  /** Server keepalive PING to every client. */
  pingClients(): void {
    this.#toAll({ tags: {}, prefix: null, command: 'PING', params: [SERVER] });
  }

  /** Any raw line, to one channel's members or to every logged-in client. */
  sendRaw(line: string, channel?: string): void {
    const targets = channel === undefined ? this.#loggedIn() : this.#members(normalizeChannel(channel));
    for (const connection of targets) this.#write(connection, [line]);
  }

  /** Twitch takes clients (of `login`, if given) out of a channel: each gets its own PART. */
  partChannel(channel: string, login?: string): void {
    const name = normalizeChannel(channel);
    const wanted = login?.toLowerCase();
    for (const connection of this.#members(name)) {
      if (wanted === undefined || connection.login === wanted) this.#part(connection, name);
    }
  }

  /**
   * Puts a channel in slow mode for `seconds` (0: off), told to its members with a partial
   * ROOMSTATE as Twitch does when a moderator changes it; `announce: false` enforces it unsaid.
   */
  setSlowMode(channel: string, seconds: number, options: { announce?: boolean } = {}): void {
    const name = normalizeChannel(channel);
    this.#slowMode.set(name, seconds);
    if (options.announce === false) return;
    this.#toChannel(name, { tags: { 'room-id': this.roomIdOf(name), slow: String(seconds) }, prefix: SERVER, command: 'ROOMSTATE', params: [name] });
  }

  /** Kills every socket without a close frame (as a network failure would). */
  dropAllConnections(): void {
    for (const connection of this.#connections.values()) connection.ws.terminate();
  }

  /**
   * The network to every open connection goes away without a word: no byte passes either way
   * from now on, not even the WebSocket close handshake, and no connection ever closes (as when
   * a route or a NAT entry vanishes, where neither side sees a FIN or a RST). The connections
   * stay open (`connectionCount`), out of every channel; new connections are served as usual.
   */
  loseNetwork(): void {
    for (const connection of this.#connections.values()) {
      connection.lost = true;
      connection.channels.clear();
      // Stops reading the socket: a client's PING and close frame are never answered.
      connection.ws.pause();
    }
  }

  /**
   * Pushes `count` user PRIVMSGs to the channel as fast as the sockets take them,
   * several lines per frame, waiting for the socket to drain past `highWaterBytes`.
   */
  async floodPrivmsg(
    channel: string,
    count: number,
    build: (index: number) => FloodBuild = (i) => ({ user: { login: `viewer${i % 100}` }, text: `message ${i}` }),
    options: FloodOptions = {},
  ): Promise<FloodResult> {
    const name = normalizeChannel(channel);
    const perFrame = options.linesPerFrame ?? 200;
    const highWater = options.highWaterBytes ?? 1024 * 1024;
    const result: FloodResult = { messages: 0, frames: 0, bytes: 0 };
    for (let start = 0; start < count; start += perFrame) {
      const end = Math.min(count, start + perFrame);
      const messages: IrcMessage[] = [];
      for (let i = start; i < end; i++) {
        const item = build(i);
        const tags = this.privmsgTags(name, item.user, item.text, item.options);
        const body = item.options?.action ? `\u0001ACTION ${item.text}\u0001` : item.text;
        messages.push({ tags, prefix: userPrefix(item.user.login.toLowerCase()), command: 'PRIVMSG', params: [name, body] });
      }
      const framesByTagMode = new Map<boolean, string>();
      for (const connection of this.#members(name)) {
        const withTags = connection.caps.has('twitch.tv/tags');
        let frame = framesByTagMode.get(withTags);
        if (frame === undefined) {
          frame = messages.map((m) => formatIrcLine(m, withTags)).join('\r\n') + '\r\n';
          framesByTagMode.set(withTags, frame);
        }
        result.bytes += Buffer.byteLength(frame);
        if (connection.ws.bufferedAmount > highWater) {
          await new Promise<void>((resolve) => connection.ws.send(frame, () => resolve()));
        } else {
          connection.ws.send(frame);
        }
      }
      result.frames++;
      result.messages += end - start;
    }
    return result;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#pingTimer);
    this.#waiters.cancelAll('server closed');
    for (const connection of this.#connections.values()) connection.ws.terminate();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
    this.#http.closeAllConnections();
    await new Promise<void>((resolve) => this.#http.close(() => resolve()));
  }

  /** GET /oauth2/validate, as id.twitch.tv answers it for the tokens this server lets in. */
  #answerHttp(req: IncomingMessage, res: ServerResponse): void {
    const path = new URL(req.url ?? '/', 'http://fake').pathname;
    if (req.method !== 'GET' || path !== '/oauth2/validate') {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 404, message: 'not found' }));
      return;
    }
    const token = (req.headers.authorization ?? '').replace(/^(OAuth|Bearer) /i, '');
    if (token === '' || (this.#options.rejectTokens ?? []).includes(token)) {
      res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 401, message: 'invalid access token' }));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ client_id: 'fakeircclient', scopes: ['chat:read', 'chat:edit'], expires_in: 14_000 }));
  }

  // ---- connection handling --------------------------------------------

  #accept(ws: WebSocket): void {
    this.connectionAttempts.push(this.#now());
    if (this.refuseConnections) {
      ws.terminate();
      return;
    }
    const connection: Connection = {
      id: this.#nextConnectionId++,
      ws,
      caps: new Set(),
      pass: null,
      login: null,
      loggedIn: false,
      channels: new Set(),
      lost: false,
      lastPrivmsgAt: -Infinity,
    };
    this.#connections.set(connection.id, connection);
    ws.on('message', (data, isBinary) => {
      if (isBinary || connection.lost) return;
      const text = data.toString();
      for (const raw of text.split(/\r?\n/)) {
        if (raw.trim()) this.#handleLine(connection, raw);
      }
    });
    ws.on('close', () => {
      this.#connections.delete(connection.id);
      this.#waiters.check();
    });
    ws.on('error', () => {
      // A client vanishing mid-write is expected in reconnect tests.
    });
    this.#waiters.check();
  }

  #handleLine(connection: Connection, raw: string): void {
    const message = parseIrcLine(raw);
    if (message === null) return;
    this.sent.push({ connectionId: connection.id, login: connection.login, raw, message, at: this.#now() });
    if (this.silent) {
      this.#waiters.check();
      return;
    }
    switch (message.command) {
      case 'CAP':
        this.#handleCap(connection, message);
        break;
      case 'PASS':
        connection.pass = message.params[0] ?? '';
        break;
      case 'NICK':
        this.#handleNick(connection, (message.params[0] ?? '').toLowerCase());
        break;
      case 'PING':
        if (message.params.length === 0) this.#writeMessages(connection, [{ tags: {}, prefix: null, command: 'PONG', params: [SERVER] }]);
        else this.#writeMessages(connection, [{ tags: {}, prefix: SERVER, command: 'PONG', params: [SERVER, message.params[0] as string] }]);
        break;
      case 'PONG':
        break;
      case 'JOIN':
        if (connection.loggedIn) {
          for (const channel of (message.params[0] ?? '').split(',')) {
            if (channel.trim()) this.#join(connection, normalizeChannel(channel));
          }
        }
        break;
      case 'PART':
        if (connection.loggedIn) {
          for (const channel of (message.params[0] ?? '').split(',')) {
            if (channel.trim()) this.#part(connection, normalizeChannel(channel));
          }
        }
        break;
      case 'PRIVMSG':
        this.#handlePrivmsg(connection, message);
        break;
      default:
        this.#writeMessages(connection, [
          { tags: {}, prefix: SERVER, command: '421', params: [connection.login ?? '*', message.command, 'Unknown command'] },
        ]);
    }
    this.#waiters.check();
  }

  #handleCap(connection: Connection, message: IrcMessage): void {
    if ((message.params[0] ?? '').toUpperCase() !== 'REQ') return; // CAP END / LS: nothing to answer
    const requested = (message.params[1] ?? '').split(' ').filter(Boolean);
    const ok = requested.every((cap) => SUPPORTED_CAPS.has(cap));
    if (ok) for (const cap of requested) connection.caps.add(cap);
    this.#writeMessages(connection, [{ tags: {}, prefix: SERVER, command: 'CAP', params: ['*', ok ? 'ACK' : 'NAK', requested.join(' ')] }]);
  }

  #handleNick(connection: Connection, login: string): void {
    connection.login = login;
    if (!JUSTINFAN.test(login)) {
      const pass = connection.pass ?? '';
      if (!pass.startsWith('oauth:')) {
        this.#refuseLogin(connection, 'Improperly formatted auth');
        return;
      }
      const token = pass.slice('oauth:'.length);
      const accepted = this.#options.acceptToken
        ? this.#options.acceptToken(token, login)
        : !(this.#options.rejectTokens ?? []).includes(token);
      if (!accepted) {
        this.#refuseLogin(connection, 'Login authentication failed');
        return;
      }
    }
    connection.loggedIn = true;
    const lines: IrcMessage[] = [
      { tags: {}, prefix: SERVER, command: '001', params: [login, 'Welcome, GLHF!'] },
      { tags: {}, prefix: SERVER, command: '002', params: [login, 'Your host is tmi.twitch.tv'] },
      { tags: {}, prefix: SERVER, command: '003', params: [login, 'This server is rather new'] },
      { tags: {}, prefix: SERVER, command: '004', params: [login, '-'] },
      { tags: {}, prefix: SERVER, command: '375', params: [login, '-'] },
      { tags: {}, prefix: SERVER, command: '372', params: [login, 'You are in a maze of twisty passages, all alike.'] },
      { tags: {}, prefix: SERVER, command: '376', params: [login, '>'] },
    ];
    if (!JUSTINFAN.test(login)) {
      lines.push({
        tags: {
          'badge-info': '',
          badges: '',
          color: '',
          'display-name': login,
          'emote-sets': this.#options.emoteSets ?? '0',
          'user-id': this.userIdOf(login),
          'user-type': '',
        },
        prefix: SERVER,
        command: 'GLOBALUSERSTATE',
        params: [],
      });
    }
    this.#writeMessages(connection, lines);
  }

  #refuseLogin(connection: Connection, text: string): void {
    this.#writeMessages(connection, [{ tags: {}, prefix: SERVER, command: 'NOTICE', params: ['*', text] }]);
    connection.ws.close();
  }

  #badgesOf(login: string, channel: string): Badges {
    const name = channel.slice(1);
    if (this.#options.userBadges) return this.#options.userBadges(login, name);
    return login === name ? { broadcaster: '1' } : {};
  }

  #userStateTags(login: string, channel: string): IrcTags {
    const badges = this.#badgesOf(login, channel);
    const mod = 'moderator' in badges;
    return {
      'badge-info': '',
      badges: formatBadges(badges),
      color: '',
      'display-name': login,
      'emote-sets': this.#options.emoteSets ?? '0',
      mod: mod ? '1' : '0',
      subscriber: 'subscriber' in badges ? '1' : '0',
      'user-type': mod ? 'mod' : '',
    };
  }

  #join(connection: Connection, channel: string): void {
    if (this.unansweredJoins.has(channel.slice(1))) return;
    if (this.suspendedChannels.has(channel.slice(1))) {
      this.#writeMessages(connection, [{ tags: { 'msg-id': 'msg_channel_suspended' }, prefix: SERVER, command: 'NOTICE', params: [channel, CHANNEL_SUSPENDED_NOTICE] }]);
      return;
    }
    const login = connection.login as string;
    connection.channels.add(channel);
    const joinLine: IrcMessage = { tags: {}, prefix: userPrefix(login), command: 'JOIN', params: [channel] };
    const lines: IrcMessage[] = [
      joinLine,
      { tags: {}, prefix: `${login}.tmi.twitch.tv`, command: '353', params: [login, '=', channel, login] },
      { tags: {}, prefix: `${login}.tmi.twitch.tv`, command: '366', params: [login, channel, 'End of /NAMES list'] },
    ];
    if (!JUSTINFAN.test(login)) {
      lines.push({ tags: this.#userStateTags(login, channel), prefix: SERVER, command: 'USERSTATE', params: [channel] });
    }
    lines.push({
      tags: { 'emote-only': '0', 'followers-only': '-1', r9k: '0', 'room-id': this.roomIdOf(channel), slow: String(this.#slowMode.secondsOf(channel)), 'subs-only': '0' },
      prefix: SERVER,
      command: 'ROOMSTATE',
      params: [channel],
    });
    this.#writeMessages(connection, lines);
    for (const other of this.#members(channel)) {
      if (other !== connection && other.caps.has('twitch.tv/membership')) this.#writeMessages(other, [joinLine]);
    }
    this.joins.push({ connectionId: connection.id, login, channel, at: this.#now() });
  }

  #part(connection: Connection, channel: string): void {
    if (!connection.channels.delete(channel)) return;
    const partLine: IrcMessage = { tags: {}, prefix: userPrefix(connection.login as string), command: 'PART', params: [channel] };
    this.#writeMessages(connection, [partLine]);
    for (const other of this.#members(channel)) {
      if (other.caps.has('twitch.tv/membership')) this.#writeMessages(other, [partLine]);
    }
  }

  #handlePrivmsg(connection: Connection, message: IrcMessage): void {
    const channel = normalizeChannel(message.params[0] ?? '');
    const text = message.params[1] ?? '';
    const joined = connection.channels.has(channel);
    const delay = this.privmsgDelay?.({ login: connection.login, channel, text }) ?? 0;
    const at = Math.max(this.#now() + delay, connection.lastPrivmsgAt);
    connection.lastPrivmsgAt = at;
    const record: ClientPrivmsg = {
      connectionId: connection.id,
      login: connection.login,
      channel,
      text,
      joined,
      refused: null,
      tags: message.tags,
      at,
    };
    this.privmsgs.push(record);
    if (!connection.loggedIn || !joined || JUSTINFAN.test(connection.login ?? '')) return;
    const login = connection.login as string;
    const badges = this.#badgesOf(login, channel);
    if (this.bannedIn.has(channel.slice(1))) {
      record.refused = 'msg_banned';
      this.#writeMessages(connection, [{ tags: { 'msg-id': 'msg_banned' }, prefix: SERVER, command: 'NOTICE', params: [channel, `You are permanently banned from talking in ${channel.slice(1)}.`] }]);
      return;
    }
    if (this.#options.rateLimits && !this.#rateLimits.admit(channel, login, 'broadcaster' in badges || 'moderator' in badges, at)) {
      record.refused = 'msg_ratelimit';
      this.#writeMessages(connection, [{ tags: { 'msg-id': 'msg_ratelimit' }, prefix: SERVER, command: 'NOTICE', params: [channel, RATE_LIMIT_NOTICE] }]);
      return;
    }
    // A text starting with "/" or "." is a command to Twitch, never chat: only /me is delivered.
    const command = chatCommandOf(text);
    const refusal = command === null ? null : commandRefusal(command);
    if (refusal !== null) {
      record.refused = refusal.msgId;
      this.#writeMessages(connection, [{ tags: { 'msg-id': refusal.msgId }, prefix: SERVER, command: 'NOTICE', params: [channel, refusal.notice] }]);
      return;
    }
    const delivered = deliveredText(command === null ? text : command.text);
    if (this.#duplicates.isRepeat(channel, login, delivered, 'broadcaster' in badges || 'moderator' in badges, record.at)) {
      record.refused = 'msg_duplicate';
      this.#writeMessages(connection, [{ tags: { 'msg-id': 'msg_duplicate' }, prefix: SERVER, command: 'NOTICE', params: [channel, DUPLICATE_NOTICE] }]);
      return;
    }
    const waitMs = this.#slowMode.waitMs(channel, login, 'broadcaster' in badges || 'moderator' in badges || 'vip' in badges, record.at);
    if (waitMs > 0) {
      record.refused = 'msg_slowmode';
      this.#writeMessages(connection, [{ tags: { 'msg-id': 'msg_slowmode' }, prefix: SERVER, command: 'NOTICE', params: [channel, slowModeNotice(waitMs)] }]);
      return;
    }
    this.#duplicates.delivered(channel, login, delivered, record.at);
    this.#rateLimits.delivered(channel, login, record.at);
    const id = randomUUID();
    if (!this.answersLost) {
      this.#writeMessages(connection, [
        { tags: { ...this.#userStateTags(login, channel), id }, prefix: SERVER, command: 'USERSTATE', params: [channel] },
      ]);
    }
    const relayed: IrcMessage = {
      tags: this.privmsgTags(channel, {
        login,
        broadcaster: 'broadcaster' in badges,
        mod: 'moderator' in badges,
        vip: 'vip' in badges,
        badges,
      }, delivered, { id }),
      prefix: userPrefix(login),
      command: 'PRIVMSG',
      params: [channel, command === null ? delivered : `\u0001ACTION ${delivered}\u0001`],
    };
    for (const other of this.#members(channel)) {
      if (other !== connection) this.#writeMessages(other, [relayed]);
    }
  }

  // ---- writing ---------------------------------------------------------

  #clearChatUser(channel: string, user: { login: string; userId?: string }, seconds: number | undefined): void {
    const name = normalizeChannel(channel);
    const tags: IrcTags = {};
    if (seconds !== undefined) tags['ban-duration'] = String(seconds);
    tags['room-id'] = this.roomIdOf(name);
    tags['target-user-id'] = user.userId ?? this.userIdOf(user.login);
    tags['tmi-sent-ts'] = String(Date.now());
    this.#toChannel(name, { tags, prefix: SERVER, command: 'CLEARCHAT', params: [name, user.login.toLowerCase()] });
  }

  #loggedIn(): Connection[] {
    return [...this.#connections.values()].filter((c) => c.loggedIn && !c.lost);
  }

  #members(channel: string): Connection[] {
    return [...this.#connections.values()].filter((c) => c.loggedIn && c.channels.has(channel));
  }

  #toChannel(channel: string, message: IrcMessage): void {
    for (const connection of this.#members(channel)) this.#writeMessages(connection, [message]);
  }

  #toAll(message: IrcMessage): void {
    for (const connection of this.#loggedIn()) this.#writeMessages(connection, [message]);
  }

  #writeMessages(connection: Connection, messages: IrcMessage[]): void {
    const withTags = connection.caps.has('twitch.tv/tags');
    const withCommands = connection.caps.has('twitch.tv/commands');
    const lines: string[] = [];
    for (const message of messages) {
      if (!withCommands && COMMANDS_CAP_ONLY.has(message.command)) continue;
      lines.push(formatIrcLine(message, withTags));
    }
    this.#write(connection, lines);
  }

  #write(connection: Connection, lines: string[]): void {
    if (lines.length === 0 || connection.lost || connection.ws.readyState !== connection.ws.OPEN) return;
    connection.ws.send(lines.join('\r\n') + '\r\n');
  }
}
