// RecentSet keeps the newest `limit` entries, forgetting the oldest in the order they were added.
import { describe, expect, it } from 'vitest';
import { RecentSet } from '../../src/host/recent-set.ts';

describe('RecentSet', () => {
  it('keeps every entry up to its limit, then forgets the oldest for each new one', () => {
    const set = new RecentSet<string>(3);
    for (const item of ['a', 'b', 'c']) expect(set.add(item)).toBe(true);
    expect([...set]).toEqual(['a', 'b', 'c']);
    set.add('d');
    set.add('e');
    expect([...set]).toEqual(['c', 'd', 'e']);
    expect(set.size).toBe(3);
    expect(set.has('a')).toBe(false);
    expect(set.has('b')).toBe(false);
    expect(set.has('c')).toBe(true);
  });

  it('stays at its limit however many entries it is given', () => {
    const set = new RecentSet<number>(64);
    for (let item = 0; item < 2000; item++) set.add(item);
    expect(set.size).toBe(64);
    expect([...set]).toEqual(Array.from({ length: 64 }, (_, index) => 2000 - 64 + index));
  });

  it('adding an entry it has changes nothing: it is not made newer, and nothing is forgotten', () => {
    const set = new RecentSet<string>(2);
    set.add('old');
    set.add('new');
    expect(set.add('old')).toBe(false);
    expect([...set]).toEqual(['old', 'new']);
    set.add('newest');
    expect([...set]).toEqual(['new', 'newest']);
  });

  it('renewing an entry makes it the newest (added when missing), so the next forgotten is another', () => {
    const set = new RecentSet<string>(2);
    set.add('old');
    set.add('new');
    expect(set.renew('old')).toBe(false);
    expect([...set]).toEqual(['new', 'old']);
    expect(set.renew('newest')).toBe(true);
    expect([...set]).toEqual(['old', 'newest']);
  });

  it('refuses a limit that could keep nothing', () => {
    expect(() => new RecentSet(0)).toThrow(RangeError);
    expect(() => new RecentSet(1.5)).toThrow(RangeError);
  });
});
