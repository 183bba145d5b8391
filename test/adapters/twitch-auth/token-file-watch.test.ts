// The token-file watch's own rules, against real files in a temporary folder and the manual clock:
// the file counts as changed only when its fingerprint did (ignored ones not at all), one look at
// a time, the next look a while after the one before ended, and stop. What a change means is the
// caller's; here `changed` only records what it was told.
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { NO_TOKEN_FILE, tokenFileFingerprint } from '../../../src/adapters/twitch-auth/token-file.ts';
import { createTokenFileWatch } from '../../../src/adapters/twitch-auth/token-file-watch.ts';
import type { TokenFileWatchOptions } from '../../../src/adapters/twitch-auth/token-file-watch.ts';
import { ManualClock, settle } from '../../host/manual-clock.ts';

const INTERVAL_MS = 1_000;
/** vi.waitFor on a look that reads the file (real I/O, off the manual clock): generous, as a loaded machine may need. */
const LOOKED = { timeout: 10_000 };

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'chatskin-token-watch-'));
  file = join(dir, 'token.json');
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

interface Change {
  fingerprint: string;
  previous: string | null;
}

/** A watch whose `changed` records each call and answers with `answer` (false unless set). */
function watchWith(options: Partial<TokenFileWatchOptions> & { answer?: (change: Change) => Promise<boolean> } = {}) {
  const changes: Change[] = [];
  const failures: unknown[] = [];
  const { answer, ...rest } = options;
  const watch = createTokenFileWatch({
    file,
    intervalMs: INTERVAL_MS,
    changed: async (fingerprint, previous) => {
      const change = { fingerprint, previous };
      changes.push(change);
      return answer ? answer(change) : false;
    },
    failed: (error) => failures.push(error),
    ...rest,
  });
  return { watch, changes, failures };
}

describe('a look at the token file', () => {
  it('calls `changed` only when the fingerprint changed, with the one before (null at the first look)', async () => {
    writeFileSync(file, 'one');
    const { watch, changes } = watchWith();
    const first = await tokenFileFingerprint(file);

    await watch.look();
    expect(changes).toEqual([{ fingerprint: first, previous: null }]);
    await watch.look();
    expect(changes).toHaveLength(1);

    writeFileSync(file, 'two, longer');
    const second = await tokenFileFingerprint(file);
    await watch.look();
    rmSync(file);
    await watch.look();
    expect(changes).toEqual([
      { fingerprint: first, previous: null },
      { fingerprint: second, previous: first },
      { fingerprint: NO_TOKEN_FILE, previous: second },
    ]);
  });

  it('starting from `seen`, the file as it is then is no change', async () => {
    writeFileSync(file, 'one');
    const { watch, changes } = watchWith({ seen: await tokenFileFingerprint(file) });
    await watch.look();
    expect(changes).toEqual([]);
  });

  it('an ignored fingerprint is no change: the file back as it was is not read again', async () => {
    writeFileSync(file, 'one');
    const { watch, changes } = watchWith({ ignore: (fingerprint) => fingerprint === NO_TOKEN_FILE });
    await watch.look();
    expect(changes).toHaveLength(1);

    // A rename keeps the inode, size and mtime: back, it is the file read before.
    renameSync(file, `${file}.away`);
    await watch.look();
    renameSync(`${file}.away`, file);
    await watch.look();
    expect(changes).toHaveLength(1);
  });

  it('one look at a time: a caller while one is under way gets its answer', async () => {
    writeFileSync(file, 'one');
    const reading = Promise.withResolvers<boolean>();
    const { watch, changes } = watchWith({ answer: () => reading.promise });

    const first = watch.look();
    const second = watch.look();
    expect(second).toBe(first);
    reading.resolve(true);
    expect(await first).toBe(true);
    expect(changes).toHaveLength(1);
  });

  it('a look that throws is reported, takes nothing, and the next look is a new one', async () => {
    writeFileSync(file, 'one');
    const broken = new Error('disk gone');
    let calls = 0;
    const { watch, changes, failures } = watchWith({ answer: async () => { calls++; if (calls === 1) throw broken; return true; } });

    expect(await watch.look()).toBe(false);
    expect(failures).toEqual([broken]);
    writeFileSync(file, 'two, longer');
    expect(await watch.look()).toBe(true);
    expect(changes).toHaveLength(2);
  });
});

