// What went wrong, as one line of text for a log message or a status: an Error's message, else
// the thrown value itself (code may throw anything, `undefined` included).

export function errorText(error: unknown): string {
  if (error instanceof Error) return error.message;
  return error === undefined || error === null ? `${String(error)} was thrown (not an Error)` : String(error);
}
