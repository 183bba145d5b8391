// chatskin's command line: src/cli/cli-main.ts parses argv and hands over to one module per command.
import { reportFailure, runCommandLine } from './cli/cli-main.ts';

export interface CliOptions {
  /** --config, else CHATSKIN_CONFIG, else undefined (config/default.yaml). */
  config: string | undefined;
  /** The command's own flags (chat's --as, --role, --url; twitch auth's --bot): src/cli/command-line.ts. */
  flags: Record<string, string | boolean | undefined>;
}

const argv = process.argv.slice(2);
runCommandLine(argv).catch(async (error: unknown) => {
  process.exitCode = 1;
  await reportFailure(error, argv);
});
