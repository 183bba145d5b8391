// A real host logger (pino, scrubbed) whose lines are kept for assertions.
import type { Logger } from 'pino';
import { createLogger } from '../../src/host/logger.ts';

export interface LogEntry {
  level: number;
  msg?: string;
  plugin?: string;
  [key: string]: unknown;
}

export const LEVEL = { debug: 20, info: 30, warn: 40, error: 50 } as const;

export function captureLogs(secrets: readonly string[] = []): { logger: Logger; entries: LogEntry[]; lines: string[] } {
  const entries: LogEntry[] = [];
  const lines: string[] = [];
  const logger = createLogger({
    level: 'debug',
    secrets,
    destination: {
      write(line: string) {
        lines.push(line);
        entries.push(JSON.parse(line) as LogEntry);
      },
    },
  });
  return { logger, entries, lines };
}
