import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ViewerIdentity } from '../../src/adapters/chat-event-mapping.ts';
import { createViewerRegistrationQueue } from '../../src/adapters/viewer-registration-queue.ts';
import { runFixtureProcess } from '../support/run-fixture-process.ts';

const CHILD = fileURLToPath(new URL('./fixtures/registration-queue-child.ts', import.meta.url));

const viewer = (id: number, login = `viewer_${id}`): ViewerIdentity => ({ twitchUserId: String(id), login, displayName: login.toUpperCase() });

/** Every viewer answered as registered, as the service answers a batch. */
const allRegistered = async (viewers: ViewerIdentity[]): Promise<Array<PromiseSettledResult<unknown>>> =>
  viewers.map((v) => ({ status: 'fulfilled', value: v }));

/** A register function that records each viewer with the call (batch) and turn it came in. */
function recorder(fail: (viewer: ViewerIdentity) => boolean = () => false) {
  let turn = 0;
  let batches = 0;
  const calls: Array<{ viewer: ViewerIdentity; turn: number; batch: number }> = [];
  const failures: Array<{ viewer: ViewerIdentity; error: unknown }> = [];
  const tick = setInterval(() => turn++, 1);
  return {
    calls,
    failures,
    register: async (registered: ViewerIdentity[]): Promise<Array<PromiseSettledResult<unknown>>> => {
      batches++;
      for (const v of registered) calls.push({ viewer: v, turn, batch: batches });
      await Promise.resolve();
      return registered.map((v) => (fail(v)
        ? { status: 'rejected', reason: new Error(`cannot register ${v.login}`) }
        : { status: 'fulfilled', value: v }));
    },
    onError: (failed: ViewerIdentity, error: unknown) => failures.push({ viewer: failed, error }),
    stop: () => clearInterval(tick),
  };
}

