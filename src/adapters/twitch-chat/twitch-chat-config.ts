// The Twitch chat transport's options from the config's `twitch` section.
import type { TwitchConfig } from '../../config/config-schema.ts';
import type { TwitchChatOptions } from './twitch-chat-options.ts';

export function twitchChatOptionsFromConfig(twitch: TwitchConfig): TwitchChatOptions {
  return {
    channels: twitch.channels,
    identity: { login: twitch.bot.login, token: twitch.bot.token },
    server: { host: twitch.chat.server, port: twitch.chat.port, secure: twitch.chat.secure },
  };
}
