// The host-wide stall warning: a timer that should tick every `checkMs` notices when it ticks
// late, which means the thread was blocked (by a plugin's work after an await or in a timer, by
// the host, or by a machine that gave the process no CPU time) and nothing was served meanwhile.
// A timer of our own rather than perf_hooks' histogram: it says at once how long each stall was,
// and it can leave out the time slow-plugin-calls.ts already logged under a plugin's name.
// Costs one tick every checkMs, nothing per chat line; unref'd, so it never holds the process open.
//
// A late tick is also what a process that was not running at all sees: a laptop that slept, a VM
// paused or migrated, a process stopped (SIGSTOP). The CPU time the process used over the gap
// tells them apart: a blocked thread runs all along; a paused process used next to none. Those
// are said as what they are, not blamed on plugins or the host.
import type { Logger } from 'pino';

/** The thread blocked this long or longer, by anything, is logged. */
export const EVENT_LOOP_STALL_MS = 1_000;

/** Under this share of the gap in CPU time, the process was not running rather than blocked. */
const PAUSED_CPU_SHARE = 0.2;

export interface EventLoopStallOptions {
  thresholdMs: number;
  logger: Logger;
}

export interface EventLoopStalls {
  /** Time a plugin call held the thread and that was already logged under its name. */
  attributed(heldMs: number): void;
  stop(): void;
}

export function watchEventLoopStalls(options: EventLoopStallOptions): EventLoopStalls {
  const { thresholdMs, logger } = options;
  // A stall is measured to within one tick: a tenth of the threshold, at most every 100 ms.
  const checkMs = Math.max(1, Math.min(100, thresholdMs / 10));
  let last = performance.now();
  let lastCpu = process.cpuUsage();
  let attributed = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    const cpu = process.cpuUsage();
    const usedMs = (cpu.user - lastCpu.user + cpu.system - lastCpu.system) / 1000;
    // The tick was due checkMs after the last one; what lies beyond was a stall (at least).
    const gapMs = now - last - checkMs;
    const blockedMs = gapMs - attributed;
    last = now;
    lastCpu = cpu;
    attributed = 0;
    if (blockedMs < thresholdMs) return;
    const rounded = Math.round(blockedMs);
    if (usedMs < gapMs * PAUSED_CPU_SHARE) {
      logger.warn({ pausedMs: Math.round(gapMs), cpuMs: Math.round(usedMs) },
        `the host did not run for about ${Math.round(gapMs)} ms (it used next to no CPU meanwhile: the machine slept, `
        + 'the VM was paused or the process was stopped): chat, the overlay and the API waited meanwhile');
      return;
    }
    logger.warn({ blockedMs: rounded },
      `the host's thread was blocked for at least ${rounded} ms outside any plugin call the host times `
      + '(plugin work after an await or in a timer, the host\'s own work, or a machine short of CPU): '
      + 'chat, the overlay and the API waited meanwhile');
  }, checkMs);
  timer.unref();
  return {
    attributed(heldMs) {
      attributed += heldMs;
    },
    stop() {
      clearInterval(timer);
    },
  };
}
