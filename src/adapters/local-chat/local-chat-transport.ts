// A chat that lives in this process, for running without Twitch: lines typed in the terminal
// (or posted with `chatskin chat say`) become chat messages with Twitch-shaped tags, and the
// bot's replies are printed and also emitted as the bot's own `message` events (self: true), so
// the composition root shows both sides on the overlay as Twitch chat would.
//
// A chatter whose id would be made up (localUserIdOf) speaks as the viewer that already holds
// its login in the store, when `knownViewerId` knows one: a made-up id must never take a real
// viewer's login (a sign-in moves a login to the id that signs in with it, as a Twitch rename).
// That look-up is async, so lines are sent one at a time, in the order they came.
import { randomUUID } from 'node:crypto';
import type { Transform } from 'node:stream';
import split2 from 'split2';
import type { Logger } from 'pino';
import { pino } from 'pino';
import type { ChatRole } from '../../host/chat-roles.ts';
import { CHAT_MESSAGE_MAX_LENGTH, normalizeChannel } from '../../host/chat-transport.ts';
import type { ChatTransport } from '../../host/chat-transport.ts';
import type { RedemptionResult } from '../../host/host.ts';
import type { RedemptionEvent } from '../../host/plugin-api.ts';
import { toChatLine } from '../../host/split-message.ts';
import { createChatListeners } from '../chat-listeners.ts';
import { LOCAL_LOGIN, resolveLocalChatter } from './local-chat-chatter.ts';
import { LOCAL_CHAT_SYNTAX, parseLocalChatLine, parsePostedLine } from './local-chat-line.ts';
import { defaultUserIdOf, localChatTags, localUserIdOf } from './local-chat-tags.ts';
import type { LocalChatter } from './local-chat-tags.ts';

/** Longest typed line read (characters): longer ones are skipped unread, so a huge one cannot fill memory. */
export const MAX_TYPED_LINE_LENGTH = 64 * 1024;

export interface LocalChatOptions {
  /** The channel's login (config `channel.login`). */
  channel: string;
  /** Where typed lines come from (process.stdin when `localChat.stdin` is on); none when null. */
  stdin?: NodeJS.ReadableStream | null;
  /** Where the bot's replies and posted lines are printed (process.stdout); nowhere when null. */
  output?: { write(text: string): unknown } | null;
  /** Who plain typed lines come from. Default "you". */
  login?: string;
  /** The bot's login on the local chat, never the channel's. Default "chatskin" ("chatskin_bot" on a channel named chatskin). */
  botLogin?: string;
  /** The broadcaster's Twitch user id when the channel has one; default a local id. */
  broadcasterUserId?: string | null;
  /**
   * Whether chatters get Twitch-like ids and so may be signed in as viewers (LocalTagsContext).
   * Default true; false while Twitch chat runs too.
   */
  viewerIds?: boolean;
  /**
   * The Twitch user id of the viewer in the store holding `login` (lowercase), or null when none
   * does. Asked before each line whose chatter's id would be made up (localUserIdOf: any chatter
   * with `viewerIds`, and the broadcaster without `broadcasterUserId`); a found id is used
   * instead. When it rejects, the line goes out with `local:<login>` (never a viewer) and a
   * warning is logged. None: made-up ids as they are.
   */
  knownViewerId?: (login: string) => Promise<string | null>;
  /**
   * Runs a channel-point redemption typed as `/redeem KEY [TEXT]` through the plugins (the host's
   * handleRedemption), as a Twitch redemption would be; its outcome is printed. None: `/redeem`
   * says it is not available (beside Twitch chat, rewards are redeemed on Twitch).
   */
  redeem?: (redemption: RedemptionEvent) => Promise<RedemptionResult>;
  logger?: Logger;
}

export interface LocalChatPost {
  text: string;
  /** Default: the local user (or the channel's login for the broadcaster). */
  login?: string | null;
  /** Default: a viewer. */
  role?: ChatRole | null;
}

