// chatskin keys create|revoke LOGIN: the account's one API key. The token is printed once, alone
// on the last line, so scripts can take it with `tail -n 1`; a key whose printing failed is
// revoked, since nobody can ever see it and it would hold the account's one place for a key.
import type { CliOptions } from '../main.ts';
import { errorText } from '../host/error-text.ts';
import { withService, requireArgs } from './cli-context.ts';
import { CliError } from './cli-error.ts';
import { print, printAnswer } from './print.ts';

const USAGE = 'chatskin keys create|revoke LOGIN [--config FILE]';

export async function run(args: string[], options: CliOptions): Promise<void> {
  const [action, login] = requireArgs(args, 2, USAGE);
  if (action === 'create') {
    await withService(options, async (service) => {
      const key = await service.createKey(login!);
      try {
        await print(`API key for ${login} (prefix ${key.prefix}); it is shown only this once:\n${key.token}\n`);
      } catch (error) {
        const lost = `the new API key of ${login} could not be printed (${errorText(error)})`;
        try {
          await service.revokeKey(login!);
        } catch (revokeError) {
          throw new CliError(`${lost}, and revoking it failed too (${errorText(revokeError)}): `
            + `run \`chatskin keys revoke ${login}\`, then create one again.`);
        }
        throw new CliError(`${lost}; it was revoked, so ${login} has no active key. `
          + 'Run the command again with its output going where it can be written.');
      }
    });
  } else if (action === 'revoke') {
    const key = await withService(options, (service) => service.revokeKey(login!));
    const answer = `Revoked the API key ${key.prefix}… of ${login}`;
    await printAnswer(`${answer}.\n`, answer);
  } else {
    throw new CliError(`Usage: ${USAGE}`);
  }
}
