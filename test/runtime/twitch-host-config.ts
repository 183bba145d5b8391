// The config of a whole chatskin on a temp database with Twitch chat pointed at a fake server
// (channel alice, bot chatskinbot, no local chat, no redemptions, silent logs).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig } from '../../src/config/index.ts';
import type { Config } from '../../src/config/index.ts';
import type { FakeTwitchIrc } from '../fakes/fake-twitch-irc.ts';

/**
 * `more`: further top-level sections of the config file (`commands`, `plugins`...), as given;
 * `twitch`: keys of the twitch section to set or replace (`bot`, `helix`...).
 */
export function twitchHostConfig(irc: FakeTwitchIrc, dirPrefix: string, more: Record<string, unknown> = {}, twitch: Record<string, unknown> = {}): Config {
  const dir = mkdtempSync(join(tmpdir(), dirPrefix));
  return parseConfig({
    http: { host: '127.0.0.1', port: 0 },
    store: { path: join(dir, 'db.sqlite') },
    channel: { login: 'alice' },
    localChat: { enabled: false },
    twitch: {
      enabled: true, clientId: 'test-client', clientSecret: 'test-secret',
      bot: { login: 'chatskinbot', token: 'oauth:testtoken' },
      channels: ['alice'],
      chat: irc.tmiConnection,
      redemptions: { enabled: false },
      ...twitch,
    },
    log: { level: 'silent' },
    ...more,
  });
}
