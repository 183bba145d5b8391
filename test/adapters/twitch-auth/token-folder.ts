// A fresh folder per test for a token file, and tokens to save there.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import type { StoredTwitchToken } from '../../../src/adapters/twitch-auth/token-file.ts';

/** A made-up token of the bot, told apart by its access token. */
export const storedToken = (accessToken: string): StoredTwitchToken => ({
  version: 1, clientId: 'client', userId: '1', login: 'bot', accessToken, refreshToken: `r-${accessToken}`,
  scope: ['chat:read'], expiresIn: 3600, obtainmentTimestamp: 1_700_000_000_000,
});

/** Each test gets its own folder (removed after it), with `file` a token file path in it. */
export function useTokenFolder(prefix: string): { readonly dir: string; readonly file: string } {
  const folder = { dir: '', file: '' };
  beforeEach(() => {
    folder.dir = mkdtempSync(path.join(tmpdir(), prefix));
    folder.file = path.join(folder.dir, 'bot-token.json');
  });
  afterEach(() => {
    rmSync(folder.dir, { recursive: true, force: true });
  });
  return folder;
}
