// twurple's RefreshingAuthProvider, refreshing a user's token once at a time. twurple answers every
// Helix 401 with a refresh of its own (BaseApiClient calls refreshAccessTokenForUser directly, past
// the token fetcher that keeps its expiry-based refreshes apart), so calls that Twitch refuses
// together (two statuses, the two listings of a reward sync, a subscription) each spend the same
// refresh token. Where Twitch makes a refresh token one-use, every refresh but the first is then
// refused, and twurple refuses the user's calls from then on, though the first one got a good
// token. Here a refresh asked for while one is under way gets that one's answer; a token put in
// with addUser (a token taken over from the file) is refreshed anew, never with the one before's.
import { extractUserId } from '@twurple/api';
import type { UserIdResolvable } from '@twurple/api';
import { RefreshingAuthProvider } from '@twurple/auth';
import type { AccessTokenWithUserId } from '@twurple/auth';

export class OneRefreshAuthProvider extends RefreshingAuthProvider {
  /** The refresh under way, per user id. */
  readonly #refreshing = new Map<string, Promise<AccessTokenWithUserId>>();

  override addUser(user: UserIdResolvable, initialToken: Parameters<RefreshingAuthProvider['addUser']>[1], intents?: string[]): void {
    // A refresh still under way spends the token before: it is not this token's refresh.
    this.#refreshing.delete(extractUserId(user));
    super.addUser(user, initialToken, intents);
  }

  override refreshAccessTokenForUser(user: UserIdResolvable): Promise<AccessTokenWithUserId> {
    const userId = extractUserId(user);
    const under = this.#refreshing.get(userId);
    if (under) return under;
    const refresh = super.refreshAccessTokenForUser(userId).finally(() => {
      if (this.#refreshing.get(userId) === refresh) this.#refreshing.delete(userId);
    });
    this.#refreshing.set(userId, refresh);
    return refresh;
  }
}
