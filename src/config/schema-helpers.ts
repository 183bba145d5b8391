// Small zod builders for config sections whose errors say what is allowed in the file's own
// terms ("must be a whole number from 1 to 65535", "unknown key ...; allowed keys: ...").
import { isIP } from 'node:net';
import { z } from 'zod';
import { unknownKeysMessage } from './config-error.ts';

/** A mapping that refuses unknown keys (typos) and names the keys it allows. */
export function section<Shape extends z.ZodRawShape>(shape: Shape) {
  const allowed = Object.keys(shape);
  return z.strictObject(shape, {
    error: (issue) => {
      if (issue.code === 'unrecognized_keys') return unknownKeysMessage(issue.keys, allowed);
      if (issue.code === 'invalid_type') return 'must be a mapping (indented "key: value" lines)';
      return undefined;
    },
  });
}

export function integer(min: number, max: number) {
  const allowed = `must be a whole number from ${min} to ${max}`;
  return z.number({ error: allowed }).int({ error: allowed }).min(min, { error: allowed }).max(max, { error: allowed });
}

export function flag() {
  return z.boolean({ error: 'must be true or false' });
}

export function text(what: string) {
  return z.string({ error: `must be ${what}` }).min(1, { error: `must be ${what}, not empty` });
}

/** A Twitch login in any case; stored lowercase. */
export function twitchLogin() {
  const allowed = 'must be a Twitch login: 1 to 25 letters, digits or _';
  return z.string({ error: allowed }).regex(/^[A-Za-z0-9_]{1,25}$/, { error: allowed }).transform((login) => login.toLowerCase());
}

/** An absolute URL whose scheme is one of `schemes`. */
export function url(schemes: readonly string[], example: string) {
  const allowed = `must be a ${schemes.join(' or ')} URL such as ${example}`;
  return z.string({ error: allowed }).refine((value) => {
    try {
      return schemes.includes(new URL(value).protocol.replace(/:$/, ''));
    } catch {
      return false;
    }
  }, { error: allowed });
}

export function oneOf<const Values extends readonly [string, ...string[]]>(values: Values) {
  return z.enum(values, { error: `must be one of ${values.join(', ')}` });
}

const PROXY_TRUST = 'must be false, true, or a list of proxy addresses (IPs or CIDR ranges such as 10.0.0.0/8)';

/** An IP address, or a CIDR range of them: what Fastify's trustProxy list takes. */
function isAddressOrRange(value: string): boolean {
  const slash = value.indexOf('/');
  if (slash === -1) return isIP(value) !== 0;
  const version = isIP(value.slice(0, slash));
  const bits = value.slice(slash + 1);
  return version !== 0 && /^\d{1,3}$/.test(bits) && Number(bits) <= (version === 4 ? 32 : 128);
}

/**
 * Whom to believe about the client's address behind a reverse proxy (Fastify's trustProxy):
 * false, true (every hop), or the proxies' addresses. No hop count: Fastify ignores one, as it
 * cannot tell a proxy from a client that sends the header itself. Checked here, so a mistyped
 * address is a config error rather than a crash at start.
 */
export function proxyTrust() {
  const address = 'must be an IP address or a CIDR range such as 10.0.0.0/8';
  return z.union([
    z.boolean(),
    z.array(z.string({ error: address }).refine(isAddressOrRange, { error: address })),
  ], {
    // A list is of the allowed form: its entry that is not an address is named (http.trustProxy[1]), not the whole list.
    error: (issue) => (issue.code === 'invalid_union' && Array.isArray(issue.input) ? undefined : PROXY_TRUST),
  });
}

export function isPlainMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
