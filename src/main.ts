// chatskin's command line: parses argv, then hands over to one module per command.
import { parseArgs } from 'node:util';
import { HELP, commandHelp } from './cli/help.ts';
import { CliError } from './cli/cli-error.ts';

const COMMANDS: Record<string, () => Promise<{ run(args: string[], options: CliOptions): Promise<void> }>> = {
  start: () => import('./cli/start-command.ts'),
  seed: () => import('./cli/seed-command.ts'),
  keys: () => import('./cli/keys-command.ts'),
  premium: () => import('./cli/premium-command.ts'),
  overlays: () => import('./cli/overlays-command.ts'),
  chat: () => import('./cli/chat-command.ts'),
  twitch: () => import('./cli/twitch-command.ts'),
};

export interface CliOptions {
  /** --config, else CHATSKIN_CONFIG, else undefined (config/default.yaml). */
  config: string | undefined;
  /** Extra flags a command may read (e.g. chat's --as, twitch auth's --bot). */
  flags: Record<string, string | boolean | undefined>;
}

/** The --config flag, once parsed: the failure message names the config file in use. */
let configFlag: string | undefined;

async function main(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      config: { type: 'string', short: 'c' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
      as: { type: 'string' },
      role: { type: 'string' },
      channel: { type: 'string' },
      url: { type: 'string' },
      bot: { type: 'boolean' },
    },
  });
  configFlag = values.config;
  const [name, ...rest] = positionals;
  if (values.version) {
    const pkg = await import('../package.json', { with: { type: 'json' } });
    process.stdout.write(`chatskin ${pkg.default.version}\n`);
    return;
  }
  if (!name || name === 'help') {
    process.stdout.write(rest[0] ? commandHelp(rest[0]) : HELP);
    return;
  }
  if (values.help) {
    process.stdout.write(commandHelp(name));
    return;
  }
  const load = COMMANDS[name];
  if (!load) throw new CliError(`Unknown command "${name}".\n\n${HELP}`);
  const command = await load();
  await command.run(rest, {
    config: values.config ?? process.env.CHATSKIN_CONFIG ?? undefined,
    flags: { as: values.as, role: values.role, channel: values.channel, url: values.url, bot: values.bot },
  });
}

main(process.argv.slice(2)).catch(async (error: unknown) => {
  process.exitCode = 1;
  try {
    // Loaded only on failure: it reads the config again, for its secrets and http keys.
    const { failureContext, formatFailure } = await import('./cli/cli-failure.ts');
    process.stderr.write(formatFailure(error, failureContext(configFlag)));
  } catch {
    process.stderr.write(`chatskin: ${error instanceof Error ? error.message : String(error)}\n`);
  }
});
