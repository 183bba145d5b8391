// The host's one config file as a zod schema. Every key has a default, so a file may omit
// anything; docs/config.md documents every key and config/default.yaml spells the defaults out.
import path from 'node:path';
import { z } from 'zod';
import { overlayClientConfigSchema } from '../client/client-from-config.ts';
import { DEFAULT_BLOCKED_AGENTS } from '../service/http/options.ts';
import type { SynchronousLevel } from '../service/store/sqlite-store.ts';
import { flag, integer, isPlainMapping, oneOf, proxyTrust, section, text, twitchLogin, url } from './schema-helpers.ts';

const port = integer(0, 65535);

const httpSection = section({
  host: text('a host name or IP address to listen on').default('127.0.0.1'),
  /** 0 picks a free port (tests). */
  port: port.default(4477),
  /** Which proxies' X-Forwarded-For names the client (the failed-auth limit counts per client). */
  trustProxy: proxyTrust().default(false),
  /** Open connections at most (overlay sockets included); more are refused, so they cannot use up the process's files. */
  maxConnections: integer(1, 1_000_000).default(16_384),
  /** Open connections one client address may hold; the proxies in trustProxy are not counted. */
  maxConnectionsPerAddress: integer(1, 1_000_000).default(256),
});

const storeSection = section({
  /** Relative to the working directory. */
  path: text('a file path for the SQLite database').default('./data/chatskin.db'),
  synchronous: oneOf(['off', 'normal', 'full', 'extra']).default('full')
    .transform((level) => level.toUpperCase() as SynchronousLevel),
});

