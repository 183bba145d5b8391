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

  it('keeps at most maxEntries chatters, forgetting the least recently seen', () => {
    const filter = createViewerRegistrationFilter(2);
    const viewer = (id: string) => ({ twitchUserId: id, login: `v${id}` });
    filter.needsRegistering(viewer('1'));
    filter.needsRegistering(viewer('2'));
    filter.needsRegistering(viewer('1'));
    filter.needsRegistering(viewer('3'));
    expect(filter.needsRegistering(viewer('1'))).toBe(false);
    expect(filter.needsRegistering(viewer('2'))).toBe(true);
    expect(() => createViewerRegistrationFilter(0)).toThrow(RangeError);
  });
});
