// With `service.mode: remote`, one read of the remote's template at start: a wrong base URL, a
// refused key or a service that is away shows when the host starts, not at the first command a
// moderator types. It only reports; the host runs either way (the remote may come up later).
import type { Logger } from 'pino';
import { overlayErrorLine } from '../client/overlay-error-line.ts';
import { isOverlayStyleError } from '../client/overlay-style-error.ts';
import type { OverlayStyleClient } from '../client/overlay-style-client.ts';

/** The line `chatskin start` prints under its Remote line, after logging the outcome. */
export async function checkRemoteService(client: OverlayStyleClient, logger: Logger): Promise<string> {
  try {
    const view = await client.getTemplate();
    logger.info({ overlay: view.preset_name }, 'remote overlay service reachable; it accepts the API key');
    return `check passed: it accepts the key; plugins restyle its overlay "${view.preset_name}"`;
  } catch (error) {
    // Never thrown on: the host is already serving, and the check only reports.
    logger.warn({ err: error }, 'remote overlay service check failed: commands that use it will fail until this is mended');
    return `check failed: ${isOverlayStyleError(error) ? overlayErrorLine(error) : 'an unexpected error.'} (details in the log)`;
  }
}
