// The database file cannot be chatskin's store: not a SQLite file, damaged, another program's,
// written by a newer chatskin, out of reach, or locked by another program past the busy timeout. The message names the file and says why, for a
// person to mend (the CLI prints it as is, never as an "unexpected error").

import { accessSync, constants, mkdirSync } from 'node:fs';
import path from 'node:path';

export class StoreOpenError extends Error {
  override name = 'StoreOpenError';
  readonly location: string;
  readonly reason: string;

  /** `reason` follows the file's name: "is not a SQLite database", ... */
  constructor(location: string, reason: string, options?: ErrorOptions) {
    super(`The database ${shownLocation(location)} ${reason}`, options);
    this.location = location;
    this.reason = reason;
  }
}

/** SQLite's names of a database with no file (`:memory:`, and '' for a temporary one). */
export function isFileless(location: string): boolean {
  return location === ':memory:' || location === '';
}

function isRelative(location: string): boolean {
  return !isFileless(location) && !path.isAbsolute(location);
}

/**
 * A relative store.path (the shipped ./data/chatskin.db) is under the folder chatskin was started
 * in, which may not be the one the person has in mind: the full path says which file it was.
 */
export function shownLocation(location: string): string {
  return isRelative(location) ? `${location} (${path.resolve(location)})` : location;
}

/** Makes the database's folder when missing; one that cannot be made is a StoreOpenError saying which, and why. */
export function makeStoreFolder(location: string): void {
  if (isFileless(location)) return;
  const folder = path.dirname(path.resolve(location));
  try {
    // Owner only, as the token files' folder: it holds the overlays' tokens and the viewers.
    mkdirSync(folder, { recursive: true, mode: 0o700 });
  } catch (error) {
    // Node's "EACCES: permission denied, mkdir '/x/data'": the code and its words, the path is said already.
    const why = (error instanceof Error ? error.message : String(error)).split(', ')[0];
    const what = isRelative(location)
      ? 'store.path is relative to the folder chatskin was started in: start it in a folder it may write to, or set store.path to one.'
      : 'set store.path to a folder chatskin may write to.';
    throw new StoreOpenError(location, `cannot be created: its folder ${folder} cannot be made (${why}); ${what}`, { cause: error });
  }
}

/** How long the store waits for another process's lock before a statement fails (SQLite busy_timeout). */
export const DEFAULT_BUSY_TIMEOUT_MS = 5000;

/**
 * SQLite's "database is locked" (SQLITE_BUSY and its extended codes): another connection, most
 * likely another program, held a lock for longer than the busy timeout.
 */
export function isDatabaseBusy(error: unknown): boolean {
  return primaryResultCode(error) === 5;
}

/** The primary result code of a SQLite error (its extended code's low byte), or null for another error. */
export function primaryResultCode(error: unknown): number | null {
  const errcode = (error as { errcode?: unknown } | null)?.errcode;
  return typeof errcode === 'number' ? errcode & 0xff : null;
}

/**
 * SQLite's "attempt to write a readonly database" (SQLITE_READONLY and its extended codes): SQLite
 * opens a file it may not write read-only without a word, so this comes with the first write.
 */
export function isDatabaseReadOnly(error: unknown): boolean {
  return primaryResultCode(error) === 8;
}

/** A file that is there but that this process may not read. */
function isUnreadableFile(location: string): boolean {
  try {
    accessSync(location, constants.F_OK);
  } catch {
    return false;
  }
  try {
    accessSync(location, constants.R_OK);
    return false;
  } catch {
    return true;
  }
}

/** Why SQLite could not open (or, at start, write) `location`, in words a person can act on. */
export function storeOpenError(location: string, error: unknown, busyTimeoutMs = DEFAULT_BUSY_TIMEOUT_MS): StoreOpenError {
  if (error instanceof StoreOpenError) return error;
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | null)?.code;
  let reason: string;
  if (isDatabaseBusy(error)) {
    reason = `is locked by another program: it held the write lock for longer than chatskin waits (${busyTimeoutMs / 1000} s). `
      + 'Close what holds it (a sqlite3 shell or a backup with a transaction open) and run the command again.';
  } else if (/file is not a database/i.test(message)) reason = 'is not a SQLite database: is store.path the right file?';
  else if (/malformed/i.test(message)) reason = 'is damaged (SQLite: "database disk image is malformed"): restore it from a backup, or point store.path at a new file.';
  else if (/readonly|read-only/i.test(message) || code === 'EACCES' || code === 'EROFS') reason = 'cannot be written: its file or folder is read-only.';
  else if (/unable to open/i.test(message) && isUnreadableFile(location)) {
    reason = 'cannot be opened: the user running chatskin may not read it (see its owner and mode; chatskin makes a new database its owner\'s only).';
  } else if (/unable to open/i.test(message)) reason = 'cannot be opened: its folder may be missing or read-only, or the path names a folder.';
  else reason = `cannot be opened: ${message}`;
  return new StoreOpenError(location, reason, { cause: error });
}
