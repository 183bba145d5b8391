// Which plugin held the thread: the host times the synchronous part of each call it makes into a
// plugin (setup, a command or redemption handler, a teardown), from the call until it returns its
// value or promise, and names the plugin when that took too long. Nothing can interrupt such a
// call (plugins share the host's thread), but the operator learns whom to blame. Work after the
// plugin's first await is not in it: event-loop-stalls.ts reports that, without a name.
import type { Logger } from 'pino';

/** A plugin call that holds the thread this long or longer is logged. A tenth of a second is what a chatter or a viewer starts to notice. */
export const SLOW_PLUGIN_CALL_MS = 100;

export interface SlowPluginCallOptions {
  thresholdMs: number;
  /** Told how long each call that was logged held the thread, so the stall check does not report it again. */
  onSlow?(heldMs: number): void;
}

/**
 * Runs `call` and returns (or throws) what it did; when it held the thread for `thresholdMs` or
 * more, `log` (which carries the plugin's name already) gets one warning naming `plugin` and
 * what it was `doing` ("!roll", "its setup").
 */
export type TimePluginCall = <T>(plugin: string, doing: string, log: Logger, call: () => T) => T;

export function createPluginCallTimer(options: SlowPluginCallOptions): TimePluginCall {
  const { thresholdMs, onSlow } = options;
  return (plugin, doing, log, call) => {
    // Two clock reads per call: cheap enough for every command.
    const started = performance.now();
    try {
      return call();
    } finally {
      const heldMs = performance.now() - started;
      if (heldMs >= thresholdMs) {
        const rounded = Math.round(heldMs);
        log.warn({ doing, heldMs: rounded },
          `plugin ${plugin} held the host's thread for ${rounded} ms running ${doing}: chat, the overlay and the API waited meanwhile`);
        onSlow?.(heldMs);
      }
    }
  };
}
