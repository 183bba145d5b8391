// The bot host: loads the enabled plugins, routes chat from every transport to their commands,
// hands redemptions to their handlers, and sends every reply through a paced queue per
// transport. A plugin that fails to load, to set up, or in a handler is logged with its name
// and isolated; the host and the other plugins keep serving. One that holds the thread is named
// in the log (slow-plugin-calls.ts), and any other stall is logged too (event-loop-stalls.ts).
import type { Logger } from 'pino';
import type { OverlayStyleClient } from '../client/overlay-style-client.ts';
import type { Config } from '../config/config-schema.ts';
import { normalizeChannel, textTag } from './chat-transport.ts';
import type { ChatTransport, ChatTransportEvent } from './chat-transport.ts';
import { chatUserFromTags } from './chat-user.ts';
import { commandTextOf } from './command-line.ts';
import { systemClock } from './clock.ts';
import type { Clock, ScheduledTimer } from './clock.ts';
import { createCommandRouter } from './command-router.ts';
import { withDeadline } from './deadline.ts';
import { CommandRegistry } from './command-registry.ts';
import { createPluginContext } from './plugin-context.ts';
import { BUILT_IN_PLUGIN_DIR, findPluginEntry, importPlugin, parsePluginSettings } from './plugin-loader.ts';
import type { ChatReplyTarget, ChatUser, PluginTeardown, RedemptionEvent, RedemptionHandler, ReplyOutcome } from './plugin-api.ts';
import { decisionOf, replyAfterStatus, repliesOf } from './redemption-decision.ts';
import type { RedemptionReplies, RedemptionSettlement } from './redemption-decision.ts';
import { createReplyQueue } from './reply-queue.ts';
import type { ReplyQueue, ReplyQueueOptions, ReplySource } from './reply-queue.ts';
import { errorText } from './error-text.ts';
import { givenValue } from './given-value.ts';
import { EVENT_LOOP_STALL_MS, watchEventLoopStalls } from './event-loop-stalls.ts';
import { createPluginCallTimer, SLOW_PLUGIN_CALL_MS } from './slow-plugin-calls.ts';
import { trackCallsUnderWay } from './calls-under-way.ts';
import { createPluginTimers } from './plugin-timers.ts';
import { REDEMPTION_HANDLER_WAIT_MS } from './redemptions/redemption-pipeline.ts';

export interface HostOptions {
  config: Config;
  logger: Logger;
  overlayClient: OverlayStyleClient;
  chatTransports: readonly ChatTransport[];
  clock?: Clock;
  /** Folder of the built-in plugins; default the package's plugins/. */
  builtInPluginDir?: string;
  /** Limits of each transport's reply queue. */
  replyQueue?: Pick<ReplyQueueOptions, 'maxQueued' | 'maxQueuedPerPlugin' | 'maxPartsPerReply'>;
  /** A plugin whose import and setup have not finished after this long is failed. Default 10 s. */
  setupTimeoutMs?: number;
  /** On stop, how long commands already running may take to finish (their replies still go out). Default 5 s. */
  stopTimeoutMs?: number;
  /**
   * Then how long the plugins' teardowns may take; they run at the same time, so one that hangs
   * costs the others nothing. Default 3 s: with the commands' 5 s (waited for beside the
   * redemptions' 5 s, drain()), the whole stop fits the process's 10 s shutdown deadline with
   * room for chat, the sockets and the database.
   */
  teardownTimeoutMs?: number;
  /**
   * A call into a plugin (setup, a command or redemption handler, a teardown) that holds the
   * thread this long before it returns is logged with the plugin's name. Default 100 ms.
   */
  slowPluginCallMs?: number;
  /** The thread blocked this long by anything else is logged, until stop(). Default 1 s. */
  stallWarningMs?: number;
  /**
   * Waited for before a command runs, when it gives a promise: the composition root's viewer
   * registration of a chatter not registered yet, so a plugin finds the chatter of a first line
   * a viewer. It must not reject.
   */
  beforeCommand?: (user: ChatUser) => Promise<void> | undefined;
  /**
   * Waited for before a redemption handler runs, when it gives a promise: the composition root's
   * sign-in of the viewer who redeemed (as a chat line of theirs would sign them in), so a plugin
   * finds them a viewer even if they never chatted. It must not reject (one that does refunds).
   */
  beforeRedemption?: (user: RedemptionEvent['user']) => Promise<void> | undefined;
}

