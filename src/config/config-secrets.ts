// The secret values a config holds, so the logger can scrub them from every line it writes,
// wherever they turn up (an error message, a URL, a library's debug output). Tokens kept in token
// files (twitch.bot.tokenFile, twitch.broadcaster.tokenFile) are not in the config: whoever reads
// or refreshes one adds it to the logger then (addLogSecrets).
import type { Config } from './config-schema.ts';

export function configSecrets(config: Config): string[] {
  const secrets: string[] = [];
  if (config.twitch.enabled) {
    secrets.push(config.twitch.clientSecret);
    const { bot } = config.twitch;
    if ('token' in bot) {
      secrets.push(bot.token);
      // The token is written with or without "oauth:"; scrub the bare token either way.
      if (bot.token.startsWith('oauth:')) secrets.push(bot.token.slice('oauth:'.length));
    }
  }
  if (config.service.mode === 'remote') secrets.push(config.service.apiKey);
  return secrets.filter((secret) => secret.length > 0);
}
