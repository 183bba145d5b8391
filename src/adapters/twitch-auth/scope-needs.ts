// The OAuth scopes a token needs, each with why: `chatskin twitch auth` prints them before asking,
// and a token that lacks one is refused.

export interface ScopeNeed {
  scope: string;
  why: string;
}

/** The `needed` scopes that `granted` lacks. */
export function lackingScopes(granted: readonly string[], needed: readonly string[]): string[] {
  return needed.filter((scope) => !granted.includes(scope));
}