/** What a posted line became. */
export interface LocalChatMessage {
  id: string;
  login: string;
  displayName: string;
  role: ChatRole;
  text: string;
}

export interface LocalChatTransport extends ChatTransport {
  readonly channel: string;
  /**
   * Sends a line as a chatter, after the lines taken before it; resolves once it is sent. Rejects
   * with LocalChatInputError for a bad line, login or role (at once: nothing is sent).
   */
  post(input: LocalChatPost): Promise<LocalChatMessage>;
  /**
   * Handles one line as typed (prefixes choose the chatter), after the lines taken before it;
   * resolves once it is handled. Problems are printed (or logged), never rejected.
   */
  typeLine(line: string): Promise<void>;
  /** Resolves once every line taken so far (typed or posted) is handled. */
  idle(): Promise<void>;
  /** Starts reading `stdin` (printing a one-line hint on a terminal). */
  start(): void;
  /** Stops reading `stdin`. Posting and say() keep working. Idempotent. */
  stop(): void;
}

export class LocalChatInputError extends Error {
  override name = 'LocalChatInputError';
  readonly field: 'text' | 'login' | 'role';

  constructor(field: 'text' | 'login' | 'role', message: string) {
    super(message);
    this.field = field;
  }
}

const DEFAULT_BOT_LOGIN = 'chatskin';

/** Printed when the terminal's input ends (Ctrl-D); the host runs on. */
export const LOCAL_CHAT_INPUT_ENDED = "Local chat: the terminal's input ended (Ctrl-D), so lines typed here are no longer read; the chat page and `chatskin chat say` still work, and Ctrl-C stops chatskin.";

const ROLE_MARK: Readonly<Record<ChatRole, string>> = {
  broadcaster: ' (broadcaster)', moderator: ' (moderator)', vip: ' (vip)', subscriber: ' (subscriber)', everyone: '',
};

