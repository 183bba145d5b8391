import { describe, expect, it } from 'vitest';
import { createViewerRegistrationFilter } from '../../src/adapters/viewer-registration-filter.ts';

const alice = { twitchUserId: '101', login: 'alice', displayName: 'Alice' };

describe('viewer registration filter', () => {
  it('registers a chatter once, and again after a rename or a new display name', () => {
    const filter = createViewerRegistrationFilter();
    expect(filter.needsRegistering(alice)).toBe(true);
    expect(filter.needsRegistering({ ...alice })).toBe(false);
    expect(filter.needsRegistering({ ...alice, login: 'alice_2' })).toBe(true);
    expect(filter.needsRegistering({ ...alice, login: 'alice_2', displayName: 'ALICE_2' })).toBe(true);
    expect(filter.needsRegistering({ ...alice, login: 'alice_2', displayName: 'ALICE_2' })).toBe(false);
  });

  it('tries again after a failed registration is forgotten', () => {
    const filter = createViewerRegistrationFilter();
    filter.needsRegistering(alice);
    filter.forget(alice.twitchUserId);
    expect(filter.needsRegistering(alice)).toBe(true);
  });

  it('tries again after a failed registration is forgotten, also when newer chatters pushed it into the previous generation meanwhile', () => {
    const filter = createViewerRegistrationFilter(4);
    expect(filter.needsRegistering(alice)).toBe(true);
    // While alice's registration is on its way, two more chatters start a new generation.
    for (const id of ['102', '103']) filter.needsRegistering({ twitchUserId: id, login: `v${id}` });
    filter.forget(alice.twitchUserId);
    expect(filter.needsRegistering(alice)).toBe(true);
  });

  it('remembers every chatter among the last maxEntries / 2, forgets older ones, and never holds more than maxEntries', () => {
    const filter = createViewerRegistrationFilter(4);
    const viewer = (id: string) => ({ twitchUserId: id, login: `v${id}` });
    const seen = (id: string) => !filter.needsRegistering(viewer(id));
    for (const id of ['1', '2']) expect(seen(id)).toBe(false);
    expect(seen('1')).toBe(true);
    for (const id of ['3', '4']) expect(seen(id)).toBe(false); // 1 and 2 are now the previous generation
    expect(seen('1')).toBe(true); // found there, and moved back to the current one (3 and 4 become the previous)
    expect(seen('2')).toBe(false); // its generation was dropped: forgotten, registered again
    expect(seen('3')).toBe(true); // previous generation (3, 4) again; moving 3 back drops 4's with it...
    expect(seen('4')).toBe(false); // ...as 4 is no longer among the last two remembered (2, 3)
    // With a bound of 4, a fifth distinct chatter always pushes someone out.
    for (const id of ['5', '6', '7', '8']) filter.needsRegistering(viewer(id));
    expect(['1', '2', '3', '4', '5', '6', '7', '8'].filter((id) => seen(id)).length).toBeLessThanOrEqual(4);
    expect(() => createViewerRegistrationFilter(1)).toThrow(RangeError);
  });
});
