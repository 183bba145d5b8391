// Statuses asked for in one turn go to Twitch in calls of at most 50 ids per reward and status;
// ids Twitch did not change count as already resolved; a failed call fails each of its ids.
import { describe, expect, it } from 'vitest';
import { createStatusBatcher } from '../../src/host/redemptions/status-batcher.ts';
import type { RedemptionStatusUpdate } from '../../src/host/redemptions/channel-points.ts';

interface Call {
  rewardId: string;
  ids: string[];
  status: RedemptionStatusUpdate;
}

function recording(answer: (call: Call) => string[] | Error = (call) => call.ids) {
  const calls: Call[] = [];
  const sent: string[][] = [];
  const batcher = createStatusBatcher({
    send: async (rewardId, ids, status) => {
      const call = { rewardId, ids: [...ids], status };
      calls.push(call);
      const result = answer(call);
      if (result instanceof Error) throw result;
      return result;
    },
    afterSent: async (ids) => {
      sent.push([...ids]);
    },
  });
  return { batcher, calls, sent };
}

describe('the status batcher', () => {
  it('sends 120 statuses of one reward in calls of 50, 50 and 20', async () => {
    const { batcher, calls, sent } = recording();
    const ids = Array.from({ length: 120 }, (_, i) => `r${i}`);
    const results = await Promise.all(ids.map((id) => batcher.send('w1', id, 'FULFILLED')));
    expect(results.every((r) => r === 'changed')).toBe(true);
    expect(calls.map((c) => c.ids.length)).toEqual([50, 50, 20]);
    expect(calls.flatMap((c) => c.ids)).toEqual(ids);
    expect(sent.flat()).toEqual(ids);
  });

  it('keeps rewards and statuses apart, and sends a repeated id once', async () => {
    const { batcher, calls } = recording();
    await Promise.all([
      batcher.send('w1', 'a', 'FULFILLED'), batcher.send('w1', 'b', 'CANCELED'), batcher.send('w2', 'c', 'FULFILLED'),
      batcher.send('w1', 'a', 'FULFILLED'),
    ]);
    expect(calls).toEqual([
      { rewardId: 'w1', ids: ['a'], status: 'FULFILLED' },
      { rewardId: 'w1', ids: ['b'], status: 'CANCELED' },
      { rewardId: 'w2', ids: ['c'], status: 'FULFILLED' },
    ]);
  });

  it('answers already-resolved for ids Twitch did not change', async () => {
    const { batcher } = recording((call) => call.ids.filter((id) => id !== 'b'));
    expect(await Promise.all(['a', 'b'].map((id) => batcher.send('w1', id, 'FULFILLED')))).toEqual(['changed', 'already-resolved']);
  });

  it('fails every id of a failed call, and records none of them as sent', async () => {
    const { batcher, sent } = recording(() => new Error('Twitch answered 500'));
    const results = await Promise.allSettled(['a', 'b'].map((id) => batcher.send('w1', id, 'CANCELED')));
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(sent).toEqual([]);
    await batcher.drain();
  });
});
