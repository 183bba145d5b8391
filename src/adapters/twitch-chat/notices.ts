// What the chat does with a NOTICE in one of its channels. A msg_* notice answers a line of the
// bot's that Twitch did not deliver: sending it again is the reply queue's to do (it paces every
// line), so the line goes back to it with what would let it pass (refusal-remedy.ts), and after
// msg_ratelimit every line is held a while (send-pause.ts). So does the answer to a line Twitch
// took for a command (a text starting with "/" or "." other than /me: unrecognized_cmd since
// Twitch ran its chat commands over IRC no more, in February 2023), which no re-send would
// change. msg_channel_suspended in a channel the bot is not in answers its join instead (the
// channel does not exist or is suspended): the join is tried again (channel-joins.ts). Any other
// notice is only logged.
import type { Logger } from 'pino';
import type { ChatListeners } from '../chat-listeners.ts';
import type { OwnLineEcho } from './own-line-echo.ts';
import { refusalRemedy } from './refusal-remedy.ts';
import type { SendPause } from './send-pause.ts';

export interface NoticeHandlerOptions {
  listeners: ChatListeners;
  echo: OwnLineEcho;
  pause: SendPause;
  rateLimitPauseMs: number;
  logger: Logger;
  /** Twitch refused to join `channel`: false if the bot is in it (the notice answers one of its lines). */
  joinRefused(channel: string, notice: string): boolean;
}

export type NoticeHandler = (channel: string, msgId: string, text: string) => void;

/** Twitch's answers to a command instead of the line: the bot sends no command, so each answers one of its lines. */
const COMMAND_ANSWERS: ReadonlySet<string> = new Set(['unrecognized_cmd', 'unavailable_command', 'usage_me', 'no_permission']);

/** Whether a NOTICE with this msg-id says Twitch did not deliver the bot's line it answers. */
function answersOwnLine(msgId: string): boolean {
  return msgId.startsWith('msg_') || COMMAND_ANSWERS.has(msgId);
}

export function createNoticeHandler({ listeners, echo, pause, rateLimitPauseMs, logger, joinRefused }: NoticeHandlerOptions): NoticeHandler {
  return (channel, msgId, text) => {
    if (msgId === 'msg_channel_suspended' && joinRefused(channel, text)) return;
    if (!answersOwnLine(msgId)) {
      logger.info({ channel, msgId, notice: text }, `Twitch chat notice in #${channel}: ${text}`);
      return;
    }
    const line = echo.answered(channel, Date.now());
    const remedy = refusalRemedy(msgId, text, rateLimitPauseMs);
    logger[remedy.kind === 'none' ? 'warn' : 'info']({ channel, msgId, notice: text, line: line?.slice(0, 100) ?? null },
      `Twitch did not deliver the bot's message in #${channel} (${msgId}): ${text}`);
    if (msgId === 'msg_ratelimit') {
      pause.hold(rateLimitPauseMs, Date.now());
      logger.warn({ channel, pauseMs: rateLimitPauseMs }, `Twitch says the bot sends too fast: holding its lines for ${rateLimitPauseMs} ms`);
    }
    // Told after the USERSTATEs read before it (chat-events.ts defers those a microtask), so that
    // Twitch's answers reach the reply queue in the order Twitch sent them.
    if (line !== null) queueMicrotask(() => listeners.emit({ type: 'line-refused', channel, text: line, reason: msgId, remedy }));
  };
}
