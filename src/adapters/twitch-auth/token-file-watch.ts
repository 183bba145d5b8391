// Looking at a token file again and again for a token another process saved there (`chatskin
// twitch auth` while the host runs). The mechanics the broadcaster's token (broadcaster-auth.ts),
// the redemptions waiting for one (twitch-redemptions.ts) and the bot's chat token
// (bot-token-file.ts) share: a stat first, the file read only when that changed; one look at a
// time; the next look a while after the last one ended, so looks never pile up on a slow disk.
// What a changed file means (read it, is its token usable, take it, what to log) is the caller's.
import { systemClock } from '../../host/clock.ts';
import type { Clock, ScheduledTimer } from '../../host/clock.ts';
import { tokenFileFingerprint } from './token-file.ts';

export interface TokenFileWatchOptions {
  file: string;
  /** The wait between the end of one look and the next (repeat). */
  intervalMs: number;
  clock?: Clock;
  /** The file's fingerprint when the caller last read it; without it, the first look reads the file. */
  seen?: string;
  /** Fingerprints that are no change (a file gone for now): the one before stays the one compared with. */
  ignore?: (fingerprint: string) => boolean;
  /** The file changed since the last look (`previous` is null at the first): reads it; true when a token was taken. */
  changed: (fingerprint: string, previous: string | null) => Promise<boolean>;
  /** A look that threw (the file system); it took nothing. */
  failed: (error: unknown) => void;
}

export interface TokenFileWatch {
  /** Looks at the file now; while a look is under way, its answer instead of a second one. True when a token was taken. */
  look(): Promise<boolean>;
  /**
   * Looks every intervalMs (each wait starting when the look before ended) while `again` says
   * so. Called again, it replaces the wait already set and the `again` in use: there is one loop,
   * and a look still under way reports to the newest `again` (what it took is never lost).
   */
  repeat(again?: (taken: boolean) => boolean): void;
  /** No more looks from repeat, at once; resolves when a look under way is over. */
  stop(): Promise<void>;
  /** Resolves when no look is under way. */
  idle(): Promise<void>;
}

export function createTokenFileWatch(options: TokenFileWatchOptions): TokenFileWatch {
  const clock = options.clock ?? systemClock;
  /** The fingerprint at the last look that counted (null: none yet). */
  let seen: string | null = options.seen ?? null;
  let looking: Promise<boolean> | null = null;
  let timer: ScheduledTimer | null = null;
  let stopped = false;
  /** What the loop asks after each look (the one the latest repeat gave). */
  let again: (taken: boolean) => boolean = () => true;

  async function lookOnce(): Promise<boolean> {
    const fingerprint = await tokenFileFingerprint(options.file);
    if (fingerprint === seen || options.ignore?.(fingerprint)) return false;
    const previous = seen;
    seen = fingerprint;
    return options.changed(fingerprint, previous);
  }

  function look(): Promise<boolean> {
    looking ??= lookOnce().catch((error: unknown) => {
      options.failed(error);
      return false;
    }).finally(() => {
      looking = null;
    });
    return looking;
  }

  function arm(): void {
    timer = clock.schedule(() => {
      timer = null;
      void look().then((taken) => {
        if (stopped) return;
        if (!again(taken)) {
          // Done, even if a repeat meanwhile set a wait of its own.
          timer?.cancel();
          timer = null;
        } else if (timer === null) {
          arm();
        }
      });
    }, options.intervalMs);
  }

  function repeat(next: (taken: boolean) => boolean = () => true): void {
    timer?.cancel();
    timer = null;
    if (stopped) return;
    again = next;
    arm();
  }

  async function idle(): Promise<void> {
    await looking;
  }

  return {
    look,
    repeat,
    stop() {
      stopped = true;
      timer?.cancel();
      timer = null;
      return idle();
    },
    idle,
  };
}
