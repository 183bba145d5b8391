// The OAuth scopes the bot's chat token needs, each with why. `chatskin twitch auth --bot` asks for
// exactly these; a token file lacking one is not used.
import { lackingScopes } from '../twitch-auth/scope-needs.ts';
import type { ScopeNeed } from '../twitch-auth/scope-needs.ts';

export const BOT_SCOPE_NEEDS: readonly ScopeNeed[] = Object.freeze([
  { scope: 'chat:read', why: 'read the chat of the channels the bot joins (the commands, the overlay)' },
  { scope: 'chat:edit', why: 'send the bot\'s replies' },
]);

export const BOT_SCOPES: readonly string[] = Object.freeze(BOT_SCOPE_NEEDS.map((need) => need.scope));

/** The needed scopes a token lacks. */
export function missingBotScopes(granted: readonly string[]): string[] {
  return lackingScopes(granted, BOT_SCOPES);
}
