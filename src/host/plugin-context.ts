// The `ctx` a plugin's setup receives: its settings, a child logger, the overlay client, chat,
// and registration of commands and redemption handlers (through the host's registries).
import type { Logger } from 'pino';
import type { OverlayStyleClient } from '../client/overlay-style-client.ts';
import type { ChatReplyTarget, CommandDefinition, PluginContext, RedemptionHandler, ReplyOutcome } from './plugin-api.ts';
import { REWARD_KEY_PATTERN } from '../config/config-schema.ts';
import { sendMention } from './split-message.ts';

export interface PluginContextOptions {
  name: string;
  settings: unknown;
  logger: Logger;
  overlay: OverlayStyleClient;
  channel: string;
  say(channel: string, text: string): Promise<ReplyOutcome>;
  registerCommand(command: CommandDefinition): void;
  registerRedemption(rewardKey: string, handler: RedemptionHandler): void;
  /** ctx.every (plugin-timers.ts). */
  every(intervalMs: number, run: () => unknown): () => void;
  /** The plugin was switched off (its setup failed or timed out, and may still be running): it may no longer chat or use the overlay. */
  isOff(): boolean;
}

/**
 * The overlay client as a plugin sees it: once the plugin is off, every call rejects, sending
 * nothing. Read-only: every plugin's proxy has the same client behind it, so a method one plugin
 * replaced or deleted would be replaced or gone for all of them.
 */
function switchableOverlay(overlay: OverlayStyleClient, isOff: () => boolean, name: string): OverlayStyleClient {
  const readOnly = (property: string | symbol): never => {
    throw new TypeError(`ctx.overlay is shared with the other plugins and cannot be changed (${String(property)}): wrap it in an object of your own`);
  };
  return new Proxy(overlay, {
    set: (_target, property) => readOnly(property),
    deleteProperty: (_target, property) => readOnly(property),
    defineProperty: (_target, property) => readOnly(property),
    setPrototypeOf: () => readOnly('its prototype'),
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => (isOff()
        ? Promise.reject(new Error(`plugin ${name} is off: it may no longer use the overlay service`))
        : (value as (...a: unknown[]) => unknown).apply(target, args));
    },
  });
}

export function createPluginContext(options: PluginContextOptions): PluginContext {
  const { isOff, name } = options;
  const say = (channel: string, text: string): Promise<ReplyOutcome> => {
    if (!isOff()) return options.say(channel, text);
    options.logger.warn({ channel }, `plugin ${name} is off: its chat line was not sent`);
    return Promise.resolve({ status: 'refused', reason: `plugin ${name} is off` });
  };
  return Object.freeze({
    name,
    config: options.settings,
    logger: options.logger,
    overlay: switchableOverlay(options.overlay, isOff, name),
    channel: options.channel,
    chat: Object.freeze({
      say,
      reply: (to: ChatReplyTarget, text: string) => {
        if (typeof (to as Partial<typeof to> | undefined)?.user?.displayName !== 'string') {
          const reason = 'ctx.chat.reply needs a command invocation, or { channel, user: { displayName } }, to reply to';
          options.logger.warn(`message refused: ${reason}`);
          return Promise.resolve<ReplyOutcome>({ status: 'refused', reason });
        }
        const login = typeof to.user.login === 'string' ? to.user.login : undefined;
        return sendMention((line) => say(to.channel, line), { displayName: to.user.displayName, login }, text);
      },
    }),
    command(definition: CommandDefinition) {
      options.registerCommand(definition);
    },
    every(intervalMs: number, run: () => unknown) {
      return options.every(intervalMs, run);
    },
    onRedemption(rewardKey: string, handler: RedemptionHandler) {
      if (typeof rewardKey !== 'string' || !REWARD_KEY_PATTERN.test(rewardKey)) {
        throw new TypeError(`reward key ${JSON.stringify(rewardKey)} must be 1 to 100 letters, digits, _ . : or -`);
      }
      if (typeof handler !== 'function') throw new TypeError(`reward ${rewardKey}: the handler must be a function`);
      options.registerRedemption(rewardKey, handler);
    },
  }) as PluginContext;
}
