// The bot's outgoing chat for one transport: a FIFO queue per channel, paced under the
// transport's limits, with over-long replies split. Twitch counts every PRIVMSG against a
// per-account bucket of 100 per 30 s, and those to channels where the bot is neither moderator
// nor broadcaster also against a bucket of 20 per 30 s; the bot's status comes from USERSTATE.
// There a line also waits out the channel's slow mode (ROOMSTATE), which moderators and VIPs are
// exempt from (a VIP bot is otherwise paced like a viewer: Twitch's limits name only moderators).
// A line counts from when the transport has sent it, not from when the queue handed it over: a
// line held back (the channel being rejoined after a drop) would otherwise leave with the next one
// right behind it. Twitch counts from when a line arrives, which the queue cannot see: the
// transport's limits leave a margin for that (TWITCH_CHAT_LIMITS: 1.1 s and 30.1 s).
// Nothing is dropped silently: a reply that cannot be queued is refused (or coalesced with an
// identical waiting one) with a logged reason, and its promise says so. A line the chat refused
// for a reason that passes (slow mode, the rate limit, a duplicate) is sent again from here, not
// by the transport: the queue owns the pacing, so the re-send waits its turn and counts against
// the limits like any line. It goes ahead of the lines queued after it, at most `maxResends`
// times; then it is logged as dropped. Its reply had already been settled as sent.
import type { Logger } from 'pino';
import { chatRoleOf, hasRole } from './chat-roles.ts';
import type { ChatRole } from './chat-roles.ts';
import { CHAT_MESSAGE_MAX_LENGTH, CONNECTION_LOST, normalizeChannel } from './chat-transport.ts';
import type { ChatTags, ChatTransport, RefusalRemedy } from './chat-transport.ts';
import type { Clock, ScheduledTimer } from './clock.ts';
import { DUPLICATE_SUFFIX, madeToDiffer, withDuplicateSuffix } from './duplicate-suffix.ts';
import type { ReplyOutcome } from './plugin-api.ts';
import { SentLines } from './sent-lines.ts';
import { SlidingWindow } from './sliding-window.ts';
import { isBlankLine, notChatText, splitMessage, toChatLine } from './split-message.ts';
import { errorText } from './error-text.ts';

export interface ReplyQueueOptions {
  transport: ChatTransport;
  clock: Clock;
  logger: Logger;
  /** Messages (parts) waiting per channel before new replies are refused. Default 50. */
  maxQueued?: number;
  /**
   * Messages (parts) one plugin's lines may hold of a channel's queue, so a plugin that says too
   * much (a loop) cannot leave no room for the others' replies (nor the host's own lines). Default
   * maxQueued less a tenth (45 of 50): the last places are kept for the others.
   */
  maxQueuedPerPlugin?: number;
  /** Parts one reply may take; further parts are left out (logged). Default 4. */
  maxPartsPerReply?: number;
  /** Longest message. Default 500 (Twitch). */
  maxLength?: number;
  /** Times one line refused by the chat is sent again before it is dropped (logged). Default 2. */
  maxResends?: number;
}

/** Whose line it is (a plugin's, for one of its commands): named in the warnings about it, for the plugin's author. */
export interface ReplySource {
  plugin: string;
  command?: string;
}

export interface ReplyQueue {
  enqueue(channel: string, text: string, from?: ReplySource): Promise<ReplyOutcome>;
  /** The bot's USERSTATE in a channel: moderator or broadcaster lifts the limit to 100 per window. */
  setBotState(channel: string, tags: ChatTags): void;
  /** The channel's slow mode (0 = off): where the bot is neither moderator nor VIP, its lines go at least this far apart. */
  setSlowMode(channel: string, seconds: number): void;
  /** The chat did not deliver `text` (as sent): it is sent again if `remedy` says something will make it pass. */
  refused(channel: string, text: string, reason: string, remedy: RefusalRemedy): void;
  isModerator(channel: string): boolean;
  /** Messages waiting (in one channel, or in all). */
  pending(channel?: string): number;
  /** Refuses new replies and settles the waiting ones as failed (logged). */
  stop(): void;
}

interface Ticket {
  line: string;
  /** The plugin whose line it is, when it is one's. */
  plugin: string | undefined;
  parts: number;
  left: number;
  settled: boolean;
  resolve: (outcome: ReplyOutcome) => void;
}

/** A line to send: a reply's part, or (ticket null) a line sent again after a refusal, which goes as is. */
interface Waiting {
  text: string;
  ticket: Ticket | null;
  resends: number;
  /** Sent again because the connection it first went into was lost before the chat answered. */
  afterLostConnection: boolean;
}

