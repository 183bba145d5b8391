// twurple's own log lines, routed into the host's pino logger (warnings and worse by default),
// instead of twurple writing to the console.
import type { Logger } from 'pino';

/** twurple's LogLevel numbers: 0 critical, 1 error, 2 warning, 3 info, 4 debug, 7 trace. */
export function twurpleLoggerOptions(logger: Logger, minLevel: 'critical' | 'error' | 'warning' | 'info' | 'debug' = 'warning') {
  const log = logger.child({ component: 'twurple' });
  return {
    minLevel,
    custom: (level: number, message: string) => {
      if (level <= 1) log.error(message);
      else if (level === 2) log.warn(message);
      else if (level === 3) log.info(message);
      else log.debug(message);
    },
  };
}
