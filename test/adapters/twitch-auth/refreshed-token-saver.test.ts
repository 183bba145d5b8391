// Saving refreshed tokens (src/adapters/twitch-auth/refreshed-token-saver.ts) on a real folder,
// with time moved by hand: a save that failed is tried again until it works, never over a token
// another process saved meanwhile, and saves land in the order of the refreshes.
import { mkdirSync, rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createRefreshedTokenSaver } from '../../../src/adapters/twitch-auth/refreshed-token-saver.ts';
import { readTokenFile, writeTokenFile } from '../../../src/adapters/twitch-auth/token-file.ts';
import { storedToken as token, useTokenFolder } from './token-folder.ts';
import { captureLogs } from '../../host/log-capture.ts';
import { ManualClock } from '../../host/manual-clock.ts';

const folder = useTokenFolder('chatskin-token-saver-');

function setUp() {
  const clock = new ManualClock();
  const logs = captureLogs();
  const saver = createRefreshedTokenSaver({ file: folder.file, whose: 'bot', retryMs: 5_000, log: logs.logger, clock });
  return { clock, logs, saver };
}

describe('the refreshed token saver', () => {
  it('tries a failed save again every retryMs until it works, saying it failed once', async () => {
    const { clock, logs, saver } = setUp();
    // Where the file goes, a folder (a full disk does the same).
    mkdirSync(folder.file);
    await saver.save(token('refreshed'));
    expect(saver.failure()).toMatch(/^the refreshed token could not be saved to .*bot-token\.json: /);
    await clock.advance(5_000);
    await clock.advance(5_000);
    expect(logs.entries.filter((entry) => entry.level === 50)).toHaveLength(1);

    rmSync(folder.file, { recursive: true });
    await clock.advance(5_000);
    await saver.flush();
    expect((await readTokenFile(folder.file))?.accessToken).toBe('refreshed');
    expect(saver.failure()).toBeNull();
    expect(logs.entries.map((entry) => entry.msg)).toContain('saved the refreshed bot token, which could not be saved before');
    expect(clock.pendingTimers).toBe(0);
  });

  it('stops trying once the file holds a token another process saved', async () => {
    const { clock, saver } = setUp();
    mkdirSync(folder.file);
    await saver.save(token('refreshed'));
    rmSync(folder.file, { recursive: true });
    await writeTokenFile(folder.file, token('from-twitch-auth'));
    saver.superseded();
    expect(saver.failure()).toBeNull();
    await clock.advance(15_000);
    await saver.flush();
    expect((await readTokenFile(folder.file))?.accessToken).toBe('from-twitch-auth');
  });

  it('does not write a save still queued over a token another process saved meanwhile', async () => {
    const { saver } = setUp();
    await writeTokenFile(folder.file, token('from-twitch-auth'));
    // The refresh's save is queued; the watch takes the file's token over before it runs.
    const queued = saver.save(token('refreshed'));
    saver.superseded();
    await queued;
    expect((await readTokenFile(folder.file))?.accessToken).toBe('from-twitch-auth');
  });

  it('saves refreshes one at a time in their order, so the file ends with the newest', async () => {
    const { saver } = setUp();
    for (let n = 1; n <= 20; n++) void saver.save(token(`refresh-${n}`));
    await saver.flush();
    expect((await readTokenFile(folder.file))?.accessToken).toBe('refresh-20');
  });

  it('tries no more after stop', async () => {
    const { clock, saver } = setUp();
    mkdirSync(folder.file);
    await saver.save(token('refreshed'));
    saver.stop();
    rmSync(folder.file, { recursive: true });
    await clock.advance(15_000);
    expect(clock.pendingTimers).toBe(0);
    expect(await readTokenFile(folder.file)).toBeNull();
  });
});
