// What the command line asks for: the command, its arguments and its flags. Each command takes
// its own flags besides the global ones (--config, --help, --version); anything else is a one-line
// refusal naming the flag and the command, as is an unknown command (with the command it may have
// meant, when one is close).
import { parseArgs } from 'node:util';
import type { ParseArgsOptionsConfig } from 'node:util';
import { closestName } from '../host/closest-name.ts';
import { CliError, shownArg } from './cli-error.ts';
import { errorText } from '../host/error-text.ts';

/** The flags every command takes. */
export const GLOBAL_FLAGS = {
  config: { type: 'string', short: 'c' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const satisfies ParseArgsOptionsConfig;

export interface CommandSpec {
  /** How the command is called, for messages: `chat say`, `twitch auth`. */
  label: string;
  /** The command's own flags, besides GLOBAL_FLAGS. */
  flags: ParseArgsOptionsConfig;
}

/** Every command and its flags; docs/cli.md and `chatskin COMMAND --help` list the same. */
export const COMMAND_SPECS = {
  start: { label: 'start', flags: {} },
  seed: { label: 'seed', flags: {} },
  keys: { label: 'keys', flags: {} },
  premium: { label: 'premium', flags: {} },
  overlays: { label: 'overlays', flags: {} },
  store: { label: 'store', flags: {} },
  chat: { label: 'chat say', flags: { as: { type: 'string' }, role: { type: 'string' }, url: { type: 'string' } } },
  twitch: { label: 'twitch auth', flags: { bot: { type: 'boolean' } } },
} as const satisfies Record<string, CommandSpec>;

export type CommandName = keyof typeof COMMAND_SPECS;

/** Every command's flags and the global ones: what a first look at the command line knows. */
const EVERY_FLAG: ParseArgsOptionsConfig = Object.assign({}, GLOBAL_FLAGS, ...Object.values(COMMAND_SPECS as Record<string, CommandSpec>).map((spec) => spec.flags)) as ParseArgsOptionsConfig;

function specOf(name: string): CommandSpec | undefined {
  return Object.hasOwn(COMMAND_SPECS, name) ? COMMAND_SPECS[name as CommandName] : undefined;
}

export type CommandLine =
  | { kind: 'version' }
  /** `chatskin`, `chatskin --help`, `chatskin help [COMMAND]`, `chatskin COMMAND --help`. */
  | { kind: 'help'; command: string | undefined }
  | { kind: 'run'; command: CommandName; args: string[]; config: string | undefined; flags: Record<string, string | boolean | undefined> };

/** The --config flag as given, even when the rest of the line is refused (the failure message names the file). */
export function configFlagOf(argv: string[]): string | undefined {
  try {
    const config = parseArgs({ args: argv, options: EVERY_FLAG, strict: false, allowPositionals: true }).values['config'];
    return typeof config === 'string' ? config : undefined;
  } catch {
    return undefined;
  }
}

export function parseCommandLine(argv: string[]): CommandLine {
  // A first look with every command's flags, so that a flag's value is not taken for the command.
  const { values, positionals, tokens } = parseArgs({ args: argv, options: EVERY_FLAG, strict: false, allowPositionals: true, tokens: true });
  const [name, ...rest] = positionals;
  if (values['version'] === true) return { kind: 'version' };

  const isHelp = name === undefined || name === 'help';
  const spec = name === undefined || isHelp ? undefined : specOf(name);
  const given = tokens.flatMap((token) => (token.kind === 'option' ? [{ name: token.name, raw: token.rawName }] : []));
  if (!isHelp && spec === undefined) {
    // `chatskin --nosuch x start`: the "command" may be the value of a flag no command has.
    const stray = given.find((flag) => !Object.hasOwn(EVERY_FLAG, flag.name));
    if (stray !== undefined) throw unknownFlag(stray.raw, undefined);
    throw unknownCommand(name!);
  }
  if (isHelp) {
    const topic = name === 'help' ? rest[0] : undefined;
    if (topic !== undefined && topic !== 'help' && specOf(topic) === undefined) throw unknownCommand(topic);
  }
  const allowed: ParseArgsOptionsConfig = { ...GLOBAL_FLAGS, ...spec?.flags };
  const stray = given.find((flag) => !Object.hasOwn(allowed, flag.name));
  if (stray !== undefined) throw unknownFlag(stray.raw, spec, allowed);
  if (isHelp) return { kind: 'help', command: name === 'help' && rest[0] !== 'help' ? rest[0] : undefined };
  if (values['help'] === true) return { kind: 'help', command: name };

  // Now strictly, with this command's flags only: a flag without its value, or a value it does not take.
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: argv, options: allowed, strict: true, allowPositionals: true });
  } catch (error) {
    // Node words some of these on several lines; the CLI's errors are one.
    const message = errorText(error).split('\n').map((part) => part.trim()).join(' ');
    throw new CliError(`${message.replace(/\.$/, '')}, for command "${spec!.label}". Run chatskin ${spec!.label} --help for its options.`);
  }
  // Parsing keeps the last of a repeated flag, and an empty value would fall back to a default
  // (`--config "$UNSET"` to the shipped config): both are refused instead of guessed at.
  const repeated = given.find((flag, index) => flag.name !== 'help' && given.findIndex((other) => other.name === flag.name) !== index);
  if (repeated !== undefined) {
    throw new CliError(`Option --${repeated.name} is given more than once, for command "${spec!.label}": give it once. Run chatskin ${spec!.label} --help for its options.`);
  }
  const empty = Object.entries(parsed.values).find(([, value]) => typeof value === 'string' && value.trim() === '');
  if (empty !== undefined) {
    throw new CliError(`Option --${empty[0]} has an empty value, for command "${spec!.label}". Run chatskin ${spec!.label} --help for its options.`);
  }
  const { config, help: _help, version: _version, ...flags } = parsed.values;
  // No flag is `multiple`, so each value is one string or boolean.
  return { kind: 'run', command: name as CommandName, args: parsed.positionals.slice(1), config: config as string | undefined, flags: flags as Record<string, string | boolean | undefined> };
}


