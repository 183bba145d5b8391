// The config of a whole chatskin on a temp database with Twitch chat pointed at a fake server
// (channel alice, bot chatskinbot, no local chat, no redemptions, silent logs), which also
// answers the check of the bot's fixed token.
import type { Config } from '../../src/config/index.ts';
import type { FakeTwitchIrc } from '../fakes/fake-twitch-irc.ts';
import { hostConfig } from './host-config.ts';

/**
 * `more`: further top-level sections of the config file (`commands`, `plugins`...), as given;
 * `twitch`: keys of the twitch section to set or replace (`bot`, `helix`...).
 */
export function twitchHostConfig(irc: FakeTwitchIrc, dirPrefix: string, more: Record<string, unknown> = {}, twitch: Record<string, unknown> = {}): Config {
  return hostConfig(dirPrefix, 'alice', {
    localChat: { enabled: false },
    twitch: {
      enabled: true, clientId: 'test-client', clientSecret: 'test-secret',
      bot: { login: 'chatskinbot', token: 'oauth:testtoken' },
      channels: ['alice'],
      chat: irc.tmiConnection,
      // The fixed bot token is checked at start and hourly (id.twitch.tv's /validate): here.
      oauth: { url: irc.oauthUrl },
      redemptions: { enabled: false },
      ...twitch,
    },
    ...more,
  });
}
