// The headless Chromium the browser tests drive (Debian's `chromium`, through playwright-core):
// where it is, whether this machine has it, and how it is started. Nothing is downloaded.
import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';
import type { Browser } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const haveChromium = existsSync(CHROMIUM);
/** Why a browser suite is skipped, and how to run it. */
export const NO_CHROMIUM_NOTE = `no Chromium at ${CHROMIUM}; install it with \`apt-get install chromium\` (or set CHROMIUM_PATH)`;

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}
