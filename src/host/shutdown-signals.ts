// Graceful shutdown on SIGINT/SIGTERM: the first signal runs `shutdown` (close servers, stop
// the host) and exits 0 when it completes, 1 when it fails or outlasts the timeout; a second
// signal while shutting down exits at once (1).
import type { Logger } from 'pino';

export interface ShutdownProcess {
  once(signal: NodeJS.Signals, listener: () => void): unknown;
  removeListener(signal: NodeJS.Signals, listener: () => void): unknown;
  exit(code: number): void;
}

export interface ShutdownOptions {
  logger: Logger;
  /** Default SIGINT and SIGTERM. */
  signals?: readonly NodeJS.Signals[];
  /** Longest wait for `shutdown` before exiting anyway. Default 10 s. */
  timeoutMs?: number;
  process?: ShutdownProcess;
}

/** Installs the handlers; returns the function that removes them. */
export function handleShutdownSignals(shutdown: (signal: NodeJS.Signals) => Promise<void>, options: ShutdownOptions): () => void {
  const target: ShutdownProcess = options.process ?? process;
  const signals = options.signals ?? ['SIGINT', 'SIGTERM'];
  const timeoutMs = options.timeoutMs ?? 10_000;
  const { logger } = options;
  let shuttingDown = false;
  const listeners = new Map<NodeJS.Signals, () => void>();

  const install = (signal: NodeJS.Signals): void => {
    const listener = (): void => {
      if (shuttingDown) {
        logger.warn({ signal }, 'second signal: exiting without waiting');
        target.exit(1);
        return;
      }
      shuttingDown = true;
      // Stay subscribed to every signal, so a second one forces the exit instead of killing
      // the process without a word.
      for (const other of signals) install(other);
      logger.info({ signal }, 'shutting down');
      const timer = setTimeout(() => {
        logger.error({ timeoutMs }, 'shutdown did not finish in time: exiting');
        target.exit(1);
      }, timeoutMs);
      timer.unref();
      shutdown(signal).then(
        () => {
          clearTimeout(timer);
          logger.info('shut down');
          target.exit(0);
        },
        (error: unknown) => {
          clearTimeout(timer);
          logger.error({ err: error }, 'shutdown failed');
          target.exit(1);
        },
      );
    };
    const previous = listeners.get(signal);
    if (previous) target.removeListener(signal, previous);
    listeners.set(signal, listener);
    target.once(signal, listener);
  };
  for (const signal of signals) install(signal);

  return () => {
    for (const [signal, listener] of listeners) target.removeListener(signal, listener);
    listeners.clear();
  };
}
