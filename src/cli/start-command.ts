// chatskin start: runs the host until SIGINT/SIGTERM/SIGHUP.
import { resolve } from 'node:path';
import type { CliOptions } from '../main.ts';
import { configSecrets, resolveConfigPath } from '../config/index.ts';
import { createLogger, handleProcessFaults, handleShutdownSignals } from '../host/index.ts';
import { runOnWithoutOutput } from '../host/lost-output.ts';
import { LOCAL_CHAT_SAY_PATH } from '../adapters/index.ts';
import { checkRemoteService } from '../runtime/remote-service-check.ts';
import { startChatskin } from '../runtime/start-chatskin.ts';
import type { RunningChatskin } from '../runtime/start-chatskin.ts';
import { localBaseUrl, overlayUrl } from '../runtime/public-url.ts';
import { loadCliConfig, requireArgs } from './cli-context.ts';
import { scrubText } from './cli-failure.ts';

export async function run(args: string[], options: CliOptions): Promise<void> {
  requireArgs(args, 0, 'chatskin start [--config FILE]');
  const config = loadCliConfig(options);
  // Logs go to stderr so stdout stays for what a person reads (URLs, local chat).
  const secrets = configSecrets(config);
  const logger = createLogger({ level: config.log.level, secrets, destination: process.stderr });
  // A closed terminal or log pipe loses lines, never the host (with stderr gone, nothing can be said of it).
  runOnWithoutOutput(process.stderr);
  runOnWithoutOutput(process.stdout, (error) => logger.warn({ err: error }, 'stdout is closed: the local chat and start lines are no longer printed; still serving'));
  // Before anything starts: a fault while starting (a plugin's setup leaving a rejection nobody
  // awaited) went to Node's default handler, which printed it raw (unscrubbed) and crashed.
  let started: RunningChatskin | undefined;
  handleProcessFaults({ logger, stop: () => started?.close() ?? Promise.resolve() });
  const starting = startChatskin(config, { logger });
  // Installed before anything has started, not once the URLs print: a signal while the database
  // migrates or the plugins set up (or the instant the URLs print, before the next line ran) met
  // Node's default and killed the process with no graceful stop. One then lets the start finish
  // and stops what it started; a second exits at once. A start that fails is reported and exits 1
  // by itself (src/main.ts): the stop is left pending, so it neither exits 0 nor cuts that short.
  let stopping = false;
  handleShutdownSignals(async () => {
    stopping = true;
    const running = await starting.catch(() => new Promise<never>(() => {}));
    await running.close();
  }, {
    // SIGHUP too: a terminal that closes sends it, and Node's default ended the process on the
    // spot (commands under way cut off). Nothing is reloaded on it; it is a stop like the others.
    logger, signals: ['SIGINT', 'SIGTERM', 'SIGHUP'],
  });
  const running = await starting;
  started = running;
  // Stopped while starting: the stop under way closes it; there are no URLs to open.
  if (stopping) return;
  // A stop that came meanwhile may close the database under this read: not an error to report.
  const overlays = await running.service.listOverlays(running.account.id).catch((error: unknown) => {
    if (stopping) return null;
    throw error;
  });
  if (overlays === null || stopping) return;
  const lines = [
    `chatskin is running for channel "${running.account.login}"`,
    `  API:     ${running.apiUrl}`,
    `  Health:  ${running.baseUrl}/healthz`,
    ...overlays.map((o) => `  Overlay: ${overlayUrl(running.baseUrl, o.token)}   (${o.name}${o.isDefault ? ', default' : ''})`),
    // Loopback only, so the listening address even behind a proxy.
    ...(config.localChat.enabled
      ? [`  Chat:    ${localBaseUrl(config, running.port)}${LOCAL_CHAT_SAY_PATH}   (the local chat in a browser on this machine)`]
      : []),
    // The local overlay shows the local store's style, which the plugins no longer change.
    ...(config.service.mode === 'remote'
      ? [`  Remote:  plugins restyle ${config.service.baseUrl}; add that service's overlay to OBS (the one above keeps this host's local style)`]
      : []),
    // A plugin that failed to start is in the logs too, but a person reads this first.
    // Naming the file matters when several configs are about; `plugins.NAME` is where it is enabled.
    // Scrubbed as the log is: the error may quote the plugin's settings, its token among them.
    ...running.host.plugins.filter((p) => p.state === 'failed')
      .map((p) => scrubText(`  Plugin ${p.name} is off: ${p.error} (plugins.${p.name} in ${resolve(resolveConfigPath(options.config))})`, secrets)),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  if (config.service.mode === 'remote') {
    // After the URLs, so a slow or absent remote does not hold them back.
    const line = await checkRemoteService(running.overlayClient, logger.child({ component: 'overlay-client' }));
    process.stdout.write(scrubText(`  Remote:  ${line}\n`, secrets));
  }
}