describe('repeated looks', () => {
  it('the first look comes intervalMs after repeat, the next intervalMs after the one before ended', async () => {
    writeFileSync(file, 'one');
    const clock = new ManualClock();
    const reading = Promise.withResolvers<boolean>();
    const { watch, changes } = watchWith({ clock, answer: () => reading.promise });

    watch.repeat();
    await clock.advance(INTERVAL_MS - 1);
    expect(clock.pendingTimers).toBe(1);
    await clock.advance(1);
    await vi.waitFor(() => expect(changes).toHaveLength(1), LOOKED);

    // While that look is under way no other is set, however long it takes.
    expect(clock.pendingTimers).toBe(0);
    await clock.advance(INTERVAL_MS * 5);
    expect(changes).toHaveLength(1);

    reading.resolve(false);
    await vi.waitFor(() => expect(clock.pendingTimers).toBe(1), LOOKED);
    writeFileSync(file, 'two, longer');
    await clock.advance(INTERVAL_MS);
    await vi.waitFor(() => expect(changes).toHaveLength(2), LOOKED);
  });

  it('goes on while `again` says so; `again` is told whether the look took a token', async () => {
    writeFileSync(file, 'one');
    const clock = new ManualClock();
    const { watch, changes } = watchWith({ clock, answer: async () => changes.length === 2 });
    const told: boolean[] = [];

    watch.repeat((taken) => {
      told.push(taken);
      return !taken;
    });
    await clock.advance(INTERVAL_MS);
    await vi.waitFor(() => expect(clock.pendingTimers).toBe(1), LOOKED);
    writeFileSync(file, 'two, longer');
    await clock.advance(INTERVAL_MS);
    await vi.waitFor(() => expect(told).toEqual([false, true]), LOOKED);
    expect(clock.pendingTimers).toBe(0);

    writeFileSync(file, 'three, longer still');
    await clock.advance(INTERVAL_MS * 5);
    expect(changes).toHaveLength(2);
  });

  it('repeat while a look is under way: one loop, and that look reports to the newest `again`', async () => {
    writeFileSync(file, 'one');
    const clock = new ManualClock();
    const reading = Promise.withResolvers<boolean>();
    const { watch, changes } = watchWith({ clock, answer: () => reading.promise });
    const toldOld: boolean[] = [];
    const toldNew: boolean[] = [];

    watch.repeat((taken) => { toldOld.push(taken); return true; });
    await clock.advance(INTERVAL_MS);
    await vi.waitFor(() => expect(changes).toHaveLength(1), LOOKED);
    watch.repeat((taken) => { toldNew.push(taken); return !taken; });
    expect(clock.pendingTimers).toBe(1);

    // The look under way takes a token: the newest `again` hears of it and ends the loop.
    reading.resolve(true);
    await vi.waitFor(() => expect(toldNew).toEqual([true]), LOOKED);
    expect(toldOld).toEqual([]);
    expect(clock.pendingTimers).toBe(0);
    writeFileSync(file, 'two, longer');
    await clock.advance(INTERVAL_MS * 5);
    expect(changes).toHaveLength(1);
  });

  it('repeat again replaces the wait already set', () => {
    const clock = new ManualClock();
    const { watch } = watchWith({ clock });
    watch.repeat();
    watch.repeat();
    expect(clock.pendingTimers).toBe(1);
  });
});

describe('stop', () => {
  it('cancels the wait at once, and repeat after it sets none', () => {
    const clock = new ManualClock();
    const { watch } = watchWith({ clock });
    watch.repeat();
    void watch.stop();
    expect(clock.pendingTimers).toBe(0);
    watch.repeat();
    expect(clock.pendingTimers).toBe(0);
  });

  it('resolves once the look under way is over, which then sets no further wait', async () => {
    writeFileSync(file, 'one');
    const clock = new ManualClock();
    const reading = Promise.withResolvers<boolean>();
    const { watch, changes } = watchWith({ clock, answer: () => reading.promise });
    let askedAgain = false;

    watch.repeat(() => {
      askedAgain = true;
      return true;
    });
    await clock.advance(INTERVAL_MS);
    await vi.waitFor(() => expect(changes).toHaveLength(1), LOOKED);

    let stopped = false;
    void watch.stop().then(() => { stopped = true; });
    await settle();
    expect(stopped).toBe(false);
    reading.resolve(false);
    await vi.waitFor(() => expect(stopped).toBe(true), LOOKED);
    await settle();
    expect(askedAgain).toBe(false);
    expect(clock.pendingTimers).toBe(0);
  });

  it('idle waits for the look under way without stopping', async () => {
    writeFileSync(file, 'one');
    const clock = new ManualClock();
    const reading = Promise.withResolvers<boolean>();
    const { watch } = watchWith({ clock, answer: () => reading.promise });

    const look = watch.look();
    let idle = false;
    void watch.idle().then(() => { idle = true; });
    await settle();
    expect(idle).toBe(false);
    reading.resolve(false);
    await look;
    await vi.waitFor(() => expect(idle).toBe(true), LOOKED);
    watch.repeat();
    expect(clock.pendingTimers).toBe(1);
  });
});
