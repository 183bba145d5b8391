// Saving a refreshed Twitch token back to its token file: the bot's (bot-token-file.ts) and the
// broadcaster's (broadcaster-auth.ts). Twitch may retire the old refresh token at a refresh, so a
// refreshed token that could not be saved (a full disk, something in the way) is tried again
// every retryMs until it, or a newer one, is saved: a fault that passes must not leave the file
// with a refresh token a restart would fail on. Saves run one at a time in the order given, so a
// slow save never lands after a newer one.
import type { Logger } from 'pino';
import { systemClock } from '../../host/clock.ts';
import type { Clock, ScheduledTimer } from '../../host/clock.ts';
import { errorText } from '../../host/error-text.ts';
import { writeTokenFile } from './token-file.ts';
import type { StoredTwitchToken } from './token-file.ts';

export interface RefreshedTokenSaverOptions {
  file: string;
  /** Whose token, for the log lines: "bot" or "broadcaster". */
  whose: string;
  /** The wait between a failed try and the next. */
  retryMs: number;
  log: Logger;
  clock?: Clock;
}

export interface RefreshedTokenSaver {
  /** Saves the newest refreshed token; resolves once this first try is over, saved or not (or passed over for a newer one). */
  save(token: StoredTwitchToken): Promise<void>;
  /** The file holds a newer token another process saved (`chatskin twitch auth`): ours is no longer tried. */
  superseded(): void;
  /** Why the newest refreshed token is not saved yet, and what that means; null when it is. */
  failure(): string | null;
  /** Resolves when no save is queued or under way. */
  flush(): Promise<void>;
  /** No more tries after a failure (a save under way finishes). */
  stop(): void;
}

export function createRefreshedTokenSaver(options: RefreshedTokenSaverOptions): RefreshedTokenSaver {
  const { file, whose, log } = options;
  const clock = options.clock ?? systemClock;
  /** The token that should be in the file; null once another process saved a newer one. */
  let newest: StoredTwitchToken | null = null;
  let failure: string | null = null;
  let saving: Promise<void> = Promise.resolve();
  let retry: ScheduledTimer | null = null;
  let stopped = false;

  function cancelRetry(): void {
    retry?.cancel();
    retry = null;
  }

  function attempt(token: StoredTwitchToken, again: boolean): Promise<void> {
    saving = saving.then(async () => {
      // A newer refresh is queued behind this one, or the file holds a token saved elsewhere since.
      if (token !== newest) return;
      try {
        await writeTokenFile(file, token);
        if (token === newest) failure = null;
        log.info(again ? `saved the refreshed ${whose} token, which could not be saved before` : `refreshed the ${whose}'s Twitch token and saved it`);
      } catch (error) {
        // A newer token is queued behind this one, or the file holds one from elsewhere.
        if (token !== newest) return;
        const why = errorText(error);
        failure = `the refreshed token could not be saved to ${file}: ${why}; it is saved as soon as it can be (tried every few seconds); `
          + 'it is used meanwhile, and after a restart before then the old one may no longer work';
        // Said once; the tries after it would fill the log.
        if (!again) {
          log.error(`refreshed the ${whose}'s Twitch token but could not save it (${why}): it is saved as soon as it can be `
            + '(tried every few seconds); it is used meanwhile, and after a restart before then the old one may no longer work');
        }
        if (stopped) return;
        retry = clock.schedule(() => {
          retry = null;
          if (!stopped && token === newest) void attempt(token, true);
        }, options.retryMs);
      }
    });
    return saving;
  }

  return {
    save(token) {
      newest = token;
      cancelRetry();
      return attempt(token, false);
    },
    superseded() {
      newest = null;
      failure = null;
      cancelRetry();
    },
    failure: () => failure,
    flush: () => saving,
    stop() {
      stopped = true;
      cancelRetry();
    },
  };
}