export interface PluginStatus {
  name: string;
  state: 'running' | 'failed';
  /** Why it failed. */
  error?: string;
  commands: string[];
  rewards: string[];
}

export type { RedemptionReplies, RedemptionSettlement };

export type RedemptionResult =
  | {
    outcome: 'fulfill' | 'refund';
    plugin: string;
    /**
     * Says the handler's chat line for how the status settled (RedemptionDecision's `reply` or
     * `replyIfNotRefunded`), once; later calls, or a handler that gave none, say nothing. The
     * redemption pipeline calls it once Twitch has the status; with no Twitch (the local chat's
     * /redeem, a plugin's test) call it with `as-asked` at once.
     */
    afterStatus?(settled: RedemptionSettlement): Promise<void>;
    /**
     * The lines afterStatus says, for the redemption ledger to keep with the outcome (a restart
     * before the status settled says them with `replyAfterRestart`); undefined when there are none.
     */
    replies?: RedemptionReplies;
  }
  /** No plugin handles the reward key. */
  | { outcome: 'unhandled' };

export interface Host {
  readonly plugins: readonly PluginStatus[];
  /** Runs the handler registered for the event's reward key. Never throws. */
  handleRedemption(event: RedemptionEvent): Promise<RedemptionResult>;
  /**
   * The afterStatus of a redemption an earlier run of the host handled (RedemptionResult's
   * `replies`, kept by the ledger with `outcome`): the lines go through the same plugin's share of
   * the chat queue. Null, logged at level info, when that plugin is not running now.
   */
  replyAfterRestart(replies: RedemptionReplies, outcome: 'fulfill' | 'refund', redemptionId: string): ((settled: RedemptionSettlement) => Promise<void>) | null;
  /** Sends a line to a channel on every transport serving it (paced, split). */
  say(channel: string, text: string): Promise<ReplyOutcome>;
  /**
   * Stops routing new chat and starting ctx.every runs, and lets the commands and timer runs
   * already under way finish (bounded by stopTimeoutMs), the lines said for the commands (the
   * host's "failed" line, a reply not waited for) still going out: the first part of stop(), which a stop of the
   * whole process starts beside the redemptions' own wait, so the two waits overlap. Idempotent.
   */
  drain(): Promise<void>;
  /**
   * drain(), then runs the plugins' teardowns (which may still chat), then settles the replies
   * still waiting as failed. Idempotent.
   */
  stop(): Promise<void>;
}

interface RedemptionRegistration {
  plugin: string;
  handler: RedemptionHandler;
  /** The plugin's ctx.chat.reply (its share of the queue; refused once it is off). */
  reply(to: ChatReplyTarget, text: string): Promise<ReplyOutcome>;
}

