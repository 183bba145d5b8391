// The call line (src/client/call-line.ts) after an outage has ended: once a failed call is over
// and nothing is under way, calls made one after another go in order again. Before, the line
// stayed "side by side" until some call was answered, so the first burst of `!style` commands
// after a restarted service could take effect in the wrong order (found by
// remote-faults.property.test.ts: the overlay ended on the first width typed, not the last).
import { describe, expect, it } from 'vitest';
import { CallLine } from '../../src/client/call-line.ts';
import type { LineRefusal, LineTurn } from '../../src/client/call-line.ts';

const turn = async (entry: Promise<LineTurn | LineRefusal> | LineTurn | LineRefusal): Promise<LineTurn> => {
  const settled = await entry;
  if (settled.refused) throw new Error('refused');
  return settled;
};

describe('the call line after a failed call', () => {
  it('lets calls go side by side while the failure is under way, and in order once nothing is', async () => {
    const line = new CallLine({ sleep: async () => {}, maxWaitMs: 60_000, closureMs: (ms) => ms, holdMs: 60_000 });
    const failing = await turn(line.enter(1, 2, false));
    failing.done('failed');
    // Nothing is under way now: the next two calls go one at a time, in the order made.
    const first = await turn(line.enter(2, 2, false));
    let secondWent = false;
    const second = turn(line.enter(3, 2, false)).then((t) => { secondWent = true; return t; });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(secondWent).toBe(false);
    first.done('answered');
    (await second).done('answered');
    expect(secondWent).toBe(true);
  });

  it('while a call is failing, calls waiting go at once', async () => {
    const line = new CallLine({ sleep: async () => {}, maxWaitMs: 60_000, closureMs: (ms) => ms, holdMs: 60_000 });
    const first = await turn(line.enter(1, 2, false));
    const second = turn(line.enter(2, 2, false));
    const third = turn(line.enter(3, 2, false));
    first.done('failed');
    const [a, b] = await Promise.all([second, third]);
    // Both went together; a call made while they are under way goes at once too.
    const fourth = await turn(line.enter(4, 2, false));
    for (const t of [a, b, fourth]) t.done('failed');
  });
});
