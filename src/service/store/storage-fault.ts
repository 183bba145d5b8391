// SQLite's answers that mean the database cannot be written at all for now: the disk holding it
// is full, its file or filesystem turned read-only under the running process, or the disk fails.
// Unlike a refused write, none is the caller's doing and none is mended by sending the write
// again at once: a person must free space or fix the disk. The API answers such a write 503 with
// its own message (nothing was stored: SQLite rolled the transaction back), and /healthz names
// the fault until a write commits again.
import { primaryResultCode } from './store-open-error.ts';

export type StorageFault = 'disk-full' | 'read-only' | 'io-error';

/** SQLITE_FULL, SQLITE_READONLY, SQLITE_IOERR (and their extended codes). */
const FAULT_BY_RESULT_CODE: ReadonlyMap<number, StorageFault> = new Map([[13, 'disk-full'], [8, 'read-only'], [10, 'io-error']]);

/** The fault behind a failed write, looking through wrapping errors' causes; null for any other failure. */
export function storageFaultOf(error: unknown): StorageFault | null {
  for (let cause = error, depth = 0; cause instanceof Error && depth < 5; cause = cause.cause, depth++) {
    const code = primaryResultCode(cause);
    if (code !== null) return FAULT_BY_RESULT_CODE.get(code) ?? null;
  }
  return null;
}

/** The fault in words for a log line or an answer: "the disk holding the database is full". */
export function storageFaultText(fault: StorageFault): string {
  switch (fault) {
    case 'disk-full': return 'the disk holding the database is full';
    case 'read-only': return 'the database file or its disk has become read-only';
    case 'io-error': return 'the disk holding the database fails to read or write';
  }
}
