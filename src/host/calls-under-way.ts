// Which plugin calls are still running, each with its plugin and what it is doing ("!roll"):
// nothing can end a call that never settles (plugins share the host's thread), so a stop that
// gives up waiting for one names it instead, for the plugin's author.
import type { Logger } from 'pino';
import type { TimePluginCall } from './slow-plugin-calls.ts';

export interface CallUnderWay {
  plugin: string;
  doing: string;
  /** The call's own logger (it carries the plugin's name and more). */
  log: Logger;
}

export interface CallsUnderWay {
  /** Times a call as `time` does, and lists it until the promise it returned settles. */
  readonly time: TimePluginCall;
  /** The calls whose promise has not settled yet. */
  list(): CallUnderWay[];
}

export function trackCallsUnderWay(time: TimePluginCall): CallsUnderWay {
  const underWay = new Map<Promise<unknown>, CallUnderWay>();
  return {
    time: (plugin, doing, log, call) => {
      const result = time(plugin, doing, log, call);
      if (result instanceof Promise) {
        underWay.set(result, { plugin, doing, log });
        const settled = (): void => {
          underWay.delete(result);
        };
        result.then(settled, settled);
      }
      return result;
    },
    list: () => [...underWay.values()],
  };
}
