// The command line's entry, callable in-process: parses argv, hands over to one module per
// command, and on failure writes the one line (scrubbed) that src/main.ts prints before exiting 1.
import { HELP, commandHelp } from './help.ts';
import { configFlagOf, parseCommandLine } from './command-line.ts';
import type { CommandName } from './command-line.ts';
import { errorText } from '../host/error-text.ts';
import { CliError } from './cli-error.ts';
import { print } from './print.ts';
import type { CliOptions } from '../main.ts';

const COMMANDS: Record<CommandName, () => Promise<{ run(args: string[], options: CliOptions): Promise<void> }>> = {
  start: () => import('./start-command.ts'),
  seed: () => import('./seed-command.ts'),
  keys: () => import('./keys-command.ts'),
  premium: () => import('./premium-command.ts'),
  overlays: () => import('./overlays-command.ts'),
  store: () => import('./store-command.ts'),
  chat: () => import('./chat-command.ts'),
  twitch: () => import('./twitch-command.ts'),
};

/** Runs the command `argv` names; rejects with what `reportFailure` turns into its line. */
export async function runCommandLine(argv: string[]): Promise<void> {
  const line = parseCommandLine(argv);
  if (line.kind === 'version') {
    const pkg = await import('../../package.json', { with: { type: 'json' } });
    await printText(`chatskin ${pkg.default.version}\n`, 'version');
    return;
  }
  if (line.kind === 'help') {
    await printText(line.command === undefined ? HELP : commandHelp(line.command), 'help');
    return;
  }
  const command = await COMMANDS[line.command]();
  await command.run(line.args, {
    config: line.config ?? process.env.CHATSKIN_CONFIG ?? undefined,
    flags: line.flags,
  });
}

/** A write that fails (a pipe whose reader is gone) is a one-line refusal, not an unhandled 'error' event's stack trace. */
async function printText(text: string, what: string): Promise<void> {
  try {
    await print(text);
  } catch (error) {
    throw new CliError(`the ${what} could not be printed (${errorText(error)}).`);
  }
}

/** Writes the failure of the command line `argv` to stderr: one line, scrubbed of secrets. */
export async function reportFailure(error: unknown, argv: string[]): Promise<void> {
  try {
    // Loaded only on failure: it reads the config again, for its secrets and http keys.
    const { failureContext, formatFailure } = await import('./cli-failure.ts');
    // The --config flag as given, even on a refused command line: the message names the file in use.
    process.stderr.write(formatFailure(error, failureContext(configFlagOf(argv))));
  } catch {
    process.stderr.write(`chatskin: ${errorText(error)}\n`);
  }
}
