// What the admin commands share: the config they name, and the bundled service on its database.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError, loadConfig, resolveConfigPath } from '../config/index.ts';
import type { Config } from '../config/index.ts';
import { openService } from '../runtime/open-service.ts';
import { isFileless, shownLocation } from '../service/store/store-open-error.ts';
import type { StyleService } from '../service/style-service.ts';
import { ServiceError } from '../service/types.ts';
import type { CliOptions } from '../main.ts';
import { CliError, shownArg } from './cli-error.ts';

/** The config file in use, absolute: what a message tells the user to edit. */
export function configFileInUse(options: CliOptions): string {
  return resolve(resolveConfigPath(options.config));
}

export function loadCliConfig(options: CliOptions): Config {
  try {
    return loadConfig(resolveConfigPath(options.config));
  } catch (error) {
    if (error instanceof ConfigError) throw new CliError(error.message);
    if (error instanceof Error && 'code' in error && error.code === 'ENOENT') {
      throw new CliError(`Config file not found: ${resolveConfigPath(options.config)}`);
    }
    throw error;
  }
}

/**
 * Runs `fn` against the bundled service, closing the database after; service refusals become
 * one-line CLI errors. Only `seed` (`createStore`) may make the database: for another command a
 * missing one means the wrong folder or config (a relative store.path, run from elsewhere), and
 * making an empty one there would leave a stray file and answer "No account".
 */
export async function withService<T>(
  options: CliOptions, fn: (service: StyleService, config: Config) => Promise<T>, { createStore = false } = {},
): Promise<T> {
  const config = loadCliConfig(options);
  if (!createStore) requireDatabaseFile(options, config);
  const opened = await openService(config, { adminCommand: true });
  try {
    return await fn(opened.service, config);
  } catch (error) {
    if (error instanceof ServiceError) {
      // Its message may quote what was typed (a login): a newline in it would split the one line.
      const message = shownArg(error.message);
      throw new CliError(error.status === 404 && message.startsWith('No account') ? `${message} ${whereAccountsComeFrom(config)}` : message);
    }
    throw error;
  } finally {
    await opened.close();
  }
}

/** The database must be there already: see withService. */
export function requireDatabaseFile(options: CliOptions, config: Config): void {
  if (isFileless(config.store.path) || existsSync(config.store.path)) return;
  throw new CliError(`There is no database at ${shownLocation(config.store.path)} yet (store.path in ${configFileInUse(options)}): `
    + `chatskin start makes it, with the account of channel.login ("${config.channel.login}" here), when it first runs. `
    + 'Run this command in the folder chatskin start runs in, with the same config.');
}

/**
 * Said after "No account ...": README's `premium streamer on` run before the first `chatskin
 * start` found no account, and nothing said that start is what makes it.
 */
export function whereAccountsComeFrom(config: Config): string {
  return `chatskin start makes the account of channel.login ("${config.channel.login}" here) when it first runs; chatskin seed makes others.`;
}

export function requireArgs(args: string[], count: number, usage: string): string[] {
  if (args.length !== count || args.some((a) => a.trim() === '')) throw new CliError(`Usage: ${usage}`);
  return args;
}
