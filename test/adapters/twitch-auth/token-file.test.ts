// The token file's save (src/adapters/twitch-auth/token-file.ts) on a real folder: owner-only,
// replaced whole, and a crashed save's temporary file (it holds a token) removed at the next
// save, while one another process may be writing right now is left alone.
import { readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readTokenFile, STALE_TEMPORARY_MS, writeTokenFile } from '../../../src/adapters/twitch-auth/token-file.ts';
import { storedToken as token, useTokenFolder } from './token-folder.ts';

const folder = useTokenFolder('chatskin-token-file-');

describe('writeTokenFile', () => {
  it('replaces the file whole, owner-only, and leaves no temporary file', async () => {
    await writeTokenFile(folder.file, token('first'));
    await writeTokenFile(folder.file, token('second'));
    expect((await readTokenFile(folder.file))?.accessToken).toBe('second');
    expect(statSync(folder.file).mode & 0o777).toBe(0o600);
    expect(readdirSync(folder.dir)).toEqual(['bot-token.json']);
  });

  it('removes a crashed save\'s old temporary file, keeps a fresh one (another save in progress) and other files', async () => {
    const crashed = path.join(folder.dir, '.bot-token.json.4242.1700000000000.tmp');
    const inProgress = path.join(folder.dir, `.bot-token.json.4343.${Date.now()}.tmp`);
    const otherFiles = ['.other-token.json.4242.1700000000000.tmp', 'notes.tmp'].map((name) => path.join(folder.dir, name));
    for (const leftover of [crashed, inProgress, ...otherFiles]) writeFileSync(leftover, '{"accessToken":"old-secret"}');
    const old = (Date.now() - STALE_TEMPORARY_MS - 5_000) / 1000;
    for (const stale of [crashed, ...otherFiles]) utimesSync(stale, old, old);
    await writeTokenFile(folder.file, token('fresh'));
    expect(readdirSync(folder.dir).sort()).toEqual([path.basename(inProgress), ...otherFiles.map((f) => path.basename(f)), 'bot-token.json'].sort());
  });
});