const isModerator = (state: ChannelState): boolean => hasRole(state.role, 'moderator');
const isSlowExempt = (state: ChannelState): boolean => hasRole(state.role, 'vip');

interface ChannelState {
  name: string;
  waiting: Waiting[];
  /** The bot's role here (USERSTATE): a moderator (or broadcaster) has the larger limit, a VIP or above skips slow mode. */
  role: ChatRole;
  sending: boolean;
  lastSentAt: number;
  lastText: string | null;
  /** Slow mode; it applies only while the bot is below VIP here. */
  slowMs: number;
  /** Nothing goes before this (a refusal said to wait). */
  holdUntil: number;
  /** Nothing goes before this while the bot is below VIP here (a slow-mode refusal said to wait). */
  slowHoldUntil: number;
  sent: SentLines;
}

export function createReplyQueue(options: ReplyQueueOptions): ReplyQueue {
  const { transport, clock } = options;
  const logger = options.logger.child({ transport: transport.name });
  const maxQueued = options.maxQueued ?? 50;
  const maxQueuedPerPlugin = options.maxQueuedPerPlugin ?? Math.max(1, maxQueued - Math.ceil(maxQueued / 10));
  const maxParts = options.maxPartsPerReply ?? 4;
  const maxLength = options.maxLength ?? CHAT_MESSAGE_MAX_LENGTH;
  const maxResends = options.maxResends ?? 2;
  const limits = transport.limits;
  const allMessages = new SlidingWindow(limits?.windowMs ?? 1);
  const userMessages = new SlidingWindow(limits?.windowMs ?? 1);
  const channels = new Map<string, ChannelState>();
  let timer: ScheduledTimer | null = null;
  let stopped = false;
  // Lines handed to the transport and not yet sent: they will count once they are.
  let inFlight = 0;
  let inFlightUser = 0;

  const stateOf = (channel: string): ChannelState => {
    let state = channels.get(channel);
    if (!state) {
      state = {
        name: channel, waiting: [], role: 'everyone', sending: false, lastSentAt: -Infinity, lastText: null,
        slowMs: 0, holdUntil: -Infinity, slowHoldUntil: -Infinity, sent: new SentLines(),
      };
      channels.set(channel, state);
    }
    return state;
  };

  const settle = (ticket: Ticket, outcome: ReplyOutcome): void => {
    if (ticket.settled) return;
    ticket.settled = true;
    ticket.resolve(outcome);
  };

  /** When one more line fits in `window` under `limit`, with the lines in flight counted too (Infinity: once one is sent). */
  const freeAt = (window: SlidingWindow, now: number, limit: number, pending: number): number =>
    limit - pending <= 0 ? Infinity : window.nextFreeAt(now, limit - pending);

  /** When this channel may send next (now or later). */
  const readyAt = (state: ChannelState, now: number): number => {
    const slowExempt = isSlowExempt(state);
    const slowHold = slowExempt ? -Infinity : state.slowHoldUntil;
    if (!limits) return Math.max(now, state.holdUntil, slowHold);
    let at = Math.max(freeAt(allMessages, now, limits.moderatorMessages, inFlight), state.holdUntil);
    if (!isModerator(state)) {
      const interval = Math.max(limits.minIntervalMs, slowExempt ? 0 : state.slowMs);
      at = Math.max(at, freeAt(userMessages, now, limits.userMessages, inFlightUser), state.lastSentAt + interval, slowHold);
    }
    return at;
  };

  /** The transport is done with a line handed over while `moderator` held. */
  const recordSent = (state: ChannelState, moderator: boolean): void => {
    const at = clock.now();
    inFlight -= 1;
    allMessages.record(at);
    if (!moderator) {
      inFlightUser -= 1;
      userMessages.record(at);
    }
    state.lastSentAt = at;
  };

  const send = (state: ChannelState, now: number): void => {
    const item = state.waiting.shift()!;
    let text = item.text;
    const moderator = isModerator(state);
    const repeat = limits && !moderator && text === state.lastText && now - state.lastSentAt < limits.duplicateWindowMs;
    // A re-sent line goes as it was: the one it would repeat was refused, or (sent into a lost
    // connection) may have been shown, and then a refusal as a repeat says so (refused()).
    if (repeat && item.ticket !== null) text = withDuplicateSuffix(text, maxLength);
    const { ticket } = item;
    inFlight += 1;
    if (!moderator) inFlightUser += 1;
    state.lastText = text;
    state.sent.sent({ text, resends: item.resends, afterLostConnection: item.afterLostConnection });
    state.sending = true;
    // A transport that throws instead of rejecting is handled the same way.
    new Promise<void>((resolve) => {
      resolve(transport.say(state.name, text));
    }).then(
      () => {
        if (ticket === null) return;
        ticket.left -= 1;
        if (ticket.left === 0) settle(ticket, { status: 'sent', parts: ticket.parts });
      },
      (error: unknown) => {
        const reason = errorText(error);
        // The rest of this reply would read wrongly without this part: withdraw it too.
        const before = state.waiting.length;
        if (ticket !== null) state.waiting = state.waiting.filter((other) => other.ticket !== ticket);
        logger.error({ channel: state.name, err: error, withdrawnParts: before - state.waiting.length }, 'chat transport could not send a reply');
        if (ticket !== null) settle(ticket, { status: 'failed', reason });
      },
    ).finally(() => {
      // A failed line counts too: it may have reached the wire before the transport failed.
      recordSent(state, moderator);
      state.sending = false;
      pump();
    });
  };

  function pump(): void {
    if (stopped) return;
    timer?.cancel();
    timer = null;
    const now = clock.now();
    let next = Infinity;
    // The channel that has waited longest since its last line goes first, so one busy channel
    // cannot take every place the shared windows free while another channel waits.
    const turn = [...channels.values()].sort((one, other) => one.lastSentAt - other.lastSentAt);
    for (const state of turn) {
      if (state.sending || state.waiting.length === 0) continue;
      const at = readyAt(state, now);
      if (at <= now) send(state, now);
      else next = Math.min(next, at);
    }
    if (next !== Infinity) timer = clock.schedule(pump, next - now);
  }

  return {
    enqueue(rawChannel, text, from) {
      const channel = normalizeChannel(rawChannel);
      if (stopped) {
        logger.warn({ channel, ...from }, 'reply refused: the host is stopping');
        return Promise.resolve({ status: 'refused', reason: 'the host is stopping' });
      }
      // Plugins run without a type check: a text that is not one would be said as "undefined" or fail inside.
      const notText = notChatText(text);
      if (notText !== null) {
        logger.warn({ channel, ...from }, `reply refused: ${notText}`);
        return Promise.resolve({ status: 'refused', reason: notText });
      }
      const line = toChatLine(text);
      if (isBlankLine(line)) {
        logger.warn({ channel, ...from }, 'reply refused: it is empty');
        return Promise.resolve({ status: 'refused', reason: 'empty reply' });
      }
      // With Twitch's limits every part leaves room for the duplicate suffix, so making a part
      // differ (a repeat, or a line refused as one) never costs it a word.
      let parts = splitMessage(line, limits ? maxLength - DUPLICATE_SUFFIX.length : maxLength);
      if (parts.length > maxParts) {
        logger.warn({ channel, ...from, parts: parts.length, kept: maxParts, length: line.length }, 'reply too long: only its first parts are sent');
        parts = parts.slice(0, maxParts);
      }
      const state = stateOf(channel);
      const plugin = from?.plugin;
      const own = plugin === undefined ? 0 : state.waiting.filter((item) => item.ticket?.plugin === plugin).length;
      const full = state.waiting.length + parts.length > maxQueued;
      if (full || own + parts.length > maxQueuedPerPlugin) {
        const same = state.waiting.find((item) => item.ticket?.line === line);
        if (same) {
          logger.warn({ channel, ...from, queued: state.waiting.length }, 'reply queue full: reply coalesced with the identical one already waiting');
          return Promise.resolve({ status: 'coalesced' });
        }
        if (full) {
          logger.warn({ channel, ...from, queued: state.waiting.length, max: maxQueued, text: line.slice(0, 80) }, 'reply queue full: reply refused');
          return Promise.resolve({ status: 'refused', reason: `reply queue full (${state.waiting.length} waiting)` });
        }
        logger.warn({ channel, ...from, queued: own, max: maxQueuedPerPlugin, text: line.slice(0, 80) },
          `reply refused: plugin ${plugin} already has ${own} lines waiting in #${channel}, its share of the channel's queue of ${maxQueued}`);
        return Promise.resolve({ status: 'refused', reason: `plugin ${plugin} has ${own} lines waiting here already (its share of the queue)` });
      }
      let resolve!: (outcome: ReplyOutcome) => void;
      const promise = new Promise<ReplyOutcome>((done) => {
        resolve = done;
      });
      const ticket: Ticket = { line, plugin, parts: parts.length, left: parts.length, settled: false, resolve };
      for (const part of parts) state.waiting.push({ text: part, ticket, resends: 0, afterLostConnection: false });
      pump();
      return promise;
    },

    setBotState(rawChannel, tags) {
      const state = stateOf(normalizeChannel(rawChannel));
      const wasModerator = isModerator(state);
      const wasSlowExempt = isSlowExempt(state);
      state.role = chatRoleOf(tags);
      const moderator = isModerator(state);
      const slowExempt = isSlowExempt(state);
      if (moderator !== wasModerator || slowExempt !== wasSlowExempt) {
        logger.info({ channel: state.name, moderator, vip: slowExempt && !moderator }, moderator
          ? 'bot is moderator or broadcaster here: moderator chat limits apply'
          : slowExempt
            ? 'bot is a VIP here: ordinary chat limits apply, slow mode does not'
            : 'bot is not a moderator here: ordinary chat limits apply');
      }
      pump();
    },

    setSlowMode(rawChannel, seconds) {
      const state = stateOf(normalizeChannel(rawChannel));
      const slowMs = Math.max(0, seconds) * 1000;
      if (slowMs === state.slowMs) return;
      state.slowMs = slowMs;
      const channel = state.name;
      if (slowMs === 0) logger.info({ channel, slowSeconds: 0 }, `slow mode is off in #${channel}`);
      else if (isSlowExempt(state)) {
        const status = isModerator(state) ? 'a moderator' : 'a VIP';
        logger.info({ channel, slowSeconds: seconds }, `slow mode of ${seconds} s in #${channel}: the bot is ${status} there, so it does not wait for it`);
      }
      else logger.info({ channel, slowSeconds: seconds }, `slow mode of ${seconds} s in #${channel}: the bot's lines there go at least ${seconds} s apart`);
      pump();
    },

    refused(rawChannel, text, reason, remedy) {
      if (stopped) return;
      const state = stateOf(normalizeChannel(rawChannel));
      const channel = state.name;
      const { resends, afterLostConnection } = state.sent.take(text);
      // Twitch tells the bot it was unmodded only in the USERSTATE answering its next delivered
      // line, so lines sent at a moderator's pace meanwhile are refused for the rate: paced as a
      // viewer's from here until a USERSTATE says moderator again (the next delivered line's, at
      // once where it still is one and only went past the 100 per window).
      if (reason === 'msg_ratelimit' && state.role === 'moderator') {
        state.role = 'everyone';
        logger.info({ channel, moderator: false }, 'bot refused for the rate as a moderator: ordinary chat limits apply until Twitch says it is one');
      }
      // The transport has logged it; the same line would only be refused again.
      if (remedy.kind === 'none') return;
      // Refused as a repeat of the line the chat showed last: the copy sent into the lost
      // connection had been shown after all. Another would show it twice.
      if (afterLostConnection && remedy.kind === 'differ') {
        logger.info({ channel, reason }, 'a reply line sent again after the connection was lost was refused as a repeat: its first copy had reached the chat');
        return;
      }
      if (resends >= maxResends) {
        logger.warn({ channel, reason, resends, text: text.slice(0, 100) },
          `reply line dropped: the chat refused it ${resends + 1} times, the last for ${reason}`);
        return;
      }
      let again = text;
      if (remedy.kind === 'wait') {
        const until = clock.now() + remedy.ms;
        // Moderators and VIPs are exempt from slow mode: that wait lifts if the bot becomes one.
        if (reason === 'msg_slowmode') state.slowHoldUntil = Math.max(state.slowHoldUntil, until);
        else state.holdUntil = Math.max(state.holdUntil, until);
      } else {
        again = madeToDiffer(text, maxLength);
      }
      // Behind the lines already waiting to be sent again, ahead of the replies queued after it.
      let at = 0;
      while (at < state.waiting.length && state.waiting[at]!.ticket === null) at += 1;
      state.waiting.splice(at, 0, { text: again, ticket: null, resends: resends + 1, afterLostConnection: reason === CONNECTION_LOST });
      logger.info({ channel, reason, resend: resends + 1, waitMs: remedy.kind === 'wait' ? remedy.ms : 0 }, remedy.kind === 'wait'
        ? `the chat refused a reply line (${reason}): sending it again in ${remedy.ms} ms`
        : `the chat refused a reply line (${reason}): sending it again, made to differ`);
      pump();
    },

    isModerator: (channel) => {
      const state = channels.get(normalizeChannel(channel));
      return state !== undefined && isModerator(state);
    },

    pending(channel) {
      if (channel !== undefined) return channels.get(normalizeChannel(channel))?.waiting.length ?? 0;
      let total = 0;
      for (const state of channels.values()) total += state.waiting.length;
      return total;
    },

    stop() {
      if (stopped) return;
      stopped = true;
      timer?.cancel();
      timer = null;
      for (const state of channels.values()) {
        if (state.waiting.length === 0) continue;
        logger.warn({ channel: state.name, parts: state.waiting.length }, 'host stopping: waiting replies are not sent');
        for (const item of state.waiting) if (item.ticket !== null) settle(item.ticket, { status: 'failed', reason: 'the host stopped before it was sent' });
        state.waiting = [];
      }
    },
  };
}
