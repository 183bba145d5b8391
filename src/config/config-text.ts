// The config file's text. Read with a size cap, so a wrong --config (a video, /dev/zero, a huge
// log) fails in one line instead of filling memory or never returning; and decoded strictly, so a
// binary file is named as one instead of parsed into garbage that an error would echo back.
import { closeSync, openSync, readSync } from 'node:fs';
import { ConfigError } from './config-error.ts';

/** Largest config file read; the shipped one, every key spelt out, is about 5 KB. */
export const MAX_CONFIG_BYTES = 1024 * 1024;

const NOT_TEXT = 'a binary file (is it the right file?), or text in another encoding (save it as UTF-8)';

export function readConfigText(file: string): string {
  const bytes = readCapped(file);
  if (bytes.length > MAX_CONFIG_BYTES) {
    throw unusable(file, `is larger than ${MAX_CONFIG_BYTES / 1024 / 1024} MiB, which no config needs (the shipped one is about 5 KB); is it the right file?`);
  }
  // A config is UTF-8 text (a leading BOM is dropped): NUL never appears in it.
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
    throw unusable(file, 'is UTF-16 text; save it as UTF-8');
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw unusable(file, `is not UTF-8 text: ${NOT_TEXT}`);
  }
  if (text.includes('\0')) throw unusable(file, `holds NUL bytes: ${NOT_TEXT}`);
  return text;
}

/** At most MAX_CONFIG_BYTES + 1 bytes: one more than allowed tells a file that is too large. */
function readCapped(file: string): Buffer {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (error) {
    throw unreadable(file, error);
  }
  try {
    const buffer = Buffer.alloc(MAX_CONFIG_BYTES + 1);
    let length = 0;
    while (length < buffer.length) {
      const read = readSync(fd, buffer, length, buffer.length - length, null);
      if (read === 0) break;
      length += read;
    }
    return buffer.subarray(0, length);
  } catch (error) {
    throw unreadable(file, error);
  } finally {
    closeSync(fd);
  }
}

function unreadable(file: string, error: unknown): ConfigError {
  const code = (error as NodeJS.ErrnoException).code;
  const reason = code === 'ENOENT'
    ? 'does not exist; pass another with --config FILE or set CHATSKIN_CONFIG'
    : code === 'EISDIR'
      ? 'is a folder, not a file; pass the config file with --config FILE'
      : `cannot be read (${code ?? (error as Error).message})`;
  return unusable(file, reason);
}

function unusable(file: string, reason: string): ConfigError {
  return new ConfigError(file, [{ path: '(file)', message: reason }], 'Cannot read config');
}
