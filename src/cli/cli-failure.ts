// What the CLI prints when a command fails: never a raw stack trace (unless CHATSKIN_DEBUG asks for
// one), never a secret. A refusal (CliError) is its own message; a database that cannot be the
// store (also one another program keeps locked past the busy timeout while the command writes, and
// one whose file is read-only, which SQLite opens read-only without a word until the first write),
// and the usual reasons the server cannot listen, name the file or address, the config key
// to change and the config file in use; anything
// else is one line saying it was unexpected and how to see more.
import { resolve } from 'node:path';
import { inspect } from 'node:util';
import { CONFIG_DEFAULT_PATH, configSecrets, loadConfig, resolveConfigPath } from '../config/index.ts';
import { redactInspectedFields } from '../config/secret-key.ts';
import { createScrubber, REDACTED } from '../host/logger.ts';
import { storageFaultOf, storageFaultText } from '../service/store/storage-fault.ts';
import { isDatabaseBusy, isDatabaseReadOnly, StoreOpenError, storeOpenError } from '../service/store/store-open-error.ts';
import { CliError, shownArg } from './cli-error.ts';

/** Set (to anything but "", "0" or "false") to print the stack trace of an unexpected error. */
export const DEBUG_ENV = 'CHATSKIN_DEBUG';

export interface FailureContext {
  /** The config file the command read, absolute. */
  configFile: string;
  /** No --config and no CHATSKIN_CONFIG: the shipped config/default.yaml is in use. */
  shippedDefault: boolean;
  /** http.host and http.port of that config, when it loads. */
  http?: { host: string; port: number };
  /** store.path of that config, when it loads. */
  storePath?: string;
  /** The config's secret values, scrubbed from the output wherever they appear. */
  secrets: readonly string[];
  /** Print the stack trace (and cause) of an unexpected error. */
  debug: boolean;
}

type Env = Readonly<Record<string, string | undefined>>;

/** What the failure message needs from the config named by `flag` (--config, else the env rule); best effort. */
export function failureContext(flag: string | undefined, env: Env = process.env): FailureContext {
  const configFile = resolve(resolveConfigPath(flag, env));
  const debugValue = env[DEBUG_ENV]?.trim().toLowerCase();
  const context: FailureContext = {
    configFile,
    shippedDefault: configFile === resolve(CONFIG_DEFAULT_PATH),
    secrets: [],
    debug: debugValue !== undefined && debugValue !== '' && debugValue !== '0' && debugValue !== 'false',
  };
  try {
    const config = loadConfig(configFile, env);
    return {
      ...context, http: { host: config.http.host, port: config.http.port }, storePath: config.store.path, secrets: configSecrets(config),
    };
  } catch {
    // An unreadable or invalid config already has its own error; the token shapes are still scrubbed.
    return context;
  }
}

/** The text to write to stderr (one line unless debugging), scrubbed of secrets. */
export function formatFailure(error: unknown, context: FailureContext): string {
  let text: string;
  const storageFault = storageFaultOf(error);
  if (error instanceof CliError || isParseArgsError(error)) {
    text = `chatskin: ${error.message}\n`;
  } else if (error instanceof StoreOpenError) {
    text = `chatskin: ${error.message} (store.path in ${context.configFile})\n`;
  } else if ((isDatabaseBusy(error) || isDatabaseReadOnly(error)) && context.storePath !== undefined) {
    // A write the command made once the store was open (the template sync at start, an admin
    // command's change) waited out the busy timeout, or found the file read-only (SQLite opens
    // such a file read-only and says nothing until the first write): the same line as at open.
    text = `chatskin: ${storeOpenError(context.storePath, error).message} (store.path in ${context.configFile})\n`;
  } else if (storageFault !== null && context.storePath !== undefined) {
    // A full disk (or one turned read-only or failing) under the database: SQLite rolled the write back.
    text = `chatskin: the database ${context.storePath} cannot be written: ${storageFaultText(storageFault)}; nothing was changed (store.path in ${context.configFile})\n`;
  } else {
    const listen = listenFailure(error, context);
    const hint = context.debug ? '' : ` (run again with ${DEBUG_ENV}=1 to see the stack trace)`;
    text = `chatskin: ${listen ?? `unexpected error: ${describeUnexpected(error)}${hint}`}\n`;
    if (context.debug) text += `${inspect(error, { depth: 4 })}\n`;
  }
  // A value from the command line or a file may hold a terminal escape: shown, never acted on.
  return scrubText(text, context.secrets).replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/g, (c) => shownArg(c));
}

