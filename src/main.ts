// chatskin's command line: parses argv, then hands over to one module per command.
import { HELP, commandHelp } from './cli/help.ts';
import { configFlagOf, parseCommandLine } from './cli/command-line.ts';
import type { CommandName } from './cli/command-line.ts';
import { errorText } from './host/error-text.ts';
import { CliError } from './cli/cli-error.ts';
import { print } from './cli/print.ts';

const COMMANDS: Record<CommandName, () => Promise<{ run(args: string[], options: CliOptions): Promise<void> }>> = {
  start: () => import('./cli/start-command.ts'),
  seed: () => import('./cli/seed-command.ts'),
  keys: () => import('./cli/keys-command.ts'),
  premium: () => import('./cli/premium-command.ts'),
  overlays: () => import('./cli/overlays-command.ts'),
  store: () => import('./cli/store-command.ts'),
  chat: () => import('./cli/chat-command.ts'),
  twitch: () => import('./cli/twitch-command.ts'),
};

export interface CliOptions {
  /** --config, else CHATSKIN_CONFIG, else undefined (config/default.yaml). */
  config: string | undefined;
  /** The command's own flags (chat's --as, --role, --url; twitch auth's --bot): src/cli/command-line.ts. */
  flags: Record<string, string | boolean | undefined>;
}

async function main(argv: string[]): Promise<void> {
  const line = parseCommandLine(argv);
  if (line.kind === 'version') {
    const pkg = await import('../package.json', { with: { type: 'json' } });
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

main(process.argv.slice(2)).catch(async (error: unknown) => {
  process.exitCode = 1;
  try {
    // Loaded only on failure: it reads the config again, for its secrets and http keys.
    const { failureContext, formatFailure } = await import('./cli/cli-failure.ts');
    // The --config flag as given, even on a refused command line: the message names the file in use.
    process.stderr.write(formatFailure(error, failureContext(configFlagOf(process.argv.slice(2)))));
  } catch {
    process.stderr.write(`chatskin: ${errorText(error)}\n`);
  }
});
