// chatskin premium LOGIN on|off: the premium subscription the API requires.
import type { CliOptions } from '../main.ts';
import { withService, requireArgs } from './cli-context.ts';
import { CliError } from './cli-error.ts';
import { printAnswer } from './print.ts';

const USAGE = 'chatskin premium LOGIN on|off [--config FILE]';

export async function run(args: string[], options: CliOptions): Promise<void> {
  const [login, typed] = requireArgs(args, 2, USAGE);
  // In any case, as --role is: "ON" got the usage line, which shows "on" as if it had been typed wrong.
  const state = typed!.toLowerCase();
  if (state !== 'on' && state !== 'off') throw new CliError(`Usage: ${USAGE}`);
  const account = await withService(options, (service) => service.setPremium(login!, state === 'on'));
  const answer = `Premium is ${account.premium ? 'on' : 'off'} for ${account.login}`;
  await printAnswer(`${answer}.\n`, answer);
}
