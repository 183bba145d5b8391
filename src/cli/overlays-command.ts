// chatskin overlays list LOGIN: each overlay's id, name, template and browser-source URL, of this
// config's store (with service.mode remote, a note on stderr says the plugins restyle another's).
// chatskin overlays new-url LOGIN ID: a new token for one overlay, so a URL shown on stream or
// otherwise leaked stops working (a running host closes its open pages within a heartbeat).
import type { CliOptions } from '../main.ts';
import type { Config } from '../config/index.ts';
import { configuredPublicBaseUrl, overlayUrl } from '../runtime/public-url.ts';
import { ServiceError } from '../service/types.ts';
import { configFileInUse, whereAccountsComeFrom, withService, requireArgs } from './cli-context.ts';
import { CliError, shownArg } from './cli-error.ts';
import { printAnswer } from './print.ts';

const USAGE = 'chatskin overlays (list LOGIN | new-url LOGIN ID) [--config FILE]';

export async function run(args: string[], options: CliOptions): Promise<void> {
  if (args[0] === 'new-url') return newUrl(args, options);
  const [action, login] = requireArgs(args, 2, USAGE);
  if (action !== 'list') throw new CliError(`Usage: ${USAGE}`);
  let pathsOnly = false;
  let remoteBaseUrl: string | undefined;
  const lines = await withService(options, async (service, config) => {
    if (config.service.mode === 'remote') remoteBaseUrl = config.service.baseUrl;
    const account = await service.findAccount(login!);
    if (!account) throw new CliError(`No account with the login "${shownArg(login!)}". ${whereAccountsComeFrom(config)}`);
    // http.port 0 (and no overlay.publicUrl): the running host picks its port, so only the path is known here.
    const base = configuredPublicBaseUrl(config);
    pathsOnly = base === undefined;
    return (await service.listOverlays(account.id)).map((o) =>
      `${o.id}\t${o.name}${o.isDefault ? ' (default)' : ''}\t${o.template.slug}\t${overlayUrl(base ?? '', o.token)}`);
  });
  await printAnswer(`id\tname\ttemplate\tbrowser-source URL\n${lines.join('\n')}\n`, `${login} has ${lines.length} overlay(s)`);
  notes(options, remoteBaseUrl, pathsOnly);
}

async function newUrl(args: string[], options: CliOptions): Promise<void> {
  const [, login, idText] = requireArgs(args, 3, USAGE);
  const overlayId = /^[1-9][0-9]{0,14}$/.test(idText!) ? Number(idText) : NaN;
  if (Number.isNaN(overlayId)) throw new CliError(`"${shownArg(idText!)}" is not an overlay id: \`chatskin overlays list ${shownArg(login!)}\` shows the ids.`);
  let config!: Config;
  const url = await withService(options, async (service, loaded) => {
    config = loaded;
    const account = await service.findAccount(login!);
    if (!account) throw new CliError(`No account with the login "${shownArg(login!)}". ${whereAccountsComeFrom(loaded)}`);
    try {
      const overlay = await service.renewOverlayToken(account.id, overlayId);
      return overlayUrl(configuredPublicBaseUrl(loaded) ?? '', overlay.token);
    } catch (error) {
      // The service's own check: the overlay is not one of the account's.
      if (error instanceof ServiceError && error.status === 404) {
        throw new CliError(`${shownArg(login!)} has no overlay ${overlayId}: \`chatskin overlays list ${shownArg(login!)}\` shows the ids.`);
      }
      throw error;
    }
  });
  await printAnswer(`${url}\n`, `overlay ${overlayId} of ${login} has a new browser-source URL; the old one no longer works`);
  process.stderr.write(`chatskin: the old URL of overlay ${overlayId} no longer works: a running host closes the pages open on it within`
    + ' a heartbeat (they show "Overlay not found"). Put the new URL in OBS.\n');
  notes(options, config.service.mode === 'remote' ? config.service.baseUrl : undefined, configuredPublicBaseUrl(config) === undefined);
}

function notes(options: CliOptions, remoteBaseUrl: string | undefined, pathsOnly: boolean): void {
  if (remoteBaseUrl !== undefined) {
    // The one the plugins restyle is the remote service's: this list is not where to find it.
    process.stderr.write(`chatskin: note: service.mode is remote in ${configFileInUse(options)}: these are this host's own overlays,`
      + ` which the plugins do not restyle (!style, !theme and skin edits go to ${remoteBaseUrl}). Add that service's overlay to OBS;`
      + ' on a chatskin, `chatskin overlays list LOGIN` with its config lists it.\n');
  }
  if (pathsOnly) {
    process.stderr.write(`chatskin: note: http.port is 0 in ${configFileInUse(options)}: the running host picks a free port and prints`
      + ' the full overlay URLs when it starts, so these are paths on it. Set http.port (or overlay.publicUrl) to know the URLs in advance.\n');
  }
}
