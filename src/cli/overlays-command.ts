// chatskin overlays list LOGIN: each overlay's id, name, template and browser-source URL.
import type { CliOptions } from '../main.ts';
import { overlayUrl, publicBaseUrl } from '../runtime/public-url.ts';
import { withService, requireArgs } from './cli-context.ts';
import { CliError } from './cli-error.ts';

const USAGE = 'chatskin overlays list LOGIN [--config FILE]';

export async function run(args: string[], options: CliOptions): Promise<void> {
  const [action, login] = requireArgs(args, 2, USAGE);
  if (action !== 'list') throw new CliError(`Usage: ${USAGE}`);
  const lines = await withService(options, async (service, config) => {
    const account = await service.findAccount(login!);
    if (!account) throw new CliError(`No account "${login}".`);
    const base = publicBaseUrl(config);
    return (await service.listOverlays(account.id)).map((o) =>
      `${o.id}\t${o.name}${o.isDefault ? ' (default)' : ''}\t${o.template.slug}\t${overlayUrl(base, o.token)}`);
  });
  process.stdout.write(`id\tname\ttemplate\tbrowser-source URL\n${lines.join('\n')}\n`);
}
