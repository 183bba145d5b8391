// chatskin premium LOGIN on|off: the premium subscription the API requires.
import type { CliOptions } from '../main.ts';
import { withService, requireArgs } from './cli-context.ts';
import { CliError } from './cli-error.ts';

const USAGE = 'chatskin premium LOGIN on|off [--config FILE]';

export async function run(args: string[], options: CliOptions): Promise<void> {
  const [login, state] = requireArgs(args, 2, USAGE);
  if (state !== 'on' && state !== 'off') throw new CliError(`Usage: ${USAGE}`);
  const account = await withService(options, (service) => service.setPremium(login!, state === 'on'));
  process.stdout.write(`Premium is ${account.premium ? 'on' : 'off'} for ${account.login}.\n`);
}
