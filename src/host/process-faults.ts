// Faults no handler caught, in the long-running process. A rejected promise nobody awaited (a
// plugin that fired a call without `await`) is logged, through the logger so secrets are
// scrubbed, and the host keeps serving: one plugin's slip must not take the channel's chat and
// overlay down (Node would exit on it). An exception thrown outside every handler leaves the
// process in a state nobody knows, so, as Node advises, it is logged and the process stops
// gracefully and exits 1.
import type { Logger } from 'pino';

export interface FaultProcess {
  on(event: 'unhandledRejection' | 'uncaughtException', listener: (fault: unknown) => void): unknown;
  removeListener(event: 'unhandledRejection' | 'uncaughtException', listener: (fault: unknown) => void): unknown;
  exit(code: number): void;
}

export interface ProcessFaultOptions {
  logger: Logger;
  /** The graceful stop run after an uncaught exception. */
  stop: () => Promise<void>;
  /** Longest wait for `stop` before exiting anyway. Default 10 s. */
  timeoutMs?: number;
  process?: FaultProcess;
}

/** Installs the handlers; returns the function that removes them. */
export function handleProcessFaults(options: ProcessFaultOptions): () => void {
  const target: FaultProcess = options.process ?? process;
  const { logger } = options;
  const timeoutMs = options.timeoutMs ?? 10_000;
  let stopping = false;

  const onRejection = (reason: unknown): void => {
    logger.error({ err: reason }, 'a promise nobody awaited failed (a plugin calling without await?); still serving');
  };
  const onException = (error: unknown): void => {
    logger.fatal({ err: error }, 'uncaught exception: stopping');
    if (stopping) return;
    stopping = true;
    setTimeout(() => target.exit(1), timeoutMs).unref();
    options.stop().then(
      () => target.exit(1),
      (stopError: unknown) => {
        logger.error({ err: stopError }, 'shutdown failed');
        target.exit(1);
      },
    );
  };
  target.on('unhandledRejection', onRejection);
  target.on('uncaughtException', onException);
  return () => {
    target.removeListener('unhandledRejection', onRejection);
    target.removeListener('uncaughtException', onException);
  };
}
