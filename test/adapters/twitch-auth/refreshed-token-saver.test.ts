// Saving refreshed tokens (src/adapters/twitch-auth/refreshed-token-saver.ts) on a real folder,
// with time moved by hand: a save that failed is tried again until it works, never over a token
// another process saved meanwhile, and saves land in the order of the refreshes.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRefreshedTokenSaver } from '../../../src/adapters/twitch-auth/refreshed-token-saver.ts';
import { readTokenFile, writeTokenFile } from '../../../src/adapters/twitch-auth/token-file.ts';
import type { StoredTwitchToken } from '../../../src/adapters/twitch-auth/token-file.ts';
import { captureLogs } from '../../host/log-capture.ts';
import { ManualClock } from '../../host/manual-clock.ts';

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'chatskin-token-saver-'));
  file = path.join(dir, 'bot-token.json');
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const token = (accessToken: string): StoredTwitchToken => ({
  version: 1, clientId: 'client', userId: '1', login: 'bot', accessToken, refreshToken: `r-${accessToken}`,
  scope: ['chat:read'], expiresIn: 3600, obtainmentTimestamp: 1_700_000_000_000,
});

function setUp() {
  const clock = new ManualClock();
  const logs = captureLogs();
  const saver = createRefreshedTokenSaver({ file, whose: 'bot', retryMs: 5_000, log: logs.logger, clock });
  return { clock, logs, saver };
}

describe('the refreshed token saver', () => {
  it('tries a failed save again every retryMs until it works, saying it failed once', async () => {
    const { clock, logs, saver } = setUp();
    // Where the file goes, a folder (a full disk does the same).
    mkdirSync(file);
    await saver.save(token('refreshed'));
    expect(saver.failure()).toMatch(/^the refreshed token could not be saved to .*bot-token\.json: /);
    await clock.advance(5_000);
    await clock.advance(5_000);
    expect(logs.entries.filter((entry) => entry.level === 50)).toHaveLength(1);

    rmSync(file, { recursive: true });
    await clock.advance(5_000);
    await saver.flush();
    expect((await readTokenFile(file))?.accessToken).toBe('refreshed');
    expect(saver.failure()).toBeNull();
    expect(logs.entries.map((entry) => entry.msg)).toContain('saved the refreshed bot token, which could not be saved before');
    expect(clock.pendingTimers).toBe(0);
  });

  it('stops trying once the file holds a token another process saved', async () => {
    const { clock, saver } = setUp();
    mkdirSync(file);
    await saver.save(token('refreshed'));
    rmSync(file, { recursive: true });
    await writeTokenFile(file, token('from-twitch-auth'));
    saver.superseded();
    expect(saver.failure()).toBeNull();
    await clock.advance(15_000);
    await saver.flush();
    expect((await readTokenFile(file))?.accessToken).toBe('from-twitch-auth');
  });

  it('saves refreshes one at a time in their order, so the file ends with the newest', async () => {
    const { saver } = setUp();
    for (let n = 1; n <= 20; n++) void saver.save(token(`refresh-${n}`));
    await saver.flush();
    expect((await readTokenFile(file))?.accessToken).toBe('refresh-20');
  });

  it('tries no more after stop', async () => {
    const { clock, saver } = setUp();
    mkdirSync(file);
    await saver.save(token('refreshed'));
    saver.stop();
    rmSync(file, { recursive: true });
    await clock.advance(15_000);
    expect(clock.pendingTimers).toBe(0);
    expect(await readTokenFile(file)).toBeNull();
  });
});