describe('viewer registration queue', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('holds chatters for at most delayMs, then sends them all in one turn', async () => {
    vi.useFakeTimers();
    const sent: ViewerIdentity[][] = [[]];
    const queue = createViewerRegistrationQueue({
      register: async (viewers) => {
        sent.at(-1)!.push(...viewers);
        return allRegistered(viewers);
      },
      onError: () => {},
      delayMs: 100,
    });
    queue.add(viewer(1));
    await vi.advanceTimersByTimeAsync(60);
    queue.add(viewer(2));
    expect(sent[0]).toEqual([]);
    expect(queue.pending).toBe(2);
    await vi.advanceTimersByTimeAsync(40); // 100 ms after the first one
    expect(sent[0]!.map((v) => v.twitchUserId)).toEqual(['1', '2']);
    expect(queue.pending).toBe(0);
    sent.push([]);
    queue.add(viewer(3));
    await vi.advanceTimersByTimeAsync(99);
    expect(sent[1]).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(sent[1]!.map((v) => v.twitchUserId)).toEqual(['3']);
  });

  it('sends at once when maxPending chatters wait', async () => {
    const record = recorder();
    const queue = createViewerRegistrationQueue({ ...record, delayMs: 60_000, maxPending: 3 });
    queue.add(viewer(1));
    queue.add(viewer(2));
    expect(record.calls).toHaveLength(0);
    queue.add(viewer(3));
    expect(record.calls.map((c) => c.viewer.twitchUserId)).toEqual(['1', '2', '3']);
    // In one call, so the service registers them in one transaction.
    expect(new Set(record.calls.map((c) => c.batch)).size).toBe(1);
    await queue.stop();
    record.stop();
  });

  it('keeps the newest name of a chatter seen twice while waiting, and sends them once', async () => {
    const record = recorder();
    const queue = createViewerRegistrationQueue({ ...record, delayMs: 60_000 });
    queue.add(viewer(1, 'old_name'));
    queue.add(viewer(2));
    queue.add(viewer(1, 'new_name'));
    await queue.flush();
    expect(record.calls.map((c) => c.viewer.login)).toEqual(['viewer_2', 'new_name']);
    record.stop();
  });

  it('reports each failed registration and still sends the others', async () => {
    const record = recorder((v) => v.twitchUserId === '2');
    const queue = createViewerRegistrationQueue({ ...record, delayMs: 60_000 });
    for (const id of [1, 2, 3]) queue.add(viewer(id));
    await queue.flush();
    expect(record.calls).toHaveLength(3);
    expect(record.failures.map((f) => f.viewer.twitchUserId)).toEqual(['2']);
    expect(String(record.failures[0]!.error)).toContain('cannot register viewer_2');
    record.stop();
  });

  it('reports every chatter of a call that failed as a whole', async () => {
    const failures: string[] = [];
    const queue = createViewerRegistrationQueue({
      register: async () => {
        throw new Error('the database is gone');
      },
      onError: (v, error) => failures.push(`${v.twitchUserId}: ${(error as Error).message}`),
      delayMs: 60_000,
    });
    for (const id of [1, 2]) queue.add(viewer(id));
    await queue.flush();
    expect(failures).toEqual(['1: the database is gone', '2: the database is gone']);
  });

  it('stop() sends what waits and resolves only once every registration settled; later chatters go at once', async () => {
    let settle: () => void = () => {};
    const settled: string[] = [];
    const queue = createViewerRegistrationQueue({
      register: (viewers) => new Promise((resolve) => {
        settle = () => {
          settled.push(...viewers.map((v) => v.twitchUserId));
          void allRegistered(viewers).then(resolve);
        };
      }),
      onError: () => {},
      delayMs: 60_000,
    });
    queue.add(viewer(1));
    let stopped = false;
    const stopping = queue.stop().then(() => {
      stopped = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(stopped).toBe(false);
    settle();
    await stopping;
    expect(settled).toEqual(['1']);
    queue.add(viewer(2));
    expect(queue.pending).toBe(0);
    settle();
  });

  it('does not keep the process alive while chatters wait', async () => {
    const { code, out, err } = await runFixtureProcess(CHILD);
    expect(err).toBe('');
    expect(out.trim()).toBe('waiting: 1');
    expect(code).toBe(0);
  });

  it('registeredFor sends a waiting chatter at once and resolves when theirs settled; nothing to wait for otherwise', async () => {
    let release = (): void => {};
    const sent: string[][] = [];
    const queue = createViewerRegistrationQueue({
      register: (viewers) => {
        sent.push(viewers.map((v) => v.login));
        return new Promise((resolve) => { release = () => resolve(viewers.map((v) => ({ status: 'fulfilled', value: v }))); });
      },
      onError: () => {},
      delayMs: 60_000,
    });
    queue.add(viewer(1));
    queue.add(viewer(2));
    expect(queue.registeredFor('3')).toBeUndefined();
    const first = queue.registeredFor('1');
    // Sent now, with whoever else waited, not after the minute's delay.
    expect(sent).toEqual([['viewer_1', 'viewer_2']]);
    let settled = false;
    void first!.then(() => { settled = true; });
    await Promise.resolve();
    expect(settled).toBe(false);
    // Asked again while under way: the same wait.
    expect(queue.registeredFor('2')).toBe(first);
    release();
    await first;
    expect(settled).toBe(true);
    await Promise.resolve();
    expect(queue.registeredFor('1')).toBeUndefined();
    await queue.stop();
  });

  it('refuses a bad delay or bound', () => {
    const base = { register: allRegistered, onError: () => {} };
    expect(() => createViewerRegistrationQueue({ ...base, delayMs: -1 })).toThrow(RangeError);
    expect(() => createViewerRegistrationQueue({ ...base, maxPending: 0 })).toThrow(RangeError);
    expect(() => createViewerRegistrationQueue({ ...base, maxPending: 1.5 })).toThrow(RangeError);
  });
});