export function createLocalChatTransport(options: LocalChatOptions): LocalChatTransport {
  const channel = normalizeChannel(options.channel);
  const defaultLogin = (options.login ?? 'you').toLowerCase();
  // Never the channel's login: the broadcaster's lines would be the bot's own (self), never routed.
  const botLogin = (options.botLogin ?? (channel === DEFAULT_BOT_LOGIN ? `${DEFAULT_BOT_LOGIN}_bot` : DEFAULT_BOT_LOGIN)).toLowerCase();
  for (const [what, login] of [['channel', channel], ['login', defaultLogin], ['botLogin', botLogin]] as const) {
    if (!LOCAL_LOGIN.test(login)) throw new TypeError(`local chat: ${what} "${login}" is not a Twitch login (1 to 25 letters, digits or _)`);
  }
  if (botLogin === channel) throw new TypeError(`local chat: botLogin "${botLogin}" is the channel's login; the bot needs a login of its own`);
  const broadcasterUserId = options.broadcasterUserId ?? localUserIdOf(channel);
  const tagsContext = { roomId: broadcasterUserId, broadcasterUserId, viewerIds: options.viewerIds ?? true };
  const logger = (options.logger ?? pino({ level: 'silent' })).child({ transport: 'local' });
  const listeners = createChatListeners(logger);
  const output = options.output ?? null;
  const knownViewerId = options.knownViewerId ?? null;
  let reader: { stdin: NodeJS.ReadableStream; lines: Transform } | null = null;
  // Lines wait here for the ones before them: a look-up must not let a later line overtake.
  let lastLine: Promise<unknown> = Promise.resolve();
  const inTurn = <T>(step: () => Promise<T>): Promise<T> => {
    const turn = lastLine.then(step);
    lastLine = turn.catch(() => undefined);
    return turn;
  };

  const print = (line: string): void => {
    // Control characters (terminal escapes) never reach the terminal.
    output?.write(`${toChatLine(line)}\n`);
  };

  const emitLine = (chatter: LocalChatter, text: string, action = false): LocalChatMessage => {
    const tags = localChatTags(chatter, tagsContext);
    // As tmi.js delivers a /me line: the text without /me, and message-type action.
    if (action) tags['message-type'] = 'action';
    listeners.emit({ type: 'message', channel, text, tags, self: chatter.login === botLogin });
    return { id: tags.id as string, login: chatter.login, displayName: tags['display-name'] as string, role: chatter.role, text };
  };

  const chatterFor = (login: string | null, role: ChatRole | null): LocalChatter => {
    const resolved = resolveLocalChatter({ login, role }, channel, defaultLogin);
    if (!resolved.ok) throw new LocalChatInputError(resolved.field, resolved.message);
    return resolved.chatter;
  };

  /** `chatter` with the id of the viewer holding its login, when its own id would be made up. */
  const asKnownViewer = async (chatter: LocalChatter): Promise<LocalChatter> => {
    if (knownViewerId === null) return chatter;
    if (defaultUserIdOf(chatter.login, chatter.role, tagsContext) !== localUserIdOf(chatter.login)) return chatter;
    try {
      const userId = await knownViewerId(chatter.login);
      return userId === null ? chatter : { ...chatter, userId };
    } catch (error) {
      logger.warn({ err: error, login: chatter.login }, 'local chat: could not tell whether a viewer holds this login; the line is sent as a stand-in, not a viewer');
      return { ...chatter, userId: `local:${chatter.login}` };
    }
  };

  /** Sends a line from `chatter` (a /me line when `action`), printed first when `shown`. Call it in the line's turn. */
  const send = async (chatter: LocalChatter, text: string, shown: boolean, action = false): Promise<LocalChatMessage> => {
    const speaker = await asKnownViewer(chatter);
    // Typed lines are on the screen already; posted ones are shown so the terminal reads as the chat.
    if (shown) print(`${speaker.login}${ROLE_MARK[speaker.role]}: ${action ? '/me ' : ''}${text}`);
    return emitLine(speaker, text, action);
  };

  /** A typed `/redeem` (in its turn): the redemption's outcome is printed. */
  const redeemTyped = async (chatter: LocalChatter, rewardKey: string, input: string): Promise<void> => {
    if (options.redeem === undefined) {
      print('local chat: /redeem works while Twitch chat is off; with it on, channel-point rewards are redeemed on Twitch');
      return;
    }
    const viewer = await asKnownViewer(chatter);
    // The chatter as their chat lines name them.
    const tags = localChatTags(viewer, tagsContext);
    const redemption: RedemptionEvent = {
      id: `local-${randomUUID()}`, rewardKey, channel, input, attempt: 1,
      user: { id: String(tags['user-id']), login: viewer.login, displayName: String(tags['display-name']) },
    };
    print(`${viewer.login} redeemed ${rewardKey}${input === '' ? '' : `: ${input}`}`);
    const result = await options.redeem(redemption);
    print(result.outcome === 'unhandled'
      ? `local chat: no running plugin handles the reward "${rewardKey}" (a plugin takes it with ctx.onRedemption("${rewardKey}", ...)); on Twitch it would be refunded`
      : `local chat: plugin ${result.plugin} ${result.outcome === 'fulfill' ? 'fulfilled' : 'refunded'} the redemption of ${rewardKey}`);
    // No Twitch to settle a status with: the handler's line for its outcome is said at once.
    if (result.outcome !== 'unhandled') await result.afterStatus?.('as-asked');
  };

  /** Handles a typed line (in its turn): problems are printed. */
  const handleTyped = async (line: string): Promise<void> => {
    const parsed = parseLocalChatLine(line);
    switch (parsed.kind) {
      case 'empty':
        return;
      case 'help':
        print(LOCAL_CHAT_SYNTAX.split('\n')[0]!);
        for (const help of LOCAL_CHAT_SYNTAX.split('\n').slice(1)) output?.write(`${help}\n`);
        return;
      case 'error':
        print(`local chat: ${parsed.message}`);
        return;
      case 'redeem':
      case 'message': {
        let chatter: LocalChatter;
        try {
          chatter = chatterFor(parsed.login, parsed.role);
        } catch (error) {
          if (!(error instanceof LocalChatInputError)) throw error;
          print(`local chat: ${error.message}`);
          return;
        }
        if (parsed.kind === 'redeem') await redeemTyped(chatter, parsed.rewardKey, parsed.input);
        else await send(chatter, parsed.text, false, parsed.action === true);
      }
    }
  };

  const transport: LocalChatTransport = {
    name: 'local',
    channel,
    channels: [channel],
    limits: null,
    subscribe: listeners.subscribe,

    async post(input) {
      const text = toChatLine(typeof input.text === 'string' ? input.text : '');
      if (text === '') throw new LocalChatInputError('text', 'the text is empty');
      if (text.length > CHAT_MESSAGE_MAX_LENGTH) {
        throw new LocalChatInputError('text', `a chat line is at most ${CHAT_MESSAGE_MAX_LENGTH} characters; this one has ${text.length}`);
      }
      const posted = parsePostedLine(text);
      if ('error' in posted) throw new LocalChatInputError('text', posted.error);
      const chatter = chatterFor(input.login ?? null, input.role ?? null);
      return inTurn(() => send(chatter, posted.text, true, posted.action));
    },

    typeLine(line) {
      return inTurn(() => handleTyped(line))
        .catch((error: unknown) => logger.error({ err: error }, 'local chat: a typed line could not be handled'));
    },

    idle() {
      return lastLine.then(() => undefined);
    },

    async say(rawChannel, text) {
      if (normalizeChannel(rawChannel) !== channel) throw new Error(`the local chat serves only #${channel}, not #${normalizeChannel(rawChannel)}`);
      print(`${botLogin} (bot): ${text}`);
      emitLine({ login: botLogin, role: 'everyone' }, text);
    },

    start() {
      if (reader !== null || !options.stdin) return;
      const stdin = options.stdin;
      // A line past MAX_TYPED_LINE_LENGTH (a file piped in by mistake) is skipped as it streams,
      // never held whole: only a line that could be chat is read, and refused if it is too long.
      // (split2 has skipOverflow; @types/split2 does not list it yet.)
      const splitting = { maxLength: MAX_TYPED_LINE_LENGTH, skipOverflow: true };
      // split2 checks only a line still open at a chunk's end: one that arrives whole in a chunk
      // is dropped here (no reply either), as the doc says.
      const withinLimit = (line: string) => (line.length > MAX_TYPED_LINE_LENGTH ? undefined : line);
      const lines = stdin.pipe(split2(withinLimit, splitting));
      lines.on('data', (line: string) => void transport.typeLine(line));
      const onTerminal = (stdin as { isTTY?: boolean }).isTTY === true;
      lines.on('end', () => {
        logger.debug('local chat input ended');
        // On a terminal that is Ctrl-D: the terminal goes on echoing what is typed, which no one
        // reads any more, so say so (a pipe's end is no news: its lines are all in).
        if (onTerminal && reader?.lines === lines) print(LOCAL_CHAT_INPUT_ENDED);
      });
      reader = { stdin, lines };
      if (onTerminal) {
        print(`Local chat on #${channel}: type to chat as ${defaultLogin}; start with /mod, /vip, /sub, /broadcaster or /as NAME to speak as someone else (/help).`);
      }
      logger.info({ channel, login: defaultLogin }, 'local chat reading lines from the terminal');
    },

    stop() {
      if (reader !== null) {
        reader.stdin.unpipe(reader.lines);
        reader.lines.destroy();
      }
      reader = null;
    },
  };
  return transport;
}
