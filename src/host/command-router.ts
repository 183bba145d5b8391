// Chat lines to commands: prefix, name or alias (any case), role, cooldown, typed arguments,
// then the plugin's handler, isolated so a throwing handler costs one generic reply and a log
// line, never the host. Lines the router does not act on get no reply, so chat is not spammed:
// unknown commands and missing roles are ignored; a cooldown gets at most one notice per window,
// and wrong arguments one usage line per chatter and command per window (moderators and the
// broadcaster get each, whoever bypasses the command's cooldown).
import type { Logger } from 'pino';
import { hasRole } from './chat-roles.ts';
import { errorText } from './error-text.ts';
import type { Clock } from './clock.ts';
import { parseArgs, usageLine } from './command-args.ts';
import type { CommandRegistry } from './command-registry.ts';
import type { ChatUser, CommandInvocation, ReplyOutcome } from './plugin-api.ts';
import type { ReplySource } from './reply-queue.ts';
import type { TimePluginCall } from './slow-plugin-calls.ts';
import { sendMention } from './split-message.ts';
import { INVISIBLE } from './typed-text.ts';
import { UsageNotices } from './usage-notices.ts';

/** A chatter who keeps getting a command's arguments wrong is told its usage once in this long. */
export const USAGE_NOTICE_WINDOW_MS = 30_000;

export interface IncomingChatMessage {
  channel: string;
  text: string;
  user: ChatUser;
  messageId: string | null;
}

/** Sends a line to the channel the message came from, on the chat it came from; `from` names the command's plugin in warnings about it. */
export type SendToSource = (text: string, from?: ReplySource) => Promise<ReplyOutcome>;

export type RouteResult =
  | 'not-a-command'
  | 'unknown-command'
  | 'role-too-low'
  | 'cooling-down'
  | 'usage'
  | 'ran'
  | 'failed';

export interface CommandRouterOptions {
  prefix: string;
  registry: CommandRegistry;
  clock: Clock;
  logger: Logger;
  /** Times the handler's synchronous part (slow-plugin-calls.ts). */
  timePluginCall: TimePluginCall;
  /** What a command waits for before it runs, if anything (HostOptions.beforeCommand). */
  beforeCommand?: (user: ChatUser) => Promise<void> | undefined;
}

export interface CommandRouter {
  /**
   * False when `text` cannot be a command (it does not hold the prefix's first character): a cheap test
   * that lets the host skip reading the chatter's tags for the great majority of chat lines.
   */
  couldBeCommand(text: string): boolean;
  route(message: IncomingChatMessage, send: SendToSource): Promise<RouteResult>;
}


export function createCommandRouter(options: CommandRouterOptions): CommandRouter {
  const { prefix, registry, clock, logger, timePluginCall, beforeCommand } = options;
  const prefixLower = prefix.toLowerCase();

  // The cheap test looks for the prefix's first character only: a longer prefix may come with an
  // invisible character inside (`!\u200B!roll` for `!!`), which the route ignores.
  const probe = String.fromCodePoint(prefix.codePointAt(0)!);
  const probeLower = probe.toLowerCase();
  const caseless = probeLower === probe.toUpperCase();
  const usageNotices = new UsageNotices(USAGE_NOTICE_WINDOW_MS);

  return {
    couldBeCommand(text) {
      return caseless ? text.includes(probe) : text.toLowerCase().includes(probeLower);
    },
    async route(message, send) {
      // Invisible characters a chat client added (to a repeated line) are no part of the command.
      const text = message.text.replace(INVISIBLE, '').trim();
      if (text.slice(0, prefix.length).toLowerCase() !== prefixLower) return 'not-a-command';
      const match = /^(\S+)\s*([\s\S]*)$/.exec(text.slice(prefix.length));
      if (!match) return 'not-a-command';
      const word = match[1]!;
      const argText = match[2] ?? '';
      const command = registry.find(word);
      if (!command) return 'unknown-command';
      const { user } = message;
      const log = logger.child({ plugin: command.plugin, command: command.name, channel: message.channel, user: user.login });

      if (!hasRole(user.role, command.role)) {
        log.debug({ role: user.role, needs: command.role }, 'command ignored: role too low');
        return 'role-too-low';
      }
      const bypass = command.bypass !== 'nobody' && hasRole(user.role, command.bypass);
      const now = clock.now();
      if (!bypass && command.cooldown.active) {
        const check = command.cooldown.check(user.id, now);
        if (check.state === 'cooling') {
          log.debug({ remainingMs: check.remainingMs, notice: check.notice }, 'command ignored: cooling down');
          if (check.notice) {
            const seconds = Math.ceil(check.remainingMs / 1000);
            void sendMention(send, user, `${prefix}${command.name} is cooling down, try again in ${seconds} s.`);
          }
          return 'cooling-down';
        }
      }
      const parsed = parseArgs(command.args, argText);
      if (!parsed.ok) {
        if (hasRole(user.role, 'moderator') || usageNotices.allow(command.name, user.id, now)) {
          void sendMention(send, user, `${parsed.reason}. Usage: ${usageLine(prefix, command.name, command.args)}`);
        } else {
          log.debug({ reason: parsed.reason }, 'command ignored: wrong arguments, usage already told');
        }
        return 'usage';
      }
      const use = bypass || !command.cooldown.active ? undefined : command.cooldown.start(user.id, now);
      let givenBack = false;
      const from: ReplySource = { plugin: command.plugin, command: command.name };

      const invocation: CommandInvocation = {
        command: command.name,
        args: parsed.values,
        channel: message.channel,
        user,
        text: message.text,
        messageId: message.messageId,
        reply: (reply) => sendMention((line) => send(line, from), user, reply),
        say: (line) => send(line, from),
        giveBackCooldown: () => {
          if (use === undefined || givenBack) return;
          givenBack = true;
          const done = command.cooldown.giveBack(use, clock.now());
          log.debug({ givenBack: done }, done ? 'cooldown given back' : 'cooldown kept: one was given back lately');
        },
      };
      try {
        const before = beforeCommand?.(user);
        if (before !== undefined) await before;
        // The arguments were parsed against this command's own argument list.
        await timePluginCall(command.plugin, `${prefix}${command.name}`, log, () => command.run(invocation as Parameters<typeof command.run>[0]));
        return 'ran';
      } catch (error) {
        // What was thrown goes in the line itself: a thrown `undefined` leaves `err` out altogether.
        log.error({ err: error }, `command handler failed: ${errorText(error)}`);
        void sendMention(send, user, `sorry, ${prefix}${command.name} failed.`);
        return 'failed';
      }
    },
  };
}
