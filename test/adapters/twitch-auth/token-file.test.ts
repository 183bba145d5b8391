// The token file's save (src/adapters/twitch-auth/token-file.ts) on a real folder: owner-only,
// replaced whole, and a crashed save's temporary file (it holds a token) removed at the next
// save, while one another process may be writing right now is left alone.
import { mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readTokenFile, STALE_TEMPORARY_MS, writeTokenFile } from '../../../src/adapters/twitch-auth/token-file.ts';
import type { StoredTwitchToken } from '../../../src/adapters/twitch-auth/token-file.ts';

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'chatskin-token-file-'));
  file = path.join(dir, 'bot-token.json');
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const token = (accessToken: string): StoredTwitchToken => ({
  version: 1, clientId: 'client', userId: '1', login: 'bot', accessToken, refreshToken: `r-${accessToken}`,
  scope: ['chat:read'], expiresIn: 3600, obtainmentTimestamp: 1_700_000_000_000,
});

describe('writeTokenFile', () => {
  it('replaces the file whole, owner-only, and leaves no temporary file', async () => {
    await writeTokenFile(file, token('first'));
    await writeTokenFile(file, token('second'));
    expect((await readTokenFile(file))?.accessToken).toBe('second');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['bot-token.json']);
  });

  it('removes a crashed save\'s old temporary file, keeps a fresh one (another save in progress) and other files', async () => {
    const crashed = path.join(dir, '.bot-token.json.4242.1700000000000.tmp');
    const inProgress = path.join(dir, `.bot-token.json.4343.${Date.now()}.tmp`);
    const otherFiles = ['.other-token.json.4242.1700000000000.tmp', 'notes.tmp'].map((name) => path.join(dir, name));
    for (const leftover of [crashed, inProgress, ...otherFiles]) writeFileSync(leftover, '{"accessToken":"old-secret"}');
    const old = (Date.now() - STALE_TEMPORARY_MS - 5_000) / 1000;
    for (const stale of [crashed, ...otherFiles]) utimesSync(stale, old, old);
    await writeTokenFile(file, token('fresh'));
    expect(readdirSync(dir).sort()).toEqual([path.basename(inProgress), ...otherFiles.map((f) => path.basename(f)), 'bot-token.json'].sort());
  });
});
