// A Twitch user token on disk (the broadcaster's, twitch.broadcaster.tokenFile; the bot's,
// twitch.bot.tokenFile): one JSON file, readable and writable by its owner only (0600, in a
// folder created 0700), replaced atomically (write a temporary file, then rename) so a crash
// while saving a refreshed token never leaves half a file; the folder is synced after the rename,
// so a refreshed token (Twitch may have retired the old refresh token) also outlives a power cut,
// and a temporary file a crashed save left behind (it holds a token) goes at the next save.
// Written by `chatskin twitch auth`
// (`--bot` for the bot's), rewritten by the host on every refresh, so tokens survive restarts.
import { chmod, mkdir, open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { errorText } from '../../host/error-text.ts';

export const OWNER_ONLY = 0o600;

/** tokenFileFingerprint's answer when there is no token file. */
export const NO_TOKEN_FILE = 'no file';

/**
 * The token file as `stat` sees it (inode, size, modification time): the file changed when this
 * did, and is read only then. NO_TOKEN_FILE without a file; `unreadable: <code>` when stat fails.
 */
export async function tokenFileFingerprint(file: string): Promise<string> {
  try {
    const info = await stat(file);
    return `${info.ino}:${info.size}:${info.mtimeMs}`;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? NO_TOKEN_FILE : `unreadable: ${code ?? errorText(error)}`;
  }
}

/** Whether a fingerprint is of a file stat could see (not absent, not unreadable). */
export function isTokenFileSeen(fingerprint: string): boolean {
  return fingerprint !== NO_TOKEN_FILE && !fingerprint.startsWith('unreadable: ');
}

const storedTokenSchema = z.strictObject({
  version: z.literal(1),
  /** The application the token was issued to; refreshing needs the same client id. */
  clientId: z.string().min(1),
  userId: z.string().regex(/^\d+$/),
  login: z.string().min(1),
  accessToken: z.string().min(1),
  refreshToken: z.string().min(1),
  scope: z.array(z.string()),
  /** Seconds from obtainment; null when unknown. */
  expiresIn: z.number().int().nullable(),
  /** Milliseconds since the epoch. */
  obtainmentTimestamp: z.number().int(),
});

export type StoredTwitchToken = z.output<typeof storedTokenSchema>;

/** A token file that exists but cannot be used; the message says what to do. */
export class TokenFileError extends Error {
  readonly file: string;
  constructor(file: string, message: string, options?: { cause?: unknown }) {
    super(`${file}: ${message}`, options);
    this.name = 'TokenFileError';
    this.file = file;
  }
}

export interface ReadTokenFileOptions {
  /** Called when the file was readable by others (its mode then); it is now 0600. */
  onLoosePermissions?: (mode: number) => void;
  /** The command that writes the file again, named in the errors; default `chatskin twitch auth`. */
  authCommand?: string;
}

/**
 * The stored token, or null when there is no file yet. A file others may read is tightened to
 * 0600 (reported through `onLoosePermissions`).
 */
export async function readTokenFile(file: string, options: ReadTokenFileOptions = {}): Promise<StoredTwitchToken | null> {
  const authCommand = options.authCommand ?? 'chatskin twitch auth';
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new TokenFileError(file, `cannot be read: ${(error as Error).message}`, { cause: error });
  }
  const mode = (await stat(file)).mode & 0o777;
  if ((mode & 0o077) !== 0 && process.platform !== 'win32') {
    await chmod(file, OWNER_ONLY);
    options.onLoosePermissions?.(mode);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new TokenFileError(file, `is not valid JSON; run \`${authCommand}\` to write it again`, { cause: error });
  }
  const parsed = storedTokenSchema.safeParse(json);
  if (!parsed.success) {
    throw new TokenFileError(file, `is not a chatskin token file (${z.prettifyError(parsed.error).replace(/\n/g, ' ')}); run \`${authCommand}\` to write it again`);
  }
  return parsed.data;
}

/** Writes the token with owner-only permissions, replacing any previous file atomically. */
export async function writeTokenFile(file: string, token: StoredTwitchToken): Promise<void> {
  const checked = storedTokenSchema.parse(token);
  const folder = path.dirname(path.resolve(file));
  await mkdir(folder, { recursive: true, mode: 0o700 });
  await removeStaleTemporaries(folder, path.basename(file));
  const temporary = path.join(folder, `.${path.basename(file)}.${process.pid}.${Date.now()}.tmp`);
  const handle = await open(temporary, 'wx', OWNER_ONLY);
  try {
    await handle.writeFile(`${JSON.stringify(checked, null, 2)}\n`, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    // The mode given to open() is masked by the umask; make sure.
    await chmod(temporary, OWNER_ONLY);
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  await syncFolder(folder);
}

/** A temporary file this old is a crashed save's, never one another process is writing now. */
export const STALE_TEMPORARY_MS = 60_000;

/** Removes `.NAME.<pid>.<time>.tmp` files older than STALE_TEMPORARY_MS: each holds a token. */
async function removeStaleTemporaries(folder: string, name: string): Promise<void> {
  const prefix = `.${name}.`;
  let entries: string[];
  try {
    entries = await readdir(folder);
  } catch {
    return;
  }
  for (const entry of entries) {
    if (!entry.startsWith(prefix) || !entry.endsWith('.tmp')) continue;
    const leftover = path.join(folder, entry);
    try {
      if (Date.now() - (await stat(leftover)).mtimeMs > STALE_TEMPORARY_MS) await rm(leftover, { force: true });
    } catch {
      // Gone meanwhile, or not ours to remove: the save goes on.
    }
  }
}

/** Makes the rename durable; a file system that cannot sync a folder is left as it is. */
async function syncFolder(folder: string): Promise<void> {
  let handle;
  try {
    handle = await open(folder, 'r');
    await handle.sync();
  } catch {
    // EISDIR/EINVAL/EPERM on file systems (or platforms) without folder sync: the file is written.
  } finally {
    await handle?.close();
  }
}
