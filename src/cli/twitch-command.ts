// chatskin twitch auth [--bot]: obtains the broadcaster's Twitch token (device code flow) and stores
// it for the redemptions, or with --bot the bot account's chat token for the Twitch chat
// (docs/twitch-setup.md lists the scopes and why each is needed).
import { resolve } from 'node:path';
import type { CliOptions } from '../main.ts';
import { CONFIG_DEFAULT_PATH, readConfigSource, substituteEnv } from '../config/index.ts';
import { authorizeBroadcaster, TwitchAuthError } from '../adapters/redemptions/index.ts';
import { authorizeBot } from '../adapters/twitch-chat/authorize-bot.ts';
import { configFileInUse, loadCliConfig, requireArgs } from './cli-context.ts';
import { CliError } from './cli-error.ts';
import { errorText } from '../host/error-text.ts';

const USAGE = 'chatskin twitch auth [--bot] [--config FILE]';

export async function run(args: string[], options: CliOptions): Promise<void> {
  const [action] = requireArgs(args, 1, USAGE);
  if (action !== 'auth') throw new CliError(`Usage: ${USAGE}`);
  const config = loadCliConfig(options);
  if (!config.twitch.enabled) throw new CliError(twitchOffMessage(configFileInUse(options)));
  const authorize = options.flags['bot'] === true ? authorizeBot : authorizeBroadcaster;
  // Its lines hold the code to enter: once they cannot be written (a pipe whose reader is gone),
  // nobody can approve it, so the sign-in stops. Unheard, the write's 'error' event was a stack trace.
  const stop = new AbortController();
  let lost: unknown;
  process.stdout.on('error', (error) => {
    lost ??= error;
    stop.abort(error);
  });
  try {
    await authorize({
      config, signal: stop.signal, print: (line) => { if (lost === undefined) process.stdout.write(`${line}\n`); },
    });
  } catch (error) {
    if (lost !== undefined) {
      throw new CliError(`the sign-in was stopped: its lines, which hold the code to enter, could not be printed (${errorText(lost)}).`
        + ' Run it again with its output on a terminal.');
    }
    if (error instanceof TwitchAuthError) throw new CliError(error.message);
    throw error;
  }
}

/**
 * What to change, and where, when the config in use has Twitch off: a twitch section with
 * `enabled: false` (the shipped default's, whose credentials come from the environment) wants
 * `enabled: true` plus whatever credentials it lacks; no twitch section wants the credentials.
 */
function twitchOffMessage(file: string, env: NodeJS.ProcessEnv = process.env): string {
  const shipped = file === resolve(CONFIG_DEFAULT_PATH);
  const there = shipped ? ' in a config file of your own (a copy of that one), passed with --config FILE' : ' there';
  const tail = ', then run this again (docs/twitch-setup.md has the steps).';
  // An enabled twitch section needs the bot too: without it, the advice taken led to the next
  // error ("twitch.bot: is missing"), although `twitch auth` for the broadcaster never uses it.
  const bot = `twitch.bot (its login and tokenFile, as in ${CONFIG_DEFAULT_PATH})`;
  const section = rawTwitchSection(file);
  if (section === undefined) return `${file} has no twitch section: add twitch.clientId, twitch.clientSecret and ${bot}${there}${tail}`;

  const keys = ['clientId', 'clientSecret'] as const;
  const missing = keys.filter((key) => typeof section[key] !== 'string' || section[key].trim() === '').map((key) => `twitch.${key}`);
  if (typeof section.bot !== 'object' || section.bot === null) missing.push(bot);
  const unset = substituteEnv(Object.fromEntries(keys.map((key) => [key, section[key]])), env).unset;
  const variables = [...new Set(unset.map((reference) => reference.variable))];
  const readers = [...new Set(unset.map((reference) => `twitch.${String(reference.path[0])}`))];
  return `Twitch is switched off in ${file} (twitch.enabled: false): set twitch.enabled: true`
    + `${missing.length > 0 ? ` and add ${missing.join(' and ')}` : ''}${there}`
    + (variables.length > 0
      ? `, and set the environment variable${variables.length > 1 ? 's' : ''} ${variables.join(' and ')}`
        + ` (${readers.join(' and ')} read${readers.length > 1 ? '' : 's'} ${variables.length > 1 ? 'them' : 'it'})`
      : '')
    + tail;
}

/** The config file's twitch mapping as written (before the schema drops a switched-off one), if any. */
function rawTwitchSection(file: string): Record<string, unknown> | undefined {
  // The config in use was just loaded, so the file reads and parses.
  const twitch: unknown = (readConfigSource(file).raw as { twitch?: unknown } | null)?.twitch;
  return typeof twitch === 'object' && twitch !== null && !Array.isArray(twitch) ? twitch as Record<string, unknown> : undefined;
}