function isParseArgsError(error: unknown): error is Error {
  return error instanceof Error && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS');
}

function describeUnexpected(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const named = error.name && error.name !== 'Error' ? `${error.name}: ${error.message}` : error.message;
  const cause = error.cause instanceof Error ? error.cause.message : undefined;
  return cause === undefined || cause === '' || named.includes(cause) ? named : `${named} (cause: ${cause})`;
}

interface SystemError extends Error {
  code?: unknown;
  syscall?: unknown;
  address?: unknown;
  port?: unknown;
  hostname?: unknown;
}

const HOST_CHOICES = '127.0.0.1 (this machine only), 0.0.0.0 (every interface) or an address of this machine';

/** `host:port`, with brackets around an IPv6 address. */
function hostPort(host: string, port: unknown): string {
  const shown = host.includes(':') ? `[${host}]` : host;
  return typeof port === 'number' ? `${shown}:${port}` : shown;
}

/**
 * Why the HTTP server could not listen, in the terms of the config: EADDRINUSE, EACCES and
 * EADDRNOTAVAIL from listen(), and a http.host name that does not resolve. Undefined for
 * anything else.
 */
export function listenFailure(error: unknown, context: FailureContext): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const { code, syscall, address, port, hostname } = error as SystemError;
  // Where to change a key: the file in use, or a copy of the shipped default passed with --config.
  const inFile = context.shippedDefault
    ? ` in a config file of your own, passed with --config FILE (the shipped ${context.configFile} is in use now)`
    : ` in ${context.configFile}`;

  if (syscall === 'listen' && typeof address === 'string') {
    const at = `cannot listen on ${hostPort(address, port)} (${String(code)})`;
    if (code === 'EADDRINUSE') {
      return `${at}: another program, perhaps another chatskin, is using that port. Stop the other program, or change http.port${inFile}.`;
    }
    if (code === 'EACCES') {
      return typeof port === 'number' && port > 0 && port < 1024
        ? `${at}: permission denied; ports below 1024 need administrator rights. Change http.port to 1024 or above${inFile}.`
        : `${at}: permission denied by the system (a security policy may forbid this address or port). Change http.port (or http.host)${inFile}.`;
    }
    if (code === 'EADDRNOTAVAIL') {
      return `${at}: no network interface of this machine has the address ${address}. Change http.host${inFile}: ${HOST_CHOICES}.`;
    }
    return undefined;
  }
  // The server resolves a host name before listening; only http.host's own lookup is ours to explain.
  if (syscall === 'getaddrinfo' && (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    && context.http !== undefined && hostname === context.http.host) {
    return `cannot listen on ${hostPort(context.http.host, context.http.port)} (${code}): the host name ${context.http.host} `
      + `${code === 'ENOTFOUND' ? 'does not resolve to an address' : 'could not be resolved now (a DNS failure)'}. `
      + `Change http.host${inFile}: ${HOST_CHOICES}.`;
  }
  return undefined;
}

/**
 * Scrubs plain text with the logger's rules, plus the known secrets as they are written and the
 * secret-named fields of an inspected object (CHATSKIN_DEBUG's dump of an error holding a token).
 */
export function scrubText(text: string, secrets: readonly string[]): string {
  let out = redactInspectedFields(text);
  for (const secret of [...secrets].filter((s) => s.length >= 4).sort((a, b) => b.length - a.length)) {
    out = out.split(secret).join(REDACTED);
  }
  return createScrubber(secrets)(out);
}