export async function createHost(options: HostOptions): Promise<Host> {
  const { config, logger, overlayClient } = options;
  const clock = options.clock ?? systemClock;
  const transports = [...options.chatTransports];
  const ownChannel = normalizeChannel(config.channel.login);
  const registry = new CommandRegistry();
  const redemptions = new Map<string, RedemptionRegistration>();
  /** Each plugin's ctx.chat.reply, by plugin name (for the lines of redemptions handled before a restart). */
  const pluginReplies = new Map<string, RedemptionRegistration['reply']>();
  // Stalls are watched from the first plugin's loading until the last teardown has run.
  const stalls = watchEventLoopStalls({ thresholdMs: options.stallWarningMs ?? EVENT_LOOP_STALL_MS, logger });
  const timePluginCall = createPluginCallTimer({ thresholdMs: options.slowPluginCallMs ?? SLOW_PLUGIN_CALL_MS, onSlow: (heldMs) => stalls.attributed(heldMs) });
  /** Command handlers still running, so a stop can name one that never finishes. */
  const commandCalls = trackCallsUnderWay(timePluginCall);
  /** Work a stop lets finish: commands being handled, the lines said for them, ctx.every runs. */
  const running = new Set<Promise<unknown>>();
  const underWay = <T>(work: Promise<T>): Promise<T> => {
    running.add(work);
    const done = (): void => {
      running.delete(work);
    };
    work.then(done, done);
    return work;
  };
  const pluginTimers = createPluginTimers({ clock, timePluginCall: commandCalls.time, onRun: underWay });
  const router = createCommandRouter({ prefix: config.commands.prefix, registry, clock, logger: logger.child({ part: 'commands' }), timePluginCall: commandCalls.time, beforeCommand: options.beforeCommand });
  /** Runs a plugin's teardown, timed, a turn later (so one that throws at once rejects instead). */
  const tearDown = (plugin: string, log: Logger, teardown: PluginTeardown): Promise<unknown> =>
    Promise.resolve().then(() => timePluginCall(plugin, 'its teardown', log, teardown));
  const queues = new Map<ChatTransport, ReplyQueue>(transports.map((transport) =>
    [transport, createReplyQueue({ transport, clock, logger, ...options.replyQueue })]));
  const statuses: PluginStatus[] = [];
  const teardowns: { plugin: string; teardown: PluginTeardown; log: Logger }[] = [];
  const stopTimeoutMs = options.stopTimeoutMs ?? 5_000;
  const teardownTimeoutMs = options.teardownTimeoutMs ?? 3_000;
  /** The timers of handleRedemption's warning about a slow handler: a stop ends them. */
  const slowRedemptionWarnings = new Set<ScheduledTimer>();
  let drained: Promise<void> | null = null;
  let stopped: Promise<void> | null = null;

  const say = async (rawChannel: string, text: string, from?: ReplySource): Promise<ReplyOutcome> => {
    if (typeof rawChannel !== 'string') {
      // A plugin's mistake (run without a type check), said in its terms rather than failing inside.
      const reason = `the channel must be a channel's login (got ${givenValue(rawChannel)})`;
      logger.warn({ ...from }, `message refused: ${reason}`);
      return { status: 'refused', reason };
    }
    const channel = normalizeChannel(rawChannel);
    const serving = transports.filter((transport) => transport.channels.includes(channel));
    if (serving.length === 0) {
      logger.warn({ channel, ...from }, 'message refused: no chat serves this channel');
      return { status: 'refused', reason: `no chat serves #${channel}` };
    }
    const outcomes = await Promise.all(serving.map((transport) => queues.get(transport)!.enqueue(channel, text, from)));
    return outcomes.find((outcome) => outcome.status !== 'sent') ?? outcomes[0]!;
  };

  // Plugins, one after another in config order (so the first to claim a command keeps it).
  const dirs = [options.builtInPluginDir ?? BUILT_IN_PLUGIN_DIR, ...config.pluginDirs];
  for (const [name, entry] of Object.entries(config.plugins)) {
    if (!entry.enabled) continue;
    const pluginLogger = logger.child({ plugin: name });
    const status: PluginStatus = { name, state: 'failed', commands: [], rewards: [] };
    statuses.push(status);
    // A plugin that failed (a setup that timed out may still run on) registers nothing more.
    let failed = false;
    // Registrations belong in setup: one made later (a timer, a handler, after stop) would miss the
    // config-order rule for names, the start's reward check and the plugin's status. It is logged
    // and ignored rather than thrown: thrown in a timer callback, it would stop chatskin.
    let setUpDone = false;
    /** False (logged) when the plugin may not register now. */
    const mayRegister = (what: string): boolean => {
      if (failed) {
        pluginLogger.error(`plugin ${name} registered ${what} after it failed to start: ignored`);
        return false;
      }
      if (!setUpDone) return true;
      pluginLogger.error(`plugin ${name} registered ${what} after its setup had finished: ignored; `
        + 'register commands and redemption handlers in setup, before it returns (or its promise settles)');
      return false;
    };
    // One deadline for loading the module and running its setup: either may hang.
    const setUp = async (): Promise<void | PluginTeardown> => {
      const definition = await importPlugin(name, findPluginEntry(name, dirs));
      const settings = parsePluginSettings(name, definition, entry);
      const context = createPluginContext({
        name, settings, logger: pluginLogger, overlay: overlayClient, channel: config.channel.login, isOff: () => failed,
        say: (channel, text) => say(channel, text, { plugin: name }),
        every: (intervalMs, run) => pluginTimers.every({ name, log: pluginLogger, isOff: () => failed }, intervalMs, run),
        registerCommand: (command) => {
          const commandName: unknown = (command as { name?: unknown } | null)?.name;
          if (!mayRegister(typeof commandName === 'string' ? `command "${commandName}"` : 'a command')) return;
          const registered = registry.register(name, command);
          status.commands.push(registered.name);
        },
        registerRedemption: (rewardKey, handler) => {
          if (!mayRegister(`a handler of reward "${rewardKey}"`)) return;
          const owner = redemptions.get(rewardKey);
          if (owner) throw new TypeError(`reward "${rewardKey}" is already handled by plugin ${owner.plugin}`);
          redemptions.set(rewardKey, { plugin: name, handler, reply: (to, text) => context.chat.reply(to, text) });
          status.rewards.push(rewardKey);
        },
      });
      pluginReplies.set(name, (to, text) => context.chat.reply(to, text));
      return timePluginCall(name, 'its setup', pluginLogger, () => definition.setup(context));
    };
    const setupTimeoutMs = options.setupTimeoutMs ?? 10_000;
    const setup = setUp();
    try {
      const teardown = await withDeadline(setup, setupTimeoutMs, () => new Error(`setup did not finish within ${setupTimeoutMs} ms`), clock);
      setUpDone = true;
      if (typeof teardown === 'function') teardowns.push({ plugin: name, teardown, log: pluginLogger });
      else if (teardown !== undefined) {
        // `return setInterval(...)` or `return { stop }` would otherwise be dropped without a word, its timer never cleared.
        const returned: unknown = teardown;
        const kind = typeof returned === 'object' && returned !== null
          ? `an object (${(returned as { constructor?: { name?: string } }).constructor?.name ?? 'without a prototype'})`
          : `${typeof returned} ${String(returned)}`;
        pluginLogger.warn(`plugin ${name}'s setup returned ${kind}, not a function: nothing will run at shutdown `
          + '(return a function that clears what setup started)');
      }
      status.state = 'running';
      pluginLogger.info({ commands: status.commands, rewards: status.rewards }, 'plugin started');
    } catch (error) {
      // Whatever it registered before failing goes with it.
      failed = true;
      registry.removePlugin(name);
      for (const [key, registration] of redemptions) if (registration.plugin === name) redemptions.delete(key);
      status.commands = [];
      status.rewards = [];
      status.error = errorText(error);
      pluginLogger.error({ err: error }, `plugin ${name} failed to start and is disabled: ${status.error}`);
      // A setup that timed out may still finish: what it set up is let go at once.
      setup.then(async (late) => {
        if (typeof late !== 'function') return;
        await tearDown(name, pluginLogger, late);
        pluginLogger.warn(`plugin ${name} finished its setup after it was left out: its teardown ran`);
      }, () => {}).catch((lateError: unknown) => pluginLogger.error({ err: lateError }, `plugin ${name}'s teardown failed`));
    }
  }

  /** What the reply queue paces by: the bot's status, the slow mode, the lines the chat refused. */
  const toQueue = (queue: ReplyQueue, event: ChatTransportEvent): void => {
    switch (event.type) {
      case 'userstate':
        queue.setBotState(event.channel, event.tags);
        break;
      case 'room-state':
        queue.setSlowMode(event.channel, event.slowSeconds);
        break;
      case 'line-refused':
        queue.refused(event.channel, event.text, event.reason, event.remedy);
        break;
      default:
        break;
    }
  };

  const onEvent = (transport: ChatTransport, event: ChatTransportEvent): void => {
    // While stopping, lines still go out (commands finishing, teardowns saying goodbye), so the
    // queue keeps hearing what paces them: the bot's status, the slow mode, the lines refused.
    if (event.type !== 'message') {
      toQueue(queues.get(transport)!, event);
      return;
    }
    if (drained !== null) return;
    if (event.self || !router.couldBeCommand(event.text)) return;
    const text = commandTextOf(event.text, event.tags);
    if (text === null) return;
    const chatter = chatUserFromTags(event.tags);
    if (!chatter) return;
    const channel = normalizeChannel(event.channel);
    // Roles are the account's channel's: a moderator (or broadcaster) of another channel the bot
    // joined has no say over this account's overlay, so there they count as viewers.
    const user = channel === ownChannel || chatter.role === 'everyone' ? chatter : { ...chatter, role: 'everyone' as const };
    const messageId = textTag(event.tags.id);
    // Every line said for the command (also one its handler did not wait for, and the host's own
    // "failed" line) is waited for by a stop, like the command.
    underWay(router.route({ channel, text, user, messageId }, (line, from) => underWay(queues.get(transport)!.enqueue(channel, line, from)))
      .catch((error: unknown) => logger.error({ err: error, channel }, 'routing a chat message failed')));
  };
  /** Waits for `work`, at most `limitMs`; says so in the log when it gave up. */
  const awaitWithin = async (work: Promise<unknown>, limitMs: number, what: string, context: Record<string, unknown> = {}): Promise<void> => {
    try {
      await withDeadline(work, limitMs, () => new Error(`did not finish within ${limitMs} ms`), clock);
    } catch (error) {
      logger.error({ err: error, ...context }, `stopping: ${what}: ${errorText(error)}`);
    }
  };

  /** Until nothing is under way, also what the work under way started meanwhile (a reply). */
  const allFinished = async (): Promise<void> => {
    while (running.size > 0) await Promise.allSettled([...running]);
  };

  const drainCommands = async (): Promise<void> => {
    // No timer starts new work once stopping: a run under way is waited for like a command.
    pluginTimers.stopAll();
    // Commands already running finish first, while chat is still connected for their replies.
    if (running.size > 0) {
      logger.info({ underWay: running.size }, 'stopping: letting the commands and timer runs under way finish, and their lines go out');
      try {
        await withDeadline(allFinished(), stopTimeoutMs, () => new Error(`did not finish within ${stopTimeoutMs} ms`), clock);
      } catch (error) {
        // Each handler that never finished is named, with its plugin, for its author.
        const unfinished = commandCalls.list();
        for (const { plugin, doing, log } of unfinished) {
          // "its timer (every 1000 ms)", as the slow-call warning says it, is the plugin's timer here.
          log.error(`stopping: plugin ${plugin}'s ${doing.replace(/^its /, '')} did not finish within ${stopTimeoutMs} ms; shutdown goes on`);
        }
        if (unfinished.length === 0) logger.error({ err: error }, `stopping: the commands under way (${running.size}): ${errorText(error)}`);
      }
    }
  };

  const drain = (): Promise<void> => (drained ??= drainCommands());

  const stopHost = async (): Promise<void> => {
    await drain();
    // All at once (started last plugin first), each within the same deadline. Chat is still
    // connected: a teardown may say goodbye.
    await Promise.all(teardowns.reverse().map(({ plugin, teardown, log }) =>
      awaitWithin(tearDown(plugin, log, teardown), teardownTimeoutMs, `plugin ${plugin}'s teardown`, { plugin })));
    for (const queue of queues.values()) queue.stop();
    for (const unsubscribe of unsubscribes) unsubscribe();
    stalls.stop();
    for (const warning of slowRedemptionWarnings) warning.cancel();
  };

  const unsubscribes = transports.map((transport) => transport.subscribe((event) => {
    try {
      onEvent(transport, event);
    } catch (error) {
      logger.error({ err: error, transport: transport.name }, 'handling a chat event failed');
    }
  }));

  return {
    get plugins() {
      return statuses;
    },

    async handleRedemption(event) {
      const registration = redemptions.get(event.rewardKey);
      if (!registration) {
        logger.warn({ rewardKey: event.rewardKey, redemption: event.id }, 'no plugin handles this reward');
        return { outcome: 'unhandled' };
      }
      const log = logger.child({ plugin: registration.plugin, rewardKey: event.rewardKey, redemption: event.id });
      // Nothing can end a handler that never settles; its author at least learns whose it is. The
      // redemption pipeline stops waiting for it after its own handlerWaitMs (redemption-pipeline.ts; 30 s by default too).
      const slow = clock.schedule(() => log.warn({ waitedMs: REDEMPTION_HANDLER_WAIT_MS },
        `plugin ${registration.plugin}'s handler of reward ${event.rewardKey} has not finished after ${REDEMPTION_HANDLER_WAIT_MS / 1000} s: `
        + 'the redemption stays unfulfilled until it does'), REDEMPTION_HANDLER_WAIT_MS);
      slowRedemptionWarnings.add(slow);
      try {
        const before = options.beforeRedemption?.(event.user);
        if (before !== undefined) {
          // It must not reject; one that does is the host's fault, not the plugin's: said so.
          const failed = await before.then(() => null, (error: unknown) => ({ error }));
          if (failed !== null) {
            log.error({ err: failed.error }, `beforeRedemption failed, so the handler did not run: ${errorText(failed.error)}; refunding`);
            return { outcome: 'refund', plugin: registration.plugin };
          }
        }
        const answer: unknown = await timePluginCall(registration.plugin, `its handler of reward ${event.rewardKey}`, log, () => registration.handler(event));
        const decision = decisionOf(answer);
        if (decision !== null) {
          const to = { channel: event.channel, user: event.user };
          const afterStatus = replyAfterStatus(decision, to, registration.reply, log);
          const replies = repliesOf(decision, registration.plugin, to);
          return { outcome: decision.outcome, plugin: registration.plugin, afterStatus, ...(replies === undefined ? {} : { replies }) };
        }
        log.error({ returned: answer }, 'redemption handler returned neither "fulfill" nor "refund" (nor { outcome, reply }): refunding');
      } catch (error) {
        log.error({ err: error }, `redemption handler failed: ${errorText(error)}; refunding`);
      } finally {
        slow.cancel();
        slowRedemptionWarnings.delete(slow);
      }
      return { outcome: 'refund', plugin: registration.plugin };
    },

    replyAfterRestart(replies, outcome, redemptionId) {
      const reply = pluginReplies.get(replies.plugin);
      const log = logger.child({ plugin: replies.plugin, redemption: redemptionId });
      if (reply === undefined || statuses.find((status) => status.name === replies.plugin)?.state !== 'running') {
        log.info(`plugin ${replies.plugin} is not running: the chat reply of a redemption it handled before the restart is not said`);
        return null;
      }
      return replyAfterStatus({ outcome, reply: replies.reply, replyIfNotRefunded: replies.replyIfNotRefunded }, replies.to, reply, log);
    },

    say,

    drain,

    stop() {
      stopped ??= stopHost();
      return stopped;
    },
  };
}
