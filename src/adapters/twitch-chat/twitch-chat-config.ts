// The Twitch chat transport's options from the config's `twitch` section.
import type { TwitchConfig } from '../../config/config-schema.ts';
import { redemptionSettings } from '../../config/config-schema.ts';
import type { TwitchChatIdentity, TwitchChatOptions } from './twitch-chat-options.ts';

export function twitchChatOptionsFromConfig(twitch: TwitchConfig): TwitchChatOptions {
  return {
    channels: twitch.channels,
    identity: botIdentity(twitch),
    server: { host: twitch.chat.server, port: twitch.chat.port, secure: twitch.chat.secure },
  };
}

function botIdentity(twitch: TwitchConfig): TwitchChatIdentity {
  const { bot, clientId, clientSecret, helix, httpTimeoutSeconds } = twitch;
  // Where the token's check at start and hourly goes (id.twitch.tv's /validate).
  const oauthUrl = redemptionSettings(twitch).oauth.url;
  if ('token' in bot) {
    return { login: bot.login, token: bot.token, check: { oauthUrl, mockServerPort: helix.mockServerPort, httpTimeoutMs: httpTimeoutSeconds * 1000 } };
  }
  return {
    login: bot.login,
    tokenFile: {
      path: bot.tokenFile, clientId, clientSecret, checkIntervalMs: bot.tokenFileCheckSeconds * 1000,
      mockServerPort: helix.mockServerPort, httpTimeoutMs: httpTimeoutSeconds * 1000,
      oauthUrl,
    },
  };
}
