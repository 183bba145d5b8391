// chatskin twitch auth [--bot]: obtains the broadcaster's Twitch token (device code flow) and stores
// it for the redemptions, or with --bot the bot account's chat token for the Twitch chat
// (docs/twitch-setup.md lists the scopes and why each is needed).
import type { CliOptions } from '../main.ts';
import { authorizeBroadcaster, TwitchAuthError } from '../adapters/redemptions/index.ts';
import { authorizeBot } from '../adapters/twitch-chat/authorize-bot.ts';
import { loadCliConfig, requireArgs } from './cli-context.ts';
import { CliError } from './cli-error.ts';

const USAGE = 'chatskin twitch auth [--bot] [--config FILE]';

export async function run(args: string[], options: CliOptions): Promise<void> {
  const [action] = requireArgs(args, 1, USAGE);
  if (action !== 'auth') throw new CliError(`Usage: ${USAGE}`);
  const authorize = options.flags['bot'] === true ? authorizeBot : authorizeBroadcaster;
  try {
    await authorize({ config: loadCliConfig(options), print: (line) => process.stdout.write(`${line}\n`) });
  } catch (error) {
    if (error instanceof TwitchAuthError) throw new CliError(error.message);
    throw error;
  }
}