const apiPrefix = z.string({ error: 'must be a path such as /api/v1' })
  .regex(/^(\/[^\s/?#]+)*$/, { error: 'must be "" or a path such as /api/v1: starting with "/", not ending with one' });

const apiSection = section({
  prefix: apiPrefix.default('/api/v1'),
  rateLimit: section({
    perMinute: integer(1, 100_000).default(30),
    failedAuthPerMinute: integer(1, 100_000).default(30),
  }).prefault({}),
  bodyLimitBytes: integer(1, 16 * 1024 * 1024).default(65_536),
  redirectErrors: flag().default(true),
  edgeFilter: section({
    blockedAgents: z.array(text('a User-Agent (prefix when it ends in "/")'), { error: 'must be a list of User-Agent values' })
      .default(() => [...DEFAULT_BLOCKED_AGENTS]),
  }).prefault({}),
});

const overlaySection = section({
  /** Base URL the overlay is reachable at from OBS, when not http://host:port (a proxy). */
  publicUrl: url(['http', 'https'], 'https://overlay.example.com').nullable().default(null),
  maxMessages: integer(1, 500).default(50),
  /** null: no web fonts are loaded (offline). */
  googleFontsCss: url(['http', 'https'], 'https://fonts.googleapis.com/css2').nullable()
    .default('https://fonts.googleapis.com/css2'),
  emoteCdn: url(['http', 'https'], 'https://static-cdn.jtvnw.net/emoticons/v2')
    .default('https://static-cdn.jtvnw.net/emoticons/v2'),
});

const channelSection = section({
  login: twitchLogin().default('streamer'),
});

// Channel-point redemptions (docs/redemptions.md). These sections are optional, so a config that
// leaves them out parses to the same object as before they existed; `redemptionSettings` fills in
// their defaults (the schema stays the one place defaults live).

/** Same rule as a plugin's `ctx.onRedemption` key. */
export const REWARD_KEY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,99}$/;

const optionalLimit = (max: number) => integer(1, max).nullable().default(null);

/** One channel-point reward the host creates and keeps in step with the config. */
const managedRewardSection = section({
  /** Twitch: at most 45 characters, unique on the channel (any case). */
  title: z.string({ error: 'must be the reward\'s title (1 to 45 characters)' })
    .min(1, { error: 'must be the reward\'s title (1 to 45 characters)' })
    .max(45, { error: 'must be at most 45 characters (a Twitch limit)' }),
  cost: integer(1, 2_147_483_647),
  prompt: z.string({ error: 'must be text (at most 200 characters)' }).max(200, { error: 'must be at most 200 characters (a Twitch limit)' }).default(''),
  /** null: Twitch's default colour. */
  backgroundColor: z.string({ error: 'must be a colour such as "#9147FF"' })
    .regex(/^#[0-9A-Fa-f]{6}$/, { error: 'must be a colour such as "#9147FF" (# and six hex digits)' })
    .transform((colour) => colour.toUpperCase()).nullable().default(null),
  userInputRequired: flag().default(false),
  enabled: flag().default(true),
  paused: flag().default(false),
  globalCooldownSeconds: optionalLimit(604_800),
  maxPerStream: optionalLimit(2_147_483_647),
  maxPerUserPerStream: optionalLimit(2_147_483_647),
});

const managedRewardsSection = z.record(
  z.string().regex(REWARD_KEY_PATTERN, { error: 'reward keys are 1 to 100 letters, digits, _ . : or -, starting with a letter or digit' }),
  managedRewardSection,
  { error: (issue) => (issue.code === 'invalid_type' ? 'must be a mapping of reward key -> reward (title, cost, ...)' : undefined) },
);

const twitchBroadcasterSection = section({
  /** Written by `chatskin twitch auth` (owner-only permissions); refreshed tokens are saved back. */
  tokenFile: text('a file path for the broadcaster\'s Twitch token').default('./data/twitch-broadcaster-token.json'),
});

const twitchOauthSection = section({
  /** id.twitch.tv's OAuth base for `chatskin twitch auth`; null: Twitch's (or the mock API port's /auth). */
  url: url(['http', 'https'], 'https://id.twitch.tv/oauth2').nullable().default(null),
});

const twitchRedemptionsSection = section({
  /** false: no rewards are managed and no redemptions are handled. */
  enabled: flag().default(true),
  /** How often UNFULFILLED redemptions are listed to finish any that were missed. */
  reconcileIntervalSeconds: integer(10, 86_400).default(60),
  /**
   * Days a settled redemption (its FULFILLED/CANCELED accepted by Twitch) stays in the ledger
   * before it is deleted; rows still owed an effect or a status are kept whatever their age.
   */
  ledgerRetentionDays: integer(1, 3650).default(30),
  /**
   * How often the broadcaster's token file is looked at for a token `chatskin twitch auth` saved
   * while the host runs (a stat; read only when it changed).
   */
  tokenFileCheckSeconds: integer(1, 3600).default(5),
});

/** The redemption sections of an enabled twitch config, with their defaults filled in. */
export function redemptionSettings(twitch: {
  broadcaster?: unknown; oauth?: unknown; redemptions?: unknown; rewards?: unknown;
}) {
  return {
    broadcaster: twitchBroadcasterSection.parse(twitch.broadcaster ?? {}),
    oauth: twitchOauthSection.parse(twitch.oauth ?? {}),
    redemptions: twitchRedemptionsSection.parse(twitch.redemptions ?? {}),
    rewards: managedRewardsSection.parse(twitch.rewards ?? {}),
  };
}

export type RedemptionSettings = ReturnType<typeof redemptionSettings>;
export type ManagedRewardConfig = z.output<typeof managedRewardSection>;

// The bot's chat token: a fixed one (`token`), or a file `chatskin twitch auth --bot` writes and
// the host refreshes (`tokenFile`). Exactly one; the parsed section has only the one given.
const BOT_TOKEN_CHOICE = 'token is a fixed user access token, tokenFile a file `chatskin twitch auth --bot` saves a token to, '
  + 'which chatskin refreshes (docs/chat.md)';

/** The bot section as parsed: the token, or its file. */
export type TwitchBotConfig =
  | { login: string; token: string }
  | { login: string; tokenFile: string; tokenFileCheckSeconds: number };

const twitchBotSection = section({
  login: twitchLogin(),
  token: text('the bot account\'s user access token (with or without "oauth:")').optional(),
  /** Written by `chatskin twitch auth --bot` (owner-only permissions); refreshed tokens are saved back. */
  tokenFile: text('a file path for the bot\'s Twitch token').optional(),
  /** With tokenFile: how often the file is looked at for a new token while the chat is off for a refused one. */
  tokenFileCheckSeconds: integer(1, 3600).optional(),
}).transform((bot, context): TwitchBotConfig => {
  if (bot.token !== undefined && bot.tokenFile !== undefined) {
    context.addIssue({ code: 'custom', message: `has both token and tokenFile; keep one: ${BOT_TOKEN_CHOICE}`, input: bot });
    return z.NEVER;
  }
  if (bot.tokenFile !== undefined) {
    return { login: bot.login, tokenFile: bot.tokenFile, tokenFileCheckSeconds: bot.tokenFileCheckSeconds ?? 5 };
  }
  if (bot.token === undefined) {
    context.addIssue({ code: 'custom', message: `needs token or tokenFile: ${BOT_TOKEN_CHOICE}`, input: bot });
    return z.NEVER;
  }
  if (bot.tokenFileCheckSeconds !== undefined) {
    context.addIssue({ code: 'custom', message: 'has tokenFileCheckSeconds without tokenFile: it applies to a token file only', input: bot });
    return z.NEVER;
  }
  return { login: bot.login, token: bot.token };
});

const twitchEnabledSection = section({
  enabled: z.literal(true),
  clientId: text('the application Client ID from dev.twitch.tv'),
  clientSecret: text('the application Client Secret from dev.twitch.tv'),
  bot: twitchBotSection,
  /** Defaults to [channel.login]. */
  channels: z.array(twitchLogin(), { error: 'must be a list of Twitch logins' })
    .min(1, { error: 'must list at least one channel' }).optional(),
  chat: section({
    server: text('a host name').default('irc-ws.chat.twitch.tv'),
    port: integer(1, 65535).default(443),
    secure: flag().default(true),
  }).superRefine((chat, context) => {
    // tmi.js connects with wss to port 443 whenever either is set, whatever the other says.
    if (chat.secure && chat.port !== 443) {
      context.addIssue({ code: 'custom', path: ['port'], input: chat.port, message: 'must be 443 while twitch.chat.secure is true (tmi.js always uses port 443 for wss); set secure: false for another port' });
    }
    if (!chat.secure && chat.port === 443) {
      context.addIssue({ code: 'custom', path: ['secure'], input: chat.secure, message: 'must be true with port 443 (tmi.js always uses wss there); or set another twitch.chat.port' });
    }
  }).prefault({}),
  eventsub: section({
    /** null: Twitch's own EventSub WebSocket. */
    url: url(['ws', 'wss'], 'wss://eventsub.wss.twitch.tv/ws').nullable().default(null),
  }).prefault({}),
  helix: section({
    /** A local twurple mock API server's port instead of api.twitch.tv; null for Twitch. */
    mockServerPort: integer(1, 65535).nullable().default(null),
  }).prefault({}),
  /**
   * Longest wait for an answer to one HTTP call to Twitch (Helix, id.twitch.tv: token refreshes,
   * the device flow), and between two pieces of it; then the call fails as a fault that may pass.
   */
  httpTimeoutSeconds: integer(1, 300).default(30),
  broadcaster: twitchBroadcasterSection.optional(),
  oauth: twitchOauthSection.optional(),
  redemptions: twitchRedemptionsSection.optional(),
  rewards: managedRewardsSection.optional(),
}).superRefine((twitch, context) => {
  // Two authorizations (other scopes), each refreshed and saved by its own part of the host.
  if (!('tokenFile' in twitch.bot)) return;
  const broadcasterFile = twitch.broadcaster?.tokenFile ?? twitchBroadcasterSection.parse({}).tokenFile;
  if (path.resolve(twitch.bot.tokenFile) !== path.resolve(broadcasterFile)) return;
  context.addIssue({
    code: 'custom', path: ['bot', 'tokenFile'], input: twitch.bot.tokenFile,
    message: 'is the broadcaster\'s token file too (twitch.broadcaster.tokenFile): the bot\'s chat token and the broadcaster\'s '
      + 'are two authorizations with other scopes, each refreshed and saved on its own: in one file each would overwrite the other; '
      + 'give each its own file',
  });
});

/** A switched-off twitch section is not checked: placeholders and unset ${VARS} may stay. */
const twitchDisabledSection = z.looseObject({ enabled: z.literal(false) })
  .transform(() => ({ enabled: false as const }));

const twitchSection = z.preprocess(
  (value) => {
    if (value === undefined || value === null) return { enabled: false };
    if (isPlainMapping(value) && !('enabled' in value)) return { ...value, enabled: true };
    return value;
  },
  z.discriminatedUnion('enabled', [twitchDisabledSection, twitchEnabledSection], {
    // What `enabled` was is added where every value is, unless it came from ${NAME} (describeZodIssues).
    error: (issue) => (issue.code === 'invalid_union' ? 'must be true or false' : undefined),
  }),
);

const localChatSection = section({
  enabled: flag().default(true),
  /** Read chat lines typed in the terminal that runs `chatskin start`. */
  stdin: flag().default(true),
});

const commandsSection = section({
  prefix: z.string({ error: 'must be text such as "!"' })
    .regex(/^\S{1,8}$/, { error: 'must be 1 to 8 characters with no spaces, such as "!"' }).default('!'),
});

const logSection = section({
  level: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export const PLUGIN_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/**
 * One plugin's entry: its settings, plus `enabled` (default true when the entry is there).
 * `name: true`, `name: false` and an empty `name:` are shorthands.
 */
const pluginEntry = z.preprocess(
  (value) => (value === null ? {} : typeof value === 'boolean' ? { enabled: value } : value),
  // z.custom passes the mapping on as parsed: a copy made by zod would set a `__proto__` key as
  // the prototype, dropping it unseen by the plugin's schema, which refuses it as unknown.
  z.custom<Record<string, unknown>>(isPlainMapping, {
    error: 'must be a mapping of the plugin\'s settings (with enabled: true/false), or true/false',
  }).superRefine((entry, context) => {
    if (entry['enabled'] !== undefined && typeof entry['enabled'] !== 'boolean') {
      context.addIssue({ code: 'custom', path: ['enabled'], input: entry['enabled'], message: 'must be true or false' });
    }
  }),
).transform((entry): PluginEntry => ({
  enabled: (entry['enabled'] as boolean | undefined) ?? true,
  // fromEntries defines own properties, so a `__proto__` key stays a plain key.
  settings: Object.fromEntries(Object.entries(entry).filter(([key]) => key !== 'enabled')),
}));

export interface PluginEntry {
  enabled: boolean;
  settings: Record<string, unknown>;
  /** Paths (`plugins.<name>.<key>`) of settings whose value came from ${ENV}, which errors never quote; set by loadConfig. */
  settingsFromEnvironment?: ReadonlySet<string>;
  /** The text those ${ENV} references put in (a token, a webhook URL's secret part), which the logs scrub; set by loadConfig. */
  textsFromEnvironment?: readonly string[];
}

/** When the file has no `plugins` key, the built-in plugins run with their own defaults. */
const DEFAULT_PLUGINS = { style: {}, skins: {}, grants: {} };

const pluginsSection = z.record(
  z.string().regex(PLUGIN_NAME_PATTERN, {
    error: 'plugin names are folder names: lowercase letters, digits, - or _',
  }),
  pluginEntry,
  { error: (issue) => (issue.code === 'invalid_type' ? 'must be a mapping of plugin name -> settings' : undefined) },
).prefault(DEFAULT_PLUGINS);

export const configSchema = section({
  http: httpSection.prefault({}),
  store: storeSection.prefault({}),
  api: apiSection.prefault({}),
  overlay: overlaySection.prefault({}),
  channel: channelSection.prefault({}),
  service: overlayClientConfigSchema.prefault({ mode: 'bundled' }),
  twitch: twitchSection,
  localChat: localChatSection.prefault({}),
  commands: commandsSection.prefault({}),
  /** Further folders holding plugin folders; relative to the working directory. */
  pluginDirs: z.array(text('a folder path'), { error: 'must be a list of folder paths' }).default(() => []),
  plugins: pluginsSection,
  log: logSection.prefault({}),
}).transform((config) => ({
  ...config,
  twitch: config.twitch.enabled
    ? { ...config.twitch, channels: config.twitch.channels ?? [config.channel.login] }
    : config.twitch,
}));

export type Config = z.output<typeof configSchema>;
export type TwitchConfig = Extract<Config['twitch'], { enabled: true }>;
export type LogLevel = Config['log']['level'];
