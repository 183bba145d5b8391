// A listing that fits one chat message: as many names as the room and the cap allow, then "+N more".
import { describe, expect, it } from 'vitest';
import { fittedList } from '../../src/host/fitted-list.ts';

describe('fittedList', () => {
  it('lists every name when they fit', () => {
    expect(fittedList(['neon', 'dusk', 'sunny'], 100)).toBe('neon, dusk, sunny');
    expect(fittedList([], 100)).toBe('');
  });

  it('stops at the cap and says how many more', () => {
    expect(fittedList(['a', 'b', 'c', 'd'], 100, 2)).toBe('a, b +2 more');
  });

  it('stops where the next name and the "+N more" would pass the room', () => {
    const names = ['x'.repeat(40), 'y'.repeat(40), 'z'.repeat(40)];
    const listed = fittedList(names, 100);
    expect(listed).toBe(`${'x'.repeat(40)}, ${'y'.repeat(40)} +1 more`);
    expect(listed.length).toBeLessThanOrEqual(100);
    // Two names exactly fill 82 characters: the third then fits only without the tail.
    expect(fittedList(names, 124)).toBe(names.join(', '));
  });

  it('says only "+N more" when not even the first name fits', () => {
    expect(fittedList(['x'.repeat(50), 'y'], 20)).toBe('+2 more');
  });
});
