// A command's cooldowns remember chatters only while they cool down: a long-running host sees
// ever new chatters, so what it keeps per chatter must be let go once their windows are over.
import { describe, expect, it } from 'vitest';
import { CommandCooldown } from '../../src/host/command-cooldown.ts';

describe('command cooldown: memory stays bounded', () => {
  it('a chatter whose use was given back, after a blocked try during it, is not remembered for ever', () => {
    // !skin's: 10 s per viewer. Each viewer types it twice at once; the first only showed
    // something (bare !skin, a typo) and gives its cooldown back after the second was blocked.
    const cooldown = new CommandCooldown(0, 10);
    let now = 1_000_000;
    for (let viewer = 0; viewer < 3_000; viewer++) {
      const id = `viewer-${viewer}`;
      const use = cooldown.start(id, now);
      expect(cooldown.check(id, now + 1)).toEqual({ state: 'cooling', remainingMs: 9_999, notice: true });
      expect(cooldown.giveBack(use, now + 2)).toBe(true);
      now += 1_000;
    }
    // Every window is long over: one more use sweeps, and only what still cools down is left.
    now += 60_000;
    for (let viewer = 0; viewer < 1_100; viewer++) cooldown.start(`late-${viewer}`, now);
    expect(cooldown.remembered).toBeLessThanOrEqual(1_100 + 1_000);
  });

  it('chatters who only use a command are let go once their windows are over', () => {
    const cooldown = new CommandCooldown(3, 30);
    let now = 0;
    for (let viewer = 0; viewer < 5_000; viewer++) {
      const id = `viewer-${viewer}`;
      cooldown.start(id, now);
      cooldown.check(id, now + 1);
      now += 100;
    }
    // 30 s of chatters 100 ms apart are still cooling down; the sweep waits for 1,000 entries.
    expect(cooldown.remembered).toBeLessThanOrEqual(2 * (1_000 + 300));
  });
});
