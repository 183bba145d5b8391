// ctx.every: a plugin's repeating work (an announcement every few minutes) on the host's clock,
// so tests move it with their clock, and with the lifecycle a plugin author would otherwise
// write by hand and get wrong: a run that throws or rejects is logged under the plugin's name and
// the timer goes on (thrown from a bare setInterval it would stop chatskin); a run still under way
// when the next is due is skipped, never doubled; every timer ends when the plugin is switched
// off or the host stops, so no teardown is needed for it.
import type { Logger } from 'pino';
import type { Clock, ScheduledTimer } from './clock.ts';
import { errorText } from './error-text.ts';
import type { TimePluginCall } from './slow-plugin-calls.ts';

/** Shortest interval: chat lines more often than this are spam, and Twitch would refuse them anyway. */
export const MIN_TIMER_INTERVAL_MS = 1_000;
/** Longest interval: a day (a timer far beyond it is a unit mistake, seconds given as milliseconds' thousands). */
export const MAX_TIMER_INTERVAL_MS = 24 * 60 * 60 * 1000;

export interface PluginTimers {
  /** Starts `run` every `intervalMs` for `plugin`; returns what cancels it. */
  every(plugin: PluginTimerOwner, intervalMs: number, run: () => unknown): () => void;
  /** Cancels every timer (the host stops). */
  stopAll(): void;
}

export interface PluginTimerOwner {
  name: string;
  log: Logger;
  /** The plugin was switched off: its timers end. */
  isOff(): boolean;
}

export interface PluginTimersOptions {
  clock: Clock;
  timePluginCall: TimePluginCall;
  /** Told of each run as it starts (a promise that never rejects), so a stop can wait for it. */
  onRun?(run: Promise<void>): void;
}

export function createPluginTimers(options: PluginTimersOptions): PluginTimers {
  const { clock, timePluginCall, onRun } = options;
  const cancels = new Set<() => void>();
  let stopped = false;

  return {
    every(plugin, intervalMs, run) {
      if (typeof intervalMs !== 'number' || !Number.isInteger(intervalMs) || intervalMs < MIN_TIMER_INTERVAL_MS || intervalMs > MAX_TIMER_INTERVAL_MS) {
        throw new TypeError(`ctx.every: the interval must be a whole number of milliseconds from ${MIN_TIMER_INTERVAL_MS} to ${MAX_TIMER_INTERVAL_MS} (a day), got ${String(intervalMs)}`);
      }
      if (typeof run !== 'function') throw new TypeError('ctx.every: the second argument must be the function to run');
      if (stopped) {
        plugin.log.error(`plugin ${plugin.name} started a timer after the host stopped: ignored`);
        return () => {};
      }
      let timer: ScheduledTimer | null = null;
      let running = false;
      /** When the run under way started. */
      let runStartedAt = 0;
      /** A skipped run was warned about: the first says a run is stuck, or slower than its interval; later ones are debug lines. */
      let skipWarned = false;
      let cancelled = false;
      const cancel = (): void => {
        cancelled = true;
        timer?.cancel();
        timer = null;
        cancels.delete(cancel);
      };
      const tick = (): void => {
        timer = null;
        if (cancelled) return;
        if (plugin.isOff()) {
          cancel();
          return;
        }
        arm();
        if (running) {
          const runningMs = clock.now() - runStartedAt;
          if (skipWarned) {
            plugin.log.debug({ intervalMs, runningMs }, `plugin ${plugin.name}'s timer is still running from before: this run is skipped`);
          } else {
            // A run that never settles would otherwise end the timer without a word.
            skipWarned = true;
            plugin.log.warn({ intervalMs, runningMs }, `plugin ${plugin.name}'s timer (every ${intervalMs} ms) is still running from its run ${runningMs} ms ago: `
              + 'this run is skipped, and so is every next one until that run finishes');
          }
          return;
        }
        running = true;
        runStartedAt = clock.now();
        const runs = (async () => {
          try {
            await timePluginCall(plugin.name, `its timer (every ${intervalMs} ms)`, plugin.log, run);
          } catch (error) {
            plugin.log.error({ err: error }, `plugin ${plugin.name}'s timer failed: ${errorText(error)}; it runs again at the next interval`);
          } finally {
            running = false;
          }
        })();
        onRun?.(runs);
      };
      const arm = (): void => {
        timer = clock.schedule(tick, intervalMs);
      };
      arm();
      cancels.add(cancel);
      return cancel;
    },

    stopAll() {
      stopped = true;
      for (const cancel of [...cancels]) cancel();
    },
  };
}
