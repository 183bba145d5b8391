// The database file cannot be chatskin's store: not a SQLite file, damaged, another program's,
// written by a newer chatskin, or out of reach. The message names the file and says why, for a
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

/** Why SQLite could not open `location`, in words a person can act on. */
export function storeOpenError(location: string, error: unknown): StoreOpenError {
  if (error instanceof StoreOpenError) return error;
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | null)?.code;
  let reason: string;
  if (/file is not a database/i.test(message)) reason = 'is not a SQLite database: is store.path the right file?';
  else if (/malformed/i.test(message)) reason = 'is damaged (SQLite: "database disk image is malformed"): restore it from a backup, or point store.path at a new file.';
  else if (/readonly|read-only/i.test(message) || code === 'EACCES' || code === 'EROFS') reason = 'cannot be written: its file or folder is read-only.';
  else if (/unable to open/i.test(message)) reason = 'cannot be opened: its folder may be missing or read-only, or the path names a folder.';
  else reason = `cannot be opened: ${message}`;
  return new StoreOpenError(location, reason, { cause: error });
}
