// The host's config: the schema, the loader and the path rule.
export { configSchema, PLUGIN_NAME_PATTERN } from './config-schema.ts';
export type { Config, LogLevel, PluginEntry, TwitchConfig } from './config-schema.ts';
export { loadConfig, parseConfig, readConfigSource } from './load-config.ts';
export type { ConfigSource } from './load-config.ts';
export { CONFIG_DEFAULT_PATH, resolveConfigPath } from './config-path.ts';
export { ConfigError, formatConfigPath } from './config-error.ts';
export type { ConfigIssue } from './config-error.ts';
export { configSecrets } from './config-secrets.ts';
export { substituteEnv } from './env-substitution.ts';
