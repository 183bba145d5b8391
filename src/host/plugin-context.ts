// The `ctx` a plugin's setup receives: its settings, a child logger, the overlay client, chat,
// and registration of commands and redemption handlers (through the host's registries).
import type { Logger } from 'pino';
import type { OverlayStyleClient } from '../client/overlay-style-client.ts';
import type { CommandDefinition, PluginContext, RedemptionHandler, ReplyOutcome } from './plugin-api.ts';

export interface PluginContextOptions {
  name: string;
  settings: unknown;
  logger: Logger;
  overlay: OverlayStyleClient;
  channel: string;
  say(channel: string, text: string): Promise<ReplyOutcome>;
  registerCommand(command: CommandDefinition): void;
  registerRedemption(rewardKey: string, handler: RedemptionHandler): void;
}

const REWARD_KEY = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,99}$/;

export function createPluginContext(options: PluginContextOptions): PluginContext {
  return Object.freeze({
    name: options.name,
    config: options.settings,
    logger: options.logger,
    overlay: options.overlay,
    channel: options.channel,
    chat: Object.freeze({
      say: (channel: string, text: string) => options.say(channel, text),
      reply: (to: { channel: string; user: { displayName: string } }, text: string) =>
        options.say(to.channel, `@${to.user.displayName} ${text}`),
    }),
    command(definition: CommandDefinition) {
      options.registerCommand(definition);
    },
    onRedemption(rewardKey: string, handler: RedemptionHandler) {
      if (typeof rewardKey !== 'string' || !REWARD_KEY.test(rewardKey)) {
        throw new TypeError(`reward key ${JSON.stringify(rewardKey)} must be 1 to 100 letters, digits, _ . : or -`);
      }
      if (typeof handler !== 'function') throw new TypeError(`reward ${rewardKey}: the handler must be a function`);
      options.registerRedemption(rewardKey, handler);
    },
  }) as PluginContext;
}
