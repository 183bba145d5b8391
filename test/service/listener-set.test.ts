import { describe, expect, it } from 'vitest';
import { createListenerSet } from '../../src/service/listener-set.ts';

describe('createListenerSet', () => {
  it('calls every listener; one that throws is reported and the others still hear the event', () => {
    const errors: Array<[string, number]> = [];
    const set = createListenerSet<number>((error, event) => errors.push([(error as Error).message, event]));
    const heard: string[] = [];
    set.subscribe((n) => heard.push(`a${n}`));
    set.subscribe(() => {
      throw new Error('boom');
    });
    set.subscribe((n) => heard.push(`c${n}`));
    set.emit(1);
    expect(heard).toEqual(['a1', 'c1']);
    expect(errors).toEqual([['boom', 1]]);
  });

  it('a listener that unsubscribes itself while handling does not make its neighbour miss the event', () => {
    const set = createListenerSet<number>(() => {});
    const heard: string[] = [];
    const unsubscribeFirst = set.subscribe((n) => {
      heard.push(`first${n}`);
      unsubscribeFirst();
    });
    set.subscribe((n) => heard.push(`second${n}`));
    set.emit(1);
    set.emit(2);
    expect(heard).toEqual(['first1', 'second1', 'second2']);
  });

  it('a listener subscribed while an event is being emitted hears only the later events', () => {
    const set = createListenerSet<number>(() => {});
    const heard: string[] = [];
    set.subscribe((n) => {
      heard.push(`outer${n}`);
      if (n === 1) set.subscribe((m) => heard.push(`inner${m}`));
    });
    set.emit(1);
    set.emit(2);
    expect(heard).toEqual(['outer1', 'outer2', 'inner2']);
  });

  it('subscribing the same listener twice calls it once; unsubscribing twice is harmless', () => {
    const set = createListenerSet<number>(() => {});
    const heard: number[] = [];
    const listener = (n: number) => heard.push(n);
    const unsubscribe = set.subscribe(listener);
    set.subscribe(listener);
    set.emit(1);
    unsubscribe();
    unsubscribe();
    set.emit(2);
    expect(heard).toEqual([1]);
  });
});
