// chatskin keys create|revoke LOGIN: the account's one API key. The token is printed once, alone
// on the last line, so scripts can take it with `tail -n 1`.
import type { CliOptions } from '../main.ts';
import { withService, requireArgs } from './cli-context.ts';
import { CliError } from './cli-error.ts';

const USAGE = 'chatskin keys create|revoke LOGIN [--config FILE]';

export async function run(args: string[], options: CliOptions): Promise<void> {
  const [action, login] = requireArgs(args, 2, USAGE);
  if (action === 'create') {
    const key = await withService(options, (service) => service.createKey(login!));
    process.stdout.write(`API key for ${login} (prefix ${key.prefix}); it is shown only this once:\n${key.token}\n`);
  } else if (action === 'revoke') {
    const key = await withService(options, (service) => service.revokeKey(login!));
    process.stdout.write(`Revoked the API key ${key.prefix}… of ${login}.\n`);
  } else {
    throw new CliError(`Usage: ${USAGE}`);
  }
}
