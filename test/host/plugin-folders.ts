// Temporary plugin folders: each plugin an `index.ts` importing the SDK by its absolute path,
// exactly as a plugin kept outside the repository would.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const SDK_PATH = fileURLToPath(new URL('../../src/sdk.ts', import.meta.url));

export interface PluginFolders {
  dir: string;
  /** Writes `<dir>/<name>/<file>`; `source` may use SDK for the SDK's import path. */
  add(name: string, source: string, file?: string): void;
  remove(): void;
}

export function createPluginFolders(): PluginFolders {
  const dir = mkdtempSync(join(tmpdir(), 'chatskin-plugins-'));
  return {
    dir,
    add(name, source, file = 'index.ts') {
      mkdirSync(join(dir, name), { recursive: true });
      writeFileSync(join(dir, name, file), source.replaceAll('SDK', JSON.stringify(SDK_PATH)));
    },
    remove() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
