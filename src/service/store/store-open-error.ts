// The database file cannot be chatskin's store: not a SQLite file, damaged, another program's,
// written by a newer chatskin, out of reach, or locked by another program past the busy timeout. The message names the file and says why, for a
// person to mend (the CLI prints it as is, never as an "unexpected error").

export class StoreOpenError extends Error {
  override name = 'StoreOpenError';
  readonly location: string;

  /** `reason` follows the file's name: "is not a SQLite database", ... */
  constructor(location: string, reason: string, options?: ErrorOptions) {
    super(`The database ${location} ${reason}`, options);
    this.location = location;
  }
}

/** How long the store waits for another process's lock before a statement fails (SQLite busy_timeout). */
export const DEFAULT_BUSY_TIMEOUT_MS = 5000;

/**
 * SQLite's "database is locked" (SQLITE_BUSY and its extended codes): another connection, most
 * likely another program, held a lock for longer than the busy timeout.
 */
export function isDatabaseBusy(error: unknown): boolean {
  const errcode = (error as { errcode?: unknown } | null)?.errcode;
  return typeof errcode === 'number' && (errcode & 0xff) === 5;
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
  else if (/unable to open/i.test(message)) reason = 'cannot be opened: its folder may be missing or read-only, or the path names a folder.';
  else reason = `cannot be opened: ${message}`;
  return new StoreOpenError(location, reason, { cause: error });
}
