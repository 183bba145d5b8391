// The secret values a config holds, so the logger can scrub them from every line it writes,
// wherever they turn up (an error message, a URL, a library's debug output). Tokens kept in token
// files (twitch.bot.tokenFile, twitch.broadcaster.tokenFile) are not in the config: whoever reads
// or refreshes one adds it to the logger then (addLogSecrets).
import type { Config, PluginEntry } from './config-schema.ts';
import { isSecretKey } from './secret-key.ts';

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
  // A plugin's settings are its own, so which hold a secret is known only by name, and by where
  // the value came from: a plugin's error (or an object it throws) may quote them.
  for (const entry of Object.values(config.plugins)) secrets.push(...pluginSecrets(entry));
  return [...new Set(secrets.filter((secret) => secret.length > 0))];
}

/** The strings under secret-looking keys of a plugin's settings, at any depth, and the text ${ENV} put in them. */
function pluginSecrets(entry: PluginEntry): string[] {
  const found: string[] = [...entry.textsFromEnvironment ?? []];
  const walk = (value: unknown, key: string | undefined): void => {
    if (typeof value === 'string') {
      if (key !== undefined && isSecretKey(key)) found.push(value);
    } else if (Array.isArray(value)) {
      for (const item of value) walk(item, key);
    } else if (typeof value === 'object' && value !== null) {
      for (const [name, item] of Object.entries(value)) walk(item, name);
    }
  };
  walk(entry.settings, undefined);
  return found;
}
