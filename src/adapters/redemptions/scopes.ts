// The OAuth scopes the broadcaster's token needs for channel-point redemptions, each with why.
// `chatskin twitch auth` asks for exactly these; docs/twitch-setup.md lists them.
import { lackingScopes } from '../twitch-auth/scope-needs.ts';
import type { ScopeNeed } from '../twitch-auth/scope-needs.ts';

export type { ScopeNeed } from '../twitch-auth/scope-needs.ts';

export const BROADCASTER_SCOPE_NEEDS: readonly ScopeNeed[] = Object.freeze([
  {
    scope: 'channel:read:redemptions',
    why: 'receive redemptions live (EventSub) and list the UNFULFILLED ones missed while the host was offline',
  },
  {
    scope: 'channel:manage:redemptions',
    why: 'create and update the rewards in the config, and mark their redemptions FULFILLED or CANCELED (refunded)',
  },
]);

export const BROADCASTER_SCOPES: readonly string[] = Object.freeze(BROADCASTER_SCOPE_NEEDS.map((need) => need.scope));

/** The needed scopes a token lacks. */
export function missingScopes(granted: readonly string[]): string[] {
  return lackingScopes(granted, BROADCASTER_SCOPES);
}
