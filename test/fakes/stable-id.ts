/**
 * A Twitch-looking numeric id derived from a name, the same on every run, so a
 * login or channel gets the same user-id / room-id in the fake chat and in tests
 * without anyone having to register it first.
 *
 *   stableNumericId('somechannel') -> '4829301127' (always the same digits)
 */
export function stableNumericId(name: string): string {
  // FNV-1a, 32 bit; prefixed with 1 so the id never starts with 0.
  let hash = 0x811c9dc5;
  const lower = name.toLowerCase();
  for (let i = 0; i < lower.length; i++) {
    hash ^= lower.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return '1' + String(hash).padStart(10, '0');
}