function unknownCommand(name: string): CliError {
  const near = closestName(name, [...Object.keys(COMMAND_SPECS), 'help']);
  return new CliError(`Unknown command "${shownArg(name)}".${near === undefined ? '' : ` Did you mean "${near}"?`} Run chatskin --help for the commands.`);
}

/** `--as` on `chatskin start`: names the flag, the command and, when it is another command's, that one. */
function unknownFlag(typed: string, spec: CommandSpec | undefined, allowed: ParseArgsOptionsConfig = GLOBAL_FLAGS): CliError {
  const raw = shownArg(typed);
  const longName = typed.replace(/^-+/, '');
  const owner = raw.startsWith('--') ? Object.values(COMMAND_SPECS as Record<string, CommandSpec>).find((other) => Object.hasOwn(other.flags, longName)) : undefined;
  const near = raw.startsWith('--') ? closestName(longName, Object.keys(allowed)) : undefined;
  const hint = owner !== undefined ? ` (${raw} is an option of "${owner.label}")` : '';
  let guess = owner === undefined && near !== undefined ? ` Did you mean --${near}?` : '';
  // `chat say -5 points` means the text; the way to say it is in cli.md only, so the error says it
  // too (a --word is a flag, misspelt or not).
  if (spec?.label === 'chat say' && !raw.startsWith('--')) guess = ' A text that starts with - goes after --: chatskin chat say -- \'-5 points\'.';
  return spec === undefined
    ? new CliError(`Unknown option ${raw}${hint}.${guess} Run chatskin --help for the options.`)
    : new CliError(`Unknown option ${raw} for command "${spec.label}"${hint}.${guess} Run chatskin ${spec.label} --help for its options.`);
}
